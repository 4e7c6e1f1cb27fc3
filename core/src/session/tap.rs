//! A tap on a connection: what a layer above the client watches of every event the connection
//! delivers (the pool's count of running turns and its view of an endpoint's health). Called
//! on the connection's reader before the event is delivered, so it must be quick and never
//! block; it sees each notification once, whichever queue (turn stream, subscription, the
//! client's own) then takes it.

use crate::event::{ConnectionEvent, Notification};

/// Watches one connection's notifications and connection events.
pub(crate) trait Tap: Send + Sync {
    /// A notification, before it is delivered (after a rejoin's repeats are dropped).
    fn notification(&self, note: &Notification);
    /// A connection event (reconnecting, reconnected, the final disconnect, ...).
    fn connection(&self, event: &ConnectionEvent);
}
