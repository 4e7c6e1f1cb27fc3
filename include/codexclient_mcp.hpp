/*
 * codexclient_mcp.hpp - the MCP part of the C++17 wrapper (libcodexclient): codex::McpClient
 * (any MCP server) and codex::Listen (a subscriptions/listen stream), over the functions of
 * the MCP CLIENT section of codexclient.h. Included by codexclient.hpp: include that.
 */

// First, outside the guard: included on its own, this header is then read through
// codexclient.hpp, after what it builds on.
#include "codexclient.hpp"

#ifndef CODEXCLIENT_MCP_HPP
#define CODEXCLIENT_MCP_HPP

namespace codex {

/// An open MCP subscription stream (subscriptions/listen, MCP 2026-07-28; ABI 1.9). RAII:
/// destruction (or close()) closes the stream (the server is told) and frees the handle; the
/// connection goes on. Move-only. From McpClient::listen(). While it is open, the notifications
/// of its filter arrive as ordinary notifications (on_notification(), or poll mode).
class Listen {
public:
    Listen() noexcept = default;
    explicit Listen(codex_mcp_listen_t *l) noexcept : l_(l) {}
    Listen(const Listen &) = delete;
    Listen &operator=(const Listen &) = delete;
    Listen(Listen &&o) noexcept : l_(std::exchange(o.l_, nullptr)) {}
    Listen &operator=(Listen &&o) noexcept {
        if (this != &o) {
            close();
            l_ = std::exchange(o.l_, nullptr);
        }
        return *this;
    }
    ~Listen() { close(); }
    /// Whether this object holds an open stream.
    explicit operator bool() const noexcept { return l_ != nullptr; }
    /// The filter the server acknowledged, as JSON ("" once closed), e.g.
    /// {"toolsListChanged":true}: the subset of the requested filter it honours.
    std::string acknowledged() const { return detail::str(codex_mcp_listen_acknowledged(l_)); }
    /// Close the stream now (codex_mcp_listen_free); a second close does nothing. Not blocking.
    void close() noexcept {
        if (l_ != nullptr) codex_mcp_listen_free(std::exchange(l_, nullptr));
    }
    /// The C handle (owned by this object).
    codex_mcp_listen_t *get() const noexcept { return l_; }

private:
    codex_mcp_listen_t *l_ = nullptr;
};

namespace detail {

/// A connection with the MCP requests (protected: public in codex::McpClient only; codex::Client
/// has none of them). Not made directly.
class McpConnection : public Connection {
protected:
    /// A client of the server `o` names (codex_client_new); not connected yet.
    explicit McpConnection(const Options &o) : Connection(o) {}
    /// Wraps a handle the library made (see Connection).
    explicit McpConnection(codex_client_t *adopted) : Connection(adopted) {}
    /// Takes over `o`'s connection.
    McpConnection(McpConnection &&o) noexcept = default;

    // MCP (see "MCP" in codexclient.h); public in codex::McpClient. Thin helpers over call() / request(): the library
    // names each request's method and builds its params (codex_mcp_method_name,
    // codex_mcp_params), so nothing of the protocol is spelled here. They return the result
    // as JSON text (a tool that failed answers with "isError":true in it) and throw
    // codex::Error (CODEX_STATUS_RPC_ERROR for a protocol error, CODEX_STATUS_TIMEOUT, ...).
    // timeout_ms 0 = the client's default. Server requests (sampling, elicitation, roots)
    // reach on_server_request(); notifications (progress, log records) on_notification().

    /// The method of an MCP request named in snake_case, e.g. "call_tool" (see
    /// codex_mcp_method_name). Throws CODEX_STATUS_INVALID_ARGUMENT for an unknown name.
    static std::string mcp_method(const std::string &name) {
        const char *m = codex_mcp_method_name(name.c_str());
        if (m == nullptr) throw Error::last(codex_last_error_status());
        return m;
    }
    /// The params of MCP request `name` from its subject (cursor, tool or prompt name, uri,
    /// level; std::nullopt: none) and arguments JSON ("": none) - see codex_mcp_params.
    static std::string mcp_params(const std::string &name, const std::optional<std::string> &subject = std::nullopt,
                                  const std::string &arguments_json = "") {
        char *p = nullptr;
        check(codex_mcp_params(name.c_str(), subject ? subject->c_str() : nullptr,
                               arguments_json.empty() ? nullptr : arguments_json.c_str(), &p));
        return detail::take_string(p);
    }
    /// A blocking MCP request by name: mcp_call("call_tool", "echo", R"({"message":"hi"})").
    std::string mcp_call(const std::string &name, const std::optional<std::string> &subject = std::nullopt,
                         const std::string &arguments_json = "", uint64_t timeout_ms = 0) {
        return call(mcp_method(name), mcp_params(name, subject, arguments_json), timeout_ms);
    }
    /// An async MCP request by name (callbacks mode): `done` runs once with the RESPONSE
    /// event. Returns the id for cancel_request().
    uint64_t mcp_request(const std::string &name, const std::optional<std::string> &subject,
                         const std::string &arguments_json, uint64_t timeout_ms, EventFn done) {
        return request(mcp_method(name), mcp_params(name, subject, arguments_json), timeout_ms, std::move(done));
    }
    /// tools/list (one page; `cursor` "" = the first).
    std::string list_tools(const std::string &cursor = "") { return mcp_call("list_tools", nonempty(cursor)); }
    /// tools/call with the arguments as a JSON object.
    std::string call_tool(const std::string &name, const std::string &arguments_json = "{}", uint64_t timeout_ms = 0) {
        return mcp_call("call_tool", name, arguments_json, timeout_ms);
    }
    /// resources/list (one page).
    std::string list_resources(const std::string &cursor = "") { return mcp_call("list_resources", nonempty(cursor)); }
    /// resources/templates/list (one page).
    std::string list_resource_templates(const std::string &cursor = "") {
        return mcp_call("list_resource_templates", nonempty(cursor));
    }
    /// resources/read.
    std::string read_resource(const std::string &uri) { return mcp_call("read_resource", uri); }
    /// resources/subscribe: notifications/resources/updated follow for `uri`.
    void subscribe_resource(const std::string &uri) { mcp_call("subscribe_resource", uri); }
    /// resources/unsubscribe.
    void unsubscribe_resource(const std::string &uri) { mcp_call("unsubscribe_resource", uri); }
    /// prompts/list (one page).
    std::string list_prompts(const std::string &cursor = "") { return mcp_call("list_prompts", nonempty(cursor)); }
    /// prompts/get with string arguments as a JSON object.
    std::string get_prompt(const std::string &name, const std::string &arguments_json = "{}") {
        return mcp_call("get_prompt", name, arguments_json);
    }
    /// completion/complete with its whole params as JSON (ref, argument, context).
    std::string complete(const std::string &params_json) { return mcp_call("complete", std::nullopt, params_json); }
    /// logging/setLevel ("debug" ... "emergency"); records arrive as notifications.
    void set_logging_level(const std::string &level) { mcp_call("set_logging_level", level); }
    /// ping.
    void ping(uint64_t timeout_ms = 0) { mcp_call("ping", std::nullopt, "", timeout_ms); }

    /// MCP 2026-07-28 subscriptions/listen (codex_client_mcp_listen, ABI 1.9): open a
    /// subscription stream with `filter_json` ({"toolsListChanged":true,
    /// "resourceSubscriptions":["<uri>"],...}; the snake_case names are accepted too) and
    /// wait for the server's acknowledgment, at most timeout_ms (0: the client's default).
    /// Throws codex::Error: CODEX_STATUS_UNSUPPORTED in the handshake era,
    /// CODEX_STATUS_INVALID_ARGUMENT for a filter the library refuses, CODEX_STATUS_TIMEOUT.
    /// Not from a callback of this client.
    Listen listen(const std::string &filter_json = "{}", uint64_t timeout_ms = 0) {
        codex_mcp_listen_t *l = nullptr;
        check(codex_client_mcp_listen(c_, filter_json.c_str(), timeout_ms, &l));
        return Listen(l);
    }

    /// The era this connection negotiated, as the value of option `mcp_prior`
    /// ({"kind":"legacy"} or {"kind":"modern","discover":{...}}; codex_client_mcp_prior, ABI
    /// 1.11): keep it per server and set it as Options::mcp_prior_json of a later client, whose
    /// connect then skips the server/discover probe. Throws CODEX_STATUS_NOT_CONNECTED.
    std::string mcp_prior() const {
        char *r = nullptr;
        check(codex_client_mcp_prior(c_, &r));
        return detail::take_string(r);
    }

    // Skills over MCP (SEP-2640; ABI 1.7): the checks (entry limits, size, SHA-256 digest,
    // frontmatter) are the library's. Not from a callback of this client.

    /// skills/list: one page at `cursor` ("" = the first) or, with all_pages, every page, as
    /// JSON {"skills":[{"uri","frontmatter","resources"},...],"nextCursor":...}
    /// (codex_client_mcp_skills_list). Reads no skill file. Throws CODEX_STATUS_UNSUPPORTED
    /// when the server does not declare the skills extension.
    std::string mcp_skills_list(bool all_pages = true, const std::string &cursor = "") {
        char *r = nullptr;
        check(codex_client_mcp_skills_list(c_, cursor.empty() ? nullptr : cursor.c_str(), all_pages ? 1 : 0, &r));
        return detail::take_string(r);
    }
    /// Load the skill `skill` (a name from mcp_skills_list(), or its SKILL.md URI), checked
    /// against its entry: JSON {"entry":{...},"text":"<SKILL.md>","body":"..."}
    /// (codex_client_mcp_skill_load). Throws CODEX_STATUS_PROTOCOL for a failed check,
    /// CODEX_STATUS_INVALID_ARGUMENT for an unknown or ambiguous name (the message lists the
    /// server's skills).
    std::string mcp_skill_load(const std::string &skill) {
        char *r = nullptr;
        check(codex_client_mcp_skill_load(c_, skill.c_str(), &r));
        return detail::take_string(r);
    }

private:
    static std::optional<std::string> nonempty(const std::string &s) {
        return s.empty() ? std::nullopt : std::optional<std::string>(s);
    }
};

} // namespace detail

/// A client of any MCP server (Options::command, or a transport "mcp+stdio:..." /
/// "http(s)://..."): the connection plus the MCP requests (tools, resources, prompts,
/// completion, logging, ping, subscriptions/listen, skills over MCP). RAII, move-only.
class McpClient : public detail::McpConnection {
public:
    /// A client of the MCP server `o` names (codex_client_new); connect() handshakes.
    explicit McpClient(const Options &o) : detail::McpConnection(o) {}
    /// Takes over `o`'s connection.
    McpClient(McpClient &&o) noexcept = default;
    using detail::McpConnection::mcp_method;
    using detail::McpConnection::mcp_params;
    using detail::McpConnection::mcp_call;
    using detail::McpConnection::mcp_request;
    using detail::McpConnection::list_tools;
    using detail::McpConnection::call_tool;
    using detail::McpConnection::list_resources;
    using detail::McpConnection::list_resource_templates;
    using detail::McpConnection::read_resource;
    using detail::McpConnection::subscribe_resource;
    using detail::McpConnection::unsubscribe_resource;
    using detail::McpConnection::list_prompts;
    using detail::McpConnection::get_prompt;
    using detail::McpConnection::complete;
    using detail::McpConnection::set_logging_level;
    using detail::McpConnection::ping;
    using detail::McpConnection::listen;
    using detail::McpConnection::mcp_prior;
    using detail::McpConnection::mcp_skills_list;
    using detail::McpConnection::mcp_skill_load;
};

} // namespace codex

#endif
