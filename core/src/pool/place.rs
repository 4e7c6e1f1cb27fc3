//! Placement: which endpoint takes a new thread. Least busy first (running turns plus
//! placements still waiting for their first turn), ties broken in turn so equal endpoints
//! share the work evenly; an endpoint at its limit, overloaded a moment ago or not accepting
//! is passed over.

use std::time::Instant;

/// One candidate as placement sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Candidate {
    /// Takes new threads (active and healthy).
    pub(super) accepts: bool,
    /// Running turns plus fresh placements.
    pub(super) busy: usize,
    /// Limit on running turns (0: none).
    pub(super) limit: usize,
    /// Passed over until then (it answered overloaded).
    pub(super) overloaded_until: Option<Instant>,
}

/// Why nothing was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NoChoice {
    /// No endpoint accepts threads (none, all lost, draining or removed): fail at once.
    NoneAccepting,
    /// Endpoints accept but each is at its limit or overloaded: wait for capacity; the
    /// earliest time an overloaded one may be tried again, if any.
    AllBusy(Option<Instant>),
}

/// The index of the endpoint to place on. `start` rotates the tie-break (the caller passes a
/// counter it increments per placement).
pub(super) fn choose(
    candidates: &[Candidate],
    start: usize,
    now: Instant,
) -> Result<usize, NoChoice> {
    let n = candidates.len();
    let mut best: Option<(usize, usize)> = None;
    let mut any_accepting = false;
    let mut retry_at: Option<Instant> = None;
    for k in 0..n {
        let i = (start + k) % n;
        let c = &candidates[i];
        if !c.accepts {
            continue;
        }
        any_accepting = true;
        if let Some(t) = c.overloaded_until.filter(|t| *t > now) {
            retry_at = Some(retry_at.map_or(t, |r| r.min(t)));
            continue;
        }
        if c.limit > 0 && c.busy >= c.limit {
            continue;
        }
        if best.is_none_or(|(_, b)| c.busy < b) {
            best = Some((i, c.busy));
        }
    }
    match best {
        Some((i, _)) => Ok(i),
        None if any_accepting => Err(NoChoice::AllBusy(retry_at)),
        None => Err(NoChoice::NoneAccepting),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn c(busy: usize, limit: usize) -> Candidate {
        Candidate {
            accepts: true,
            busy,
            limit,
            overloaded_until: None,
        }
    }

    #[test]
    fn the_least_busy_wins_and_ties_rotate() {
        let now = Instant::now();
        assert_eq!(choose(&[c(2, 0), c(1, 0), c(3, 0)], 0, now), Ok(1));
        let even = [c(0, 0), c(0, 0), c(0, 0)];
        let picks: Vec<usize> = (0..6).map(|s| choose(&even, s, now).unwrap()).collect();
        assert_eq!(picks, [0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn limits_overload_and_health_pass_an_endpoint_over() {
        let now = Instant::now();
        let later = now + Duration::from_secs(1);
        let mut over = c(0, 0);
        over.overloaded_until = Some(later);
        let mut down = c(0, 0);
        down.accepts = false;
        assert_eq!(choose(&[c(2, 2), over, down, c(5, 6)], 0, now), Ok(3));
        assert_eq!(
            choose(&[c(2, 2), over], 0, now),
            Err(NoChoice::AllBusy(Some(later)))
        );
        assert_eq!(choose(&[c(1, 1)], 0, now), Err(NoChoice::AllBusy(None)));
        assert_eq!(choose(&[down], 0, now), Err(NoChoice::NoneAccepting));
        assert_eq!(choose(&[], 0, now), Err(NoChoice::NoneAccepting));
        // Once its backoff has passed, the overloaded endpoint is a candidate again.
        assert_eq!(choose(&[over], 0, later), Ok(0));
    }
}
