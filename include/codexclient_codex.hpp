/*
 * codexclient_codex.hpp - the Codex part of the C++17 wrapper (libcodexclient): codex::Client
 * (a Codex app-server, or Codex through the exec / codex-mcp-server transports) and
 * codex::Login, over the functions of the CODEX CLIENT section of codexclient.h. Included by
 * codexclient.hpp: include that.
 */

// First, outside the guard: included on its own, this header is then read through
// codexclient.hpp, after what it builds on.
#include "codexclient.hpp"

#ifndef CODEXCLIENT_CODEX_HPP
#define CODEXCLIENT_CODEX_HPP

namespace codex {

/// A ChatGPT login in progress (RAII: destruction frees the handle; the server's login goes
/// on until it completes or is cancelled). Move-only. From Client::login_chatgpt() or
/// Client::login_device_code() (ABI 1.6).
class Login {
public:
    Login() noexcept = default;
    explicit Login(codex_login_t *l) noexcept : l_(l) {}
    Login(const Login &) = delete;
    Login &operator=(const Login &) = delete;
    Login(Login &&o) noexcept : l_(std::exchange(o.l_, nullptr)) {}
    Login &operator=(Login &&o) noexcept {
        if (this != &o) {
            if (l_ != nullptr) codex_login_free(l_);
            l_ = std::exchange(o.l_, nullptr);
        }
        return *this;
    }
    ~Login() {
        if (l_ != nullptr) codex_login_free(l_);
    }
    /// Whether this object holds a login.
    explicit operator bool() const noexcept { return l_ != nullptr; }
    /// Browser flow: the URL the user opens ("" for the device-code flow).
    std::string auth_url() const { return detail::str(codex_login_auth_url(l_)); }
    /// Device-code flow: the code the user enters ("" otherwise).
    std::string user_code() const { return detail::str(codex_login_user_code(l_)); }
    /// Device-code flow: where the user enters the code ("" otherwise).
    std::string verification_url() const { return detail::str(codex_login_verification_url(l_)); }
    /// The login's id.
    std::string id() const { return detail::str(codex_login_id(l_)); }
    /// Wait for the outcome, at most timeout_ms (0: the client's default); throws codex::Error
    /// (CODEX_STATUS_TIMEOUT past it: the login goes on). Returns whether the login succeeded;
    /// `error` (when not null) receives the server's reason for a failure.
    bool wait(uint64_t timeout_ms = 0, std::string *error = nullptr) {
        int ok = 0;
        char *e = nullptr;
        check(codex_login_wait(l_, timeout_ms, &ok, &e));
        std::string reason = detail::take_string(e);
        if (error != nullptr) *error = reason;
        return ok != 0;
    }
    /// Cancel the login (its outcome then is a failure).
    void cancel() { check(codex_login_cancel(l_)); }

private:
    codex_login_t *l_ = nullptr;
};

/// A client of one Codex app-server (the default transport, ws://, wss://, unix) or of Codex
/// through the exec / codex-mcp-server transports: the connection plus threads, turns,
/// approvals, login and the app-server's helpers (RAII: destruction disconnects and frees).
/// Move-only. It has no MCP request: those are codex::McpClient's (tests/c/test_clients_split.cpp).
class Client : public Connection {
public:
    /// A client of the server `o` names (codex_client_new); connect() handshakes.
    explicit Client(const Options &o) : Connection(o) {}
    /// Takes over `o`'s connection.
    Client(Client &&o) noexcept = default;

    /// The connected app-server's Codex version placed in the supported window, as JSON
    /// {"version","position","matches","window","source","cli_version"}
    /// (codex_client_server_version, ABI 1.10; source and cli_version: ABI 1.11).
    /// Throws CODEX_STATUS_NOT_CONNECTED, or CODEX_STATUS_INVALID_STATE when the server is not a
    /// Codex app-server.
    std::string server_version() const {
        char *v = nullptr;
        check(codex_client_server_version(c_, &v));
        return detail::take_string(v);
    }
    /// Whether the connected app-server has client method `method`, by the window's method
    /// table (codex_client_supports, ABI 1.10): calling one it lacks throws
    /// CODEX_STATUS_UNSUPPORTED_BY_VERSION at once. Throws as server_version().
    bool supports(const std::string &method) const {
        bool has = false;
        check(codex_client_supports(c_, method.c_str(), &has));
        return has;
    }
    /// Answer the approval a JSON reference names (Request::to_json, from any process) with
    /// a decision by its generic word ("accept", "acceptForSession", "decline", "cancel"),
    /// worded by the library for the request's method; throws as Connection::respond_ref
    /// (codex_client_respond_ref_decision, ABI 1.11).
    void respond_ref_decision(const std::string &ref_json, const std::string &decision) {
        check(codex_client_respond_ref_decision(c_, ref_json.c_str(), decision.c_str()));
    }
    /// thread/start; returns the thread id.
    std::string thread_start(const std::string &params_json = "{}", uint64_t timeout_ms = 0) {
        char *t = nullptr;
        check(codex_client_thread_start(c_, params_json.c_str(), timeout_ms, &t));
        return detail::take_string(t);
    }
    /// turn/start with a text message; returns the turn id (the turn runs on).
    std::string turn_start(const std::string &thread_id, const std::string &text,
                           const std::string &params_json = "{}", uint64_t timeout_ms = 0) {
        char *t = nullptr;
        check(codex_client_turn_start(c_, thread_id.c_str(), text.c_str(), params_json.c_str(), timeout_ms, &t));
        return detail::take_string(t);
    }
    /// turn/start with skills (names, or paths of a SKILL.md or its folder): see
    /// codex_client_turn_start_with_skills. Returns the turn id; `emulated_json` (when not
    /// null) receives the JSON array of the skills emulated in the prompt.
    std::string turn_start_with_skills(const std::string &thread_id, const std::string &text,
                                       const std::vector<std::string> &skills,
                                       const std::string &params_json = "{}", uint64_t timeout_ms = 0,
                                       std::string *emulated_json = nullptr) {
        std::vector<const char *> names;
        for (const auto &s : skills) names.push_back(s.c_str());
        char *t = nullptr, *e = nullptr;
        check(codex_client_turn_start_with_skills(c_, thread_id.c_str(), text.c_str(), names.data(),
                                                  names.size(), params_json.c_str(), timeout_ms, &t, &e));
        std::string emulated = detail::take_string(e);
        if (emulated_json != nullptr) *emulated_json = emulated;
        return detail::take_string(t);
    }
    /// Run a turn to its end within bounds (codex_client_turn_run, ABI 1.6): timeout_ms bounds
    /// the whole turn, idle_ms the silence between events (0: none). Past either the turn is
    /// interrupted and codex::Error (CODEX_STATUS_TIMEOUT, naming the bound and the last event)
    /// is thrown; `result_json` (when not null) then holds what was gathered. Returns the
    /// core's TurnResult view as JSON.
    std::string turn_run(const std::string &thread_id, const std::string &text, uint64_t timeout_ms,
                         uint64_t idle_ms, const std::string &params_json = "{}",
                         std::string *result_json = nullptr) {
        char *r = nullptr;
        codex_status_t s = codex_client_turn_run(c_, thread_id.c_str(), text.c_str(), params_json.c_str(),
                                                 timeout_ms, idle_ms, &r);
        std::string result = detail::take_string(r);
        if (result_json != nullptr) *result_json = result;
        check(s);
        return result;
    }
    /// Log in with an OpenAI API key (ABI 1.6).
    void login_api_key(const std::string &key) { check(codex_client_login_api_key(c_, key.c_str())); }
    /// Start the ChatGPT browser login: show login.auth_url(), then login.wait() (ABI 1.6).
    Login login_chatgpt() { return start_login(false); }
    /// Start the ChatGPT device-code login: show login.user_code() and
    /// login.verification_url(), then login.wait() (ABI 1.6).
    Login login_device_code() { return start_login(true); }
    /// account/logout (ABI 1.6).
    void logout(uint64_t timeout_ms = 0) { helper("account_logout", "", "", "{}", timeout_ms); }
    /// account/rateLimits/read: the JSON result (ABI 1.6).
    std::string rate_limits(uint64_t timeout_ms = 0) {
        return helper("account_rate_limits", "", "", "{}", timeout_ms);
    }
    /// One of the core's helpers by name (codex_client_helper, ABI 1.6): "config_batch_write"
    /// (arg: the edits), "review_start" (thread id; arg: the target), "mcp_server_status_list",
    /// "mcp_server_oauth_login" (arg: the name, a JSON string), "feedback_upload" (arg: the
    /// classification), "thread_compact" (thread id), ... Empty thread_id/arg_json: none.
    /// Returns the result JSON.
    std::string helper(const std::string &name, const std::string &thread_id = "",
                       const std::string &arg_json = "", const std::string &params_json = "{}",
                       uint64_t timeout_ms = 0) {
        char *r = nullptr;
        check(codex_client_helper(c_, name.c_str(), thread_id.empty() ? nullptr : thread_id.c_str(),
                                  arg_json.empty() ? nullptr : arg_json.c_str(), params_json.c_str(), timeout_ms,
                                  &r));
        return detail::take_string(r);
    }
    /// turn/interrupt.
    void turn_interrupt(const std::string &thread_id, const std::string &turn_id, uint64_t timeout_ms = 0) {
        check(codex_client_turn_interrupt(c_, thread_id.c_str(), turn_id.c_str(), timeout_ms));
    }
    /// turn/steer.
    void turn_steer(const std::string &thread_id, const std::string &turn_id, const std::string &text,
                    uint64_t timeout_ms = 0) {
        check(codex_client_turn_steer(c_, thread_id.c_str(), turn_id.c_str(), text.c_str(), timeout_ms));
    }

    /// Let this (Codex) client's turns use the skills of the MCP client `server` under
    /// `label` (codex_client_add_skill_source): a turn selects one as "<name>@<label>" in
    /// turn_start_with_skills() (option skill_emulation "when_needed" or "always"). This
    /// client keeps its own reference to the server's connection. Throws
    /// CODEX_STATUS_INVALID_ARGUMENT (a bad label, this an MCP client, `server` not one).
    void add_skill_source(const std::string &label, Connection &server) {
        check(codex_client_add_skill_source(c_, label.c_str(), server.get()));
    }
    /// Forget the skill source `label`: whether there was one (codex_client_remove_skill_source).
    bool remove_skill_source(const std::string &label) {
        int r = codex_client_remove_skill_source(c_, label.c_str());
        if (r < 0) throw Error::last(codex_last_error_status());
        return r == 1;
    }

private:
    friend class Pool;
    explicit Client(codex_client_t *adopted) : Connection(adopted) {}

    Login start_login(bool device_code) {
        codex_login_t *l = nullptr;
        check(codex_client_login_chatgpt(c_, device_code, &l));
        return Login(l);
    }

};

/// A pool of Codex app-servers (codex_pool_t, ABI 1.11; RAII: destruction disconnects every
/// endpoint and frees; move-only). Endpoints are added from codex::Options, new threads are
/// placed on the least busy healthy one, and endpoint(name) is a codex::Client on that
/// endpoint's connection for every call of its threads. Register callbacks on handlers()
/// only: they serve every endpoint (the endpoints share one handler table), and the pool
/// keeps them alive; without a server-request callback approvals are declined.
class Pool {
public:
    /// Where thread_start placed a thread.
    struct Placed {
        std::string thread_id; ///< the thread's id
        std::string endpoint;  ///< the endpoint that holds it
    };

    /// A pool from its options as JSON (empty: the defaults; see codex_pool_new).
    explicit Pool(const std::string &options_json = "") {
        check(codex_pool_new(options_json.empty() ? nullptr : options_json.c_str(), &p_));
        codex_client_t *h = nullptr;
        codex_status_t s = codex_pool_handler_client(p_, &h);
        if (s != CODEX_STATUS_OK) {
            codex_pool_free(p_);
            check(s);
        }
        handlers_.reset(new Client(h));
    }
    Pool(const Pool &) = delete;
    Pool &operator=(const Pool &) = delete;
    /// Takes over `o`'s pool.
    Pool(Pool &&o) noexcept : p_(std::exchange(o.p_, nullptr)), handlers_(std::move(o.handlers_)) {}
    Pool &operator=(Pool &&) = delete;
    /// Disconnects every endpoint and frees the pool, then the handler client (no callback
    /// runs after codex_pool_free returns).
    ~Pool() {
        if (p_ != nullptr) codex_pool_free(p_);
    }

    /// Connect endpoint `name` (blocking) and let it take threads; `endpoint_json` holds its
    /// placement settings ({"max_running_turns", "shared_home"}; empty: none).
    void add_endpoint(const std::string &name, const Options &o, const std::string &endpoint_json = "") {
        OptionsHandle opts = o.build();
        check(codex_pool_add_endpoint(p_, name.c_str(), opts.get(),
                                      endpoint_json.empty() ? nullptr : endpoint_json.c_str()));
    }
    /// Take endpoint `name` out now (disconnected at once).
    void remove_endpoint(const std::string &name) { check(codex_pool_remove_endpoint(p_, name.c_str())); }
    /// Drain endpoint `name`: no new threads; it leaves once idle.
    void drain_endpoint(const std::string &name) { check(codex_pool_drain_endpoint(p_, name.c_str())); }
    /// Every endpoint's status as a JSON array (see codex_pool_endpoints_json).
    std::string endpoints_json() const {
        char *out = nullptr;
        check(codex_pool_endpoints_json(p_, &out));
        return detail::take_string(out);
    }
    /// thread/start on the least busy endpoint that takes threads (blocking). Throws
    /// CODEX_STATUS_UNAVAILABLE when none can, CODEX_STATUS_OVERLOADED when all stayed overloaded.
    Placed thread_start(const std::string &params_json = "{}") {
        char *t = nullptr, *e = nullptr;
        check(codex_pool_thread_start(p_, params_json.c_str(), &t, &e));
        Placed placed{detail::take_string(t), detail::take_string(e)};
        return placed;
    }
    /// The endpoint that holds thread `thread_id` (throws CODEX_STATUS_INVALID_ARGUMENT for a
    /// thread the pool does not know).
    std::string endpoint_of(const std::string &thread_id) const {
        char *e = nullptr;
        check(codex_pool_endpoint_of(p_, thread_id.c_str(), &e));
        return detail::take_string(e);
    }
    /// thread/resume of a lost endpoint's thread on one sharing its CODEX_HOME; returns the
    /// endpoint that now holds it.
    std::string resume_elsewhere(const std::string &thread_id, const std::string &params_json = "{}") {
        char *e = nullptr;
        check(codex_pool_resume_elsewhere(p_, thread_id.c_str(), params_json.c_str(), &e));
        return detail::take_string(e);
    }
    /// A codex::Client on endpoint `name`'s connection (destroying it frees the handle only;
    /// do not register callbacks on it: use handlers()).
    Client endpoint(const std::string &name) const {
        codex_client_t *c = nullptr;
        check(codex_pool_endpoint_client(p_, name.c_str(), &c));
        return Client(c);
    }
    /// The client whose callbacks serve every endpoint (owned by the pool object).
    Client &handlers() { return *handlers_; }

private:
    codex_pool_t *p_ = nullptr;
    std::unique_ptr<Client> handlers_;
};

} // namespace codex

#endif
