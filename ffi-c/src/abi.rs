// The ABI version of libcodexclient. No inner doc comment: build.rs `include!`s this file to
// set the shared library's soname (`libcodexclient.so.<CODEX_ABI_VERSION_MAJOR>`).

/// Major version of the C ABI, and of the shared library's soname
/// (`libcodexclient.so.<major>`). It changes on every incompatible change.
pub const CODEX_ABI_VERSION_MAJOR: u32 = 1;

/// Minor version of the C ABI: bumped on every compatible addition (a new function, setter,
/// enum value or event kind) within one major version. 1.1: MCP options
/// (`codex_options_set_mcp_command`, `codex_options_add_header`, `codex_options_add_mcp_root`,
/// `codex_options_set_mcp_capabilities_json`), `codex_client_cancel_request` and
/// `CODEX_STATUS_CANCELLED`, `codex_mcp_method_name`, `codex_mcp_params`. 1.2: reconnect
/// (`codex_options_set_reconnect`, `CODEX_EVENT_RECONNECTING`, `CODEX_EVENT_RECONNECTED`,
/// `codex_event_reconnect_attempt`, `codex_event_reconnect_delay_ms`,
/// `codex_event_reconnect_json`, `CODEX_STATUS_CONNECTION_LOST`,
/// `codex_client_is_reconnecting`), `codex_options_set_heartbeat`,
/// `codex_options_set_tls_ca_file`, `codex_options_set_tls_client_cert`. 1.3:
/// `codex_client_turn_start_with_skills`. 1.4: `codex_options_set_reply_spin_us`,
/// `codex_options_set_dedicated_dispatch_thread`. 1.5: options by name from the core's
/// table (`codex_options_set`, `codex_options_add`, `codex_options_get`,
/// `codex_options_keys_json`; every Rust option reachable from C, with its meaning),
/// `codex_options_set_retry`. 1.6: logging in and the core's helpers by name
/// (`codex_client_login_api_key`, `codex_client_login_chatgpt`, `codex_login_t` with
/// `codex_login_auth_url`, `codex_login_user_code`, `codex_login_verification_url`,
/// `codex_login_id`, `codex_login_wait`, `codex_login_cancel`, `codex_login_free`;
/// `codex_client_helper`), a turn run to its end within bounds (`codex_client_turn_run`).
/// 1.7: skills over MCP (`codex_client_mcp_skills_list`, `codex_client_mcp_skill_load`,
/// `codex_client_add_skill_source`, `codex_client_remove_skill_source`);
/// `codex_client_respond_decision` (an approval answered by its generic word, worded by the
/// core); `CODEX_STATUS_URL_ELICITATION_REQUIRED`, `CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH` (MCP).
/// 1.8: MCP authorization callbacks (`codex_options_set_oauth_authorizer`,
/// `codex_options_set_oauth_token_store`, `codex_options_set_oauth_loopback`,
/// `codex_oauth_answer_t` with `codex_oauth_answer_set` and `codex_oauth_answer_error`,
/// `codex_release_callback_t`).
/// 1.9: MCP 2026-07-28 subscription streams (`codex_client_mcp_listen`, `codex_mcp_listen_t`
/// with `codex_mcp_listen_acknowledged` and `codex_mcp_listen_free`).
/// 1.10: `codex_client_respond_execpolicy_amendment` (a command approval approved with an
/// exec-policy rule, worded by the core); the server's Codex version against the supported
/// window (`codex_client_server_version`, `codex_client_supports`,
/// `CODEX_STATUS_UNSUPPORTED_BY_VERSION`, `CODEX_EVENT_OUTSIDE_WINDOW`).
/// 1.11: `codex_client_mcp_prior` (the era an MCP connection negotiated, for option
/// `mcp_prior`); `CODEX_EVENT_VERSION_MISMATCH` (the app-server behind the control socket is
/// another Codex version than the installed CLI); serialisable forms and answers by reference
/// (`codex_event_to_json`, `codex_event_endpoint`, `codex_request_to_json`,
/// `codex_request_endpoint`, `codex_client_id`, `codex_client_respond_ref`,
/// `codex_client_respond_ref_error`, `codex_client_respond_ref_decision`); options `label` and
/// `parked_request_timeout` by name; the pool (`codex_pool_t` and its functions,
/// `CODEX_STATUS_UNAVAILABLE`).
pub const CODEX_ABI_VERSION_MINOR: u32 = 11;

/// The ABI version this header describes: `major * 1000 + minor` (1000 is 1.0). Compare it
/// with `codex_abi_version()`, the version of the library actually loaded.
pub const CODEX_ABI_VERSION: u32 = CODEX_ABI_VERSION_MAJOR * 1000 + CODEX_ABI_VERSION_MINOR;
