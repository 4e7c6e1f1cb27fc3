// Version awareness through the C++ wrapper (codex::Client::server_version() and supports(),
// over codex_client_server_version / codex_client_supports of ABI 1.10), against the real Codex
// CODEX_VERSION and the mock model, as test_version.c does in C: the version JSON names
// CODEX_VERSION, inside the window and matching it; supports() answers from the window's method
// table; thread/search/stream on a version that lacks it throws
// CODEX_STATUS_UNSUPPORTED_BY_VERSION naming the method and the version, the connection goes
// on; on one that has it the call reaches the server. Before connect both throw
// CODEX_STATUS_NOT_CONNECTED; on an MCP server CODEX_STATUS_INVALID_STATE.
#include "test_require.hpp"

#include <cstdlib>
#include <string>

#include "codexclient.hpp"

static std::string env(const char *name) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        std::fprintf(stderr, "%s is not set: run this test through scripts/test-c.sh\n", name);
        std::exit(1);
    }
    return v;
}

int main() {
    const std::string version = env("CODEX_VERSION");
    const char *search = "thread/search/stream";
    codex::Options o;
    o.codex_bin = env("CODEX_BIN");
    o.connect_timeout_ms = kTestConnectTimeoutMs;
    o.codex_home = env("CODEX_HOME");
    o.cwd = env("CODEX_WORK");
    o.experimental_api = true;
    o.delivery = "poll";
    codex::Client c(o);
    throws(CODEX_STATUS_NOT_CONNECTED, [&] { c.server_version(); });
    throws(CODEX_STATUS_NOT_CONNECTED, [&] { c.supports("thread/start"); });
    c.connect();

    const std::string v = c.server_version();
    REQUIRE_HAS(v, "\"version\":\"" + version + "\"");
    REQUIRE_HAS(v, "\"position\":\"inside\"");
    REQUIRE_HAS(v, "\"matches\":\"" + version + "\"");
    REQUIRE_HAS(v, "\"window\":[");
    REQUIRE(c.supports("thread/start"));
    REQUIRE(!c.supports("no/such/method"));
    if (c.supports(search)) {
        try {
            c.call(search, R"({"query":"x"})");
        } catch (const codex::Error &e) {
            REQUIRE(e.status() != CODEX_STATUS_UNSUPPORTED_BY_VERSION);
        }
    } else {
        std::string msg = throws(CODEX_STATUS_UNSUPPORTED_BY_VERSION, [&] { c.call(search, R"({"query":"x"})"); });
        REQUIRE_HAS(msg, search);
        REQUIRE_HAS(msg, version);
        REQUIRE(c.is_connected());
        c.call("model/list");
    }
    c.disconnect();

    // Not a Codex app-server: an MCP server.
    if (std::getenv("MCP_NODE") != nullptr && std::getenv("MCP_EVERYTHING") != nullptr) {
        codex::Options m;
        m.command = {env("MCP_NODE"), env("MCP_EVERYTHING"), "stdio"};
        codex::Client mc(m);
        mc.connect();
        throws(CODEX_STATUS_INVALID_STATE, [&] { mc.server_version(); });
        throws(CODEX_STATUS_INVALID_STATE, [&] { mc.supports("tools/list"); });
    } else {
        std::fprintf(stderr, "MCP_NODE / MCP_EVERYTHING not set: install with bash scripts/setup-mcp.sh\n");
        return 1;
    }
    std::printf("test_version_cpp: ok (Codex %s: %s)\n", version.c_str(), v.c_str());
    return 0;
}
