//! What a reconnect needs to rejoin: the threads loaded on the connection (to resume them),
//! and what each running turn has delivered, so that the turn goes on after the rejoin
//! without a gap (items completed while the connection was down come from the resumed
//! history) and without duplicates (an item or turn event already delivered is dropped).
//!
//! Only kept when the client reconnects ([`ClientOptions::reconnect`](crate::ClientOptions)).
//! The app-server's rules ([`AppServerRules`](super::AppServerRules)) keep it and answer the
//! reconnect's questions with it (`Rules::resumptions`, `Rules::resumed`).

use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use crate::event::Notification;
use crate::rules::{Resumed, Resumption};

/// The delivered events of one running turn.
#[derive(Default)]
struct Seen {
    turn_id: String,
    started: HashSet<String>,
    completed: HashSet<String>,
}

/// Loaded threads and running turns of one connection.
#[derive(Default)]
pub(crate) struct Continuity {
    /// Thread ids in the order they were loaded.
    threads: Mutex<Vec<String>>,
    /// The running turn of each thread.
    turns: Mutex<HashMap<String, Seen>>,
    /// The last turn of each thread whose `turn/completed` was delivered.
    finished: Mutex<HashMap<String, String>>,
}

#[derive(serde::Deserialize)]
struct WithThread<'a> {
    #[serde(borrow)]
    thread: IdOf<'a>,
}

#[derive(serde::Deserialize)]
pub(super) struct WithTurn<'a> {
    #[serde(rename = "threadId", borrow)]
    thread_id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    pub(super) turn: IdOf<'a>,
}

#[derive(serde::Deserialize)]
struct WithItem<'a> {
    #[serde(rename = "threadId", borrow)]
    thread_id: std::borrow::Cow<'a, str>,
    #[serde(rename = "turnId", borrow)]
    turn_id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    item: IdOf<'a>,
}

#[derive(serde::Deserialize)]
pub(super) struct IdOf<'a> {
    #[serde(borrow)]
    pub(super) id: std::borrow::Cow<'a, str>,
}

#[derive(serde::Deserialize)]
struct ThreadParam {
    #[serde(rename = "threadId")]
    thread_id: String,
}

#[derive(serde::Deserialize)]
struct RequestWithParams {
    params: ThreadParam,
}

impl Continuity {
    /// Follow a successful result: threads loaded by `thread/start`, `thread/resume` and
    /// `thread/fork`, unloaded by `thread/unsubscribe`, `thread/archive` and `thread/delete`.
    pub(crate) fn observe_result(&self, method: &str, request_line: &[u8], result: &RawValue) {
        match method {
            "thread/start" | "thread/resume" | "thread/fork" => {
                if let Ok(r) = serde_json::from_str::<WithThread>(result.get()) {
                    let mut threads = self.threads.lock().unwrap();
                    if !threads.iter().any(|t| *t == r.thread.id) {
                        threads.push(r.thread.id.into_owned());
                    }
                }
            }
            "thread/unsubscribe" | "thread/archive" | "thread/delete" => {
                if let Ok(r) = serde_json::from_slice::<RequestWithParams>(request_line) {
                    self.forget_thread(&r.params.thread_id);
                }
            }
            _ => {}
        }
    }

    /// Stop following a thread (unloaded, or it could not be resumed).
    pub(crate) fn forget_thread(&self, thread_id: &str) {
        self.threads.lock().unwrap().retain(|t| t != thread_id);
        self.turns.lock().unwrap().remove(thread_id);
    }

    /// The threads to resume after a reconnect.
    pub(crate) fn threads(&self) -> Vec<String> {
        self.threads.lock().unwrap().clone()
    }

    /// Record a notification about to be delivered; false when it repeats one already
    /// delivered (drop it).
    pub(crate) fn admit(&self, n: &Notification) -> bool {
        match n.method.as_str() {
            "turn/started" => {
                let Ok(t) = serde_json::from_str::<WithTurn>(n.params.get()) else {
                    return true;
                };
                let mut turns = self.turns.lock().unwrap();
                if turns
                    .get(t.thread_id.as_ref())
                    .is_some_and(|s| s.turn_id == t.turn.id)
                    || self.is_finished(&t.thread_id, &t.turn.id)
                {
                    return false;
                }
                turns.insert(
                    t.thread_id.into_owned(),
                    Seen {
                        turn_id: t.turn.id.into_owned(),
                        ..Seen::default()
                    },
                );
                true
            }
            "item/started" | "item/completed" => {
                let Ok(i) = serde_json::from_str::<WithItem>(n.params.get()) else {
                    return true;
                };
                if self.is_finished(&i.thread_id, &i.turn_id) {
                    return false;
                }
                let mut turns = self.turns.lock().unwrap();
                let seen = turns
                    .entry(i.thread_id.into_owned())
                    .or_insert_with(|| Seen {
                        turn_id: i.turn_id.to_string(),
                        ..Seen::default()
                    });
                if seen.turn_id != i.turn_id {
                    *seen = Seen {
                        turn_id: i.turn_id.into_owned(),
                        ..Seen::default()
                    };
                }
                let set = if n.method == "item/started" {
                    &mut seen.started
                } else {
                    &mut seen.completed
                };
                set.insert(i.item.id.into_owned())
            }
            "turn/completed" => {
                let Ok(t) = serde_json::from_str::<WithTurn>(n.params.get()) else {
                    return true;
                };
                if self.is_finished(&t.thread_id, &t.turn.id) {
                    return false;
                }
                let mut turns = self.turns.lock().unwrap();
                if turns
                    .get(t.thread_id.as_ref())
                    .is_some_and(|s| s.turn_id == t.turn.id)
                {
                    turns.remove(t.thread_id.as_ref());
                }
                self.finished
                    .lock()
                    .unwrap()
                    .insert(t.thread_id.into_owned(), t.turn.id.into_owned());
                true
            }
            "thread/closed" => {
                if let Ok(t) = serde_json::from_str::<ThreadParam>(n.params.get()) {
                    self.forget_thread(&t.thread_id);
                }
                true
            }
            _ => true,
        }
    }

    fn is_finished(&self, thread_id: &str, turn_id: &str) -> bool {
        self.finished
            .lock()
            .unwrap()
            .get(thread_id)
            .is_some_and(|t| t == turn_id)
    }

    /// The events that fill the gap of `thread_id`'s running turn from a `thread/resume`
    /// result (`Err`: why the resume failed): `item/completed` for every item of the turn not
    /// delivered yet, then its `turn/completed` when it ended meanwhile. A turn the server no
    /// longer has (it restarted, or the resume failed) ends `interrupted` with an error
    /// saying why. Events are returned in order; pass each through [`admit`](Self::admit).
    pub(crate) fn gap_events(
        &self,
        thread_id: &str,
        resumed: std::result::Result<&Value, &str>,
        restarted: bool,
    ) -> Vec<Notification> {
        let (turn_id, completed) = match self.turns.lock().unwrap().get(thread_id) {
            Some(s) => (s.turn_id.clone(), s.completed.clone()),
            None => return Vec::new(),
        };
        let mut out = Vec::new();
        let turn = resumed.ok().and_then(|r| {
            r["thread"]["turns"]
                .as_array()?
                .iter()
                .find(|t| t["id"].as_str() == Some(turn_id.as_str()))
                .cloned()
        });
        let lost = |why: String| {
            json!({
                "id": turn_id, "status": "interrupted", "items": [],
                "error": {"message": why, "codexErrorInfo": null, "additionalDetails": null},
            })
        };
        let ended = match turn {
            Some(mut turn) => {
                if let Some(items) = turn["items"].as_array() {
                    for item in items {
                        let Some(id) = item["id"].as_str() else {
                            continue;
                        };
                        if !completed.contains(id) {
                            out.push(notification(
                                "item/completed",
                                json!({"threadId": thread_id, "turnId": turn_id, "item": item}),
                            ));
                        }
                    }
                }
                match turn["status"].as_str() {
                    Some("inProgress") if !restarted => None,
                    _ => {
                        if restarted && turn["error"].is_null() {
                            turn["error"] = json!({
                                "message": "connection lost: the server restarted and the turn did not finish",
                                "codexErrorInfo": null, "additionalDetails": null,
                            });
                            if turn["status"] == "inProgress" {
                                turn["status"] = "interrupted".into();
                            }
                        }
                        Some(turn)
                    }
                }
            }
            None => match resumed {
                Err(why) => Some(lost(format!(
                    "connection lost: the thread could not be resumed ({why})"
                ))),
                Ok(_) if restarted => Some(lost(
                    "connection lost: the server restarted and no longer has the turn".into(),
                )),
                Ok(_) => None,
            },
        };
        if let Some(turn) = ended {
            out.push(notification(
                "turn/completed",
                json!({"threadId": thread_id, "turn": turn}),
            ));
        }
        out
    }
}

impl Continuity {
    /// What the `thread/resume` of `thread_id` came to (see [`gap_events`](Self::gap_events)):
    /// the gap's events, and the turns they end (`(thread, turn, status)`).
    pub(crate) fn resumed(
        &self,
        thread_id: &str,
        resumed: std::result::Result<&Value, &str>,
        restarted: bool,
    ) -> Resumed {
        let events = self.gap_events(thread_id, resumed, restarted);
        let ended = events
            .iter()
            .filter(|n| n.method == TURN_COMPLETED)
            .map(|n| {
                let p: Value = serde_json::from_str(n.params.get()).unwrap_or_default();
                let status = p["turn"]["status"].as_str().unwrap_or_default().to_owned();
                let turn = p["turn"]["id"].as_str().unwrap_or_default().to_owned();
                (thread_id.to_owned(), turn, status)
            })
            .collect();
        Resumed { events, ended }
    }

    /// The `thread/resume` requests of a rejoin: one per loaded thread.
    pub(crate) fn resumptions(&self) -> Vec<Resumption> {
        self.threads()
            .into_iter()
            .map(|thread| {
                let params = serde_json::json!({ "threadId": thread });
                Resumption {
                    method: THREAD_RESUME,
                    params: serde_json::value::to_raw_value(&params).expect("params serialize"),
                    what: thread,
                }
            })
            .collect()
    }
}

/// The request that resumes a thread on a new connection.
const THREAD_RESUME: &str = "thread/resume";
/// The notification that ends a turn.
pub(super) const TURN_COMPLETED: &str = "turn/completed";

fn notification(method: &str, params: Value) -> Notification {
    Notification::new(
        method,
        serde_json::value::to_raw_value(&params).expect("params serialize"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(method: &str, params: Value) -> Notification {
        notification(method, params)
    }

    #[test]
    fn repeats_are_dropped_and_the_gap_is_filled_from_the_history() {
        let c = Continuity::default();
        let started = n(
            "turn/started",
            json!({"threadId": "t", "turn": {"id": "u", "status": "inProgress"}}),
        );
        assert!(c.admit(&started));
        assert!(!c.admit(&started), "a repeated turn/started is dropped");
        let item = |id: &str| {
            n(
                "item/completed",
                json!({"threadId": "t", "turnId": "u", "item": {"id": id, "type": "agentMessage"}}),
            )
        };
        assert!(c.admit(&item("a")));
        assert!(!c.admit(&item("a")));
        // The history has a (delivered) and b (completed while disconnected); the turn ended.
        let resumed = json!({"thread": {"turns": [{"id": "u", "status": "completed", "items": [
            {"id": "a", "type": "agentMessage"}, {"id": "b", "type": "agentMessage"}]}]}});
        let gap = c.gap_events("t", Ok(&resumed), false);
        let methods: Vec<_> = gap.iter().map(|e| e.method.as_str()).collect();
        assert_eq!(methods, ["item/completed", "turn/completed"]);
        assert!(gap[0].params.get().contains("\"b\""));
        for e in &gap {
            assert!(c.admit(e));
        }
        // The live copies that may still arrive are repeats.
        assert!(!c.admit(&item("b")));
        assert!(!c.admit(&gap[1]));
    }

    #[test]
    fn a_turn_the_restarted_server_lost_ends_interrupted_with_a_reason() {
        let c = Continuity::default();
        assert!(c.admit(&n(
            "turn/started",
            json!({"threadId": "t", "turn": {"id": "u"}})
        )));
        let resumed = json!({"thread": {"turns": [{"id": "u", "status": "interrupted", "items": [], "error": null}]}});
        let gap = c.gap_events("t", Ok(&resumed), true);
        assert_eq!(gap.len(), 1);
        let p: Value = serde_json::from_str(gap[0].params.get()).unwrap();
        assert_eq!(p["turn"]["status"], "interrupted");
        assert!(p["turn"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("restarted"));
        // A failed resume ends it too.
        let c = Continuity::default();
        c.admit(&n(
            "turn/started",
            json!({"threadId": "t", "turn": {"id": "u"}}),
        ));
        let gap = c.gap_events("t", Err("no rollout"), false);
        assert!(gap[0].params.get().contains("no rollout"));
        // No running turn: nothing to fill.
        assert!(c.gap_events("x", Ok(&json!({})), true).is_empty());
    }

    #[test]
    fn loaded_threads_follow_results() {
        let c = Continuity::default();
        let raw = |s: &str| RawValue::from_string(s.into()).unwrap();
        c.observe_result("thread/start", b"", &raw(r#"{"thread":{"id":"a"}}"#));
        c.observe_result("thread/fork", b"", &raw(r#"{"thread":{"id":"b"}}"#));
        c.observe_result("thread/resume", b"", &raw(r#"{"thread":{"id":"a"}}"#));
        assert_eq!(c.threads(), ["a", "b"]);
        c.observe_result(
            "thread/unsubscribe",
            br#"{"id":3,"method":"thread/unsubscribe","params":{"threadId":"a"}}"#,
            &raw("{}"),
        );
        assert_eq!(c.threads(), ["b"]);
    }
}
