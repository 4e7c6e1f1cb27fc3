//! Unit tests of `ffi-c/src/handles.rs` (a child module of it, kept out of `src`).

use super::*;
use crate::connection::client::codex_client_t;
use crate::connection::server_request::codex_request_t;
use crate::error::codex_status_t::*;
use crate::options::codex_options_t;

fn status(f: Fail) -> (crate::error::codex_status_t, String) {
    match f {
        Fail::Status(s, m) => (s, m),
        Fail::Core(e) => panic!("a core error: {e}"),
    }
}

#[test]
fn tokens_are_typed_aligned_and_never_user_addresses() {
    let t = token(Kind::Request, 5);
    assert_eq!(t & 0xF, 0, "16-byte aligned like an allocation");
    assert_eq!(t & MARK, MARK, "in the kernel's half of the address space");
    assert_eq!(decode(t), Some((Kind::Request as usize, 5)));
    assert_eq!(decode(0x7fff_0000_1000), None);
    assert_eq!(decode(t + 8), None);
}

#[test]
fn stale_foreign_and_wrong_kind_handles_are_refused_never_read() {
    let o = insert::<codex_options_t>(Arc::new(Mutex::new(Default::default())));
    assert!(get(o, "options").is_ok());
    // The same token read as another kind of handle.
    let (s, m) = status(get(o as *const codex_client_t, "client").err().unwrap());
    assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
    assert!(
        m.contains("codex_options_t handle, not a codex_client_t"),
        "{m}"
    );
    assert!(find(o as *const codex_request_t).is_none());
    // Freed: refused, and never revived by a later object.
    assert!(remove(o, "options").is_ok());
    let again = insert::<codex_options_t>(Arc::new(Mutex::new(Default::default())));
    assert_ne!(again, o);
    let (s, m) = status(get(o, "options").err().unwrap());
    assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
    assert!(m.contains("already freed"), "{m}");
    assert!(remove(o, "options").is_err(), "a double free is detected");
    // A pointer to the program's memory, and NULL.
    let local = [0u64; 4];
    let (_, m) = status(
        get(local.as_ptr() as *const codex_client_t, "client")
            .err()
            .unwrap(),
    );
    assert!(m.contains("not a live client"), "{m}");
    let (_, m) = status(
        get(std::ptr::null::<codex_client_t>(), "client")
            .err()
            .unwrap(),
    );
    assert_eq!(m, "client is NULL");
    assert!(remove(again, "options").is_ok());
}

#[test]
fn owned_objects_are_taken_back_once() {
    let p = hand_out(Box::new(7u32));
    // SAFETY: `p` came from `hand_out`; the second call finds it gone and touches nothing.
    unsafe {
        assert_eq!(take_back(p).map(|b| *b), Some(7));
        assert!(take_back(p).is_none());
        let mut local = 3u32;
        assert!(take_back(&mut local as *mut u32).is_none());
    }
}
