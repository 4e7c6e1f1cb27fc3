/*
 * codexclient_options.hpp - GENERATED from the core's option table by
 * scripts/gen-cpp-options.sh (tools/cpp-options/gen.py over `codex-client options --json`).
 * Do not edit: scripts/test-c.sh fails when this file differs from a fresh generation.
 *
 * Included by codexclient.hpp (which defines codex::Entry first); not a header of its own.
 * One member per option of the table: std::nullopt / empty is not sent (the library's
 * default applies); a value the library refuses throws from Options::build(), naming the
 * option. Defaults, ranges and what 0 means are the table's: each member's doc below is
 * the table's doc, and Options::keys_json() has the whole row.
 */
#ifndef CODEXCLIENT_OPTIONS_HPP
#define CODEXCLIENT_OPTIONS_HPP

#ifndef CODEXCLIENT_HPP
#error "include codexclient.hpp, not codexclient_options.hpp"
#endif

namespace codex {

/// Every option of the library's table as a C++ member (generated; the base of Options).
struct OptionValues {
    /// Option `transport` (string; here a string (empty: not sent)): Where the server is: "stdio"
    /// (the default: spawn `codex app-server`), "exec" (one `codex exec --json` per turn),
    /// "codex-mcp-server" (drive `codex mcp-server`; the old alias "mcp" is deprecated),
    /// "ws://…"/"wss://…", "unix" or "unix://PATH" (the app-server control socket); any MCP server:
    /// "mcp+stdio:PROGRAM ARG…" (or "mcp+stdio" with `command`), "http://…"/"https://…" (Streamable
    /// HTTP, legacy SSE fallback).
    std::string transport;
    /// Option `token` (string, secret; here a string (empty: not sent)): Bearer token of a ws://,
    /// wss://, http:// or https:// transport (sent only over TLS or to a loopback address; never
    /// logged). Default: none.
    std::string token;
    /// Option `ws_auth` (word; here one of the words of the doc (empty: not sent)): How a ws:// or
    /// wss:// upgrade authenticates, as `codex app-server --ws-auth` says: "capability-token" (the
    /// default: option `token` is sent as it is) or "signed-bearer-token" (a fresh HS256 JWT for
    /// every connect and reconnect, signed with the secret in ws_shared_secret_file; no `token`
    /// then). Codex checks no token on the unix control socket.
    std::string ws_auth;
    /// Option `ws_shared_secret_file` (path; here a path (empty: not sent)): ws_auth
    /// "signed-bearer-token": the shared secret, the file the server reads with
    /// --ws-shared-secret-file: read as UTF-8 text and trimmed as Codex reads it, at least 32
    /// bytes, read again for each token; refused if others can read it (chmod 600). Default: none.
    std::string ws_shared_secret_file;
    /// Option `ws_issuer` (string; here a string (empty: not sent)): ws_auth "signed-bearer-token":
    /// the tokens' `iss` claim (what the server's --ws-issuer expects). Default: none (no `iss`;
    /// Codex then checks none).
    std::string ws_issuer;
    /// Option `ws_audience` (string; here a string (empty: not sent)): ws_auth
    /// "signed-bearer-token": the tokens' `aud` claim (what the server's --ws-audience expects).
    /// Default: none (no `aud`; Codex then checks none).
    std::string ws_audience;
    /// Option `ws_token_lifetime` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): ws_auth "signed-bearer-token": how long each minted token is valid (its `exp`
    /// after its `iat`, whole seconds); a token only has to live until its upgrade, the next
    /// connect mints another. Default: 300.
    std::optional<double> ws_token_lifetime_ms;
    /// Option `command` (strings; here strings (empty: not sent)): The MCP server to spawn,
    /// [PROGRAM, ARG…] (with transport "mcp+stdio" or none). Default: none.
    std::vector<std::string> command;
    /// Option `headers` (pairs, a list, secret; here entries, "NAME=value" or {NAME, value} (empty:
    /// not sent)): Extra HTTP headers of an MCP HTTP transport: [[NAME, value]…], ["Name: value"…]
    /// or {NAME: value}; add: one header. Values are never logged. Default: none.
    std::vector<Entry> headers;
    /// Option `delivery` (word; here one of the words of the doc (empty: not sent)): How events
    /// reach the program: "callbacks" (the default: handlers run on a library-owned dispatch
    /// thread) or "poll" (the program pulls them).
    std::string delivery;
    /// Option `dedicated_dispatch_thread` (bool; here true or false): Callbacks: run this client's
    /// callbacks on a thread of its own instead of a thread of the shared pool (for callbacks that
    /// block). Default false.
    std::optional<bool> dedicated_dispatch_thread;
    /// Option `codex_bin` (path; here a path (empty: not sent)): Path of the `codex` binary.
    /// Default: $CODEX_BIN, then the native binary of an npm install next to a `codex` on PATH,
    /// then `codex` on PATH.
    std::string codex_bin;
    /// Option `args` (strings, a list; here strings (empty: not sent)): Extra arguments after
    /// `app-server` (exec: after every `codex exec` command line). Default: none.
    std::vector<std::string> args;
    /// Option `config_overrides` (pairs, a list; here entries, "NAME=value" or {NAME, value}
    /// (empty: not sent)): `-c key=value` overrides of the server's config (the value is TOML; a
    /// non-string JSON value is written as JSON, which TOML reads for numbers, booleans and
    /// arrays). Default: none.
    std::vector<Entry> config_overrides;
    /// Option `env` (pairs, a list; here entries, "NAME=value" or {NAME, value} (empty: not sent)):
    /// Environment variables of the server, merged into the inherited environment (or an empty one,
    /// see clear_env). Default: none.
    std::vector<Entry> env;
    /// Option `clear_env` (bool; here true or false): Start the server with an empty environment
    /// plus `env` instead of the inherited one. Default false.
    std::optional<bool> clear_env;
    /// Option `cwd` (path; here a path (empty: not sent)): Working directory of the server.
    /// Default: the current directory.
    std::string cwd;
    /// Option `codex_home` (path; here a path (empty: not sent)): CODEX_HOME of the server.
    /// Default: inherited.
    std::string codex_home;
    /// Option `client_name` (string; here a string (empty: not sent)): clientInfo.name sent in
    /// initialize. Default "codex-client".
    std::string client_name;
    /// Option `client_title` (string; here a string (empty: not sent)): clientInfo.title sent in
    /// initialize. Default: none.
    std::string client_title;
    /// Option `client_version` (string; here a string (empty: not sent)): clientInfo.version sent
    /// in initialize. Default: this library's version.
    std::string client_version;
    /// Option `experimental_api` (bool; here true or false): Ask for experimental methods and
    /// fields (capabilities.experimentalApi). Default false.
    std::optional<bool> experimental_api;
    /// Option `opt_out_notification_methods` (strings, a list; here strings (empty: not sent)):
    /// Notification methods the server should not send (capabilities.optOutNotificationMethods).
    /// Default: none.
    std::vector<std::string> opt_out_notification_methods;
    /// Option `default_timeout` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Timeout of every request unless overridden per request.
    std::optional<double> default_timeout_ms;
    /// Option `connect_timeout` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Bound of a whole connect (spawn or dial, upgrade, initialize).
    std::optional<double> connect_timeout_ms;
    /// Option `retry_max_attempts` (count; here a whole number): Overload (-32001) retry: sends in
    /// all, including the first (1: no retry).
    std::optional<uint64_t> retry_max_attempts;
    /// Option `retry_base` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Overload retry: backoff base (full jitter).
    std::optional<double> retry_base_ms;
    /// Option `retry_cap` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Overload retry: the longest backoff.
    std::optional<double> retry_cap_ms;
    /// Option `reconnect` (policy; here on (true) or off (false); its settings are their own
    /// options): Reconnect and rejoin after an unexpected disconnect: true (the default policy),
    /// false (the default: off), or {max_attempts, base, cap} (turns it on).
    std::optional<bool> reconnect;
    /// Option `reconnect_max_attempts` (count; here a whole number): Reconnect: attempts before
    /// giving up. Setting it turns reconnect on.
    std::optional<uint64_t> reconnect_max_attempts;
    /// Option `reconnect_base` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Reconnect: backoff base. Setting it turns reconnect on.
    std::optional<double> reconnect_base_ms;
    /// Option `reconnect_cap` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Reconnect: the longest wait. Setting it turns reconnect on.
    std::optional<double> reconnect_cap_ms;
    /// Option `heartbeat` (policy; here on (true) or off (false); its settings are their own
    /// options): WebSocket heartbeat (TCP and unix socket transports): true (on, with
    /// heartbeat_interval and heartbeat_timeout), false (off), or {interval, timeout} in seconds
    /// (an interval of 0 turns it off).
    std::optional<bool> heartbeat;
    /// Option `heartbeat_interval` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Heartbeat: time between pings.
    std::optional<double> heartbeat_interval_ms;
    /// Option `heartbeat_timeout` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): Heartbeat: how long past the interval the server may stay silent.
    std::optional<double> heartbeat_timeout_ms;
    /// Option `reply_spin` (seconds; here a duration in milliseconds (sent as the option's
    /// seconds)): How long a blocking request may spin for its reply before the thread sleeps
    /// (adaptive).
    std::optional<double> reply_spin_ms;
    /// Option `trace_wire` (bool; here true or false): Log every line to and from the server at
    /// TRACE level (target codex_client::wire), secrets redacted. Default: true when
    /// CODEXCLIENT_LOG=trace, else false.
    std::optional<bool> trace_wire;
    /// Option `label` (string; here a string (empty: not sent)): A name for this client, carried by
    /// its events (endpoint), its server-request and thread references and the log lines about its
    /// connection and server requests. Default: none ("" is none too).
    std::string label;
    /// Option `parked_request_timeout` (seconds; here a duration in milliseconds (sent as the
    /// option's seconds)): How long a parked server request (one serialised as a reference, or
    /// parked) waits for its answer by reference before the client answers it fail-closed
    /// (approvals declined), with a WARNING log line. 0 (off): nothing is parked; the last local
    /// handle dropped unanswered answers fail-closed at once.
    std::optional<double> parked_request_timeout_ms;
    /// Option `skill_emulation` (word; here one of the words of the doc (empty: not sent)): When a
    /// turn's skills are emulated (injected as a labelled <skill emulated="true"> text block)
    /// instead of sent as Codex's native skill item: "never" (the default: native only; a skill the
    /// server cannot take natively refuses the turn before anything is sent), "when_needed" (native
    /// where the server can, emulated on the exec and codex-mcp-server transports, older
    /// app-servers and paths Codex does not list) or "always".
    std::string skill_emulation;
    /// Option `tls_ca_file` (path; here a path (empty: not sent)): Extra trusted CA certificates (a
    /// PEM file) for wss:// and MCP over https://, besides the system's. Default: none.
    std::string tls_ca_file;
    /// Option `tls_client_cert` (strings; here strings (empty: not sent)): Client certificate chain
    /// and private key for wss:// and MCP over https://, [CERT_PEM_PATH, KEY_PEM_PATH]. Default:
    /// none.
    std::vector<std::string> tls_client_cert;
    /// Option `event_queue_capacity` (count; here a whole number): Undelivered events held before
    /// the reader applies backpressure.
    std::optional<uint64_t> event_queue_capacity;
    /// Option `read_ahead_bytes` (count; here a whole number): Read-ahead budget while a request
    /// waits on a thread that delivers this client's events.
    std::optional<uint64_t> read_ahead_bytes;
    /// Option `max_line_bytes` (count; here a whole number): Longest accepted incoming line (longer
    /// lines are skipped and reported).
    std::optional<uint64_t> max_line_bytes;
    /// Option `stderr_tail_bytes` (count; here a whole number): How much of the server's stderr is
    /// kept for error reports.
    std::optional<uint64_t> stderr_tail_bytes;
    /// Option `mcp_capabilities` (object; here a JSON object as text (empty: not sent)): MCP: the
    /// client capabilities sent in initialize (a JSON object). Default: roots (listChanged),
    /// sampling and elicitation (form and url), refused fail-closed when no handler is registered.
    std::string mcp_capabilities_json;
    /// Option `mcp_roots` (roots, a list; here roots, a URI or path, or {URI or path, name} (empty:
    /// not sent)): MCP: roots answered to roots/list when no handler takes it: URIs or local paths
    /// (made absolute file:// URIs), alone or as [uri or path, name]. Default: none (roots/list
    /// refused).
    std::vector<Entry> mcp_roots;
    /// Option `oauth` (bool; here true or false): MCP HTTP: authorize with OAuth 2.1 when the
    /// server answers 401 (discovery, registration, authorization code with PKCE; the browser step
    /// is the program's callback). Any other oauth_* option turns it on too. Default: false.
    std::optional<bool> oauth;
    /// Option `oauth_client_id` (string; here a string (empty: not sent)): MCP authorization: a
    /// pre-registered client id (else a client ID metadata document or dynamic registration).
    /// Default: none.
    std::string oauth_client_id;
    /// Option `oauth_client_secret` (string, secret; here a string (empty: not sent)): MCP
    /// authorization: the pre-registered client's secret (sent only to the token endpoint, never in
    /// a URL; never logged). Default: none.
    std::string oauth_client_secret;
    /// Option `oauth_redirect_uri` (string; here a string (empty: not sent)): MCP authorization:
    /// the redirect URI of the authorization code flow (else the authorize callback's). Default:
    /// none.
    std::string oauth_redirect_uri;
    /// Option `oauth_scopes` (strings, a list; here strings (empty: not sent)): MCP authorization:
    /// the scopes to ask for (else the server's: the 401's scope, else the resource's
    /// scopes_supported, else none). Default: the server's.
    std::vector<std::string> oauth_scopes;
    /// Option `oauth_client_metadata_url` (string; here a string (empty: not sent)): MCP
    /// authorization: the https URL of this client's ID metadata document, used as its client_id
    /// where the authorization server supports them. Default: none.
    std::string oauth_client_metadata_url;
    /// Option `oauth_token_file` (path; here a path (empty: not sent)): MCP authorization: keep
    /// tokens in this JSON file (created mode 0600; one refused if others can read it) across runs.
    /// Default: in memory.
    std::string oauth_token_file;
    /// Option `oauth_grant` (word; here one of the words of the doc (empty: not sent)): MCP
    /// authorization: how to get a token: "authorization_code" (the browser step, with PKCE),
    /// "client_credentials" (the client as itself: oauth_client_id with oauth_client_secret or
    /// oauth_private_key), "jwt_bearer" (RFC 7523 with a JWT the workload was given:
    /// oauth_assertion or oauth_assertion_file) or "enterprise_managed" (the user's ID token from
    /// the enterprise IdP in oauth_assertion, exchanged at oauth_idp_token_endpoint for an ID-JAG,
    /// then the JWT bearer grant). Default: "authorization_code".
    std::string oauth_grant;
    /// Option `oauth_private_key` (string, secret; here a string (empty: not sent)): MCP
    /// authorization: the client's private key as PEM text (PKCS#8 EC P-256 or RSA, or PKCS#1 RSA):
    /// the client authenticates with private_key_jwt (ES256 or RS256 assertions) instead of a
    /// secret; needs oauth_client_id. Never logged. Default: none.
    std::string oauth_private_key;
    /// Option `oauth_private_key_file` (path; here a path (empty: not sent)): MCP authorization:
    /// oauth_private_key read from this PEM file (when the client is created). Default: none.
    std::string oauth_private_key_file;
    /// Option `oauth_assertion` (string, secret; here a string (empty: not sent)): MCP
    /// authorization: the JWT of oauth_grant "jwt_bearer" (a workload identity token whose audience
    /// is the authorization server) or the ID token of "enterprise_managed". Never logged. Default:
    /// none.
    std::string oauth_assertion;
    /// Option `oauth_assertion_file` (path; here a path (empty: not sent)): MCP authorization:
    /// oauth_assertion read from this file for each token request (so a rotated token, such as a
    /// Kubernetes projected service account token, is used). Default: none.
    std::string oauth_assertion_file;
    /// Option `oauth_idp_token_endpoint` (string; here a string (empty: not sent)): MCP
    /// authorization, oauth_grant "enterprise_managed": the enterprise IdP's token endpoint (the
    /// token exchange for an ID-JAG). Default: none.
    std::string oauth_idp_token_endpoint;
    /// Option `oauth_idp_client_id` (string; here a string (empty: not sent)): MCP authorization,
    /// oauth_grant "enterprise_managed": this client's id at the enterprise IdP. Default: none.
    std::string oauth_idp_client_id;
    /// Option `oauth_idp_client_secret` (string, secret; here a string (empty: not sent)): MCP
    /// authorization, oauth_grant "enterprise_managed": this client's secret at the enterprise IdP
    /// (client_secret_post), if it is confidential. Never logged. Default: none.
    std::string oauth_idp_client_secret;
    /// Option `oauth_dpop` (bool; here true or false): MCP authorization: bind tokens to a key of
    /// this client with DPoP (RFC 9449): a fresh ES256 key per client, a signed proof with each
    /// token request and MCP request, the server's DPoP-Nonce honoured. Default: false.
    std::optional<bool> oauth_dpop;
    /// Option `oauth_authorize_timeout` (seconds; here a duration in milliseconds (sent as the
    /// option's seconds)): MCP authorization: how long the browser step (the authorize callback)
    /// may take before the authorization fails.
    std::optional<double> oauth_authorize_timeout_ms;
    /// Option `mcp_protocol` (word; here one of the words of the doc (empty: not sent)): MCP: which
    /// era to speak: "auto" (the default, as the official SDKs: probe server/discover, fall back to
    /// the initialize handshake), "legacy" (the initialize handshake only) or a pinned stateless
    /// version ("2026-07-28", no fallback).
    std::string mcp_protocol;
    /// Option `mcp_prior` (object; here a JSON object as text (empty: not sent)): MCP: the era a
    /// previous connection to this server negotiated (the initialize result's mcp_prior), so that
    /// connect skips the server/discover probe: {"kind": "legacy"} sends initialize at once,
    /// {"kind": "modern", "discover": {...}} adopts that server/discover result and sends nothing
    /// (as the TypeScript SDK's prior). It must agree with mcp_protocol (legacy takes only a legacy
    /// verdict, a pinned version a modern one listing it). Default: none (negotiate).
    std::string mcp_prior_json;
    /// Option `mcp_input_rounds` (count; here a whole number): MCP 2026-07-28: most rounds of an
    /// input-required exchange (InputRequiredResult answered and retried) before the request fails.
    std::optional<uint64_t> mcp_input_rounds;
    /// Option `mcp_cache` (bool; here true or false): MCP 2026-07-28: keep tools/list,
    /// prompts/list, resources/list, resources/templates/list and resources/read results while
    /// their ttlMs cache hint says they are fresh, and answer the same request from them (a change
    /// notification makes them stale). Default: true.
    std::optional<bool> mcp_cache;
    /// Option `mcp_sampling_tools` (bool; here true or false): MCP: offer sampling.tools in the
    /// client capabilities (the server may then send tools and toolChoice in
    /// sampling/createMessage; the sampling handler answers tool_use blocks). Set it when your
    /// sampling handler can. Default false.
    std::optional<bool> mcp_sampling_tools;
    /// Option `mcp_validate_output` (bool; here true or false): MCP: check each tools/call result's
    /// structuredContent against the tool's outputSchema from this connection's tools/list (a
    /// mismatch fails the call with an output-schema error naming the JSON path; remote $refs are
    /// never fetched). Default true.
    std::optional<bool> mcp_validate_output;
    /// Option `mcp_progress_resets_timeout` (bool; here true or false): MCP: each progress update
    /// of a call made with progress restarts the call's timeout. Default true.
    std::optional<bool> mcp_progress_resets_timeout;
    /// Option `mcp_proxy` (string; here a string (empty: not sent)): MCP HTTP: the proxy: an
    /// http:// or https:// proxy URL (every request through it), or "none" (never a proxy).
    /// Default: the environment's HTTPS_PROXY/HTTP_PROXY/ALL_PROXY/NO_PROXY, never for a loopback
    /// endpoint.
    std::string mcp_proxy;
    /// Option `exec_model` (string; here a string (empty: not sent)): exec: `--model`. Default:
    /// Codex's config.
    std::string exec_model;
    /// Option `exec_sandbox_mode` (word; here one of the words of the doc (empty: not sent)): exec:
    /// `--sandbox`: read-only, workspace-write or danger-full-access. Default: Codex's config.
    std::string exec_sandbox_mode;
    /// Option `exec_working_directory` (path; here a path (empty: not sent)): exec: `--cd`.
    /// Default: none.
    std::string exec_working_directory;
    /// Option `exec_additional_directories` (strings, a list; here strings (empty: not sent)):
    /// exec: `--add-dir`, one per entry. Default: none.
    std::vector<std::string> exec_additional_directories;
    /// Option `exec_skip_git_repo_check` (bool; here true or false): exec: `--skip-git-repo-check`
    /// (needed outside a Git repository). Default false.
    std::optional<bool> exec_skip_git_repo_check;
    /// Option `exec_reasoning_effort` (string; here a string (empty: not sent)): exec: `-c
    /// model_reasoning_effort=…` (minimal, low, medium, high, …). Default: Codex's config.
    std::string exec_reasoning_effort;
    /// Option `exec_network_access` (bool; here true or false): exec: `-c
    /// sandbox_workspace_write.network_access=…`. Default: Codex's config.
    std::optional<bool> exec_network_access;
    /// Option `exec_web_search` (bool; here true or false): exec: `-c web_search="live"` (true) or
    /// "disabled" (false). Default: Codex's config.
    std::optional<bool> exec_web_search;
    /// Option `exec_approval_policy` (word; here one of the words of the doc (empty: not sent)):
    /// exec: `-c approval_policy=…`: never, on-request, on-failure or untrusted (exec cannot ask
    /// anyone: anything but never makes escalations fail). Default: Codex's config.
    std::string exec_approval_policy;

    /// Calls f("name", member, "kind") for every option of the table, in its order.
    template <class F> void for_each_option(F &&f) {
        f("transport", transport, "string");
        f("token", token, "string");
        f("ws_auth", ws_auth, "word");
        f("ws_shared_secret_file", ws_shared_secret_file, "path");
        f("ws_issuer", ws_issuer, "string");
        f("ws_audience", ws_audience, "string");
        f("ws_token_lifetime", ws_token_lifetime_ms, "seconds");
        f("command", command, "strings");
        f("headers", headers, "pairs");
        f("delivery", delivery, "word");
        f("dedicated_dispatch_thread", dedicated_dispatch_thread, "bool");
        f("codex_bin", codex_bin, "path");
        f("args", args, "strings");
        f("config_overrides", config_overrides, "pairs");
        f("env", env, "pairs");
        f("clear_env", clear_env, "bool");
        f("cwd", cwd, "path");
        f("codex_home", codex_home, "path");
        f("client_name", client_name, "string");
        f("client_title", client_title, "string");
        f("client_version", client_version, "string");
        f("experimental_api", experimental_api, "bool");
        f("opt_out_notification_methods", opt_out_notification_methods, "strings");
        f("default_timeout", default_timeout_ms, "seconds");
        f("connect_timeout", connect_timeout_ms, "seconds");
        f("retry_max_attempts", retry_max_attempts, "count");
        f("retry_base", retry_base_ms, "seconds");
        f("retry_cap", retry_cap_ms, "seconds");
        f("reconnect", reconnect, "policy");
        f("reconnect_max_attempts", reconnect_max_attempts, "count");
        f("reconnect_base", reconnect_base_ms, "seconds");
        f("reconnect_cap", reconnect_cap_ms, "seconds");
        f("heartbeat", heartbeat, "policy");
        f("heartbeat_interval", heartbeat_interval_ms, "seconds");
        f("heartbeat_timeout", heartbeat_timeout_ms, "seconds");
        f("reply_spin", reply_spin_ms, "seconds");
        f("trace_wire", trace_wire, "bool");
        f("label", label, "string");
        f("parked_request_timeout", parked_request_timeout_ms, "seconds");
        f("skill_emulation", skill_emulation, "word");
        f("tls_ca_file", tls_ca_file, "path");
        f("tls_client_cert", tls_client_cert, "strings");
        f("event_queue_capacity", event_queue_capacity, "count");
        f("read_ahead_bytes", read_ahead_bytes, "count");
        f("max_line_bytes", max_line_bytes, "count");
        f("stderr_tail_bytes", stderr_tail_bytes, "count");
        f("mcp_capabilities", mcp_capabilities_json, "object");
        f("mcp_roots", mcp_roots, "roots");
        f("oauth", oauth, "bool");
        f("oauth_client_id", oauth_client_id, "string");
        f("oauth_client_secret", oauth_client_secret, "string");
        f("oauth_redirect_uri", oauth_redirect_uri, "string");
        f("oauth_scopes", oauth_scopes, "strings");
        f("oauth_client_metadata_url", oauth_client_metadata_url, "string");
        f("oauth_token_file", oauth_token_file, "path");
        f("oauth_grant", oauth_grant, "word");
        f("oauth_private_key", oauth_private_key, "string");
        f("oauth_private_key_file", oauth_private_key_file, "path");
        f("oauth_assertion", oauth_assertion, "string");
        f("oauth_assertion_file", oauth_assertion_file, "path");
        f("oauth_idp_token_endpoint", oauth_idp_token_endpoint, "string");
        f("oauth_idp_client_id", oauth_idp_client_id, "string");
        f("oauth_idp_client_secret", oauth_idp_client_secret, "string");
        f("oauth_dpop", oauth_dpop, "bool");
        f("oauth_authorize_timeout", oauth_authorize_timeout_ms, "seconds");
        f("mcp_protocol", mcp_protocol, "word");
        f("mcp_prior", mcp_prior_json, "object");
        f("mcp_input_rounds", mcp_input_rounds, "count");
        f("mcp_cache", mcp_cache, "bool");
        f("mcp_sampling_tools", mcp_sampling_tools, "bool");
        f("mcp_validate_output", mcp_validate_output, "bool");
        f("mcp_progress_resets_timeout", mcp_progress_resets_timeout, "bool");
        f("mcp_proxy", mcp_proxy, "string");
        f("exec_model", exec_model, "string");
        f("exec_sandbox_mode", exec_sandbox_mode, "word");
        f("exec_working_directory", exec_working_directory, "path");
        f("exec_additional_directories", exec_additional_directories, "strings");
        f("exec_skip_git_repo_check", exec_skip_git_repo_check, "bool");
        f("exec_reasoning_effort", exec_reasoning_effort, "string");
        f("exec_network_access", exec_network_access, "bool");
        f("exec_web_search", exec_web_search, "bool");
        f("exec_approval_policy", exec_approval_policy, "word");
    }
    /// Calls f("name", member, "kind") for every option of the table, in its order.
    template <class F> void for_each_option(F &&f) const {
        f("transport", transport, "string");
        f("token", token, "string");
        f("ws_auth", ws_auth, "word");
        f("ws_shared_secret_file", ws_shared_secret_file, "path");
        f("ws_issuer", ws_issuer, "string");
        f("ws_audience", ws_audience, "string");
        f("ws_token_lifetime", ws_token_lifetime_ms, "seconds");
        f("command", command, "strings");
        f("headers", headers, "pairs");
        f("delivery", delivery, "word");
        f("dedicated_dispatch_thread", dedicated_dispatch_thread, "bool");
        f("codex_bin", codex_bin, "path");
        f("args", args, "strings");
        f("config_overrides", config_overrides, "pairs");
        f("env", env, "pairs");
        f("clear_env", clear_env, "bool");
        f("cwd", cwd, "path");
        f("codex_home", codex_home, "path");
        f("client_name", client_name, "string");
        f("client_title", client_title, "string");
        f("client_version", client_version, "string");
        f("experimental_api", experimental_api, "bool");
        f("opt_out_notification_methods", opt_out_notification_methods, "strings");
        f("default_timeout", default_timeout_ms, "seconds");
        f("connect_timeout", connect_timeout_ms, "seconds");
        f("retry_max_attempts", retry_max_attempts, "count");
        f("retry_base", retry_base_ms, "seconds");
        f("retry_cap", retry_cap_ms, "seconds");
        f("reconnect", reconnect, "policy");
        f("reconnect_max_attempts", reconnect_max_attempts, "count");
        f("reconnect_base", reconnect_base_ms, "seconds");
        f("reconnect_cap", reconnect_cap_ms, "seconds");
        f("heartbeat", heartbeat, "policy");
        f("heartbeat_interval", heartbeat_interval_ms, "seconds");
        f("heartbeat_timeout", heartbeat_timeout_ms, "seconds");
        f("reply_spin", reply_spin_ms, "seconds");
        f("trace_wire", trace_wire, "bool");
        f("label", label, "string");
        f("parked_request_timeout", parked_request_timeout_ms, "seconds");
        f("skill_emulation", skill_emulation, "word");
        f("tls_ca_file", tls_ca_file, "path");
        f("tls_client_cert", tls_client_cert, "strings");
        f("event_queue_capacity", event_queue_capacity, "count");
        f("read_ahead_bytes", read_ahead_bytes, "count");
        f("max_line_bytes", max_line_bytes, "count");
        f("stderr_tail_bytes", stderr_tail_bytes, "count");
        f("mcp_capabilities", mcp_capabilities_json, "object");
        f("mcp_roots", mcp_roots, "roots");
        f("oauth", oauth, "bool");
        f("oauth_client_id", oauth_client_id, "string");
        f("oauth_client_secret", oauth_client_secret, "string");
        f("oauth_redirect_uri", oauth_redirect_uri, "string");
        f("oauth_scopes", oauth_scopes, "strings");
        f("oauth_client_metadata_url", oauth_client_metadata_url, "string");
        f("oauth_token_file", oauth_token_file, "path");
        f("oauth_grant", oauth_grant, "word");
        f("oauth_private_key", oauth_private_key, "string");
        f("oauth_private_key_file", oauth_private_key_file, "path");
        f("oauth_assertion", oauth_assertion, "string");
        f("oauth_assertion_file", oauth_assertion_file, "path");
        f("oauth_idp_token_endpoint", oauth_idp_token_endpoint, "string");
        f("oauth_idp_client_id", oauth_idp_client_id, "string");
        f("oauth_idp_client_secret", oauth_idp_client_secret, "string");
        f("oauth_dpop", oauth_dpop, "bool");
        f("oauth_authorize_timeout", oauth_authorize_timeout_ms, "seconds");
        f("mcp_protocol", mcp_protocol, "word");
        f("mcp_prior", mcp_prior_json, "object");
        f("mcp_input_rounds", mcp_input_rounds, "count");
        f("mcp_cache", mcp_cache, "bool");
        f("mcp_sampling_tools", mcp_sampling_tools, "bool");
        f("mcp_validate_output", mcp_validate_output, "bool");
        f("mcp_progress_resets_timeout", mcp_progress_resets_timeout, "bool");
        f("mcp_proxy", mcp_proxy, "string");
        f("exec_model", exec_model, "string");
        f("exec_sandbox_mode", exec_sandbox_mode, "word");
        f("exec_working_directory", exec_working_directory, "path");
        f("exec_additional_directories", exec_additional_directories, "strings");
        f("exec_skip_git_repo_check", exec_skip_git_repo_check, "bool");
        f("exec_reasoning_effort", exec_reasoning_effort, "string");
        f("exec_network_access", exec_network_access, "bool");
        f("exec_web_search", exec_web_search, "bool");
        f("exec_approval_policy", exec_approval_policy, "word");
    }
    /// The number of options in the table this header was generated from.
    static constexpr std::size_t option_count = 82;
};

} // namespace codex

#endif
