//! `codex_pool_t`: the core's pool of Codex app-servers (`codex_client::Pool`). Endpoints are
//! added from ordinary client options; each endpoint's client, and the pool's handler client,
//! are handed out as `codex_client_t` handles the pool owns (freeing such a handle releases
//! the handle only: the connection is the pool's), so every client function works on them.
//! Placement, health, drain and the options' meaning are the core's.

use std::ffi::c_char;
use std::sync::Arc;

use codex_client::{EndpointOptions, Pool, PoolOptions};
use serde_json::Value;

use crate::connection::client::{codex_client_t, ClientState};
use crate::error::{codex_status_t, Fail};
use crate::handles::{self, Handle, Kind, Table};
use crate::options::{self, codex_options_t};
use crate::strings::{
    clear_out, opt_str, params_object, params_value, put_string, req_out, req_str,
};

/// A pool of Codex app-servers. Opaque handle (a token checked on every call). Create with
/// `codex_pool_new`, free with `codex_pool_free`. Every function may be called from any
/// thread, concurrently (except `codex_pool_free`, the last call).
pub struct codex_pool_t {
    _opaque: [u8; 0],
}

static POOLS: Table<Pool> = Table::new();

impl Handle for codex_pool_t {
    type Target = Pool;
    const KIND: Kind = Kind::Pool;
    const NOT_LIVE: &'static str = "is not a live pool (already freed with codex_pool_free?)";
    fn table() -> &'static Table<Pool> {
        &POOLS
    }
}

fn pool(p: *const codex_pool_t) -> Result<Arc<Pool>, Fail> {
    handles::get(p, "pool")
}

ffi_fn! {
    /// Create a pool. `options_json` (may be NULL: the defaults) is a JSON object of the pool's
    /// options: `place_timeout` (seconds `thread_start` may spend placing a thread, default
    /// 30), `max_running_turns` (each endpoint's default limit on running turns, 0 = none),
    /// `overload_backoff` (seconds an endpoint that answered overloaded is passed over,
    /// default 0.5). `*out` receives the pool; free it with `codex_pool_free`. Errors:
    /// INVALID_ARGUMENT (bad JSON, an unknown option or value, named). Thread: any. ABI 1.11.
    unsafe fn codex_pool_new(options_json: *const c_char, out: *mut *mut codex_pool_t) -> codex_status_t {
        req_out(out, "out")?;
        let v = params_value(opt_str(options_json, "options_json")?, "options_json", Value::Null)?;
        let o = PoolOptions::from_json(&v)?;
        *out = handles::insert::<codex_pool_t>(Arc::new(Pool::new(o)));
        Ok(())
    }
}

ffi_fn! {
    /// Free a pool: every endpoint is disconnected (running turns fail with DISCONNECTED).
    /// Client handles taken from it (`codex_pool_endpoint_client`,
    /// `codex_pool_handler_client`) must still be freed with `codex_client_free`; they no
    /// longer reach a server. NULL is ignored; a second free is detected and ignored.
    unsafe fn codex_pool_free(p: *mut codex_pool_t) {
        if p.is_null() {
            return;
        }
        if let Ok(pool) = handles::remove(p, "pool") {
            pool.close();
        }
    }
}

ffi_fn! {
    /// Connect endpoint `name` (blocking, bounded by its `connect_timeout`) from client options
    /// `opts` (NULL: defaults, a local `codex app-server`; the options are copied) and let it
    /// take threads. `endpoint_json` (may be NULL) holds its placement settings:
    /// `max_running_turns` (overrides the pool's), `shared_home` (the name of the CODEX_HOME it
    /// shares with other endpoints, for `codex_pool_resume_elsewhere`). Errors:
    /// INVALID_ARGUMENT (empty or duplicate name, an MCP server's options), whatever connecting
    /// returns. Thread: any. ABI 1.11.
    unsafe fn codex_pool_add_endpoint(
        p: *mut codex_pool_t,
        name: *const c_char,
        opts: *const codex_options_t,
        endpoint_json: *const c_char,
    ) -> codex_status_t {
        let pool = pool(p)?;
        let name = req_str(name, "name")?;
        let options = options::build(opts)?;
        let mut endpoint = EndpointOptions::default();
        for (k, v) in params_object(endpoint_json, "endpoint_json")? {
            endpoint.set(&k, &v)?;
        }
        pool.add_endpoint(name, options, endpoint)?;
        Ok(())
    }
}

ffi_fn! {
    /// Take endpoint `name` out now: disconnected at once. Errors: INVALID_ARGUMENT (unknown
    /// name, the message lists the endpoints). Thread: any. ABI 1.11.
    unsafe fn codex_pool_remove_endpoint(p: *mut codex_pool_t, name: *const c_char) -> codex_status_t {
        pool(p)?.remove_endpoint(req_str(name, "name")?)?;
        Ok(())
    }
}

ffi_fn! {
    /// Drain endpoint `name`: it takes no new thread; once idle it is disconnected and leaves
    /// the pool. Returns at once. Thread: any. ABI 1.11.
    unsafe fn codex_pool_drain_endpoint(p: *mut codex_pool_t, name: *const c_char) -> codex_status_t {
        pool(p)?.drain_endpoint(req_str(name, "name")?)?;
        Ok(())
    }
}

ffi_fn! {
    /// Every endpoint's status as a JSON array in `*out` (free with `codex_string_free`): each
    /// `{name, target, state, running_turns, waiting_threads, threads_placed,
    /// max_running_turns, shared_home, lost, codex_version}`; `state` is `ready`,
    /// `reconnecting`, `lost`, `draining` or `drained`. Thread: any. ABI 1.11.
    unsafe fn codex_pool_endpoints_json(p: *const codex_pool_t, out: *mut *mut c_char) -> codex_status_t {
        req_out(out, "out")?;
        let v: Vec<Value> = pool(p)?.endpoints().iter().map(|s| s.to_json()).collect();
        put_string(out, &Value::Array(v).to_string());
        Ok(())
    }
}

ffi_fn! {
    /// `thread/start` on the least busy endpoint that takes threads (blocking). `params_json`
    /// (may be NULL) as for `codex_client_thread_start`. `*thread_id` and `*endpoint` (each may
    /// be NULL) receive the thread's id and its endpoint's name (free with
    /// `codex_string_free`). Errors: UNAVAILABLE (no endpoint healthy, at once; or every one at
    /// its limit until `place_timeout`), OVERLOADED (every endpoint answered overloaded until
    /// then), whatever `thread/start` returned. Thread: any. ABI 1.11.
    unsafe fn codex_pool_thread_start(
        p: *mut codex_pool_t,
        params_json: *const c_char,
        thread_id: *mut *mut c_char,
        endpoint: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(thread_id);
        clear_out(endpoint);
        let pool = pool(p)?;
        let params = Value::Object(params_object(params_json, "params_json")?);
        let t = pool.thread_start(params)?;
        put_string(thread_id, t.id());
        put_string(endpoint, &pool.endpoint_of(t.id()).unwrap_or_default());
        Ok(())
    }
}

ffi_fn! {
    /// The endpoint holding thread `thread_id` in `*endpoint` (free with `codex_string_free`).
    /// Errors: INVALID_ARGUMENT (not a thread of this pool). Thread: any. ABI 1.11.
    unsafe fn codex_pool_endpoint_of(
        p: *const codex_pool_t,
        thread_id: *const c_char,
        endpoint: *mut *mut c_char,
    ) -> codex_status_t {
        req_out(endpoint, "endpoint")?;
        let id = req_str(thread_id, "thread_id")?;
        let name = pool(p)?.endpoint_of(id).ok_or_else(|| {
            crate::error::invalid_arg(format!("thread {id} is not a thread of this pool"))
        })?;
        put_string(endpoint, &name);
        Ok(())
    }
}

ffi_fn! {
    /// `thread/resume` of thread `thread_id` on another healthy endpoint sharing its
    /// CODEX_HOME (`shared_home`); `params_json` (may be NULL) overrides the params it was
    /// started with. `*endpoint` (may be NULL) receives the new endpoint's name. Errors:
    /// INVALID_ARGUMENT (not a thread of this pool; its endpoint shares its home with none),
    /// UNAVAILABLE (no such endpoint healthy now). Thread: any. ABI 1.11.
    unsafe fn codex_pool_resume_elsewhere(
        p: *mut codex_pool_t,
        thread_id: *const c_char,
        params_json: *const c_char,
        endpoint: *mut *mut c_char,
    ) -> codex_status_t {
        clear_out(endpoint);
        let pool = pool(p)?;
        let id = req_str(thread_id, "thread_id")?;
        let params = Value::Object(params_object(params_json, "params_json")?);
        let t = pool.resume_elsewhere(id, params)?;
        put_string(endpoint, &pool.endpoint_of(t.id()).unwrap_or_default());
        Ok(())
    }
}

ffi_fn! {
    /// A client handle on endpoint `name`'s connection in `*out`: every `codex_client_*`
    /// function works on it (turns, approvals, raw requests, polling in poll mode). The pool
    /// owns the connection: `codex_client_free` on this handle frees the handle only, and
    /// `codex_client_disconnect` on it ends the endpoint's connection (the pool then reports
    /// it lost). Errors: INVALID_ARGUMENT (unknown name). Thread: any. ABI 1.11.
    unsafe fn codex_pool_endpoint_client(
        p: *const codex_pool_t,
        name: *const c_char,
        out: *mut *mut codex_client_t,
    ) -> codex_status_t {
        req_out(out, "out")?;
        let c = pool(p)?.endpoint(req_str(name, "name")?)?;
        *out = ClientState::borrowed(c.into_connection())?;
        Ok(())
    }
}

ffi_fn! {
    /// The pool's handler client in `*out`: a client handle that is never connected, whose
    /// callbacks (`codex_client_on_server_request`, `codex_client_on_notification`, ...) serve
    /// every endpoint of the pool, now and later added (they share one handler table).
    /// Without a server-request callback approvals are declined. Free the handle with
    /// `codex_client_free` (the callbacks stay until the pool is freed). Thread: any. ABI 1.11.
    unsafe fn codex_pool_handler_client(
        p: *const codex_pool_t,
        out: *mut *mut codex_client_t,
    ) -> codex_status_t {
        req_out(out, "out")?;
        let c = pool(p)?.handler_client().connection().clone();
        *out = ClientState::borrowed(c)?;
        Ok(())
    }
}
