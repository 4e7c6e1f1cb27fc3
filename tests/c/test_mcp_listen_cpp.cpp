// codexclient.hpp's codex::Listen (MCP 2026-07-28 subscriptions/listen, ABI 1.9) against the
// TypeScript SDK 2.4.0 server (testkit/sdk-servers/server.mjs over stdio) — the C++ side of
// test_mcp_listen.c:
// - mcp_protocol "auto": Client::listen() returns a Listen whose acknowledged() says
//   toolsListChanged true; it is move-only (the moved-from object holds nothing); close()
//   closes it and a second close does nothing; destruction closes another; the connection
//   goes on (tools/call answers); a refused filter throws CODEX_STATUS_INVALID_ARGUMENT;
// - mcp_protocol "legacy": listen() throws CODEX_STATUS_UNSUPPORTED naming the revision.
//   MCP_NODE, MCP_MODULES: scripts/setup-mcp.sh.
#include "mcp_util.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

codex::Options server(const char *mode) {
    codex::Options o;
    o.command = {mcp_node(), "testkit/sdk-servers/server.mjs", "stdio"};
    o.default_timeout_ms = 60000;
    o.set("mcp_protocol", std::string("\"") + mode + "\"");
    return o;
}

} // namespace

int main() {
    auto t0 = std::chrono::steady_clock::now();
    static const char *const modules_links[] = {".cache/mcp-modules", nullptr};
    REQUIRE(setenv("MCP_MODULES", mcp_find("MCP_MODULES", modules_links), 1) == 0);
    {
        codex::McpClient c(server("auto"));
        REQUIRE_HAS(c.connect(), "\"era\":\"stateless\"");
        std::string m = throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { c.listen(R"({"tools":true})"); });
        REQUIRE_HAS(m, "tools_list_changed");

        codex::Listen l = c.listen(R"({"toolsListChanged":true,"resourceSubscriptions":["demo://greeting"]})");
        REQUIRE(static_cast<bool>(l));
        REQUIRE_HAS(l.acknowledged(), "\"toolsListChanged\":true");
        codex::Listen moved = std::move(l);
        REQUIRE(!l && moved && l.acknowledged().empty());
        REQUIRE_HAS(moved.acknowledged(), "\"toolsListChanged\":true");
        moved.close();
        REQUIRE(!moved && moved.acknowledged().empty());
        moved.close();
        {
            codex::Listen other = c.listen(R"({"tools_list_changed":true})", 30000);
            REQUIRE_HAS(other.acknowledged(), "\"toolsListChanged\":true");
        } // closed here
        REQUIRE_HAS(c.call_tool("add", R"({"a":1,"b":0.5})"), "\"sum\":1.5");
        REQUIRE(c.disconnect());
    }
    {
        codex::McpClient c(server("legacy"));
        c.connect();
        std::string m = throws(CODEX_STATUS_UNSUPPORTED, [&] { c.listen(R"({"toolsListChanged":true})"); });
        REQUIRE_HAS(m, "2026-07-28");
        c.ping();
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("test_mcp_listen_cpp: ok (%.1f s)\n", s);
    return 0;
}
