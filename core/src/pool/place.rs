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
    let mut least: Vec<usize> = Vec::new();
    let mut least_busy = usize::MAX;
    let mut any_accepting = false;
    let mut retry_at: Option<Instant> = None;
    for (i, c) in candidates.iter().enumerate() {
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
        if c.busy < least_busy {
            least_busy = c.busy;
            least.clear();
        }
        if c.busy == least_busy {
            least.push(i);
        }
    }
    // The tie is broken among the tied endpoints only, so endpoints passed over (overloaded,
    // at their limit, draining) do not tilt the rotation towards their neighbours.
    match least.len() {
        0 if any_accepting => Err(NoChoice::AllBusy(retry_at)),
        0 => Err(NoChoice::NoneAccepting),
        k => Ok(least[start % k]),
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
    fn an_endpoint_passed_over_does_not_tilt_the_rotation() {
        let now = Instant::now();
        let mut over = c(0, 0);
        over.overloaded_until = Some(now + Duration::from_secs(1));
        let picks: Vec<usize> = (0..6)
            .map(|s| choose(&[c(0, 0), c(0, 0), over], s, now).unwrap())
            .collect();
        assert_eq!(picks.iter().filter(|i| **i == 0).count(), 3, "{picks:?}");
        assert_eq!(picks.iter().filter(|i| **i == 1).count(), 3, "{picks:?}");
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
