/*
 * codexclient.h - C API of libcodexclient, a native client for OpenAI Codex's
 * `codex app-server` (JSON-RPC over stdio) and for any MCP server (see MCP below). C99 and
 * C++ compatible. Other transports (`codex exec`, `codex mcp-server`, ws:// / wss://, the
 * unix control socket, MCP over stdio or HTTP): see codex_options_set_transport().
 *
 * Link: pkg-config --cflags --libs codexclient   (or -lcodexclient)
 *
 * ===================================================================== QUICK START
 *
 *   codex_options_t *o = codex_options_new();            // every option at its default
 *   codex_options_set_codex_home(o, "/path/to/codex-home");
 *   codex_client_t *c;
 *   codex_status_t s = codex_client_new(o, &c);           // NULL options: all defaults
 *   codex_options_free(o);                                // the client copied what it needs
 *   if (s != CODEX_STATUS_OK) { ... codex_last_error_message() ... }
 *   codex_client_register_callback(c, CODEX_CALLBACK_NOTIFICATION, on_event, state);
 *   codex_client_register_callback(c, CODEX_CALLBACK_SERVER_REQUEST, on_request, state);
 *   codex_client_connect(c, NULL);
 *   char *thread; codex_client_thread_start(c, NULL, 0, &thread);
 *   char *turn;   codex_client_turn_start(c, thread, "hello", NULL, 0, &turn);
 *   ... wait for the "turn/completed" notification ...
 *   codex_string_free(turn); codex_string_free(thread);
 *   codex_client_disconnect(c);
 *   codex_client_free(c);
 *
 * ===================================================================== CONVENTIONS
 *
 * Status. Every function that does something returns a codex_status_t. The numbers are
 *   stable. On failure codex_last_error_message() describes it (thread-local; JSON-RPC
 *   errors also expose codex_last_error_rpc_code/_message/_data). NULL arguments give
 *   CODEX_STATUS_INVALID_ARGUMENT, never a crash; out-parameters are set to NULL/0 first.
 *   A Rust panic inside the library is caught and returned as CODEX_STATUS_PANIC; it never
 *   unwinds into your code.
 *
 * Ownership of pointers.
 *   - char ** out-parameters: a new string, owned by you; free it with codex_string_free()
 *     (never with free()).
 *   - const char * return values: borrowed. Lifetime is stated per function (usually "until
 *     the event/request is freed"; last-error strings: until the next library call on the
 *     same thread). Never free them.
 *   - codex_options_t: yours from codex_options_new() until codex_options_free(). Set options
 *     with the codex_options_set_* / codex_options_add_* setters (each copies its strings
 *     before returning; a bad value gives CODEX_STATUS_INVALID_ARGUMENT and changes nothing).
 *     codex_client_new() copies the options, so the object may be freed right after it, or
 *     reused for more clients. Options objects are checked against a registry like clients:
 *     a freed one, or any other pointer (such as the public struct of the old ABI 0 header),
 *     gives CODEX_STATUS_INVALID_ARGUMENT, never a crash.
 *   - codex_client_t: yours from codex_client_new() until codex_client_free(). Handles are
 *     checked against a registry of live clients: a freed client passed to any function gives
 *     CODEX_STATUS_INVALID_ARGUMENT, and a second codex_client_free() is ignored.
 *   - codex_event_t: from codex_client_next_event() it is yours (codex_event_free()); the
 *     event a callback receives is borrowed for the duration of the callback.
 *     codex_event_free() ignores (and reports through the last error) a second free and the
 *     borrowed event of a callback. Accessor strings die with their event.
 *   - codex_request_t (a server request): borrowed from its event, or yours after
 *     codex_event_take_request() until codex_request_free(). Handles are checked tokens: a
 *     freed handle gives CODEX_STATUS_INVALID_ARGUMENT, not a crash.
 *   - Everything you pass in (options, JSON text, strings) is copied before the call returns.
 *   - userdata pointers are never dereferenced by the library; they must stay valid until the
 *     callback is replaced/removed and no call of it can be running (after
 *     codex_client_free(), or after disconnect for request completions).
 *   - codex_client_event_fd(): owned by the client; never close it.
 *
 * ===================================================================== THREADS
 *
 * The library's threads are shared by all clients of the process and started once, on first
 * use, inside the Rust core: 2 runtime threads (`codex-client-rt`) on which every connection
 * runs, and, once a client in callbacks mode connected, 2 dispatch threads
 * (`codex-client-dispatch`, the kernel shows `codex-client-di`). The count does not grow with
 * clients; a client with codex_options_set_dedicated_dispatch_thread() gets a dispatch thread
 * of its own, started by codex_client_connect and ended by codex_client_disconnect. Every
 * function may be called from any thread, concurrently, except codex_client_free() (the last
 * call).
 * Options objects may be used from any thread, also from several at once (every call locks
 * the object); codex_options_free() must be the last call on one.
 *
 * Callbacks mode (CODEX_DELIVERY_CALLBACKS, the default): ALL callbacks of a client -
 * notifications, server requests, connection reports AND the completion callbacks of
 * codex_client_request() - run on that client's one library-owned dispatch thread, one at a
 * time, in arrival order. Never on your threads, never concurrently with each other. The
 * dispatch thread may be shared with other clients (each client is pinned to one thread of
 * the pool): a callback that blocks also holds up the other clients on that thread; give a
 * client whose callbacks block a thread of its own with
 * codex_options_set_dedicated_dispatch_thread().
 * Inside a callback you may call any function of this library on any client, including
 * blocking ones (codex_client_call, the turn helpers: a response never waits behind
 * undelivered events), codex_client_respond, codex_client_request, codex_client_disconnect
 * and codex_client_connect. Not allowed inside a callback: codex_client_next_event (poll
 * mode only) and codex_event_free on the borrowed event. A long callback delays later
 * events (the server is eventually made to wait); hand slow work to your own thread.
 * Callbacks must return normally: no C++ exception or longjmp may cross them.
 *
 * Signals. The library's own threads block SIGPIPE, so a server that exits while the library
 * writes to it is reported as a status (DISCONNECTED/TRANSPORT), never a SIGPIPE that would
 * terminate your process; your threads' signal masks and handlers are left alone. The server
 * runs in its own process group (it does not get your terminal's Ctrl-C).
 *
 * MCP authorization callbacks (ABI 1.8), in either mode, run on a library-owned blocking
 * thread (named `codex-client-rt`, never one that serves connections) while the request that
 * needed them waits: the browser step of codex_options_set_oauth_authorizer() (it may block up
 * to option oauth_authorize_timeout), the token store callbacks of
 * codex_options_set_oauth_token_store() and the `open` of codex_options_set_oauth_loopback()
 * (keep these short). A program that must not run code on library threads (a NIF) uses option
 * oauth_token_file and the loopback helper without `open` instead.
 *
 * Poll mode (CODEX_DELIVERY_POLL): no library thread ever runs your code (but the MCP
 * authorization callbacks you set, above). Pull events with
 * codex_client_next_event(); wait for codex_client_event_fd() to become readable with
 * poll/epoll/select. Completions of codex_client_request() arrive as CODEX_EVENT_RESPONSE
 * events. A client uses one mode, chosen at creation: registering a callback on a poll
 * client, or calling next_event/event_fd on a callbacks client, returns
 * CODEX_STATUS_INVALID_STATE (event_fd: -1 with that last error).
 *
 * How a NIF should use this library (Erlang/Elixir; the same holds for other event loops that
 * must never run foreign code on their own threads or block them). A complete, tested wrapper
 * is examples/elixir (c_src/codexclient_nif.c, lib/codex_client.ex; scripts/test-elixir.sh runs
 * it against the real Codex). The rule: nothing that can block runs on a normal scheduler, and
 * no library thread ever runs Erlang code. Use poll mode:
 *   - codex_options_set_delivery(o, CODEX_DELIVERY_POLL); codex_client_new(o, &c) in a
 *     dirty-IO NIF or a thread of your own; codex_client_connect() and the blocking helpers
 *     (codex_client_call,
 *     thread/turn helpers) block for a round trip: call them on a dirty scheduler, or use
 *     codex_client_request() (returns at once; the answer arrives as a RESPONSE event).
 *   - int fd = codex_client_event_fd(c); then enif_select(env, fd, ERL_NIF_SELECT_READ, res,
 *     NULL, ref). When the select message arrives, call codex_client_next_event(c, 0, &ev)
 *     repeatedly (timeout 0 never blocks) until it returns CODEX_STATUS_TIMEOUT, turn each
 *     event into a term, codex_event_free() it, and re-arm enif_select (it is one-shot; the fd
 *     is level-triggered, so nothing is lost between the drain and the re-arm). While the
 *     client is connected the fd is readable only when an event waits; once next_event returns
 *     CODEX_STATUS_DISCONNECTED or CODEX_STATUS_NOT_CONNECTED the connection is over and the fd
 *     stays readable: stop selecting on it until you connect again.
 *   - Server requests: codex_event_take_request() before freeing the event, keep the
 *     codex_request_t in a resource, answer with codex_client_respond() from any process later;
 *     the resource destructor calls codex_request_free() (unanswered = declined).
 *   - Events as messages: the process that receives the select messages (a GenServer "pump" in
 *     the example) drains and enif_send()s each event to the owning process, e.g.
 *     {:codex_event, method, params_json} and {:codex_request, request_resource, method,
 *     params_json}; RESPONSE events become replies to the callers waiting on the pump.
 *     codex_client_next_event(c, 0, ...), codex_client_request(), codex_client_respond() and
 *     codex_request_free() never block: they may run on a normal scheduler.
 *   - Shutdown: enif_select(env, fd, ERL_NIF_SELECT_STOP, ...) and wait for the stop callback
 *     BEFORE codex_client_free() (free closes the fd), then free from a dirty scheduler or a
 *     thread of your own (it stops the server: up to ~0.5 s). ERTS keeps a selected resource
 *     alive until its stop callback, so a resource destructor never races the select; the
 *     destructor may run on a normal scheduler: hand codex_client_free() to a helper thread.
 *   - Owner death: enif_monitor_process() the process that owns the resource; in the down
 *     callback issue ERL_NIF_SELECT_STOP and end the connection (codex_client_disconnect() on a
 *     helper thread), so no Codex process outlives its owner.
 *
 * Server requests (approvals and questions from the server). Answer with
 * codex_client_respond() or codex_client_respond_error(), now or later, from any thread.
 * Fail-closed: a request nobody answers is DECLINED (approvals) or gets a JSON-RPC error:
 * when no SERVER_REQUEST callback is registered, when the callback returns without
 * answering or taking it, when its event is freed without answering or taking it, and when
 * a taken request is freed unanswered.
 *
 * Answering from another process (ABI 1.11): codex_event_to_json() (or
 * codex_request_to_json()) gives the event, a server request as its JSON reference
 * ({"owner", "connection", "endpoint", "id", "method", "params"}), and PARKS the request: it
 * stays open after its event and handle are freed. Send that text anywhere; the answer comes
 * back with codex_client_respond_ref() / _ref_error() / _ref_decision() on the client that
 * owns it (codex_client_id() is the reference's owner), once. Another client's reference is
 * CODEX_STATUS_INVALID_ARGUMENT; a reference of a lost or ended connection
 * CODEX_STATUS_CONNECTION_LOST or CODEX_STATUS_DISCONNECTED; a second answer, or one after
 * the server resolved the request, CODEX_STATUS_ALREADY_RESPONDED. A parked request nobody
 * answers is declined when option parked_request_timeout passes (default 600 s; 0: off, no
 * parking). Option label names the client: every event and reference carries it
 * (codex_event_endpoint()).
 *
 * ===================================================================== MCP
 *
 * The same client drives any MCP server (Model Context Protocol 2025-11-25, negotiating down
 * to 2024-11-05). Choose an MCP transport, connect, and send MCP requests with the generic
 * codex_client_call() / codex_client_request(). The library runs the handshake (initialize,
 * notifications/initialized), answers the server's ping itself, tells the server about
 * requests that time out or are cancelled (notifications/cancelled) and answers fail-closed
 * what nobody answers. Ownership and threads are as everywhere in this header.
 *
 *   codex_options_t *o = codex_options_new();
 *   const char *argv[] = {"node", "/path/to/server.js", "stdio"};
 *   codex_options_set_mcp_command(o, argv, 3);          // no shell: one element, one argument
 *   // or codex_options_set_transport(o, "mcp+stdio:node /path/to/server.js stdio", NULL)
 *   // or codex_options_set_transport(o, "https://host/mcp", token)  (+ codex_options_add_header)
 *   codex_options_add_mcp_root(o, "file:///work/project", "project");   // optional
 *   codex_client_t *c; codex_client_new(o, &c); codex_options_free(o);
 *   char *init; codex_client_connect(c, &init);   // {"protocolVersion":"2025-11-25",
 *                                                 //  "serverInfo":{...},"capabilities":{...}}
 *   char *r;
 *   codex_client_call(c, "tools/call",
 *                     "{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}", 0, &r);
 *   // r: {"content":[{"type":"text","text":"Echo: hi"}]}. A tool that failed answers with
 *   // "isError":true in a result; a protocol error is CODEX_STATUS_RPC_ERROR.
 *   codex_string_free(r); codex_string_free(init);
 *
 *   - Requests: any MCP method with its params as JSON text: tools/list, tools/call,
 *     resources/list, resources/templates/list, resources/read, resources/subscribe,
 *     resources/unsubscribe, prompts/list, prompts/get, completion/complete,
 *     logging/setLevel, ping. Lists are paginated: pass {"cursor":...} with the nextCursor
 *     of the previous page. codex_mcp_method_name("call_tool") and codex_mcp_params() give
 *     the method and params of these without spelling or escaping them by hand.
 *   - Server notifications (notifications/message, notifications/progress,
 *     notifications/resources/updated, notifications/tools/list_changed, ...) are ordinary
 *     CODEX_EVENT_NOTIFICATION events.
 *   - Progress: put "_meta":{"progressToken":TOKEN} into the params yourself (a string or an
 *     integer of yours, unique among your running requests), e.g. {"name":"...","arguments":
 *     {...},"_meta":{"progressToken":"t1"}}. While the request runs, the server's
 *     notifications/progress {"progressToken":TOKEN,"progress":n,"total":m,...} arrive as
 *     notifications. They are sent before the answer, but the completion of a
 *     codex_client_request() is delivered ahead of events still waiting, so the last
 *     updates may be delivered after it.
 *   - Server requests: sampling/createMessage, elicitation/create and roots/list are
 *     CODEX_EVENT_SERVER_REQUEST events (the SERVER_REQUEST callback, or poll mode), answered
 *     with codex_client_respond(c, request, result_json), now or later, from any thread:
 *     sampling: {"role":"assistant","content":{"type":"text","text":"..."},"model":"...",
 *     "stopReason":"endTurn"}; elicitation: {"action":"accept","content":{...}} (every field
 *     of the requested schema that has a "default" and is missing from "content" is filled in
 *     by the library), {"action":"decline"} or {"action":"cancel"}; roots/list:
 *     {"roots":[{"uri":"file:///...","name":"..."}]}. Fail-closed: a request nobody answers
 *     (no callback, the callback returned without answering or taking it, a taken request
 *     freed) is answered at once: elicitation declined, sampling and roots/list a JSON-RPC
 *     error. Roots set with codex_options_add_mcp_root are answered by the library before any
 *     callback. The client offers the roots, sampling and elicitation capabilities by default
 *     (servers then show the tools that need them; codex_options_set_mcp_capabilities_json
 *     changes that). The server's ping never reaches you: the library answers it.
 *   - Cancellation: codex_client_cancel_request(c, request_id) with the id of a
 *     codex_client_request(): its completion comes at once with CODEX_STATUS_CANCELLED and the
 *     server gets notifications/cancelled. A request that runs past its timeout_ms fails with
 *     CODEX_STATUS_TIMEOUT and is cancelled at the server too. The connection stays usable.
 *   - Logging: logging/setLevel {"level":"debug"}; the server's log records arrive as
 *     notifications/message notifications and also reach codex_set_log_callback() (target
 *     "codex_client::mcp_server_log"). A stdio server's stderr: codex_client_stderr_tail()
 *     and, at CODEX_LOG_DEBUG, the log callback.
 *   - Subscriptions (MCP 2026-07-28, ABI 1.9): codex_client_mcp_listen(c,
 *     "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"file:///a\"]}", 0, &l)
 *     opens a subscriptions/listen stream and returns once the server acknowledged it
 *     (codex_mcp_listen_acknowledged(l): the filter it honours); its notifications are
 *     ordinary notifications; codex_mcp_listen_free(l) closes it. In the handshake era it is
 *     CODEX_STATUS_UNSUPPORTED (resources/subscribe and the list-changed notifications
 *     serve there).
 *   - The Codex helpers (codex_client_thread_start, codex_client_turn_*) are for Codex
 *     servers, not MCP.
 *
 * ===================================================================== ABI POLICY
 *
 * The shared library's soname carries the ABI major version: libcodexclient.so.1 for
 * CODEX_ABI_VERSION_MAJOR 1. A program records that name when it is linked, so the dynamic
 * loader never runs it with a library of another major version.
 *   - The major version changes on ANY incompatible change: a function removed or renamed, a
 *     parameter or return type changed, a documented meaning changed, a number reused.
 *     ABI 1 (this header) replaced ABI 0's public codex_options_t struct, which grew with no
 *     size field, by the opaque options object with setters.
 *   - Within a major version there are only additions, and each bumps
 *     CODEX_ABI_VERSION_MINOR: new functions, new setters (that is how options are added),
 *     new status codes, new enum values and constants, new event kinds, new callback kinds,
 *     new members in JSON text. Programs must be ready for values they do not know: ignore an
 *     event whose codex_event_kind() is unknown (free it as usual), treat an unknown status
 *     code as a failure (codex_status_name() gives "CODEX_STATUS_UNKNOWN"), ignore unknown
 *     JSON members.
 *   - No struct crosses the ABI by layout: codex_options_t, codex_client_t, codex_event_t and
 *     codex_request_t are opaque handles reached only through functions, so the library can
 *     grow them. The callback signature and the numbers of the enums/constants never change
 *     within a major version.
 *   - A program built against minor version N runs with every library of the same major
 *     version and minor >= N: each function, constant and status it was built with is still
 *     there with the same signature and meaning, and defaults stay as documented. A library
 *     with a smaller minor lacks the newer functions (the loader refuses the program, or with
 *     lazy binding the first call fails): compare codex_abi_version() (the loaded library)
 *     with CODEX_ABI_VERSION (this header) at start-up, e.g.
 *       if (codex_abi_version() / 1000 != CODEX_ABI_VERSION / 1000
 *           || codex_abi_version() < CODEX_ABI_VERSION) { ... refuse to run ... }
 *   - codex_version() and pkg-config's Version are the release version, separate from the
 *     ABI version.
 *
 * ===================================================================== RECONNECT (ABI 1.2)
 *
 *   Off by default; codex_options_set_reconnect(opts, attempts, base_ms, cap_ms) turns it on.
 *   When the connection drops without codex_client_disconnect (the server exited or was
 *   killed, the socket closed or reset, a missed heartbeat - codex_options_set_heartbeat):
 *   - Requests in flight fail at once with CODEX_STATUS_CONNECTION_LOST (retryable: the server
 *     may or may not have acted on them). Requests made while reconnecting are held and go out
 *     after the rejoin (their timeouts keep running).
 *   - Server requests of the lost connection can no longer be answered (answering returns
 *     CODEX_STATUS_CONNECTION_LOST); the server asks again after the rejoin for those it still
 *     needs (same id, as a new SERVER_REQUEST event).
 *   - A CODEX_EVENT_RECONNECTING event precedes every attempt (attempt, delay, cause). The
 *     transport is opened again (a stdio server is spawned again, a socket re-dialled), the
 *     handshake redone with the same options, and every thread loaded on the connection
 *     resumed (thread/resume). The running turn of a resumed thread goes on: items completed
 *     while the connection was down are delivered from the resumed history, none twice; a turn
 *     the server lost (it restarted) ends with turn/completed, status "interrupted" and an
 *     error message. Those events come first, then CODEX_EVENT_RECONNECTED
 *     (codex_event_reconnect_json: threads resumed and not, requests failed, turns ended).
 *   - After max_attempts failures the connection ends with CODEX_EVENT_DISCONNECTED.
 *   - Callbacks stay registered; the poll fd stays the same. codex_client_disconnect() never
 *     reconnects, also while a reconnect is under way (it stops it).
 *
 * ===================================================================== SHUTDOWN ORDER
 *
 *   1. codex_client_disconnect(c)  - optional (free does it). Stops the server; pending
 *      requests fail with CODEX_STATUS_DISCONNECTED. From a non-callback thread in callbacks
 *      mode it returns after the running callback finished and every in-flight request's
 *      completion callback ran; afterwards no event callback of that connection runs.
 *   2. Answer or codex_request_free() the requests you took; codex_event_free() the events
 *      you pulled; codex_string_free() the strings you got. (Any order, any thread; they may
 *      also outlive the client.)
 *   3. codex_client_free(c)  - from a thread that is not one of c's callbacks. After it
 *      returns no callback of c runs again, so the userdata of c's callbacks and requests may
 *      be freed then. A client may connect again after disconnect; callbacks stay registered.
 */


#ifndef CODEXCLIENT_H
#define CODEXCLIENT_H

/* Generated by cbindgen 0.29.4 from ffi-c/ with scripts/gen-header.sh (scripts/test-c.sh checks it is up to date). Do not edit. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Major version of the C ABI, and of the shared library's soname
 * (`libcodexclient.so.<major>`). It changes on every incompatible change.
 */
#define CODEX_ABI_VERSION_MAJOR 1

/**
 * Minor version of the C ABI: bumped on every compatible addition (a new function, setter,
 * enum value or event kind) within one major version. 1.1: MCP options
 * (`codex_options_set_mcp_command`, `codex_options_add_header`, `codex_options_add_mcp_root`,
 * `codex_options_set_mcp_capabilities_json`), `codex_client_cancel_request` and
 * `CODEX_STATUS_CANCELLED`, `codex_mcp_method_name`, `codex_mcp_params`. 1.2: reconnect
 * (`codex_options_set_reconnect`, `CODEX_EVENT_RECONNECTING`, `CODEX_EVENT_RECONNECTED`,
 * `codex_event_reconnect_attempt`, `codex_event_reconnect_delay_ms`,
 * `codex_event_reconnect_json`, `CODEX_STATUS_CONNECTION_LOST`,
 * `codex_client_is_reconnecting`), `codex_options_set_heartbeat`,
 * `codex_options_set_tls_ca_file`, `codex_options_set_tls_client_cert`. 1.3:
 * `codex_client_turn_start_with_skills`. 1.4: `codex_options_set_reply_spin_us`,
 * `codex_options_set_dedicated_dispatch_thread`. 1.5: options by name from the core's
 * table (`codex_options_set`, `codex_options_add`, `codex_options_get`,
 * `codex_options_keys_json`; every Rust option reachable from C, with its meaning),
 * `codex_options_set_retry`. 1.6: logging in and the core's helpers by name
 * (`codex_client_login_api_key`, `codex_client_login_chatgpt`, `codex_login_t` with
 * `codex_login_auth_url`, `codex_login_user_code`, `codex_login_verification_url`,
 * `codex_login_id`, `codex_login_wait`, `codex_login_cancel`, `codex_login_free`;
 * `codex_client_helper`), a turn run to its end within bounds (`codex_client_turn_run`).
 * 1.7: skills over MCP (`codex_client_mcp_skills_list`, `codex_client_mcp_skill_load`,
 * `codex_client_add_skill_source`, `codex_client_remove_skill_source`);
 * `codex_client_respond_decision` (an approval answered by its generic word, worded by the
 * core); `CODEX_STATUS_URL_ELICITATION_REQUIRED`, `CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH` (MCP).
 * 1.8: MCP authorization callbacks (`codex_options_set_oauth_authorizer`,
 * `codex_options_set_oauth_token_store`, `codex_options_set_oauth_loopback`,
 * `codex_oauth_answer_t` with `codex_oauth_answer_set` and `codex_oauth_answer_error`,
 * `codex_release_callback_t`).
 * 1.9: MCP 2026-07-28 subscription streams (`codex_client_mcp_listen`, `codex_mcp_listen_t`
 * with `codex_mcp_listen_acknowledged` and `codex_mcp_listen_free`).
 * 1.10: `codex_client_respond_execpolicy_amendment` (a command approval approved with an
 * exec-policy rule, worded by the core); the server's Codex version against the supported
 * window (`codex_client_server_version`, `codex_client_supports`,
 * `CODEX_STATUS_UNSUPPORTED_BY_VERSION`, `CODEX_EVENT_OUTSIDE_WINDOW`).
 * 1.11: `codex_client_mcp_prior` (the era an MCP connection negotiated, for option
 * `mcp_prior`); `CODEX_EVENT_VERSION_MISMATCH` (the app-server behind the control socket is
 * another Codex version than the installed CLI); serialisable forms and answers by reference
 * (`codex_event_to_json`, `codex_event_endpoint`, `codex_request_to_json`,
 * `codex_request_endpoint`, `codex_client_id`, `codex_client_respond_ref`,
 * `codex_client_respond_ref_error`, `codex_client_respond_ref_decision`); options `label` and
 * `parked_request_timeout` by name; the pool (`codex_pool_t` and its functions,
 * `CODEX_STATUS_UNAVAILABLE`).
 */
#define CODEX_ABI_VERSION_MINOR 11

/**
 * The ABI version this header describes: `major * 1000 + minor` (1000 is 1.0). Compare it
 * with `codex_abi_version()`, the version of the library actually loaded.
 */
#define CODEX_ABI_VERSION ((CODEX_ABI_VERSION_MAJOR * 1000) + CODEX_ABI_VERSION_MINOR)

/**
 * The longest timeout a setter accepts, in milliseconds (one year; the core's
 * `MAX_SECONDS`).
 */
#define CODEX_OPTIONS_MAX_TIMEOUT_MS 31536000000

/**
 * Result of every function that does something. The numbers are stable; new codes are only
 * ever appended (a minor ABI version): a program must treat a code it does not know as a
 * failure.
 */
typedef enum codex_status_t {
  /**
   * Success.
   */
  CODEX_STATUS_OK = 0,
  /**
   * A NULL or malformed argument (bad JSON, bad UTF-8, unknown handle, wrong client).
   */
  CODEX_STATUS_INVALID_ARGUMENT = 1,
  /**
   * The client is not connected (never connected, or disconnected).
   */
  CODEX_STATUS_NOT_CONNECTED = 2,
  /**
   * `codex_client_connect` on a connected client.
   */
  CODEX_STATUS_ALREADY_CONNECTED = 3,
  /**
   * A request got no answer in time, or `codex_client_next_event` saw no event in time.
   */
  CODEX_STATUS_TIMEOUT = 4,
  /**
   * The connection ended (server exited or was disconnected) before the operation finished.
   */
  CODEX_STATUS_DISCONNECTED = 5,
  /**
   * The server answered with a JSON-RPC error (see `codex_last_error_rpc_code`).
   */
  CODEX_STATUS_RPC_ERROR = 6,
  /**
   * The server kept answering "overloaded" (-32001) after every retry.
   */
  CODEX_STATUS_OVERLOADED = 7,
  /**
   * The server could not be started, or reading/writing its pipes failed.
   */
  CODEX_STATUS_TRANSPORT = 8,
  /**
   * The server broke the protocol (for example a malformed `initialize` result).
   */
  CODEX_STATUS_PROTOCOL = 9,
  /**
   * Not valid in the client's mode or state (poll vs callbacks, request already taken, ...).
   */
  CODEX_STATUS_INVALID_STATE = 10,
  /**
   * The server request was already answered (or resolved by the server).
   */
  CODEX_STATUS_ALREADY_RESPONDED = 11,
  /**
   * The transport in use cannot do this.
   */
  CODEX_STATUS_UNSUPPORTED = 12,
  /**
   * A bug: Rust code panicked. The panic was caught at the library boundary.
   */
  CODEX_STATUS_PANIC = 13,
  /**
   * An error this version of the C binding does not classify (see the message). Since ABI
   * 1.5 every kind of core error has its own status, so no call returns it; it is kept
   * (numbers are never reused).
   */
  CODEX_STATUS_INTERNAL = 14,
  /**
   * The request was cancelled by `codex_client_cancel_request` before its answer came (an
   * MCP server is told with `notifications/cancelled`). ABI 1.1.
   */
  CODEX_STATUS_CANCELLED = 15,
  /**
   * The connection dropped while the request was in flight and the client is reconnecting
   * (`codex_options_set_reconnect`): whether the server acted on it is unknown. Retryable
   * once `CODEX_EVENT_RECONNECTED` came. Also what answering a server request of the lost
   * connection returns (the server asks again after the rejoin). ABI 1.2.
   */
  CODEX_STATUS_CONNECTION_LOST = 16,
  /**
   * An MCP server answered -32042: the request needs URL-mode elicitations completed first.
   * `codex_last_error_rpc_data` gives `{"elicitations":[{"mode":"url","message","url",
   * "elicitationId"}…]}`; show each URL to the user, wait for the server's
   * `notifications/elicitation/complete` of each, then send the request again. ABI 1.7.
   */
  CODEX_STATUS_URL_ELICITATION_REQUIRED = 17,
  /**
   * An MCP tool's `structuredContent` does not match its `outputSchema` (option
   * `mcp_validate_output`); the message names the tool and the failing JSON path. ABI 1.7.
   */
  CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH = 18,
  /**
   * The connected Codex (a version of the supported window) does not have this method, by
   * the window's method table: refused before anything was sent. The message names the
   * method, the server's version and the versions that have it; `codex_client_supports`
   * asks first. ABI 1.10.
   */
  CODEX_STATUS_UNSUPPORTED_BY_VERSION = 19,
  /**
   * No endpoint of a pool can take the call (none healthy and accepting, at once; or each
   * at its limit of running turns until the placement bound passed); the message names
   * every endpoint and its state. ABI 1.11.
   */
  CODEX_STATUS_UNAVAILABLE = 20,
} codex_status_t;

/**
 * What an event is. The numbers are stable; new kinds are only ever appended (a minor ABI
 * version): a program must ignore (and free as usual) an event of a kind it does not know.
 */
typedef enum codex_event_kind_t {
  /**
   * Not an event (returned for a NULL event).
   */
  CODEX_EVENT_NONE = 0,
  /**
   * A server notification: `method`, `params`, `thread_id`, `turn_id`, `delta`.
   */
  CODEX_EVENT_NOTIFICATION = 1,
  /**
   * A request from the server awaiting an answer: `method`, `params`, `thread_id`,
   * `turn_id`, and the request handle (`codex_event_request`, `codex_event_take_request`).
   */
  CODEX_EVENT_SERVER_REQUEST = 2,
  /**
   * The completion of a `codex_client_request`: `request_id`, `status`, `result` or the
   * error accessors, `method`, `userdata`.
   */
  CODEX_EVENT_RESPONSE = 3,
  /**
   * A line that broke the protocol or was too long; the connection goes on: `error_message`.
   */
  CODEX_EVENT_ERROR = 4,
  /**
   * Notifications were dropped because the program fell far behind: `dropped`.
   */
  CODEX_EVENT_OVERFLOW = 5,
  /**
   * The connection ended (last event of a connection): `error_message` (the reason) and
   * `stderr_tail`.
   */
  CODEX_EVENT_DISCONNECTED = 6,
  /**
   * The connection dropped and the client is about to reconnect (with
   * `codex_options_set_reconnect`): `reconnect_attempt`, `reconnect_delay_ms`,
   * `error_message` (why: the drop, or the last attempt's failure), `reconnect_json`.
   * ABI 1.2.
   */
  CODEX_EVENT_RECONNECTING = 7,
  /**
   * The client reconnected and resumed its threads: `reconnect_attempt` (attempts it
   * took), `reconnect_json` (threads resumed and not, requests failed, turns ended).
   * ABI 1.2.
   */
  CODEX_EVENT_RECONNECTED = 8,
  /**
   * MCP authorization (an MCP HTTP transport with OAuth options) started, succeeded,
   * refreshed its token or failed: `error_message` (the step in words, never a secret),
   * `reconnect_json` (`{"auth": "started"|"succeeded"|"refreshed"|"failed", "reason",
   * "grant", "issuer", "scope"}` as they apply). ABI 1.6.
   */
  CODEX_EVENT_AUTH = 9,
  /**
   * The app-server's Codex version is outside the supported window (or it said none); the
   * connection goes on: `error_message` (in words), `reconnect_json` (`{"version",
   * "position": "older"|"newer"|"unknown", "matches", "window"}`). Delivered once per
   * connect (and per reconnect to such a server). ABI 1.10.
   */
  CODEX_EVENT_OUTSIDE_WINDOW = 10,
  /**
   * The app-server behind the local control socket (`codex app-server daemon`'s) runs
   * another Codex version than the installed CLI (the `codex` binary the options name); the
   * connection goes on with the server's version: `error_message` (in words),
   * `reconnect_json` (the server version's JSON, as OUTSIDE_WINDOW's, with `"source":
   * "control_socket"` and `"cli_version"`). Delivered once per connect (and per reconnect
   * to such a server). ABI 1.11.
   */
  CODEX_EVENT_VERSION_MISMATCH = 11,
} codex_event_kind_t;

/**
 * A client of one server (a Codex app-server or an MCP server). Opaque handle: a token the
 * library checks on every call (a NULL, freed or foreign pointer gives
 * CODEX_STATUS_INVALID_ARGUMENT), never dereferenced.
 *
 * Create with `codex_client_new`, free with `codex_client_free`. All functions taking a
 * client may be called from any thread, concurrently (except `codex_client_free`, which must
 * be the last call).
 */
typedef struct codex_client_t codex_client_t;

/**
 * One event. Opaque.
 *
 * Ownership: from `codex_client_next_event` the program owns it and frees it with
 * `codex_event_free`; in a callback it is borrowed and freed by the library when the callback
 * returns. Strings returned by its accessors live as long as the event.
 */
typedef struct codex_event_t codex_event_t;

/**
 * A ChatGPT login in progress (opaque handle): from `codex_client_login_chatgpt`, freed
 * with `codex_login_free`.
 */
typedef struct codex_login_t codex_login_t;

/**
 * An open MCP subscription stream (opaque handle): from `codex_client_mcp_listen`, closed
 * and freed with `codex_mcp_listen_free`.
 */
typedef struct codex_mcp_listen_t codex_mcp_listen_t;

/**
 * Where a callback puts its answer (opaque handle): the text it hands back
 * (`codex_oauth_answer_set`) or why it failed (`codex_oauth_answer_error`).
 *
 * Ownership: the library's. It is live only during the one callback call that received it;
 * the library copies the answer before the call returns. Using it after the callback
 * returned, or with another callback, gives CODEX_STATUS_INVALID_ARGUMENT (never a crash:
 * it is a handle, never dereferenced).
 */
typedef struct codex_oauth_answer_t codex_oauth_answer_t;

/**
 * Options of a client. Opaque handle: its layout is not part of the ABI.
 *
 * Create with `codex_options_new` (every option has its default), change options with
 * `codex_options_set` / `codex_options_add` (any option by name, the value as JSON) or the
 * typed `codex_options_set_*` / `codex_options_add_*` setters, pass it to
 * `codex_client_new`, free it with `codex_options_free`. Ownership: the program's, from
 * `codex_options_new` until `codex_options_free`; `codex_client_new` copies what it needs,
 * so the object may be freed right after it (or reused for more clients). Every string
 * passed to a setter is copied before the setter returns; a refused value changes nothing.
 * Handles are checked against the library's registry of live objects (they are never
 * reused): a freed handle, or any other pointer (such as the old public struct of a program
 * built against an older header), gives CODEX_STATUS_INVALID_ARGUMENT, never a crash. A
 * handle is never dereferenced, by the library or by the program.
 * Thread: any. An options object may be used from several threads at once (each call locks
 * it); a client created while another thread changes the object gets the options as they
 * were either before or after that change.
 */
typedef struct codex_options_t codex_options_t;

/**
 * A pool of Codex app-servers. Opaque handle (a token checked on every call). Create with
 * `codex_pool_new`, free with `codex_pool_free`. Every function may be called from any
 * thread, concurrently (except `codex_pool_free`, the last call).
 */
typedef struct codex_pool_t codex_pool_t;

/**
 * A request the server sent (an approval, a question, ...). Opaque handle.
 *
 * Ownership: after `codex_event_take_request` the program owns it and must free it with
 * `codex_request_free` (an unanswered request is then answered fail-closed: approvals are
 * declined). Answer it with `codex_client_respond` or `codex_client_respond_error`, now or
 * later, from any thread.
 */
typedef struct codex_request_t codex_request_t;

/**
 * Severity of a log record (`codex_set_log_callback`).
 */
typedef uint32_t codex_log_level_t;

/**
 * A log callback: the record's `level`, its `target` (a module path, or
 * `"codex_client::server_stderr"` for a line the server wrote to its stderr) and its
 * `message`; both strings are NUL-terminated UTF-8, borrowed for the call only.
 */
typedef void (*codex_log_callback_t)(void *userdata, codex_log_level_t level, const char *target, const char *message);

/**
 * How a client delivers events: chosen once, with `codex_options_set_delivery`.
 */
typedef uint32_t codex_delivery_t;

/**
 * Which callback `codex_client_register_callback` sets.
 */
typedef uint32_t codex_callback_kind_t;

/**
 * A callback. `event` is borrowed for the duration of the call: read it with the
 * `codex_event_*` accessors, never free it; take a server request out of it with
 * `codex_event_take_request` to answer after returning. Runs on the client's dispatch thread.
 * Must return normally (no C++ exception, no longjmp across it).
 */
typedef void (*codex_callback_t)(void *userdata, struct codex_event_t *event);

/**
 * The browser step of MCP authorization: take the user to `authorization_url` (NUL-terminated
 * UTF-8, borrowed for the call) and answer the URL the authorization server redirected to
 * (with `code`, `state` and maybe `iss`) with `codex_oauth_answer_set(answer, url)`, or fail
 * with `codex_oauth_answer_error(answer, message)` (answering nothing fails too).
 */
typedef void (*codex_oauth_authorize_callback_t)(void *userdata, const char *authorization_url, struct codex_oauth_answer_t *answer);

/**
 * Frees a callback's `userdata` (`codex_options_set_oauth_authorizer`,
 * `codex_options_set_oauth_token_store`, `codex_options_set_oauth_loopback`): called once,
 * when no options object and no client holds the callbacks any more, on the thread that
 * dropped the last of them (any thread: the one of `codex_options_free` or
 * `codex_client_free`, or a library thread as a connection ends). It must not call the
 * library.
 */
typedef void (*codex_release_callback_t)(void *userdata);

/**
 * Token store: what is stored for the MCP server `server` (its URL). Answer the JSON text
 * that `codex_oauth_store_save_callback_t` was given for it with `codex_oauth_answer_set`,
 * answer nothing when nothing is stored, or fail with `codex_oauth_answer_error`.
 */
typedef void (*codex_oauth_store_load_callback_t)(void *userdata, const char *server, struct codex_oauth_answer_t *answer);

/**
 * Token store: replace what is stored for `server` with `credentials_json` (JSON text
 * holding the tokens and the client registration: secrets, keep it private; both strings
 * borrowed for the call). Fail with `codex_oauth_answer_error`.
 */
typedef void (*codex_oauth_store_save_callback_t)(void *userdata, const char *server, const char *credentials_json, struct codex_oauth_answer_t *answer);

/**
 * Token store: forget what is stored for `server`. Fail with `codex_oauth_answer_error`.
 */
typedef void (*codex_oauth_store_clear_callback_t)(void *userdata, const char *server, struct codex_oauth_answer_t *answer);

/**
 * Opens an authorization URL for the user (`codex_options_set_oauth_loopback`): start the
 * browser and return (it runs on a library-owned blocking thread).
 */
typedef void (*codex_oauth_open_callback_t)(void *userdata, const char *authorization_url);

/**
 * Errors.
 */
#define CODEX_LOG_ERROR 1

/**
 * Warnings (for example a malformed line from the server, a callback that panicked).
 */
#define CODEX_LOG_WARN 2

/**
 * Information.
 */
#define CODEX_LOG_INFO 3

/**
 * Debugging detail, including every line the server writes to its stderr.
 */
#define CODEX_LOG_DEBUG 4

/**
 * Everything.
 */
#define CODEX_LOG_TRACE 5

/**
 * Callbacks (the default): events, server requests, connection events and request
 * completions run registered callbacks on one library-owned thread per client (a thread of a
 * small pool shared by all clients, unless `codex_options_set_dedicated_dispatch_thread`).
 */
#define CODEX_DELIVERY_CALLBACKS 0

/**
 * Poll mode: the program pulls events with `codex_client_next_event`, optionally waiting
 * for `codex_client_event_fd` to become readable. No library thread runs program code.
 */
#define CODEX_DELIVERY_POLL 1

/**
 * Server notifications (`CODEX_EVENT_NOTIFICATION` events).
 */
#define CODEX_CALLBACK_NOTIFICATION 1

/**
 * Server requests (`CODEX_EVENT_SERVER_REQUEST` events). Without one, every server request
 * is answered fail-closed: approvals are declined.
 */
#define CODEX_CALLBACK_SERVER_REQUEST 2

/**
 * Connection reports: `CODEX_EVENT_ERROR`, `CODEX_EVENT_OVERFLOW`, `CODEX_EVENT_DISCONNECTED`,
 * `CODEX_EVENT_RECONNECTING`, `CODEX_EVENT_RECONNECTED`.
 */
#define CODEX_CALLBACK_CONNECTION 3

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/* ===================================================================== SHARED
 *
 * For both clients (the top of ffi-c/src): status and last error, strings,
 * versions, logging, options.
 */

/**
 * The message of the last failed call on the calling thread ("" when the last call
 * succeeded).
 *
 * Ownership: the library's; valid until the next call into the library on this thread.
 * Do not free. Thread: any (each thread has its own last error).
 */
const char *codex_last_error_message(void);

/**
 * The status of the last failed call on the calling thread (`CODEX_STATUS_OK` when the last
 * call succeeded).
 */
enum codex_status_t codex_last_error_status(void);

/**
 * The JSON-RPC error code of the last failed call on the calling thread, when it failed with
 * `CODEX_STATUS_RPC_ERROR` or `CODEX_STATUS_OVERLOADED`; 0 otherwise.
 */
int64_t codex_last_error_rpc_code(void);

/**
 * The JSON-RPC error message (the server's text, without decoration) of the last failed call
 * on the calling thread; NULL when it was not a JSON-RPC error.
 *
 * Ownership: the library's; valid until the next call into the library on this thread.
 */
const char *codex_last_error_rpc_message(void);

/**
 * The JSON-RPC error `data` member, as JSON text, of the last failed call on the calling
 * thread; NULL when absent or when it was not a JSON-RPC error.
 *
 * Ownership: the library's; valid until the next call into the library on this thread.
 */
const char *codex_last_error_rpc_data(void);

/**
 * The name of a status code, for example "CODEX_STATUS_TIMEOUT" ("CODEX_STATUS_UNKNOWN" for
 * a number that is not a status). Static string: never free it. Thread: any.
 */
const char *codex_status_name(int status);

/**
 * Free a string the library returned through a `char **` out-parameter. NULL is ignored.
 *
 * Ownership: takes back ownership of `s`. Only strings from this library; never `free()`
 * them, and never pass the `const char *` strings that accessors return.
 * Thread: any.
 */
void codex_string_free(char *s);

/**
 * The library version, for example "0.1.0". Static string: never free it. Thread: any.
 */
const char *codex_version(void);

/**
 * The ABI version of the library actually loaded: `major * 1000 + minor`, the same
 * encoding as `CODEX_ABI_VERSION` (the version of the header a program was compiled
 * with). The library can run a program when `codex_abi_version() / 1000 ==
 * CODEX_ABI_VERSION / 1000` (the soname guarantees it) and
 * `codex_abi_version() >= CODEX_ABI_VERSION` (every function of the program's header
 * exists). Thread: any.
 */
uint32_t codex_abi_version(void);

/**
 * Send the library's log records at `level` and above (`CODEX_LOG_ERROR` ...
 * `CODEX_LOG_TRACE`) to `callback`, with `userdata` passed back unchanged; a NULL
 * `callback` stops the forwarding. Records come from every client of the process: the
 * library's own diagnostics, connection errors, and (at `CODEX_LOG_DEBUG`) each line the
 * servers write to their stderr.
 *
 * Thread: the callback runs on one library-owned thread (`codex-log`), one record
 * at a time, in order, never while the library holds a lock the callback could need (it
 * may call any function of this library except this one). Records are queued without
 * blocking the connections; when 8192 wait, new ones are dropped. Setting another
 * callback, or NULL, returns once a call in progress has returned: after
 * `codex_set_log_callback(CODEX_LOG_ERROR, NULL, NULL)` the old `userdata` may be freed.
 * Call it from any thread but the log callback itself (INVALID_STATE there).
 * Errors: INVALID_ARGUMENT (unknown level), INVALID_STATE (from the log callback, or the
 * process already has another `tracing` subscriber, such as the Python module's).
 */
enum codex_status_t codex_set_log_callback(codex_log_level_t level, codex_log_callback_t callback, void *userdata);

/**
 * Create an options object with every option at its default.
 *
 * Ownership: the returned object is the program's; free it with `codex_options_free`
 * (it may be freed right after `codex_client_new`). Returns NULL only when the library
 * failed internally (the last error says why). Thread: any.
 */
struct codex_options_t *codex_options_new(void);

/**
 * Free an options object. NULL is ignored; a pointer that is not a live options object
 * (freed twice, or never from `codex_options_new`) is ignored too, and the last error
 * says so. Clients created from it are not affected. Thread: any.
 */
void codex_options_free(struct codex_options_t *opts);

/**
 * Set the option named `key` to `value_json`, its value as JSON text: any option of
 * `codex_options_keys_json()` (the core's table: names, types, defaults, ranges and what
 * 0 means), with the same meaning as in Rust and Python. Durations are in seconds (an
 * integer or a fraction: `"0.25"`), sizes in bytes; for most sizes and durations 0 means
 * the default. `value_json` NULL or `"null"` restores the option's default. For example
 * `codex_options_set(o, "default_timeout", "12.5")`,
 * `codex_options_set(o, "transport", "\"exec\"")`,
 * `codex_options_set(o, "exec_model", "\"gpt-5.1-codex\"")`,
 * `codex_options_set(o, "retry_max_attempts", "1")`. Every option reachable from Rust is
 * reachable here, also those without a typed setter (the exec transport's `exec_*`
 * options, `retry_*`, `stderr_tail_bytes`, `mcp_roots`, `command`, ...): a new option of
 * the library needs no new function. Options that need others (`headers` an MCP HTTP
 * transport, the `exec_*` options the exec transport) are checked by `codex_client_new`.
 * Ownership: both strings are read during the call only. Errors (nothing is changed):
 * INVALID_ARGUMENT (not a live options object, `key` NULL or unknown - the message lists
 * the known keys -, `value_json` not valid JSON, a wrong type or a value out of range -
 * the message names the key and what it takes, never the value of a secret such as
 * `token` or `headers`). Thread: any. ABI 1.5.
 */
enum codex_status_t codex_options_set(struct codex_options_t *opts, const char *key, const char *value_json);

/**
 * Append one entry, `value_json` (JSON text), to the list option named `key` (`args`,
 * `env`, `config_overrides`, `headers`, `opt_out_notification_methods`, `mcp_roots`,
 * `exec_additional_directories`: `"list":true` in `codex_options_keys_json()`). For
 * example `codex_options_add(o, "env", "\"RUST_LOG=debug\"")` or
 * `codex_options_add(o, "headers", "[\"X-Api-Key\",\"k\"]")`.
 * Ownership: both strings are read during the call only. Errors (nothing is changed):
 * INVALID_ARGUMENT (not a live options object, `key` NULL, unknown or not a list,
 * `value_json` NULL or not valid JSON, a wrong entry). Thread: any. ABI 1.5.
 */
enum codex_status_t codex_options_add(struct codex_options_t *opts, const char *key, const char *value_json);

/**
 * The value the option named `key` has now in `opts`, as JSON text (durations in seconds;
 * a secret such as `token` reads `"<redacted>"`), or NULL on failure (the last error
 * says why: INVALID_ARGUMENT for a dead options object, or a NULL or unknown `key`).
 * Ownership: the returned string is the caller's: free it with `codex_string_free`.
 * Thread: any. ABI 1.5.
 */
char *codex_options_get(const struct codex_options_t *opts, const char *key);

/**
 * Every option `codex_options_set` takes, as a JSON array of
 * `{"name","kind","list","secret","doc","default"}` (`kind`: "bool", "string", "path",
 * "word", "seconds", "count", "strings", "pairs", "object", "policy" or "roots"; `doc`
 * says what it means, its range and what 0 means; `default` is its value in a new options
 * object, as `codex_options_get` reads it). Ownership: a static string of the library;
 * never free it. Thread: any. ABI 1.5.
 */
const char *codex_options_keys_json(void);

/**
 * Path of the `codex` binary (copied). NULL (the default): `$CODEX_BIN`, then `codex` on
 * `PATH` (an npm launcher is replaced by the native binary beside it).
 * Errors: INVALID_ARGUMENT (not a live options object, `path` not UTF-8). Thread: any.
 */
enum codex_status_t codex_options_set_codex_bin(struct codex_options_t *opts, const char *path);

/**
 * Append one argument (copied) to the server's command line, after `app-server` (with the
 * exec transport: after every `codex exec` command line, for example
 * `"--skip-git-repo-check"` outside a Git repository). Default: none.
 * Errors: INVALID_ARGUMENT (not a live options object, `arg` NULL or not UTF-8).
 * Thread: any.
 */
enum codex_status_t codex_options_add_arg(struct codex_options_t *opts, const char *arg);

/**
 * Add one `-c` config override of the server, `"key=value"` (copied; the value is TOML,
 * as on Codex's command line). Default: none.
 * Errors: INVALID_ARGUMENT (not a live options object, `key_value` NULL, not UTF-8, or
 * not of the form `key=value` with a non-empty key). Thread: any.
 */
enum codex_status_t codex_options_add_config_override(struct codex_options_t *opts, const char *key_value);

/**
 * Add one environment variable of the server, `"NAME=value"` (copied), merged into the
 * inherited environment (or into an empty one, see `codex_options_set_clear_env`).
 * Default: none.
 * Errors: INVALID_ARGUMENT (not a live options object, `name_value` NULL, not UTF-8, or
 * not of the form `NAME=value` with a non-empty name). Thread: any.
 */
enum codex_status_t codex_options_add_env(struct codex_options_t *opts, const char *name_value);

/**
 * Start the server with an empty environment plus the `codex_options_add_env` entries
 * (true) instead of the inherited one (false). Option `clear_env`.
 * Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
 */
enum codex_status_t codex_options_set_clear_env(struct codex_options_t *opts, bool clear_env);

/**
 * Working directory of the server (copied). NULL (the default): the current directory.
 * Errors: INVALID_ARGUMENT (not a live options object, `cwd` not UTF-8). Thread: any.
 */
enum codex_status_t codex_options_set_cwd(struct codex_options_t *opts, const char *cwd);

/**
 * `CODEX_HOME` of the server (copied). NULL (the default): inherited.
 * Errors: INVALID_ARGUMENT (not a live options object, `codex_home` not UTF-8).
 * Thread: any.
 */
enum codex_status_t codex_options_set_codex_home(struct codex_options_t *opts, const char *codex_home);

/**
 * `clientInfo` sent in `initialize` (each string copied; each NULL restores its default):
 * options `client_name`, `client_title` and `client_version` (their defaults:
 * `codex_options_keys_json()`). Nothing is changed when it fails.
 * Errors: INVALID_ARGUMENT (not a live options object, a string not UTF-8). Thread: any.
 */
enum codex_status_t codex_options_set_client_info(struct codex_options_t *opts, const char *name, const char *title, const char *version);

/**
 * Ask for experimental methods and fields (`capabilities.experimentalApi`). Default:
 * false. Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
 */
enum codex_status_t codex_options_set_experimental_api(struct codex_options_t *opts, bool experimental_api);

/**
 * Add a notification method the server must not send (`optOutNotificationMethods`;
 * copied). Default: none.
 * Errors: INVALID_ARGUMENT (not a live options object, `method` NULL or not
 * UTF-8). Thread: any.
 */
enum codex_status_t codex_options_add_opt_out_notification_method(struct codex_options_t *opts, const char *method);

/**
 * Timeout of every request that does not pass its own, in milliseconds (option
 * `default_timeout`: its default, range and what 0 means are in
 * `codex_options_keys_json()`).
 * Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
 * Thread: any.
 */
enum codex_status_t codex_options_set_default_timeout_ms(struct codex_options_t *opts, uint64_t timeout_ms);

/**
 * Bound of a whole `codex_client_connect`, in milliseconds: spawning or dialing, the
 * TCP/unix connect, the WebSocket upgrade and the `initialize` round trip together. Past
 * it the connect fails with `CODEX_STATUS_TIMEOUT` and everything it started is stopped.
 * Option `connect_timeout` (its default, range and what 0 means: `codex_options_keys_json()`).
 * Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
 * Thread: any.
 */
enum codex_status_t codex_options_set_connect_timeout_ms(struct codex_options_t *opts, uint64_t timeout_ms);

/**
 * How long a blocking call (`codex_client_call`) may spin for its reply before the thread
 * sleeps, in microseconds: a fast server's reply then arrives without a sleep and a
 * wake-up. Adaptive: while replies take longer than this, only every 2nd … 64th call
 * spins. Option `reply_spin` (its default, range and what 0 means:
 * `codex_options_keys_json()`). ABI 1.4.
 * Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
 * Thread: any.
 */
enum codex_status_t codex_options_set_reply_spin_us(struct codex_options_t *opts, uint32_t spin_us);

/**
 * How the client delivers events: `CODEX_DELIVERY_CALLBACKS` (the default) or
 * `CODEX_DELIVERY_POLL`.
 * Errors: INVALID_ARGUMENT (not a live options object, another value). Thread: any.
 */
enum codex_status_t codex_options_set_delivery(struct codex_options_t *opts, codex_delivery_t delivery);

/**
 * Callback mode: run this client's callbacks on a thread of its own (started by
 * `codex_client_connect`, ended by `codex_client_disconnect`) instead of a thread of the
 * library's shared dispatch pool, whose threads serve several clients each (there a
 * callback that blocks holds up the other clients on its thread). Default 0 (shared).
 * No effect in poll mode. ABI 1.4.
 * Errors: INVALID_ARGUMENT (not a live options object). Thread: any.
 */
enum codex_status_t codex_options_set_dedicated_dispatch_thread(struct codex_options_t *opts, bool dedicated);

/**
 * Undelivered events held before the server is made to wait (option
 * `event_queue_capacity`: its default, range and what 0 means are in
 * `codex_options_keys_json()`). Errors: INVALID_ARGUMENT (not a live options object, out
 * of the option's range). Thread: any.
 */
enum codex_status_t codex_options_set_event_queue_capacity(struct codex_options_t *opts, size_t capacity);

/**
 * Read-ahead budget in bytes. A request made on a thread that delivers this client's
 * events (inside a callback, or on the thread that calls `codex_client_next_event`)
 * would otherwise wait behind a full event queue for itself, so while one is pending the
 * library keeps reading past the event queue capacity until the queued events add up to
 * this many bytes; past that, notifications are dropped and counted in a
 * `CODEX_EVENT_OVERFLOW` event, delivered as soon as there is room. Requests made on any
 * other thread never cause read-ahead and nothing is dropped. Option `read_ahead_bytes`
 * (its default, range and what 0 means: `codex_options_keys_json()`). Errors:
 * INVALID_ARGUMENT (not a live options object, out of the option's range). Thread: any.
 */
enum codex_status_t codex_options_set_read_ahead_bytes(struct codex_options_t *opts, size_t bytes);

/**
 * Longest accepted line from the server, in bytes (longer lines are skipped and
 * reported). Option `max_line_bytes` (its default, range and what 0 means:
 * `codex_options_keys_json()`).
 * Errors: INVALID_ARGUMENT (not a live options object, out of the option's range).
 * Thread: any.
 */
enum codex_status_t codex_options_set_max_line_bytes(struct codex_options_t *opts, size_t bytes);

/**
 * The transport, and for a WebSocket or MCP HTTP server its bearer token (both copied).
 * `spec` NULL or `""`: `"stdio"` (the default: spawn `codex app-server`, JSON-RPC over its
 * stdin/stdout).
 *
 * The transport belongs to the client, not to a thread: a client is one connection to one
 * Codex process, and every thread it starts or resumes lives in that process (a thread
 * cannot move to another process; use another client and `thread/resume` there). The
 * default is the app-server over stdio, not `codex exec` as in the official TypeScript
 * SDK: one long-lived process for every thread and turn, deltas streamed as produced,
 * approvals sent to the server-request callback (exec never asks), steer, fork and the
 * other methods. The WebSocket and unix-socket listener (`ws://`, `wss://`, `unix`) is
 * experimental upstream (`codex app-server --listen`; Codex may change or drop it between
 * releases): prefer stdio for production use. Accepted values:
 *
 *   - `"stdio"`: the default;
 *   - `"exec"`: one `codex exec --json` process per turn (`codex exec resume` for later
 *     turns). No approvals (Codex runs with approval policy `never`), steer, fork, thread
 *     list, review, config or models. Arguments of `codex_options_add_arg` are appended to
 *     every `codex exec` command line (for example `"--skip-git-repo-check"` outside a Git
 *     repository);
 *   - `"codex-mcp-server"`: `codex mcp-server` (Codex 0.92.0 and older; newer Codex has
 *     no `mcp-server`): one thread per `codex` tool call, continued with `codex-reply`.
 *     The old alias `"mcp"` is deprecated: accepted, and logged as a warning with target
 *     `codex_client::deprecated`;
 *   - `"ws://HOST:PORT/"` or `"wss://HOST:PORT/"`: connect to a running
 *     `codex app-server --listen ws://...`; `wss://` is TLS (rustls: the system's roots
 *     plus `codex_options_set_tls_ca_file`, server names always checked);
 *   - `"unix"`: the app-server control socket `$CODEX_HOME/app-server-control/
 *     app-server-control.sock`; `"unix://PATH"`: the control socket at PATH;
 *   - any MCP server (see MCP in the overview): `"mcp+stdio:PROGRAM ARG..."` spawns
 *     PROGRAM (split at whitespace; single or double quotes group words, no escapes;
 *     `codex_options_set_mcp_command` takes an argv instead), `"http://..."`,
 *     `"https://..."`, `"mcp+http://..."` or `"mcp+https://..."` connects over MCP
 *     Streamable HTTP (falling back to the legacy HTTP+SSE transport; give a legacy
 *     server's SSE endpoint, e.g. `http://127.0.0.1:3001/sse`).
 *
 * `token` (NULL: none) is the bearer token of a `ws://` / `wss://` / `http(s)://`
 * transport, sent as `Authorization: Bearer <token>`. It is only sent over `wss://` /
 * `https://` or to a loopback address: `codex_client_connect` to any other host with a
 * token fails with `CODEX_STATUS_INVALID_ARGUMENT`. The token is never logged nor put
 * into an error message.
 *
 * Errors (nothing is changed): INVALID_ARGUMENT for an unknown spec (the message names
 * the accepted values), a token with a transport that is not `ws://` / `wss://` /
 * `http(s)://`, an `mcp+stdio:` without a command or with an unbalanced quote, a string
 * that is not UTF-8, or a pointer that is not a live options object. A request (or a
 * request parameter) the chosen transport cannot handle later fails with
 * `CODEX_STATUS_UNSUPPORTED`, and the last error message names the method and the
 * transport (for example "`turn/steer` is not supported by the exec transport").
 * Thread: any.
 */
enum codex_status_t codex_options_set_transport(struct codex_options_t *opts, const char *spec, const char *token);

/**
 * Talk MCP to the server started as `argv[0]` with the arguments `argv[1..argc]` (each
 * copied; no shell, no splitting, no quoting: every element is one argument). The program
 * is looked up on `PATH` when it has no slash. This sets the transport (it replaces the
 * one of `codex_options_set_transport`, and a later `codex_options_set_transport`
 * replaces it). The environment (`codex_options_add_env`, `codex_options_set_clear_env`)
 * and `codex_options_set_cwd` apply to the server; the Codex options (`codex_bin`,
 * `codex_home`, `args`, config overrides) do not.
 * Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `argv`
 * NULL, `argc` 0, an element NULL or not UTF-8, `argv[0]` empty). Thread: any.
 */
enum codex_status_t codex_options_set_mcp_command(struct codex_options_t *opts, const char *const *argv, size_t argc);

/**
 * Add an HTTP header (both strings copied) sent with every request of an MCP HTTP
 * transport (`codex_options_set_transport` with `http://` / `https://`; set before or
 * after it). For a bearer token use the `token` of `codex_options_set_transport`; the
 * transport's own headers (session id, protocol version) win over a custom header of the
 * same name. Values are never logged nor put into an error message. Default: none.
 * `codex_client_new` fails with INVALID_ARGUMENT when headers are set and the transport
 * is not MCP over HTTP.
 * Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, a string
 * NULL or not UTF-8, `name` empty or not an HTTP token - letters, digits and
 * ``!#$%&'*+-.^_`|~``, so no space, colon, CR or LF - or a `value` with a control
 * character other than tab, such as CR or LF). Thread: any.
 */
enum codex_status_t codex_options_add_header(struct codex_options_t *opts, const char *name, const char *value);

/**
 * Add a root (both strings copied) that the library answers an MCP server's `roots/list`
 * with by itself, before any server-request callback sees it. `uri` is the root, a
 * `file://` URI per the MCP specification; `name` (NULL: none) its display name. Default:
 * no roots, and then `roots/list` is an ordinary server request (your
 * `CODEX_CALLBACK_SERVER_REQUEST` callback, or a JSON-RPC error fail-closed).
 * Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `uri` NULL,
 * empty or not UTF-8, `name` not UTF-8). Thread: any.
 */
enum codex_status_t codex_options_add_mcp_root(struct codex_options_t *opts, const char *uri, const char *name);

/**
 * The client capabilities sent in MCP `initialize`, as a JSON object (copied). NULL (the
 * default) restores the library's: `roots` (with `listChanged`), `sampling` and
 * `elicitation` (form and url modes), so that servers offer the tools that need them;
 * their requests are answered fail-closed when no callback answers them. Offer less (for
 * example `{}`) to make a server hide such tools.
 * Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, not UTF-8,
 * not valid JSON, not an object; the JSON text `null` restores the default). Thread: any.
 */
enum codex_status_t codex_options_set_mcp_capabilities_json(struct codex_options_t *opts, const char *capabilities_json);

/**
 * Reconnect automatically when the connection drops without `codex_client_disconnect`
 * (the server exited, the socket closed or reset, a missed heartbeat): the same transport
 * is opened again, the handshake redone and every thread loaded on the connection
 * resumed (see "Reconnect" in the header). Attempt n (0-based) first waits a random time
 * in [0, min(cap_ms, base_ms * 2^n)]. `max_attempts` 0 turns it off; 0 for `base_ms` /
 * `cap_ms` means the default of options `reconnect_base` / `reconnect_cap` (the defaults
 * and ranges of the `reconnect_*` options: `codex_options_keys_json()`). Errors:
 * INVALID_ARGUMENT (not a live options object, out of the options' range). Thread: any.
 * ABI 1.2.
 */
enum codex_status_t codex_options_set_reconnect(struct codex_options_t *opts, uint32_t max_attempts, uint64_t base_ms, uint64_t cap_ms);

/**
 * WebSocket heartbeat (ws://, wss://, unix sockets): a ping every `interval_ms`; when
 * nothing comes from the server for `interval_ms + timeout_ms` the connection drops (and
 * reconnects, with `codex_options_set_reconnect`). `interval_ms` 0 turns it off;
 * `timeout_ms` 0 means the default of option `heartbeat_timeout` (the defaults and ranges:
 * `codex_options_keys_json()`). Errors: INVALID_ARGUMENT (not a live options object, out
 * of the options' range). Thread: any. ABI 1.2.
 */
enum codex_status_t codex_options_set_heartbeat(struct codex_options_t *opts, uint64_t interval_ms, uint64_t timeout_ms);

/**
 * Trust the CA certificates in this PEM file (path copied) for `wss://`, besides the
 * system's roots. NULL removes it. Server names are always checked. The file is read at
 * connect (an unreadable one fails the connect with INVALID_ARGUMENT naming it).
 * Errors: INVALID_ARGUMENT (not a live options object, not UTF-8). Thread: any. ABI 1.2.
 */
enum codex_status_t codex_options_set_tls_ca_file(struct codex_options_t *opts, const char *path);

/**
 * Present this client certificate chain and private key (PEM files, paths copied) on
 * `wss://` when the server asks for one. NULL for both removes it.
 * Errors: INVALID_ARGUMENT (not a live options object, only one of the two given, not
 * UTF-8). Thread: any. ABI 1.2.
 */
enum codex_status_t codex_options_set_tls_client_cert(struct codex_options_t *opts, const char *cert_path, const char *key_path);

/**
 * Overload (-32001) retry of every request: `max_attempts` sends in all, including the
 * first (1: no retry); attempt n waits a random time in [0, min(cap_ms, base_ms * 2^n)]
 * first. The same as the options `retry_max_attempts`, `retry_base` and `retry_cap` of
 * `codex_options_set` (0 for any argument: the option's default; the defaults and ranges:
 * `codex_options_keys_json()`). Errors (nothing is changed): INVALID_ARGUMENT (not a live
 * options object, out of the options' range). Thread: any. ABI 1.5.
 */
enum codex_status_t codex_options_set_retry(struct codex_options_t *opts, uint32_t max_attempts, uint64_t base_ms, uint64_t cap_ms);

/* ===================================================================== CONNECTION
 *
 * Any server, Codex or MCP (ffi-c/src/connection/): a client's handle and
 * lifecycle, callbacks, poll mode, requests by method name, events, server requests and
 * their answers.
 */

/**
 * Create a client (nothing is started until `codex_client_connect`).
 *
 * `opts`: NULL (all defaults) or an options object from `codex_options_new`. Its options
 * are copied, so it may be freed (or changed for another client) when this returns; the
 * caller keeps owning it. On success `*out` receives the client, owned by the program:
 * free it with `codex_client_free`. Nothing runs yet: the library's shared runtime and
 * dispatch threads start with the process's first `codex_client_connect` (and are then
 * used by every client). Errors: INVALID_ARGUMENT (NULL `out`; `opts` not a live options object: freed,
 * or not from `codex_options_new`, such as the options struct of a program built against
 * the ABI 0 header - nothing is read through it and the message says so), TRANSPORT (no
 * descriptor or thread). Thread: any.
 */
enum codex_status_t codex_client_new(const struct codex_options_t *opts, struct codex_client_t **out);

/**
 * Free a client: disconnects first when connected (see `codex_client_disconnect`) and
 * waits until its callbacks are done on its dispatch thread (so it waits for a callback that is running to return:
 * a callback that never returns blocks this call; everything else it waits for is bounded). After it returns no callback of this client runs
 * again and `client` is invalid: passing it to any function afterwards returns
 * CODEX_STATUS_INVALID_ARGUMENT (freeing it twice is detected and ignored; the last error says
 * so). Request handles taken earlier must still be freed with `codex_request_free` (they can
 * no longer be answered). Events pulled earlier stay valid until `codex_event_free`. NULL is
 * ignored.
 *
 * Call it last, once, when no other thread uses the client. Do not call it from one of this
 * client's callbacks (it works, but the callback must not touch the client afterwards and
 * completions still pending are dropped).
 */
void codex_client_free(struct codex_client_t *client);

/**
 * Spawn the server and run the `initialize` handshake (blocking). When `init_result_json`
 * is not NULL it receives the server's `initialize` result as JSON text (free it with
 * `codex_string_free`).
 *
 * A client can connect again after `codex_client_disconnect` or after its server died;
 * callbacks stay registered. Errors: ALREADY_CONNECTED, TRANSPORT (spawn failed), TIMEOUT,
 * DISCONNECTED (server exited during the handshake, message has its stderr), PROTOCOL.
 * Thread: any, including inside callbacks.
 */
enum codex_status_t codex_client_connect(struct codex_client_t *client, char **init_result_json);

/**
 * End the connection: stops the server (closes its stdin, waits up to 500 ms, then kills
 * its process group); every pending request fails with CODEX_STATUS_DISCONNECTED.
 *
 * Callbacks mode, called from any thread but the client's dispatch thread: returns after the
 * running callback (if any) returned and after the completion callbacks of all in-flight
 * async requests ran (with CODEX_STATUS_DISCONNECTED); no event callback of this
 * connection runs afterwards. Called from inside a callback that runs on the client's own
 * dispatch thread (a callback of this client, or of another client sharing its thread):
 * the current callback is the last event callback; failed request completions are
 * delivered after it returns. (Likewise when two callbacks on different dispatch threads
 * disconnect each other's clients: the second does not wait for the first, so neither
 * deadlocks.)
 * Returns CODEX_STATUS_NOT_CONNECTED (harmless) when there was no connection to end, so a
 * second disconnect is an error code, never a crash.
 */
enum codex_status_t codex_client_disconnect(struct codex_client_t *client);

/**
 * Whether the client is connected (handshake done and server alive). False for NULL or a
 * freed client. Thread: any, including inside callbacks. No pointers are kept.
 */
bool codex_client_is_connected(const struct codex_client_t *client);

/**
 * Whether the connection dropped and the client is reconnecting (with
 * `codex_options_set_reconnect`); requests made now wait for the rejoin. False for NULL
 * or a freed client. Thread: any, including inside callbacks. ABI 1.2.
 */
bool codex_client_is_reconnecting(const struct codex_client_t *client);

/**
 * The process id of the server of the current connection, written to `*pid` (the caller's
 * storage). Errors: NOT_CONNECTED, INVALID_ARGUMENT (NULL). Thread: any.
 */
enum codex_status_t codex_client_server_pid(const struct codex_client_t *client, uint32_t *pid);

/**
 * The last bytes the server wrote to stderr ("" when never connected). `*out` receives a
 * string the program frees with `codex_string_free`. Thread: any.
 */
enum codex_status_t codex_client_stderr_tail(const struct codex_client_t *client, char **out);

/**
 * Set (or with a NULL `callback`, remove) the callback of one kind:
 * `CODEX_CALLBACK_NOTIFICATION`, `CODEX_CALLBACK_SERVER_REQUEST` or
 * `CODEX_CALLBACK_CONNECTION`. `userdata` is passed back unchanged.
 *
 * Every callback of a client runs on the client's one dispatch thread (a library-owned
 * thread, never the caller's), one at a time, in arrival order. The thread may be shared
 * with other clients (a small fixed pool): a callback that blocks holds up the other
 * clients on that thread (`codex_options_set_dedicated_dispatch_thread` gives a client a
 * thread of its own). Callbacks may call any
 * function of this library, including blocking calls (`codex_client_call`) and
 * `codex_client_disconnect`, except `codex_client_next_event`.
 * Errors: INVALID_STATE on a poll-mode client, INVALID_ARGUMENT for an unknown kind.
 * Thread: any; takes effect for the next event.
 */
enum codex_status_t codex_client_register_callback(struct codex_client_t *client, codex_callback_kind_t kind, codex_callback_t callback, void *userdata);

/**
 * Poll mode: wait up to `timeout_ms` (negative: forever, 0: do not wait) for the next event.
 * On success `*event` receives it, owned by the program: free it with `codex_event_free`.
 *
 * Events come in arrival order; completions of `codex_client_request` (CODEX_EVENT_RESPONSE)
 * are interleaved as they finish. Returns TIMEOUT (and `*event` = NULL) when nothing arrived
 * in time; after the CODEX_EVENT_DISCONNECTED event of a connection the next call returns
 * DISCONNECTED (or NOT_CONNECTED once disconnected), until the client connects again.
 * Errors: INVALID_STATE on a callbacks-mode client.
 * Thread: any (several threads may call it; each event goes to one of them). Never from a
 * callback.
 */
enum codex_status_t codex_client_next_event(struct codex_client_t *client, int64_t timeout_ms, struct codex_event_t **event);

/**
 * Poll mode: a file descriptor that is readable while events wait for
 * `codex_client_next_event`, or -1 on error (the last error says why: INVALID_ARGUMENT for a
 * NULL or freed client, INVALID_STATE on a callbacks-mode client).
 *
 * Watch it with poll/epoll/select or `enif_select` (`POLLIN`), then call
 * `codex_client_next_event(client, 0, &ev)` until it returns CODEX_STATUS_TIMEOUT. It is
 * level-triggered: it stays readable while an event waits; it is also readable once the
 * connection has ended (next_event then reports it, and it stays readable until the next
 * connect: stop watching it then) and may occasionally be readable with nothing to read
 * (next_event returns TIMEOUT at once).
 *
 * Ownership: the client's; it stays the same across reconnects and is closed by
 * `codex_client_free` (remove it from your poll set / `enif_select` before that). Never close
 * it, read from it or write to it yourself. Thread: any.
 */
int codex_client_event_fd(const struct codex_client_t *client);

/**
 * Send a request without waiting (async). `params_json` may be NULL (sent as `{}`).
 * `timeout_ms`: 0 = the client's default timeout. On success `*request_id` (may be NULL)
 * receives the request's id (unique per client, never 0).
 *
 * Callbacks mode: `callback` (may be NULL: result discarded) is called exactly once, on the
 * dispatch thread like every other callback, with a CODEX_EVENT_RESPONSE event (status,
 * result or error, request id, `userdata`), also when the request fails by timeout or
 * disconnect. Poll mode: `callback` must be NULL; the completion is a CODEX_EVENT_RESPONSE
 * event from `codex_client_next_event` (`codex_event_userdata` gives `userdata` back).
 * When this returns an error the request was not sent and no completion will come.
 * `codex_client_cancel_request(client, *request_id)` cancels it while it is pending.
 * Thread: any, including inside callbacks.
 */
enum codex_status_t codex_client_request(struct codex_client_t *client, const char *method, const char *params_json, uint64_t timeout_ms, codex_callback_t callback, void *userdata, uint64_t *request_id);

/**
 * Cancel a request sent with `codex_client_request` (`request_id` is the id it returned)
 * that has not been answered yet: its completion comes at once with
 * `CODEX_STATUS_CANCELLED` (callbacks mode: the completion callback on the dispatch
 * thread; poll mode: a CODEX_EVENT_RESPONSE event), and an MCP server is told with
 * `notifications/cancelled` (a later answer of the server is dropped). Exactly one
 * completion still comes per request: when the answer, a timeout or the disconnect
 * settled the request first, this returns INVALID_STATE and the completion carries that
 * outcome. A blocking `codex_client_call` cannot be cancelled (bound it with its
 * `timeout_ms`; a timed-out MCP request is cancelled at the server too).
 * Errors: INVALID_ARGUMENT (`request_id` 0), NOT_CONNECTED, INVALID_STATE (no such request
 * pending: answered, timed out or failed already, or never sent by this client).
 * Thread: any, including inside callbacks.
 */
enum codex_status_t codex_client_cancel_request(struct codex_client_t *client, uint64_t request_id);

/**
 * Send a request and wait for its result (blocking). `params_json` may be NULL (sent as
 * `{}`); `timeout_ms`: 0 = the client's default timeout. On success `*result_json` (may be
 * NULL: result discarded) receives the result as JSON text; free it with `codex_string_free`.
 *
 * Errors: NOT_CONNECTED, TIMEOUT, RPC_ERROR (see `codex_last_error_rpc_code`, `..._message`,
 * `..._data`), OVERLOADED, DISCONNECTED, INVALID_ARGUMENT (bad JSON).
 * Thread: any, including inside callbacks (a response never waits behind undelivered events).
 */
enum codex_status_t codex_client_call(struct codex_client_t *client, const char *method, const char *params_json, uint64_t timeout_ms, char **result_json);

/**
 * Send a client notification (no response). `params_json` may be NULL (sent as `{}`).
 * Thread: any.
 */
enum codex_status_t codex_client_notify(struct codex_client_t *client, const char *method, const char *params_json);

/**
 * The kind of an event (`CODEX_EVENT_NONE` for NULL).
 *
 * Event accessors (all `codex_event_*` readers): the event stays owned by whoever owned it;
 * returned strings are borrowed from the event. Thread: any thread, but not concurrently with
 * `codex_event_free` of the same event; a callback's event only inside the callback.
 */
enum codex_event_kind_t codex_event_kind(const struct codex_event_t *event);

/**
 * The method: of the notification, of the server request, or of the request a RESPONSE
 * completes. NULL for other kinds. Ownership: the event's (valid until it is freed).
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_method(const struct codex_event_t *event);

/**
 * The `params` JSON text of a notification or server request ("null" when the server sent
 * none); NULL for other kinds. Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_params(const struct codex_event_t *event);

/**
 * `params.threadId` of a notification or server request, or NULL. Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_thread_id(const struct codex_event_t *event);

/**
 * The turn a notification or server request belongs to: `params.turnId`, or for notifications
 * that carry the turn itself (`turn/started`, `turn/completed`) `params.turn.id`; NULL when
 * there is none. Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_turn_id(const struct codex_event_t *event);

/**
 * The text of a delta notification (`params.delta` of `item/agentMessage/delta` and the
 * other notifications whose method ends in `/delta`), decoded, without parsing JSON yourself; NULL when the event
 * has no string `params.delta`. When `len` is not NULL it receives the length in bytes (the
 * text may contain NUL bytes; the returned string is NUL-terminated after `len` bytes).
 * Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_delta(const struct codex_event_t *event, size_t *len);

/**
 * The handle of a SERVER_REQUEST event's request (NULL for other kinds). Borrowed: valid
 * while the event lives, unless taken with `codex_event_take_request` (then until the program
 * frees it). Answer it with `codex_client_respond`, even without taking it.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
struct codex_request_t *codex_event_request(const struct codex_event_t *event);

/**
 * Take ownership of a SERVER_REQUEST event's request, to answer it after the event is freed
 * (or after the callback returns). The program must free it with `codex_request_free`.
 * A request that is not taken is answered fail-closed when its event is freed (or, in a
 * callback, when the callback returns) unless it was answered already.
 * Errors: INVALID_ARGUMENT (NULL, not a server request), INVALID_STATE (already taken).
 * Thread: any (inside a callback: before it returns).
 */
enum codex_status_t codex_event_take_request(struct codex_event_t *event, struct codex_request_t **request);

/**
 * The id `codex_client_request` returned, for a RESPONSE event (0 otherwise). Thread: as for
 * every event accessor (see `codex_event_kind`).
 */
uint64_t codex_event_request_id(const struct codex_event_t *event);

/**
 * The outcome of a RESPONSE event (`CODEX_STATUS_OK`, `CODEX_STATUS_RPC_ERROR`,
 * `CODEX_STATUS_TIMEOUT`, `CODEX_STATUS_DISCONNECTED`, `CODEX_STATUS_CANCELLED` after
 * `codex_client_cancel_request`, ...); `CODEX_STATUS_DISCONNECTED` for a
 * DISCONNECTED event; `CODEX_STATUS_OK` for other kinds; `CODEX_STATUS_INVALID_ARGUMENT` for
 * NULL.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
enum codex_status_t codex_event_status(const struct codex_event_t *event);

/**
 * The result JSON text of a successful RESPONSE event; NULL otherwise. Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_result(const struct codex_event_t *event);

/**
 * A human-readable message: the error of a failed RESPONSE, the text of an ERROR event, the
 * reason of a DISCONNECTED event; NULL otherwise. Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_error_message(const struct codex_event_t *event);

/**
 * RECONNECTING: the attempt about to be made (1 for the first); RECONNECTED: the attempts
 * it took. 0 for other kinds. Thread: as every event accessor (see `codex_event_kind`).
 * ABI 1.2.
 */
uint32_t codex_event_reconnect_attempt(const struct codex_event_t *event);

/**
 * RECONNECTING: how long the client waits before this attempt, in milliseconds; 0
 * otherwise. Thread: as every event accessor (see `codex_event_kind`). ABI 1.2.
 */
uint64_t codex_event_reconnect_delay_ms(const struct codex_event_t *event);

/**
 * The whole report of a RECONNECTING, RECONNECTED, AUTH, OUTSIDE_WINDOW or
 * VERSION_MISMATCH event as JSON text (OUTSIDE_WINDOW, VERSION_MISMATCH: see their
 * kinds); NULL for other kinds. RECONNECTING: `{"attempt","maxAttempts","delayMs","cause"}`. RECONNECTED:
 * `{"attempts","threads":[id…],"failedThreads":[{"threadId","error"}…],
 * "requestsFailed","serverRequestsDropped","turnsEnded":[{"threadId","turnId","status"}…]}`.
 * Ownership: the event's. Thread: as every event accessor (see `codex_event_kind`).
 * ABI 1.2.
 */
const char *codex_event_reconnect_json(const struct codex_event_t *event);

/**
 * The last lines the server wrote to stderr, for a DISCONNECTED event or a RESPONSE that
 * failed with `CODEX_STATUS_DISCONNECTED` (may be ""); NULL otherwise. Ownership: the event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_stderr_tail(const struct codex_event_t *event);

/**
 * The JSON-RPC error code of a RESPONSE that failed with `CODEX_STATUS_RPC_ERROR` or
 * `CODEX_STATUS_OVERLOADED`; 0 otherwise.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
int64_t codex_event_rpc_code(const struct codex_event_t *event);

/**
 * The server's JSON-RPC error message of such a RESPONSE; NULL otherwise. Ownership: the
 * event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_rpc_message(const struct codex_event_t *event);

/**
 * The JSON-RPC error `data` (JSON text) of such a RESPONSE; NULL when absent. Ownership: the
 * event's.
 * Thread: as every event accessor (see `codex_event_kind`).
 */
const char *codex_event_rpc_data(const struct codex_event_t *event);

/**
 * How many notifications an OVERFLOW event reports as dropped (0 otherwise).
 * Thread: as every event accessor (see `codex_event_kind`).
 */
uint64_t codex_event_dropped(const struct codex_event_t *event);

/**
 * The `userdata` given to `codex_client_request`, for a RESPONSE event (NULL otherwise).
 * Thread: as every event accessor (see `codex_event_kind`).
 */
void *codex_event_userdata(const struct codex_event_t *event);

/**
 * The label of the client that received a notification or server request (option
 * `label`; in a pool, the endpoint's name); NULL for other kinds or when the client has
 * none. Ownership: the event's. Thread: as every event accessor (see `codex_event_kind`).
 * ABI 1.11.
 */
const char *codex_event_endpoint(const struct codex_event_t *event);

/**
 * The event in the core's serialised form, as JSON text, for another process:
 * `{"notification": {"method", "params", "endpoint"}}`, `{"server_request": {"owner",
 * "connection", "endpoint", "id", "method", "params"}}` (the request's reference, which
 * `codex_client_respond_ref` answers on the owning client; making it **parks** the
 * request, see `codex_request_to_json`), `{"connection": {"kind", "message", ...}}` or
 * `{"response": {"token", "method", "result" | "error"}}`. NULL for a server request
 * already taken out of the event and freed. Ownership: the event's. Thread: as every
 * event accessor (see `codex_event_kind`). ABI 1.11.
 */
const char *codex_event_to_json(const struct codex_event_t *event);

/**
 * Free an event returned by `codex_client_next_event`. A server request it still owns (not
 * taken) is answered fail-closed if unanswered. NULL is ignored. Freeing an event twice, or
 * the borrowed event a callback receives, is detected and ignored (the calling thread's last
 * error becomes CODEX_STATUS_INVALID_ARGUMENT).
 * Thread: any.
 */
void codex_event_free(struct codex_event_t *event);

/**
 * Free a server request the program owns. If it was never answered it is answered
 * fail-closed first (approvals declined, other methods get a JSON-RPC error). NULL and
 * already-freed handles are ignored.
 * Thread: any, including inside callbacks.
 */
void codex_request_free(struct codex_request_t *request);

/**
 * The request's method, for example "item/commandExecution/requestApproval".
 * Ownership: the library's; valid until the request is freed (`codex_request_free` once taken,
 * otherwise until its event is freed or its callback returns). NULL for a NULL or freed handle.
 * Thread: any.
 */
const char *codex_request_method(const struct codex_request_t *request);

/**
 * The request's `params` as JSON text. Ownership, lifetime and thread as `codex_request_method`.
 */
const char *codex_request_params(const struct codex_request_t *request);

/**
 * The server's id of the request as JSON text (for example "0" or "\"abc\"").
 * Ownership, lifetime and thread as `codex_request_method`.
 */
const char *codex_request_id(const struct codex_request_t *request);

/**
 * `params.threadId`, or NULL. Ownership, lifetime and thread as `codex_request_method`.
 */
const char *codex_request_thread_id(const struct codex_request_t *request);

/**
 * `params.turnId`, or NULL. Ownership, lifetime and thread as `codex_request_method`.
 */
const char *codex_request_turn_id(const struct codex_request_t *request);

/**
 * Whether the request can still be answered (not answered, resolved, freed or disconnected).
 * Thread: any.
 */
bool codex_request_is_open(const struct codex_request_t *request);

/**
 * The label of the client that received the request (option `label`; in a pool, the
 * endpoint's name), or NULL when it has none. Ownership, lifetime and thread as
 * `codex_request_method`. ABI 1.11.
 */
const char *codex_request_endpoint(const struct codex_request_t *request);

/**
 * Answer a server request with a result, given as JSON text (for an approval:
 * `{"decision":"accept"}` or `{"decision":"decline"}`).
 *
 * Returns `CODEX_STATUS_ALREADY_RESPONDED` when it was answered before (or the server resolved
 * it), `CODEX_STATUS_DISCONNECTED` when its connection ended, `CODEX_STATUS_INVALID_ARGUMENT`
 * for bad JSON, a freed handle or another client's request.
 * Ownership: borrows everything; the request stays owned by whoever owned it.
 * Thread: any, including inside callbacks; now or later.
 */
enum codex_status_t codex_client_respond(struct codex_client_t *client, struct codex_request_t *request, const char *result_json);

/**
 * Answer a server request with a JSON-RPC error `{code, message, data}`; `data_json` may be
 * NULL (no data). Errors as for `codex_client_respond`.
 * Thread: any, including inside callbacks; now or later.
 */
enum codex_status_t codex_client_respond_error(struct codex_client_t *client, struct codex_request_t *request, int64_t code, const char *message, const char *data_json);

/**
 * The client's id: 128 random bits in hex, made by `codex_client_new` (never the same in
 * two processes). It is the `owner` of the client's server-request references: a
 * reference is answered only by the client whose id it names. `*out` receives a string
 * the program frees with `codex_string_free`. Thread: any. ABI 1.11.
 */
enum codex_status_t codex_client_id(const struct codex_client_t *client, char **out);

/**
 * The reference of a server request as JSON text: `{"owner", "connection", "endpoint",
 * "id", "method", "params"}` (`owner`: the id of the client that received it;
 * `connection`: the link it came on; `endpoint`: the client's label, option `label`,
 * absent when it has none). Making it **parks** the request: the client keeps it open,
 * even once every handle is freed, until the answer comes by reference
 * (`codex_client_respond_ref`, from this or another process), the server resolves it,
 * the connection ends, or option `parked_request_timeout` passes (then it is answered
 * fail-closed, approvals declined, with a WARNING log line). `*json_out` receives a
 * string the program frees with `codex_string_free`. `CODEX_STATUS_INVALID_ARGUMENT` for
 * a NULL or freed handle. Thread: any, including inside callbacks. ABI 1.11.
 */
enum codex_status_t codex_request_to_json(const struct codex_request_t *request, char **json_out);

/**
 * Answer the server request a JSON reference names (`ref_json`: from
 * `codex_request_to_json`, or the `server_request` member of `codex_event_to_json`) with
 * a result given as JSON text (for an approval `{"decision":"accept"}`; see
 * `codex_client_respond_ref_decision` for the generic words), on the client that owns it.
 *
 * Returns `CODEX_STATUS_INVALID_ARGUMENT` for a reference of another client (the message
 * names both ids and labels), one naming another method than the request of its id, bad
 * JSON or a NULL argument; `CODEX_STATUS_CONNECTION_LOST` when its connection was lost
 * and the client reconnected or is reconnecting (the server asks again);
 * `CODEX_STATUS_DISCONNECTED` when its connection has ended; and
 * `CODEX_STATUS_ALREADY_RESPONDED` when it was answered (by reference or through a
 * handle, also fail-closed at its bound) or resolved by the server. Ownership: borrows
 * everything. Thread: any, including inside callbacks; now or later. Never blocks.
 * ABI 1.11.
 */
enum codex_status_t codex_client_respond_ref(struct codex_client_t *client, const char *ref_json, const char *result_json);

/**
 * Answer the server request a JSON reference names with a JSON-RPC error `{code,
 * message, data}`; `data_json` may be NULL (no data). Errors as for
 * `codex_client_respond_ref`. Thread: any, including inside callbacks. ABI 1.11.
 */
enum codex_status_t codex_client_respond_ref_error(struct codex_client_t *client, const char *ref_json, int64_t code, const char *message, const char *data_json);

/* ===================================================================== CODEX CLIENT
 *
 * A client connected to a Codex server (ffi-c/src/codex/): threads, turns,
 * approvals, logging in, the helpers by name, skill sources, the server's version.
 */

/**
 * `thread/start`: start a new thread. `params_json` (may be NULL) is a JSON object of extra
 * parameters (for example `{"approvalPolicy":"untrusted","cwd":"/src"}`). On success
 * `*thread_id` (may be NULL) receives the new thread's id; free it with `codex_string_free`.
 * `timeout_ms`: 0 = the client's default. Blocking; thread: any, including inside callbacks.
 */
enum codex_status_t codex_client_thread_start(struct codex_client_t *client, const char *params_json, uint64_t timeout_ms, char **thread_id);

/**
 * `turn/start`: send the user message `text` on thread `thread_id` and start a turn; the
 * turn's events then arrive as notifications (`item/agentMessage/delta`, ...,
 * `turn/completed`). `params_json` (may be NULL) is a JSON object of extra parameters merged
 * into the request (for example `{"model":"..."}`). On success `*turn_id` (may be NULL)
 * receives the turn's id; free it with `codex_string_free`.
 * Blocking (returns when the turn started, not when it completed); thread: any.
 */
enum codex_status_t codex_client_turn_start(struct codex_client_t *client, const char *thread_id, const char *text, const char *params_json, uint64_t timeout_ms, char **turn_id);

/**
 * `turn/start` with skills: as `codex_client_turn_start`, plus `skills`, an array of
 * `skills_len` strings (NULL when `skills_len` is 0), each a skill name
 * ("release-notes", found the way Codex finds it) or a path (any string holding '/') of a
 * `SKILL.md` or of its folder. On an app-server of Codex 0.169.0 or newer the skills
 * Codex lists (`skills/list`) go as native `skill` input items; on the exec and mcp
 * transports, older app-servers, and for a path outside Codex's skill folders, each
 * `SKILL.md` is injected before `text` as a text block
 * `<skill name=".." path=".." description=".." emulated="true">BODY</skill>`.
 * A missing or unreadable skill or an unknown name fails with
 * CODEX_STATUS_INVALID_ARGUMENT (the message names the available skills) before anything
 * is sent: no turn starts. On success `*turn_id` (may be NULL) receives the turn's id and
 * `*emulated_skills_json` (may be NULL) a JSON array of the emulated skills,
 * `[{"name":..,"description":..,"path":..}]` (`[]` when all went natively); free both
 * with `codex_string_free` (on failure both are set to NULL). Ownership: `skills` and
 * its strings are only read during the call. Blocking (a `skills/list` round trip first
 * when a skill goes natively); thread: any.
 */
enum codex_status_t codex_client_turn_start_with_skills(struct codex_client_t *client, const char *thread_id, const char *text, const char *const *skills, size_t skills_len, const char *params_json, uint64_t timeout_ms, char **turn_id, char **emulated_skills_json);

/**
 * `turn/interrupt`: stop the running turn `turn_id` of thread `thread_id`. The turn then
 * completes with status "interrupted" (a `turn/completed` notification).
 * Blocking; thread: any, including inside callbacks.
 */
enum codex_status_t codex_client_turn_interrupt(struct codex_client_t *client, const char *thread_id, const char *turn_id, uint64_t timeout_ms);

/**
 * `turn/steer`: add the user message `text` to the running turn `expected_turn_id` of
 * thread `thread_id` (fails with CODEX_STATUS_RPC_ERROR when that turn is not the active
 * one). Blocking; thread: any, including inside callbacks.
 */
enum codex_status_t codex_client_turn_steer(struct codex_client_t *client, const char *thread_id, const char *expected_turn_id, const char *text, uint64_t timeout_ms);

/**
 * Run a turn to its end within bounds: `turn/start` of `text` on thread `thread_id`
 * (`params_json` as in `codex_client_turn_start`, may be NULL), then wait for its
 * `turn/completed`. `timeout_ms` bounds the whole turn and `idle_ms` the silence between
 * two of its events (0: no bound). Past either, the turn is interrupted and this returns
 * CODEX_STATUS_TIMEOUT with a message naming the bound and the last event seen. The
 * turn's events come to this call (the core's turn stream), not to the notification
 * callback nor `codex_client_next_event`; its server requests go to the client's
 * server-request callback, and are declined without one. `*result_json` (may be NULL)
 * receives the core's view of the turn's result, `{"thread_id", "turn_id", "status",
 * "final_response", "items", "usage", "diff", "error", "turn", "completed",
 * "emulated_skills"}` — on a timeout too (what was gathered; status "interrupted" once
 * the interrupt took effect); NULL when the turn did not start. Free it with
 * `codex_string_free`. Blocking; thread: any except this client's callbacks. ABI 1.6.
 */
enum codex_status_t codex_client_turn_run(struct codex_client_t *client, const char *thread_id, const char *text, const char *params_json, uint64_t timeout_ms, uint64_t idle_ms, char **result_json);

/**
 * Answer an approval request with a decision named by its generic word: `"accept"`,
 * `"acceptForSession"`, `"decline"` or `"cancel"` (decline and interrupt the turn). The
 * core words it for the request's method (`{"decision":"accept"}` for the v2 approvals,
 * `{"decision":"approved"}` for the v1 ones), so a program never spells the protocol's
 * answer.
 *
 * Returns `CODEX_STATUS_INVALID_ARGUMENT` for another word or a request that is not an
 * approval (answer those with `codex_client_respond`), else as `codex_client_respond`.
 * Ownership: borrows everything. Thread: any, including inside callbacks; now or later.
 * ABI 1.7.
 */
enum codex_status_t codex_client_respond_decision(struct codex_client_t *client, struct codex_request_t *request, const char *decision);

/**
 * Approve a command approval and add an exec-policy rule that allows commands starting
 * with the `prefix_len` words of `prefix` from now on (`prefix_len` 0: the amendment the
 * server proposed, `proposedExecpolicyAmendment`). The core words the answer for the
 * request's method (`acceptWithExecpolicyAmendment` for
 * `item/commandExecution/requestApproval`, `approved_execpolicy_amendment` for the v1
 * `execCommandApproval`), so a program never spells it.
 *
 * Returns `CODEX_STATUS_INVALID_ARGUMENT` for a request that is not a command approval,
 * `prefix_len` 0 when the server proposed no amendment, or `prefix` NULL with a non-zero
 * `prefix_len`; else as `codex_client_respond`. Ownership: borrows everything (`prefix`
 * is only read during the call). Thread: any, including inside callbacks; now or later.
 * ABI 1.10.
 */
enum codex_status_t codex_client_respond_execpolicy_amendment(struct codex_client_t *client, struct codex_request_t *request, const char *const *prefix, size_t prefix_len);

/**
 * Answer the approval a JSON reference names (see `codex_client_respond_ref`) with a
 * decision by its generic word: `"accept"`, `"acceptForSession"`, `"decline"` or
 * `"cancel"`, worded by the core for the request's method. Returns
 * `CODEX_STATUS_INVALID_ARGUMENT` for another word or a request that is not an approval,
 * else as `codex_client_respond_ref`. Ownership: borrows everything. Thread: any,
 * including inside callbacks; now or later. ABI 1.11.
 */
enum codex_status_t codex_client_respond_ref_decision(struct codex_client_t *client, const char *ref_json, const char *decision);

/**
 * Log in with an OpenAI API key (`account/login/start`, type `apiKey`); the server stores
 * it in its CODEX_HOME. The key is never logged by the library. An empty key fails with
 * CODEX_STATUS_INVALID_ARGUMENT. Blocking (bounded by the client's default timeout);
 * thread: any. ABI 1.6.
 */
enum codex_status_t codex_client_login_api_key(struct codex_client_t *client, const char *api_key);

/**
 * Start a ChatGPT login: the browser flow (`device_code` false: show the user
 * `codex_login_auth_url`) or the device-code flow (`device_code` true: show
 * `codex_login_user_code` and `codex_login_verification_url`). On success `*login`
 * receives the login's handle (free it with `codex_login_free`; on failure it is set to
 * NULL); then `codex_login_wait` for the outcome, or `codex_login_cancel`. The outcome
 * is followed from before the request is sent, so it cannot be missed. Blocking
 * (bounded by the client's default timeout); thread: any. ABI 1.6.
 */
enum codex_status_t codex_client_login_chatgpt(struct codex_client_t *client, bool device_code, struct codex_login_t **login);

/**
 * Browser flow: the URL the user opens to log in (NULL for the device-code flow, or a
 * NULL or freed handle). Ownership: the library's, valid until `codex_login_free`.
 * Thread: any. ABI 1.6.
 */
const char *codex_login_auth_url(const struct codex_login_t *login);

/**
 * Device-code flow: the code the user enters (NULL otherwise). Ownership and thread as
 * `codex_login_auth_url`. ABI 1.6.
 */
const char *codex_login_user_code(const struct codex_login_t *login);

/**
 * Device-code flow: the page where the user enters the code (NULL otherwise). Ownership
 * and thread as `codex_login_auth_url`. ABI 1.6.
 */
const char *codex_login_verification_url(const struct codex_login_t *login);

/**
 * The login's id (`loginId`). Ownership and thread as `codex_login_auth_url`. ABI 1.6.
 */
const char *codex_login_id(const struct codex_login_t *login);

/**
 * Wait for the login's outcome, at most `timeout_ms` (0: the client's default request
 * timeout); past it CODEX_STATUS_TIMEOUT (the login goes on: wait again or cancel).
 * On success `*success` (may be NULL) is 1 when the login succeeded, else 0, and
 * `*error` (may be NULL) receives the server's reason for a failure (NULL on success;
 * free it with `codex_string_free`). Blocking; thread: any except inside this client's
 * callbacks (the outcome arrives through them). ABI 1.6.
 */
enum codex_status_t codex_login_wait(struct codex_login_t *login, uint64_t timeout_ms, int32_t *success, char **error);

/**
 * Cancel the login (`account/login/cancel`); its outcome then is a failure
 * (`codex_login_wait` returns it). Blocking (bounded by the client's default timeout);
 * thread: any. ABI 1.6.
 */
enum codex_status_t codex_login_cancel(struct codex_login_t *login);

/**
 * Free a login handle: the library stops following its outcome (the server's login goes
 * on until it completes, times out or is cancelled). NULL and freed handles are ignored.
 * Thread: any. ABI 1.6.
 */
void codex_login_free(struct codex_login_t *login);

/**
 * Send the request of the core's helper `name` and return its result: `account_logout`,
 * `account_rate_limits`, `account_read`, `config_read`, `config_batch_write` (`arg_json`:
 * the edits, `[{"keyPath","value","mergeStrategy"}]`), `review_start` (`thread_id`;
 * `arg_json`: the target, `{"type":"uncommittedChanges"}`), `mcp_server_status_list`,
 * `mcp_server_oauth_login` (`arg_json`: the server's name as a JSON string),
 * `feedback_upload` (`arg_json`: the classification, `"bug"`), `thread_compact`
 * (`thread_id`), `model_list`, `skills_list`, ... (every name of the core's
 * `Helper::from_name`; an unknown one is CODEX_STATUS_INVALID_ARGUMENT). `thread_id`:
 * for the helpers that act on a thread (NULL otherwise). `arg_json`: the helper's
 * argument as JSON (NULL: none). `params_json`: a JSON object of more params (NULL:
 * none). `timeout_ms`: 0 = the client's default. On success `*result_json` (may be
 * NULL) receives the result as JSON; free it with `codex_string_free`. Blocking; thread:
 * any, including inside callbacks. ABI 1.6.
 */
enum codex_status_t codex_client_helper(struct codex_client_t *client, const char *name, const char *thread_id, const char *arg_json, const char *params_json, uint64_t timeout_ms, char **result_json);

/**
 * Let the turns of the Codex client `client` use the skills of the MCP client `server`,
 * under `label` (1-64 of `A-Z a-z 0-9 - _ .`, the name the program gives that server).
 * A turn selects one as `"<name>@<label>"` or `"<SKILL.md URI>@<label>"` in
 * `codex_client_turn_start_with_skills`; it is loaded and checked when the turn starts
 * and goes to Codex as a text block naming the server
 * (`<skill name=".." server="<label>" uri=".." ..>`), which needs the option
 * `skill_emulation` at `"when_needed"` or `"always"`. The same label again replaces the
 * server. `client` keeps its own reference to `server` (freeing `server`'s handle does
 * not end it while `client` holds it; `codex_client_remove_skill_source` or freeing
 * `client` lets go). Errors: INVALID_ARGUMENT (a bad label, `client` an MCP client,
 * `server` not one). Thread: any.
 */
enum codex_status_t codex_client_add_skill_source(struct codex_client_t *client, const char *label, struct codex_client_t *server);

/**
 * Forget the skill source `label` of `client`: 1 when there was one, 0 when not, -1 on
 * an invalid argument (the last error says why). Thread: any.
 */
int32_t codex_client_remove_skill_source(struct codex_client_t *client, const char *label);

/**
 * The connected app-server's Codex version placed in the supported window: `*out`
 * receives `{"version": "0.171.0"|null, "position": "inside"|"older"|"newer"|"unknown",
 * "matches": "<the window version it is>"|null, "window": ["0.163.0", …], "source":
 * "spawned"|"remote"|"control_socket", "cli_version": "<the installed CLI's>"|null}`
 * (`version` is the server's own: through the control socket the daemon's, with the
 * installed CLI's beside it; `source` and `cli_version` since ABI 1.11), a string the
 * program frees with `codex_string_free`. Errors: NOT_CONNECTED; INVALID_STATE when the
 * server is not a Codex app-server (an MCP server, the exec or codex-mcp-server
 * transport). Thread: any, including inside callbacks. ABI 1.10.
 */
enum codex_status_t codex_client_server_version(const struct codex_client_t *client, char **out);

/**
 * Whether the connected app-server has client method `method`, by the window's method
 * table: `*out` receives it. For a window version, exactly; for a server outside the
 * window, whether some window version has it; a method of no window version: false. A
 * call of a method the server's (window) version lacks fails at once with
 * `CODEX_STATUS_UNSUPPORTED_BY_VERSION`. Errors: NOT_CONNECTED; INVALID_STATE when the
 * server is not a Codex app-server. Thread: any, including inside callbacks. ABI 1.10.
 */
enum codex_status_t codex_client_supports(const struct codex_client_t *client, const char *method, bool *out);

/* ===================================================================== MCP CLIENT
 *
 * A client connected to an MCP server (ffi-c/src/mcp/): request names and
 * params, subscription streams, skills over MCP, OAuth callbacks.
 */

/**
 * The JSON-RPC method of the MCP request named `request` in snake_case: `"list_tools"`,
 * `"call_tool"`, `"list_resources"`, `"list_resource_templates"`, `"read_resource"`,
 * `"subscribe_resource"`, `"unsubscribe_resource"`, `"list_prompts"`, `"get_prompt"`,
 * `"complete"`, `"set_logging_level"`, `"ping"` (for example `"call_tool"` gives
 * `"tools/call"`). Pass it to `codex_client_call` / `codex_client_request`.
 * Ownership: a static string of the library; never free it. NULL for an unknown name or
 * NULL (the last error then says why, listing the known names). Thread: any.
 */
const char *codex_mcp_method_name(const char *request);

/**
 * The params (JSON text) of the MCP request named `request` (as for
 * `codex_mcp_method_name`), built by the library from the request's one string and its
 * arguments so that nothing is spelled or escaped by hand. `subject` is the `cursor` of a
 * list request (NULL: the first page), the `name` of the tool (`call_tool`) or prompt
 * (`get_prompt`), the `uri` of `read_resource` / `subscribe_resource` /
 * `unsubscribe_resource`, the `level` of `set_logging_level` (`"debug"` ... `"emergency"`);
 * NULL for `ping` and `complete`. `arguments_json` (NULL: none) is the JSON object of the
 * tool's or prompt's arguments, and for `complete` the whole params
 * (`{"ref":{"type":"ref/prompt","name":...},"argument":{"name":...,"value":...}}`); NULL
 * for the other requests. For example `("call_tool", "echo", "{\"message\":\"hi\"}")`
 * gives `{"name":"echo","arguments":{"message":"hi"}}`. To ask for progress, add
 * `"_meta":{"progressToken":...}` to params of your own instead (see MCP in the overview).
 * On success `*params_json` receives the text; free it with `codex_string_free`.
 * Errors: INVALID_ARGUMENT (unknown request, NULL `params_json`, a string not UTF-8,
 * `arguments_json` not a JSON object, a required subject missing, or a subject or
 * arguments the request does not take). Thread: any.
 */
enum codex_status_t codex_mcp_params(const char *request, const char *subject, const char *arguments_json, char **params_json);

/**
 * MCP 2026-07-28 `subscriptions/listen`: open a subscription stream on the MCP server
 * `client` is connected to and wait until the server acknowledged it, at most
 * `timeout_ms` (0: the client's default timeout). `filter_json` (NULL: `{}`) is a JSON
 * object of what to receive: `{"toolsListChanged":true, "promptsListChanged":true,
 * "resourcesListChanged":true, "resourceSubscriptions":["<uri>",...]}` (the snake_case
 * names `tools_list_changed`, ... are accepted too). While the stream is open, the
 * notifications it brings (`notifications/tools/list_changed`,
 * `notifications/resources/updated`, ...) are ordinary CODEX_EVENT_NOTIFICATION events
 * (callbacks or poll mode, as any notification). On success `*listen` receives the
 * stream's handle (on failure NULL): read the filter the server honours with
 * `codex_mcp_listen_acknowledged`, close the stream with `codex_mcp_listen_free`.
 * Errors: INVALID_ARGUMENT (NULL `listen`, `filter_json` not JSON or a filter the library
 * refuses: an unknown key, a wrong type; the message says which), UNSUPPORTED in the
 * handshake era (MCP 2025-11-25 and older: use `resources/subscribe` and the
 * list-changed notifications there), TIMEOUT without an acknowledgment, NOT_CONNECTED.
 * Blocking (bounded by `timeout_ms`); thread: any except a callback of this client.
 * ABI 1.9.
 */
enum codex_status_t codex_client_mcp_listen(struct codex_client_t *client, const char *filter_json, uint64_t timeout_ms, struct codex_mcp_listen_t **listen);

/**
 * The filter the server acknowledged for the stream `listen` (JSON text, the subset of
 * the requested filter it honours, e.g. `{"toolsListChanged":true}`), or NULL for a NULL
 * or freed handle. Ownership: the library's, valid until `codex_mcp_listen_free`; never
 * free it. Thread: any. ABI 1.9.
 */
const char *codex_mcp_listen_acknowledged(const struct codex_mcp_listen_t *listen);

/**
 * Close the subscription stream `listen` (the server is sent `notifications/cancelled`;
 * notifications already on their way may still be delivered) and free the handle; the
 * string of `codex_mcp_listen_acknowledged` is freed with it. The connection goes on.
 * NULL and freed handles are ignored. Not blocking; thread: any, including a callback
 * of its client. ABI 1.9.
 */
void codex_mcp_listen_free(struct codex_mcp_listen_t *listen);

/**
 * `skills/list` on the MCP server `client` is connected to: one page (`cursor`, NULL for
 * the first) or, with `all_pages` non-zero, every page. Reads no skill file. On success
 * `*skills_json` receives `{"skills":[<entries as the server sent them>],"nextCursor":..}`
 * (each entry `{"uri","frontmatter","resources"}`; an entry that is not well-formed is
 * left out and logged); free it with `codex_string_free`. Errors: UNSUPPORTED when the
 * server does not declare the skills extension, the server's errors, INVALID_ARGUMENT
 * (NULL out-parameter). Blocking, each request bounded by the client's default
 * timeout; thread: any except a callback of this client.
 */
enum codex_status_t codex_client_mcp_skills_list(struct codex_client_t *client, const char *cursor, int32_t all_pages, char **skills_json);

/**
 * Load the skill `skill` (a name from the server's `skills/list`, or the URI of its
 * `SKILL.md`) from the MCP server `client` is connected to: its entry, then its
 * `SKILL.md`, checked against the entry (limits, size, SHA-256 digest, YAML frontmatter
 * field by field). No other file is read. On success `*skill_json` receives
 * `{"entry":{..},"text":"<SKILL.md>","body":"<text after the frontmatter>"}`; free it
 * with `codex_string_free`. Errors: PROTOCOL for a failed check (the message names the
 * URI and what differed; nothing is returned), INVALID_ARGUMENT for an unknown or
 * ambiguous name (the message lists the server's skills), UNSUPPORTED when the server
 * does not declare the skills extension. Blocking; thread: any except a callback of
 * this client.
 */
enum codex_status_t codex_client_mcp_skill_load(struct codex_client_t *client, const char *skill, char **skill_json);

/**
 * Answer a callback with `text` (copied before this returns): the redirect URL of the
 * browser step, or the stored JSON of a token store's load. Only during the callback call
 * that received `answer`, once.
 * Errors: INVALID_ARGUMENT (`answer` not live - after its callback returned, or not an
 * answer -, `text` NULL or not UTF-8), INVALID_STATE (already answered). Thread: the
 * callback's (or any other, while the callback has not returned). ABI 1.8.
 */
enum codex_status_t codex_oauth_answer_set(struct codex_oauth_answer_t *answer, const char *text);

/**
 * Fail a callback with `message` (copied; NULL: a generic one): the authorization (or the
 * token store operation) fails, and the error, the CODEX_EVENT_AUTH event and the log say
 * `message` - so never put a secret in it. Only during the callback call that received
 * `answer`, once.
 * Errors: INVALID_ARGUMENT (`answer` not live, `message` not UTF-8), INVALID_STATE
 * (already answered). Thread: as `codex_oauth_answer_set`. ABI 1.8.
 */
enum codex_status_t codex_oauth_answer_error(struct codex_oauth_answer_t *answer, const char *message);

/**
 * The browser step of MCP authorization (option `oauth`: an MCP server over HTTP that
 * answers 401): `callback` gets each authorization URL and answers the redirect URL
 * through its `answer` (see `codex_oauth_authorize_callback_t`). Turns authorization on.
 * The redirect URI is option `oauth_redirect_uri` (`codex_options_set`). Replaces an
 * earlier authorizer (also one of `codex_options_set_oauth_loopback`).
 *
 * Thread: the callback runs on a library-owned blocking thread (named `codex-client-rt`),
 * never on a thread that serves connections, one authorization at a time per client; it
 * may block - open a browser, wait for the user - up to option `oauth_authorize_timeout`
 * (default 300 s; the request that needed the authorization - `codex_client_connect` with
 * its connect timeout, a call with its own timeout - may fail sooner with TIMEOUT). After
 * the bound its late answer is ignored. It may call the library, but must not wait for a
 * request of the client being authorized (that request waits for this callback).
 *
 * Ownership: `userdata` stays the program's; the library passes it back unchanged and
 * calls `release(userdata)` (if not NULL) once no options object and no client created
 * from one holds the callback any more (see `codex_release_callback_t`); without
 * `release`, keep `userdata` valid until every client created from `opts` is freed.
 * Errors (nothing is changed): INVALID_ARGUMENT (not a live options object, `callback`
 * NULL; `release` is then not called). Thread: any. ABI 1.8.
 */
enum codex_status_t codex_options_set_oauth_authorizer(struct codex_options_t *opts, codex_oauth_authorize_callback_t callback, void *userdata, codex_release_callback_t release);

/**
 * Keep MCP authorization's tokens and client registration where the program wants them
 * (a keychain, a database, its own file) instead of in memory: `load`, `save` and `clear`
 * (all three required) get the MCP server's URL and exchange the credentials as JSON text
 * (the library owns the format: store the text as it is; it holds secrets). Turns
 * authorization on. Not with option `oauth_token_file` (`codex_client_new` refuses both).
 *
 * Thread: the callbacks run on a library-owned blocking thread (`codex-client-rt`), never
 * on one that serves connections, one at a time per client, while that client's requests
 * wait for them: keep them short (a file, a keychain entry), and never wait in them for a
 * request of the client being authorized. A failed `load` or `save` is logged (the
 * message, never the credentials) and the authorization goes on without the store.
 *
 * Ownership: as `codex_options_set_oauth_authorizer` (`release(userdata)` once nothing
 * holds the store any more). Errors (nothing is changed): INVALID_ARGUMENT (not a live
 * options object, a callback NULL; `release` is then not called). Thread: any. ABI 1.8.
 */
enum codex_status_t codex_options_set_oauth_token_store(struct codex_options_t *opts, codex_oauth_store_load_callback_t load, codex_oauth_store_save_callback_t save, codex_oauth_store_clear_callback_t clear, void *userdata, codex_release_callback_t release);

/**
 * A ready browser step for desktop programs (RFC 8252): listen on `127.0.0.1:port`
 * (0: a free port, chosen now) for the redirect to `/callback`, and for each
 * authorization open the URL - with `open(userdata, url)` if given, else the system
 * browser (`xdg-open`, `open`, `start`) - then wait for the browser to come back to the
 * redirect URI, at most option `oauth_authorize_timeout`. The redirect URI is used as
 * the flow's unless option `oauth_redirect_uri` says otherwise; `*redirect_uri` (may be
 * NULL) receives it (`http://127.0.0.1:PORT/callback`; free it with `codex_string_free`).
 * Turns authorization on; replaces an earlier authorizer.
 *
 * Thread: `open` runs on a library-owned blocking thread (`codex-client-rt`): start the
 * browser and return (the library waits for the redirect, not `open`).
 * Ownership: as `codex_options_set_oauth_authorizer` (`userdata`, `release`; both unused
 * without `open`, and `release` is then called at once when given).
 * Errors (nothing is changed; `*redirect_uri` NULL): INVALID_ARGUMENT (not a live options
 * object, the port cannot be listened on). Thread: any. ABI 1.8.
 */
enum codex_status_t codex_options_set_oauth_loopback(struct codex_options_t *opts, uint16_t port, codex_oauth_open_callback_t open, void *userdata, codex_release_callback_t release, char **redirect_uri);

/**
 * The era the connected MCP server negotiated, as the value of option `mcp_prior`:
 * `*out` receives `{"kind":"legacy"}` (the `initialize` handshake) or
 * `{"kind":"modern","discover":{...}}` (the stateless era, with the server's
 * `server/discover` result), a string the program frees with `codex_string_free`. Keep
 * it (per command or URL) and set it on a later client with
 * `codex_options_set(o, "mcp_prior", json)`: that connect skips the `server/discover`
 * probe (a legacy verdict sends `initialize` at once, a modern one sends nothing).
 * Errors: NOT_CONNECTED; INVALID_STATE when the server is not an MCP server. Thread:
 * any, including inside callbacks. ABI 1.11.
 */
enum codex_status_t codex_client_mcp_prior(const struct codex_client_t *client, char **out);

/**
 * Create a pool. `options_json` (may be NULL: the defaults) is a JSON object of the pool's
 * options: `place_timeout` (seconds `thread_start` may spend placing a thread, default
 * 30), `max_running_turns` (each endpoint's default limit on running turns, 0 = none),
 * `overload_backoff` (seconds an endpoint that answered overloaded is passed over,
 * default 0.5). `*out` receives the pool; free it with `codex_pool_free`. Errors:
 * INVALID_ARGUMENT (bad JSON, an unknown option or value, named). Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_new(const char *options_json, struct codex_pool_t **out);

/**
 * Free a pool: every endpoint is disconnected (running turns fail with DISCONNECTED).
 * Client handles taken from it (`codex_pool_endpoint_client`,
 * `codex_pool_handler_client`) must still be freed with `codex_client_free`; they no
 * longer reach a server. NULL is ignored; a second free is detected and ignored.
 */
void codex_pool_free(struct codex_pool_t *p);

/**
 * Connect endpoint `name` (blocking, bounded by its `connect_timeout`) from client options
 * `opts` (NULL: defaults, a local `codex app-server`; the options are copied) and let it
 * take threads. `endpoint_json` (may be NULL) holds its placement settings:
 * `max_running_turns` (overrides the pool's), `shared_home` (the name of the CODEX_HOME it
 * shares with other endpoints, for `codex_pool_resume_elsewhere`). Errors:
 * INVALID_ARGUMENT (empty or duplicate name, an MCP server's options), whatever connecting
 * returns. Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_add_endpoint(struct codex_pool_t *p, const char *name, const struct codex_options_t *opts, const char *endpoint_json);

/**
 * Take endpoint `name` out now: disconnected at once. Errors: INVALID_ARGUMENT (unknown
 * name, the message lists the endpoints). Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_remove_endpoint(struct codex_pool_t *p, const char *name);

/**
 * Drain endpoint `name`: it takes no new thread; once idle it is disconnected and leaves
 * the pool. Returns at once. Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_drain_endpoint(struct codex_pool_t *p, const char *name);

/**
 * Every endpoint's status as a JSON array in `*out` (free with `codex_string_free`): each
 * `{name, target, state, running_turns, waiting_threads, threads_placed,
 * max_running_turns, shared_home, lost, codex_version}`; `state` is `ready`,
 * `reconnecting`, `lost`, `draining` or `drained`. Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_endpoints_json(const struct codex_pool_t *p, char **out);

/**
 * `thread/start` on the least busy endpoint that takes threads (blocking). `params_json`
 * (may be NULL) as for `codex_client_thread_start`. `*thread_id` and `*endpoint` (each may
 * be NULL) receive the thread's id and its endpoint's name (free with
 * `codex_string_free`). Errors: UNAVAILABLE (no endpoint healthy, at once; or every one at
 * its limit until `place_timeout`), OVERLOADED (every endpoint answered overloaded until
 * then), whatever `thread/start` returned. Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_thread_start(struct codex_pool_t *p, const char *params_json, char **thread_id, char **endpoint);

/**
 * The endpoint holding thread `thread_id` in `*endpoint` (free with `codex_string_free`).
 * Errors: INVALID_ARGUMENT (not a thread of this pool). Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_endpoint_of(const struct codex_pool_t *p, const char *thread_id, char **endpoint);

/**
 * `thread/resume` of thread `thread_id` on another healthy endpoint sharing its
 * CODEX_HOME (`shared_home`); `params_json` (may be NULL) overrides the params it was
 * started with. `*endpoint` (may be NULL) receives the new endpoint's name. Errors:
 * INVALID_ARGUMENT (not a thread of this pool; its endpoint shares its home with none),
 * UNAVAILABLE (no such endpoint healthy now). Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_resume_elsewhere(struct codex_pool_t *p, const char *thread_id, const char *params_json, char **endpoint);

/**
 * A client handle on endpoint `name`'s connection in `*out`: every `codex_client_*`
 * function works on it (turns, approvals, raw requests, polling in poll mode). The pool
 * owns the connection: `codex_client_free` on this handle frees the handle only, and
 * `codex_client_disconnect` on it ends the endpoint's connection (the pool then reports
 * it lost). Errors: INVALID_ARGUMENT (unknown name). Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_endpoint_client(const struct codex_pool_t *p, const char *name, struct codex_client_t **out);

/**
 * The pool's handler client in `*out`: a client handle that is never connected, whose
 * callbacks (`codex_client_on_server_request`, `codex_client_on_notification`, ...) serve
 * every endpoint of the pool, now and later added (they share one handler table).
 * Without a server-request callback approvals are declined. Free the handle with
 * `codex_client_free` (the callbacks stay until the pool is freed). Thread: any. ABI 1.11.
 */
enum codex_status_t codex_pool_handler_client(const struct codex_pool_t *p, struct codex_client_t **out);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* CODEXCLIENT_H */
