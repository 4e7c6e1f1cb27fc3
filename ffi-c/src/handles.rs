//! The one registry of the handles the library hands to C programs.
//!
//! Every handle kind goes through it: `codex_options_t`, `codex_client_t` and
//! `codex_request_t`, `codex_login_t`, `codex_oauth_answer_t`, `codex_mcp_listen_t` and `codex_pool_t` are *tokens*, never addresses: a token names its kind and a serial number
//! that is never reused, and the object lives in this registry (shared, `Arc`) until it is
//! freed. So a NULL, freed, foreign or wrong-kind pointer is reported as
//! `CODEX_STATUS_INVALID_ARGUMENT` and never dereferenced, and a call racing the free of its
//! handle keeps the object alive until it returns.
//!
//! A token is `0xFF` in the top byte (kernel addresses on every Linux target: no pointer to a
//! program's memory, such as the old public options struct, can equal one), then 4 bits of
//! kind, then the serial, then 4 zero bits (aligned like an allocation).
//!
//! Events (`codex_event_t`) are the exception, explicitly: they are directly owned
//! allocations (their accessors run on every event and dereference them without a lookup).
//! [`hand_out`] and [`take_back`] keep the set of events the program owns, so that freeing an
//! event twice, or freeing a callback's borrowed event, is detected and ignored; reading a
//! freed event is undefined, as for any C object.
//!
//! A C handle type opts in with [`Handle`] (the C type names its Rust type, its kind and how
//! a stale pointer is explained): `handles::get::<codex_client_t>(ptr, "client")`.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use crate::error::{invalid_arg, Fail};
use crate::util::lock;

/// The kinds of token handles (the number is in the token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `codex_options_t`.
    Options = 1,
    /// `codex_client_t`.
    Client = 2,
    /// `codex_request_t`.
    Request = 3,
    /// `codex_login_t`.
    Login = 4,
    /// `codex_oauth_answer_t`.
    OAuthAnswer = 5,
    /// `codex_mcp_listen_t`.
    Listen = 6,
    /// `codex_pool_t`.
    Pool = 7,
}

impl Kind {
    fn of(n: usize) -> Option<Kind> {
        [
            Kind::Options,
            Kind::Client,
            Kind::Request,
            Kind::Login,
            Kind::OAuthAnswer,
            Kind::Listen,
            Kind::Pool,
        ]
        .into_iter()
        .find(|k| *k as usize == n)
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Options => "codex_options_t",
            Kind::Client => "codex_client_t",
            Kind::Request => "codex_request_t",
            Kind::Login => "codex_login_t",
            Kind::OAuthAnswer => "codex_oauth_answer_t",
            Kind::Listen => "codex_mcp_listen_t",
            Kind::Pool => "codex_pool_t",
        }
    }
}

/// A C handle type backed by the registry.
pub(crate) trait Handle: Sized + 'static {
    /// The Rust object a handle stands for.
    type Target: Send + Sync + 'static;
    /// Its kind.
    const KIND: Kind;
    /// Appended to the argument's name when the handle is not live (freed, or never made by
    /// this library): it says what the program probably did.
    const NOT_LIVE: &'static str;
    /// The live objects of this kind.
    fn table() -> &'static Table<Self::Target>;
}

/// The live objects of one kind, by serial number.
pub(crate) struct Table<T> {
    live: Mutex<BTreeMap<u64, Arc<T>>>,
    next: AtomicU64,
}

impl<T> Table<T> {
    /// An empty table.
    pub(crate) const fn new() -> Table<T> {
        Table {
            live: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(1),
        }
    }
}

const MARK: usize = 0xFF << (usize::BITS - 8);
const KIND_SHIFT: u32 = usize::BITS - 12;
const SERIAL_MASK: usize = (1 << (KIND_SHIFT - 4)) - 1;

fn token(kind: Kind, serial: u64) -> usize {
    // Wrapping after 2^48 handles of one kind (2^16 on 32-bit targets) is out of reach in
    // practice.
    MARK | ((kind as usize) << KIND_SHIFT) | ((serial as usize & SERIAL_MASK) << 4)
}

/// The kind number and serial of a token, or `None` for anything that is not one.
fn decode(p: usize) -> Option<(usize, u64)> {
    if p & MARK != MARK || p & 0xF != 0 {
        return None;
    }
    Some(((p >> KIND_SHIFT) & 0xF, ((p >> 4) & SERIAL_MASK) as u64))
}

/// Register `object`; the program owns the returned handle until [`remove`].
pub(crate) fn insert<H: Handle>(object: Arc<H::Target>) -> *mut H {
    let t = H::table();
    let serial = t.next.fetch_add(1, Ordering::Relaxed);
    lock(&t.live).insert(serial, object);
    token(H::KIND, serial) as *mut H
}

/// Register the object `make` builds from its serial number (which the object may keep as
/// its unique id); nothing is registered when it fails.
pub(crate) fn insert_with<H: Handle, E>(
    make: impl FnOnce(u64) -> Result<Arc<H::Target>, E>,
) -> Result<*mut H, E> {
    let t = H::table();
    let serial = t.next.fetch_add(1, Ordering::Relaxed);
    let object = make(serial)?;
    lock(&t.live).insert(serial, object);
    Ok(token(H::KIND, serial) as *mut H)
}

/// The serial of a handle of kind `H` (checked: NULL, foreign, wrong-kind and stale handles
/// fail with INVALID_ARGUMENT naming the argument `what`).
fn serial<H: Handle>(p: *const H, what: &str) -> Result<u64, Fail> {
    if p.is_null() {
        return Err(invalid_arg(format!("{what} is NULL")));
    }
    match decode(p as usize) {
        Some((k, serial)) if k == H::KIND as usize => Ok(serial),
        Some((k, _)) if Kind::of(k).is_some() => Err(invalid_arg(format!(
            "{what} is a {} handle, not a {}",
            Kind::of(k).map_or("?", Kind::name),
            H::KIND.name()
        ))),
        _ => Err(invalid_arg(format!("{what} {}", H::NOT_LIVE))),
    }
}

/// The object behind a live handle (see [`serial`] for the failures).
pub(crate) fn get<H: Handle>(p: *const H, what: &str) -> Result<Arc<H::Target>, Fail> {
    let serial = serial(p, what)?;
    lock(&H::table().live)
        .get(&serial)
        .cloned()
        .ok_or_else(|| invalid_arg(format!("{what} {}", H::NOT_LIVE)))
}

/// The object behind a live handle, without an error message (for value accessors).
pub(crate) fn find<H: Handle>(p: *const H) -> Option<Arc<H::Target>> {
    let (k, serial) = decode(p as usize)?;
    if k != H::KIND as usize {
        return None;
    }
    lock(&H::table().live).get(&serial).cloned()
}

/// Unregister a handle: it is dead from now on (the object lives while calls still use it).
pub(crate) fn remove<H: Handle>(p: *const H, what: &str) -> Result<Arc<H::Target>, Fail> {
    let serial = serial(p, what)?;
    lock(&H::table().live)
        .remove(&serial)
        .ok_or_else(|| invalid_arg(format!("{what} {}", H::NOT_LIVE)))
}

/// Addresses of the directly owned objects (events) the program holds.
static OWNED: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

/// Hand a directly owned object to the program (it gives it back with [`take_back`]).
pub(crate) fn hand_out<T>(object: Box<T>) -> *mut T {
    let p = Box::into_raw(object);
    lock(&OWNED).insert(p as usize);
    p
}

/// Take back an object handed out by [`hand_out`]; `None` (nothing freed) for anything else:
/// a pointer given back twice, or never handed out.
///
/// # Safety
/// `p` was returned by `hand_out::<T>` (or is not in the set: then it is not touched).
pub(crate) unsafe fn take_back<T>(p: *mut T) -> Option<Box<T>> {
    if lock(&OWNED).remove(&(p as usize)) {
        // SAFETY: registered by `hand_out` and unregistered just now: freed once.
        Some(Box::from_raw(p))
    } else {
        None
    }
}

#[cfg(test)]
#[path = "../tests/unit/handles.rs"]
mod tests;
