/*
 * codexclient.hpp - header-only C++17 wrapper of codexclient.h (libcodexclient).
 *
 * RAII handles over the C API, one class per protocol on one connection (codex::Connection:
 * connect, raw requests, callbacks, poll mode): codex::Client (a Codex app-server, or Codex
 * through the exec / codex-mcp-server transports: threads, turns, approvals, login) and
 * codex::McpClient (any MCP server); both codex_client_free on destruction, which disconnects
 * first. codex::Event (owned events from poll mode), codex::Request (an owned server request;
 * destroying it unanswered answers it fail-closed: approvals are declined). Errors are thrown
 * as codex::Error (status, message, JSON-RPC code/message/data).
 * codex::Options holds the options as C++ values: one member per option of the library's
 * table, generated from it (codexclient_options.hpp, by scripts/gen-cpp-options.sh); a member
 * left unset is not sent, so the library's default applies. Options::build() turns them into
 * the C library's opaque codex_options_t (an OptionsHandle, freed automatically), which is
 * what the client constructors pass to codex_client_new. Any option may also be set by name
 * with its value as JSON: Options::set("exec_model", "\"gpt-5.1-codex\"") (codex_options_set,
 * ABI 1.5; Options::keys_json() lists them all).
 *
 * Callbacks are std::function objects. The Client stores its own copies (the objects you pass
 * may be destroyed right after the call). They run like the C callbacks: ALL of a client's
 * callbacks, including request completions, run on the client's one library-owned dispatch
 * thread, one at a time, in arrival order. An exception thrown by a callback is caught at the
 * boundary (it never crosses into C); a server request whose handler threw is declined.
 * Replacing a callback is thread-safe; the old copy is destroyed once no call of it runs.
 *
 * Shutdown order: destroy (or disconnect()) the Client from a thread that is not one of its
 * callbacks; after ~Client returns no callback runs again. codex::Request and codex::Event
 * objects may outlive the Client (a Request can then no longer be answered).
 *
 * MCP: codex::McpClient drives any MCP server (Options::command, or a transport
 * "mcp+stdio:..." / "http(s)://..."): list_tools(), call_tool(), read_resource(),
 * list_prompts(), get_prompt(), complete(), set_logging_level(), ping() and mcp_call() /
 * mcp_request() for any of them by name, cancel_request() for async ones. The method names
 * and params come from the library (codex_mcp_method_name, codex_mcp_params): this header
 * spells no protocol. codex::Client has none of them, nor codex::McpClient a Codex method
 * (tests/c/test_clients_split.cpp).
 *
 * MCP subscriptions (2026-07-28; ABI 1.9): McpClient::listen() opens a subscriptions/listen
 * stream and returns a codex::Listen once the server acknowledged it (acknowledged(): the
 * filter it honours); destroying the Listen closes the stream. Skills over MCP (ABI 1.7):
 * McpClient::mcp_skills_list(), mcp_skill_load(), and Client::add_skill_source() / remove_skill_source()
 * to let a Codex client's turns use an MCP server's skills.
 *
 * MCP authorization (OAuth 2.1; ABI 1.8): Options::oauth_authorizer (a function from the
 * authorization URL to the redirect URL; it runs on a library-owned blocking thread and may
 * block) and Options::oauth_token_store (load/save/clear over the credentials' JSON text; also
 * on a library-owned blocking thread: keep them short); throw to fail. The
 * library keeps its own copies, destroyed once the last Client made from the Options is gone.
 * Grants and settings are options by name: set("oauth_grant", "\"client_credentials\"").
 *
 * Files: this header (the connection and what both clients share), codexclient_mcp.hpp
 * (codex::McpClient, codex::Listen), codexclient_codex.hpp (codex::Client, codex::Login) and
 * codexclient_options.hpp (the generated Options members); this header includes the others.
 *
 * Link: pkg-config --cflags --libs codexclient. Needs C++17.
 */
#ifndef CODEXCLIENT_HPP
#define CODEXCLIENT_HPP

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codexclient.h"

namespace codex {

/// A failed library call: the status and the thread's last-error details at the time.
class Error : public std::runtime_error {
public:
    Error(codex_status_t status, const std::string &message, int64_t rpc_code = 0,
          std::string rpc_message = {}, std::optional<std::string> rpc_data = std::nullopt)
        : std::runtime_error(message), status_(status), rpc_code_(rpc_code),
          rpc_message_(std::move(rpc_message)), rpc_data_(std::move(rpc_data)) {}

    /// The status code (CODEX_STATUS_TIMEOUT, CODEX_STATUS_RPC_ERROR, ...).
    codex_status_t status() const noexcept { return status_; }
    /// The JSON-RPC error code (RPC_ERROR / OVERLOADED), else 0.
    int64_t rpc_code() const noexcept { return rpc_code_; }
    /// The server's JSON-RPC error message, else "".
    const std::string &rpc_message() const noexcept { return rpc_message_; }
    /// The JSON-RPC error data as JSON text, when present.
    const std::optional<std::string> &rpc_data() const noexcept { return rpc_data_; }
    /// The stable name of the status, e.g. "CODEX_STATUS_TIMEOUT".
    const char *status_name() const noexcept { return codex_status_name(static_cast<int>(status_)); }

    /// An Error from the calling thread's last error (call right after the failed call).
    static Error last(codex_status_t status) {
        const char *m = codex_last_error_message();
        const char *rm = codex_last_error_rpc_message();
        const char *rd = codex_last_error_rpc_data();
        return Error(status, m ? m : "", codex_last_error_rpc_code(), rm ? rm : "",
                     rd ? std::optional<std::string>(rd) : std::nullopt);
    }

private:
    codex_status_t status_;
    int64_t rpc_code_;
    std::string rpc_message_;
    std::optional<std::string> rpc_data_;
};

/// Throw codex::Error unless `s` is CODEX_STATUS_OK.
inline void check(codex_status_t s) {
    if (s != CODEX_STATUS_OK) throw Error::last(s);
}

namespace detail {
inline std::string take_string(char *s) {
    if (s == nullptr) return {};
    std::string out(s);
    codex_string_free(s);
    return out;
}
inline std::string str(const char *s) { return s ? std::string(s) : std::string(); }
/// A string as JSON text (quoted, escaped).
inline std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

/// Milliseconds as the JSON number of seconds the option table takes ("12.5" for 12500).
inline std::string ms_json(double ms) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", ms / 1000.0);
    return buf;
}
} // namespace detail

/// MCP authorization: the program's token store (Options::oauth_token_store), as functions.
/// Each gets the MCP server's URL; the credentials are JSON text whose format is the
/// library's (store it as it is; it holds secrets). They run on a library-owned blocking
/// thread, one at a time per client, while that client's requests wait: keep them short. An
/// exception fails the operation (logged with its what(); never put a secret in it).
struct OAuthTokenStore {
    /// What is stored for `server`, or std::nullopt.
    std::function<std::optional<std::string>(const std::string &server)> load;
    /// Replace what is stored for `server`.
    std::function<void(const std::string &server, const std::string &credentials_json)> save;
    /// Forget what is stored for `server`.
    std::function<void(const std::string &server)> clear;
};

namespace detail {
/// The browser step of Options::oauth_authorizer.
using AuthorizeFn = std::function<std::string(const std::string &authorization_url)>;

template <class T> void release_box(void *p) noexcept { delete static_cast<T *>(p); }

inline void answer_error(codex_oauth_answer_t *a, const char *what) noexcept {
    codex_oauth_answer_error(a, what && *what ? what : "the callback threw");
}

inline void oauth_authorize(void *u, const char *url, codex_oauth_answer_t *a) noexcept {
    try {
        std::string redirect = (*static_cast<AuthorizeFn *>(u))(url);
        codex_oauth_answer_set(a, redirect.c_str());
    } catch (const std::exception &e) {
        answer_error(a, e.what());
    } catch (...) {
        answer_error(a, nullptr);
    }
}
inline void oauth_load(void *u, const char *server, codex_oauth_answer_t *a) noexcept {
    try {
        std::optional<std::string> got = static_cast<OAuthTokenStore *>(u)->load(server);
        if (got) codex_oauth_answer_set(a, got->c_str());
    } catch (const std::exception &e) {
        answer_error(a, e.what());
    } catch (...) {
        answer_error(a, nullptr);
    }
}
inline void oauth_save(void *u, const char *server, const char *json, codex_oauth_answer_t *a) noexcept {
    try {
        static_cast<OAuthTokenStore *>(u)->save(server, json);
    } catch (const std::exception &e) {
        answer_error(a, e.what());
    } catch (...) {
        answer_error(a, nullptr);
    }
}
inline void oauth_clear(void *u, const char *server, codex_oauth_answer_t *a) noexcept {
    try {
        static_cast<OAuthTokenStore *>(u)->clear(server);
    } catch (const std::exception &e) {
        answer_error(a, e.what());
    } catch (...) {
        answer_error(a, nullptr);
    }
}
} // namespace detail

class Client;
class McpClient;

/// A server request the program owns (move-only). Answer it with respond()/respond_error()
/// from any thread, now or later. Destroying it unanswered answers it fail-closed (approvals
/// are declined).
class Request {
public:
    Request() noexcept = default;
    Request(codex_client_t *client, codex_request_t *req) noexcept : client_(client), req_(req) {}
    Request(const Request &) = delete;
    Request &operator=(const Request &) = delete;
    Request(Request &&o) noexcept : client_(std::exchange(o.client_, nullptr)), req_(std::exchange(o.req_, nullptr)) {}
    Request &operator=(Request &&o) noexcept {
        if (this != &o) {
            reset();
            client_ = std::exchange(o.client_, nullptr);
            req_ = std::exchange(o.req_, nullptr);
        }
        return *this;
    }
    ~Request() { reset(); }

    /// Whether this object holds a request.
    explicit operator bool() const noexcept { return req_ != nullptr; }
    /// The request's method, e.g. "item/commandExecution/requestApproval".
    std::string method() const { return detail::str(codex_request_method(req_)); }
    /// The request's params as JSON text.
    std::string params() const { return detail::str(codex_request_params(req_)); }
    /// params.threadId, or "".
    std::string thread_id() const { return detail::str(codex_request_thread_id(req_)); }
    /// params.turnId, or "".
    std::string turn_id() const { return detail::str(codex_request_turn_id(req_)); }
    /// Whether it can still be answered.
    bool is_open() const noexcept { return req_ != nullptr && codex_request_is_open(req_); }
    /// The label of the client that received it (option `label`), or "" (ABI 1.11).
    std::string endpoint() const { return detail::str(codex_request_endpoint(req_)); }
    /// Its reference as JSON text, to answer it from another process with
    /// Connection::respond_ref() on the owning client. Parks it: it stays open (this object
    /// may be destroyed) until answered, resolved, disconnected or option
    /// parked_request_timeout passes (then it is declined). ABI 1.11.
    std::string to_json() const {
        char *s = nullptr;
        check(codex_request_to_json(req_, &s));
        return detail::take_string(s);
    }
    /// Answer with a result (JSON text), e.g. R"({"decision":"accept"})". Throws codex::Error
    /// (CODEX_STATUS_ALREADY_RESPONDED when answered before).
    void respond(const std::string &result_json) const {
        check(codex_client_respond(client_, req_, result_json.c_str()));
    }
    /// Answer with a JSON-RPC error.
    void respond_error(int64_t code, const std::string &message,
                       const std::optional<std::string> &data_json = std::nullopt) const {
        check(codex_client_respond_error(client_, req_, code, message.c_str(),
                                         data_json ? data_json->c_str() : nullptr));
    }
    /// Convenience for approvals: {"decision":"accept"} or {"decision":"decline"}.
    void approve(bool accept) const { respond(accept ? R"({"decision":"accept"})" : R"({"decision":"decline"})"); }
    /// The C handle (still owned by this object).
    codex_request_t *get() const noexcept { return req_; }
    /// Free now (unanswered: fail-closed).
    void reset() noexcept {
        if (req_ != nullptr) codex_request_free(req_);
        req_ = nullptr;
        client_ = nullptr;
    }

private:
    codex_client_t *client_ = nullptr;
    codex_request_t *req_ = nullptr;
};

/// A read-only view of an event (valid as long as the event: in a callback, until it returns).
class EventView {
public:
    explicit EventView(codex_event_t *ev, codex_client_t *client = nullptr) noexcept : ev_(ev), client_(client) {}
    /// CODEX_EVENT_NOTIFICATION, CODEX_EVENT_SERVER_REQUEST, CODEX_EVENT_RESPONSE, ...
    codex_event_kind_t kind() const noexcept { return codex_event_kind(ev_); }
    /// Method of the notification / server request / completed request, or "".
    std::string method() const { return detail::str(codex_event_method(ev_)); }
    /// params JSON text, or "".
    std::string params() const { return detail::str(codex_event_params(ev_)); }
    /// params.threadId, or "".
    std::string thread_id() const { return detail::str(codex_event_thread_id(ev_)); }
    /// params.turnId, or "".
    std::string turn_id() const { return detail::str(codex_event_turn_id(ev_)); }
    /// Delta text of a `.../delta` notification (borrowed from the event), empty otherwise.
    std::string_view delta() const noexcept {
        size_t len = 0;
        const char *d = codex_event_delta(ev_, &len);
        return d ? std::string_view(d, len) : std::string_view();
    }
    /// Outcome of a RESPONSE event.
    codex_status_t status() const noexcept { return codex_event_status(ev_); }
    /// Result JSON of a successful RESPONSE, or "".
    std::string result() const { return detail::str(codex_event_result(ev_)); }
    /// Error message (failed RESPONSE, ERROR, DISCONNECTED), or "".
    std::string error_message() const { return detail::str(codex_event_error_message(ev_)); }
    /// JSON-RPC code of a failed RESPONSE, else 0.
    int64_t rpc_code() const noexcept { return codex_event_rpc_code(ev_); }
    /// Id returned by Client::request, for a RESPONSE.
    uint64_t request_id() const noexcept { return codex_event_request_id(ev_); }
    /// The label of the client that received a notification or server request (option
    /// `label`), or "" (ABI 1.11).
    std::string endpoint() const { return detail::str(codex_event_endpoint(ev_)); }
    /// The event in the library's serialised form, as JSON text (for another process); a
    /// SERVER_REQUEST's is its reference, and making it parks the request (see
    /// Request::to_json). ABI 1.11.
    std::string to_json() const { return detail::str(codex_event_to_json(ev_)); }
    /// Take the server request out of a SERVER_REQUEST event (to answer after the event is
    /// gone). Throws codex::Error when it is not one or was taken already.
    Request take_request() const {
        codex_request_t *r = nullptr;
        check(codex_event_take_request(ev_, &r));
        return Request(client_, r);
    }
    /// The C handle (borrowed).
    codex_event_t *get() const noexcept { return ev_; }

protected:
    codex_event_t *ev_;
    codex_client_t *client_;
};

/// An event the program owns (poll mode): codex_event_free on destruction. Move-only.
class Event : public EventView {
public:
    Event(codex_event_t *ev, codex_client_t *client) noexcept : EventView(ev, client) {}
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;
    Event(Event &&o) noexcept : EventView(std::exchange(o.ev_, nullptr), o.client_) {}
    Event &operator=(Event &&o) noexcept {
        if (this != &o) {
            codex_event_free(ev_);
            ev_ = std::exchange(o.ev_, nullptr);
            client_ = o.client_;
        }
        return *this;
    }
    ~Event() { codex_event_free(ev_); }
};

/// Deletes an options object (codex_options_free).
struct OptionsDeleter {
    void operator()(codex_options_t *o) const noexcept { codex_options_free(o); }
};
/// An owned library options object (codex_options_t, opaque): codex_options_free on destruction.
using OptionsHandle = std::unique_ptr<codex_options_t, OptionsDeleter>;

/// One entry of an option that is a list of pairs (env, headers, config_overrides) or of roots
/// (mcp_roots): a text ("NAME=value", "Name: value", a root's URI or path) or a {name, value}
/// pair (a root: {URI or path, name}). How an entry is read is the library's (the option's doc).
struct Entry {
    std::string first;                 ///< the text, or the name (a root: its URI or path)
    std::optional<std::string> second; ///< the value (a root: its name); none for a text entry
    /// A text entry.
    Entry(const char *text) : first(text) {}
    /// A text entry.
    Entry(std::string text) : first(std::move(text)) {}
    /// A {name, value} entry.
    Entry(std::string name, std::string value) : first(std::move(name)), second(std::move(value)) {}
};

} // namespace codex

#include "codexclient_options.hpp"

namespace codex {

namespace detail {
/// A member of OptionValues (of the option table's kind `kind`) as the JSON text
/// codex_options_set takes; std::nullopt when it is not set (not sent: the library's default
/// applies).
inline std::optional<std::string> option_json(const std::optional<bool> &v, const char *) {
    if (!v) return std::nullopt;
    return std::string(*v ? "true" : "false");
}
inline std::optional<std::string> option_json(const std::string &v, const char *kind) {
    if (v.empty()) return std::nullopt;
    return std::string(kind) == "object" ? v : json_string(v); // object: JSON text already
}
inline std::optional<std::string> option_json(const std::optional<double> &ms, const char *) {
    if (!ms) return std::nullopt;
    return ms_json(*ms);
}
inline std::optional<std::string> option_json(const std::optional<uint64_t> &v, const char *) {
    if (!v) return std::nullopt;
    return std::to_string(*v);
}
inline std::optional<std::string> option_json(const std::vector<std::string> &v, const char *) {
    if (v.empty()) return std::nullopt;
    std::string out = "[";
    for (const auto &e : v) out += (out.size() > 1 ? "," : "") + json_string(e);
    return out + "]";
}
inline std::optional<std::string> option_json(const std::vector<Entry> &v, const char *) {
    if (v.empty()) return std::nullopt;
    std::string out = "[";
    for (const auto &e : v) {
        out += out.size() > 1 ? "," : "";
        out += e.second ? "[" + json_string(e.first) + "," + json_string(*e.second) + "]" : json_string(e.first);
    }
    return out + "]";
}
} // namespace detail

/// Client options (owning values). The members (OptionValues) are generated from the
/// library's option table, one per option, with its doc: a member left unset (std::nullopt,
/// or empty for strings and lists) is not sent, so the library's default
/// applies; durations are members named `<option>_ms`, in milliseconds. The Client turns them
/// into the library's opaque options object with build(): one codex_options_set per member
/// that is set, so a value the library refuses (out of range, a bad transport spec, a token
/// without ws://, an env entry that is not NAME=value) throws
/// codex::Error(CODEX_STATUS_INVALID_ARGUMENT) naming the option. The defaults, ranges, units
/// and what 0 means are the library's option table (keys_json(); the Options page of the
/// docs), never restated here. Rules between options (command with a transport, headers
/// without an HTTP transport) are the library's too: a Client made from such options throws.
struct Options : OptionValues {
    // Older spellings, kept for source compatibility (new code uses the table's names; a
    // [[deprecated]] data member would warn in every copy of an Options):
    /// Older spelling of option `command` (used only when `command` is empty).
    std::vector<std::string> mcp_command;
    /// Older spelling: true sets option `delivery` to "poll" (unless `delivery` is set).
    bool poll = false;
    /// Older spelling: non-zero sets options `reconnect` to true and `reconnect_max_attempts`
    /// to it (unless they are set).
    uint32_t reconnect_attempts = 0;
    /// Options set by name, {key, value as JSON text}, applied after the members above in
    /// this order (a later one wins): see set().
    std::vector<std::pair<std::string, std::string>> by_name;
    /// MCP authorization's browser step (codex_options_set_oauth_authorizer; ABI 1.8): gets
    /// the authorization URL, returns the URL the authorization server redirected to; throw
    /// to fail (what() is the reason). Runs on a library-owned blocking thread and may block
    /// up to option oauth_authorize_timeout. Empty: none. The grants, the
    /// redirect URI and the other settings are options: oauth_grant = "client_credentials",
    /// oauth_redirect_uri = "http://127.0.0.1:8765/cb".
    /// Lifetime: build() hands the library a copy of the function, destroyed when the last
    /// options object and client made from it are gone; what it captures by reference must
    /// outlive every Client made from these Options.
    std::function<std::string(const std::string &authorization_url)> oauth_authorizer;
    /// MCP authorization's token store (codex_options_set_oauth_token_store; ABI 1.8): all
    /// three functions set, or none (the default: tokens in memory). Same lifetime as
    /// oauth_authorizer.
    OAuthTokenStore oauth_token_store;

    /// Set any option of the library by name, its value as JSON text (codex_options_set;
    /// ABI 1.5): for example set("default_timeout", "12.5") (seconds), set("transport",
    /// "\"exec\""); "null" restores the option's default. The names, types, ranges and what 0
    /// means are the library's (keys_json()). Checked by build(): an unknown key, bad JSON or
    /// a value out of range throws codex::Error(CODEX_STATUS_INVALID_ARGUMENT) naming the key.
    /// Returns *this.
    Options &set(std::string key, std::string value_json) {
        by_name.emplace_back(std::move(key), std::move(value_json));
        return *this;
    }

    /// Every option, as JSON text: [{"name","kind","list","secret","doc",
    /// "default","range","unit","zero","clients"}...] (codex_options_keys_json; ABI 1.5).
    static std::string keys_json() {
        const char *k = codex_options_keys_json();
        return k ? std::string(k) : std::string("[]");
    }

    /// The library's options object for these options (owned; the strings are copied).
    OptionsHandle build() const {
        OptionsHandle h(codex_options_new());
        if (!h) throw Error::last(CODEX_STATUS_INTERNAL);
        codex_options_t *o = h.get();
        OptionValues v = *this;
        if (v.command.empty()) v.command = mcp_command;
        if (poll && v.delivery.empty()) v.delivery = "poll";
        if (reconnect_attempts != 0 && !v.reconnect) v.reconnect = true;
        if (reconnect_attempts != 0 && !v.reconnect_max_attempts) v.reconnect_max_attempts = reconnect_attempts;
        v.for_each_option([o](const char *name, const auto &member, const char *kind) {
            std::optional<std::string> json = detail::option_json(member, kind);
            if (json) check(codex_options_set(o, name, json->c_str()));
        });
        for (const auto &kv : by_name) check(codex_options_set(o, kv.first.c_str(), kv.second.c_str()));
        if (oauth_authorizer) {
            auto *f = new detail::AuthorizeFn(oauth_authorizer);
            codex_status_t st = codex_options_set_oauth_authorizer(o, detail::oauth_authorize, f,
                                                                   detail::release_box<detail::AuthorizeFn>);
            if (st != CODEX_STATUS_OK) delete f; // refused: the library did not take it
            check(st);
        }
        if (oauth_token_store.load || oauth_token_store.save || oauth_token_store.clear) {
            if (!oauth_token_store.load || !oauth_token_store.save || !oauth_token_store.clear)
                throw Error(CODEX_STATUS_INVALID_ARGUMENT,
                            "codex::Options: oauth_token_store needs load, save and clear");
            auto *st = new OAuthTokenStore(oauth_token_store);
            codex_status_t r = codex_options_set_oauth_token_store(
                o, detail::oauth_load, detail::oauth_save, detail::oauth_clear, st,
                detail::release_box<OAuthTokenStore>);
            if (r != CODEX_STATUS_OK) delete st;
            check(r);
        }
        return h;
    }
};

/// One connection to a server (RAII: destruction disconnects and frees; move-only): connect,
/// raw requests and notifications, callbacks, poll mode, cancellation. Not made directly: a
/// codex::Client (a Codex app-server, or the exec / codex-mcp-server transports) or a
/// codex::McpClient (any MCP server) is one, with the methods of its protocol.
class Connection {
public:
    /// Callback for notifications, connection events and request completions.
    using EventFn = std::function<void(const EventView &)>;
    /// Callback for server requests: the request is already taken and owned by you; answer it
    /// now or move it elsewhere and answer later. Dropping it unanswered declines it.
    using RequestFn = std::function<void(Request)>;

    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;
    Connection &operator=(Connection &&) = delete;
    /// Disconnects (if connected) and frees; no callback runs after it returns.
    ~Connection() {
        if (c_ != nullptr) codex_client_free(c_);
    }

protected:
    /// A client of the server `o` names (codex_client_new); not connected yet.
    explicit Connection(const Options &o) : slots_(std::make_unique<Slots>()) {
        OptionsHandle opts = o.build(); // freed when this returns: the client copied it
        check(codex_client_new(opts.get(), &c_));
        slots_->client = c_;
    }
    /// Takes over `o`'s connection.
    Connection(Connection &&o) noexcept : c_(std::exchange(o.c_, nullptr)), slots_(std::move(o.slots_)) {}
    /// Wraps a client handle the library made (a pool's endpoint or handler client): this
    /// object owns the handle, the pool owns the connection behind it.
    explicit Connection(codex_client_t *adopted) : c_(adopted), slots_(std::make_unique<Slots>()) {
        slots_->client = c_;
    }

public:

    /// Spawn the server and handshake; returns the initialize result JSON.
    std::string connect() {
        char *init = nullptr;
        check(codex_client_connect(c_, &init));
        return detail::take_string(init);
    }
    /// End the connection. Returns false when there was none.
    bool disconnect() {
        codex_status_t s = codex_client_disconnect(c_);
        if (s == CODEX_STATUS_NOT_CONNECTED) return false;
        check(s);
        return true;
    }
    /// Whether connected.
    bool is_connected() const noexcept { return codex_client_is_connected(c_); }
    /// Whether the connection dropped and the client is reconnecting (ABI 1.2).
    bool is_reconnecting() const noexcept { return codex_client_is_reconnecting(c_); }

    // Lifetime of what a callback captures: the callbacks run on a library thread until this
    // Client is destroyed (or the callback is replaced), so anything captured by reference
    // (`[&state]`) must outlive the Client, or be reset first with an empty function. Declare
    // the captured state before the Client (destroyed after it), as examples/cpp does; or
    // capture a std::shared_ptr by value.

    /// Notifications (callbacks mode). An empty function removes the callback.
    void on_notification(EventFn f) { set(CODEX_CALLBACK_NOTIFICATION, slots_->notification, std::move(f)); }
    /// Connection reports (ERROR, OVERFLOW, DISCONNECTED).
    void on_connection(EventFn f) { set(CODEX_CALLBACK_CONNECTION, slots_->connection, std::move(f)); }
    /// Server requests (approvals, questions). Without one, approvals are declined.
    void on_server_request(RequestFn f) {
        std::shared_ptr<RequestFn> p = f ? std::make_shared<RequestFn>(std::move(f)) : nullptr;
        {
            std::lock_guard<std::mutex> g(slots_->mu);
            slots_->request = p;
        }
        check(codex_client_register_callback(c_, CODEX_CALLBACK_SERVER_REQUEST,
                                             p ? &Connection::request_tramp : nullptr, p ? slots_.get() : nullptr));
    }

    /// Blocking request; returns the result JSON. timeout_ms 0 = default.
    std::string call(const std::string &method, const std::string &params_json = "{}", uint64_t timeout_ms = 0) {
        char *r = nullptr;
        check(codex_client_call(c_, method.c_str(), params_json.c_str(), timeout_ms, &r));
        return detail::take_string(r);
    }
    /// Async request (callbacks mode): `done` runs once on the dispatch thread with the
    /// RESPONSE event (also on timeout/disconnect). Returns the request id.
    uint64_t request(const std::string &method, const std::string &params_json, uint64_t timeout_ms, EventFn done) {
        auto *heap = new EventFn(std::move(done));
        uint64_t id = 0;
        codex_status_t s = codex_client_request(c_, method.c_str(), params_json.c_str(), timeout_ms,
                                                &Connection::response_tramp, heap, &id);
        if (s != CODEX_STATUS_OK) {
            Error e = Error::last(s);
            delete heap;
            throw e;
        }
        return id;
    }
    /// Async request (poll mode): the completion is a RESPONSE event from next_event().
    uint64_t request(const std::string &method, const std::string &params_json = "{}", uint64_t timeout_ms = 0) {
        uint64_t id = 0;
        check(codex_client_request(c_, method.c_str(), params_json.c_str(), timeout_ms, nullptr, nullptr, &id));
        return id;
    }
    /// Send a client notification (no response).
    void notify(const std::string &method, const std::string &params_json = "{}") {
        check(codex_client_notify(c_, method.c_str(), params_json.c_str()));
    }
    /// The client's id (128 random bits in hex): the owner its server-request references
    /// name (ABI 1.11).
    std::string id() const {
        char *s = nullptr;
        check(codex_client_id(c_, &s));
        return detail::take_string(s);
    }
    /// Answer the server request a JSON reference names (Request::to_json,
    /// EventView::to_json's server_request, from any process) with a result as JSON text, on
    /// this client, which must own it. Throws codex::Error: CODEX_STATUS_INVALID_ARGUMENT
    /// (another client's), CODEX_STATUS_CONNECTION_LOST / CODEX_STATUS_DISCONNECTED (its
    /// connection was lost / has ended), CODEX_STATUS_ALREADY_RESPONDED (answered, declined at
    /// its bound, or resolved by the server). ABI 1.11.
    void respond_ref(const std::string &ref_json, const std::string &result_json) {
        check(codex_client_respond_ref(c_, ref_json.c_str(), result_json.c_str()));
    }
    /// Answer the server request a JSON reference names with a JSON-RPC error (as
    /// respond_ref). ABI 1.11.
    void respond_ref_error(const std::string &ref_json, int64_t code, const std::string &message,
                           const std::optional<std::string> &data_json = std::nullopt) {
        check(codex_client_respond_ref_error(c_, ref_json.c_str(), code, message.c_str(),
                                             data_json ? data_json->c_str() : nullptr));
    }
    /// The last bytes the server wrote to stderr.
    std::string stderr_tail() const {
        char *s = nullptr;
        check(codex_client_stderr_tail(c_, &s));
        return detail::take_string(s);
    }
    /// The server's process id (throws CODEX_STATUS_NOT_CONNECTED when not connected).
    uint32_t server_pid() const {
        uint32_t pid = 0;
        check(codex_client_server_pid(c_, &pid));
        return pid;
    }
    /// Cancel an async request (the id from request() or mcp_request()) that is still
    /// pending: true when cancelled (its completion then comes with CODEX_STATUS_CANCELLED and
    /// an MCP server is told); false when it was no longer pending (its completion carries
    /// its own outcome). Throws codex::Error otherwise (e.g. CODEX_STATUS_NOT_CONNECTED).
    bool cancel_request(uint64_t id) {
        codex_status_t s = codex_client_cancel_request(c_, id);
        if (s == CODEX_STATUS_INVALID_STATE) return false;
        check(s);
        return true;
    }

    /// Poll mode: the next event, or std::nullopt when none arrived within timeout_ms
    /// (negative: wait forever). Throws codex::Error on other failures.
    std::optional<Event> next_event(int64_t timeout_ms) {
        codex_event_t *ev = nullptr;
        codex_status_t s = codex_client_next_event(c_, timeout_ms, &ev);
        if (s == CODEX_STATUS_TIMEOUT) return std::nullopt;
        check(s);
        return Event(ev, c_);
    }
    /// Poll mode: the readiness descriptor (owned by the client).
    int event_fd() const {
        int fd = codex_client_event_fd(c_);
        if (fd < 0) throw Error::last(codex_last_error_status());
        return fd;
    }
    /// The C handle (owned by this object).
    codex_client_t *get() const noexcept { return c_; }

private:
    struct Slots {
        std::mutex mu;
        std::shared_ptr<EventFn> notification, connection;
        std::shared_ptr<RequestFn> request;
        codex_client_t *client = nullptr;
    };

    void set(codex_callback_kind_t kind, std::shared_ptr<EventFn> &slot, EventFn f) {
        std::shared_ptr<EventFn> p = f ? std::make_shared<EventFn>(std::move(f)) : nullptr;
        {
            std::lock_guard<std::mutex> g(slots_->mu);
            slot = p;
        }
        codex_callback_t tramp = kind == CODEX_CALLBACK_NOTIFICATION ? &Connection::notification_tramp
                                                                     : &Connection::connection_tramp;
        check(codex_client_register_callback(c_, kind, p ? tramp : nullptr, p ? slots_.get() : nullptr));
    }

    static void run_event(Slots *s, std::shared_ptr<EventFn> Slots::*which, codex_event_t *ev) noexcept {
        std::shared_ptr<EventFn> f;
        {
            std::lock_guard<std::mutex> g(s->mu);
            f = s->*which;
        }
        if (!f) return;
        try {
            (*f)(EventView(ev, s->client));
        } catch (...) {
            // Never let an exception cross into C.
        }
    }
    static void notification_tramp(void *ud, codex_event_t *ev) {
        run_event(static_cast<Slots *>(ud), &Slots::notification, ev);
    }
    static void connection_tramp(void *ud, codex_event_t *ev) {
        run_event(static_cast<Slots *>(ud), &Slots::connection, ev);
    }
    static void request_tramp(void *ud, codex_event_t *ev) {
        auto *s = static_cast<Slots *>(ud);
        std::shared_ptr<RequestFn> f;
        {
            std::lock_guard<std::mutex> g(s->mu);
            f = s->request;
        }
        if (!f) return; // the event's destruction declines it
        try {
            codex_request_t *r = nullptr;
            if (codex_event_take_request(ev, &r) != CODEX_STATUS_OK) return;
            (*f)(Request(s->client, r));
        } catch (...) {
            // The Request was destroyed during unwinding: answered fail-closed if unanswered.
        }
    }
    static void response_tramp(void *ud, codex_event_t *ev) {
        std::unique_ptr<EventFn> f(static_cast<EventFn *>(ud));
        try {
            if (*f) (*f)(EventView(ev));
        } catch (...) {
        }
    }

protected:
    /// The C handle (owned).
    codex_client_t *c_ = nullptr;

private:
    std::unique_ptr<Slots> slots_;
};

} // namespace codex

// The two clients on the connection, each in its own header (included here: a program
// includes codexclient.hpp only).
#include "codexclient_mcp.hpp"
#include "codexclient_codex.hpp"

#endif
