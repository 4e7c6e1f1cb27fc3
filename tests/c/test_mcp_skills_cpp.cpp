// codexclient.hpp's skills over MCP (SEP-2640, ABI 1.7) against the TypeScript SDK 2.4.0's
// own skills extension (testkit/sdk-servers/skills.mjs over stdio, serving a folder this test
// writes) — the C++ twin of test_mcp_skills.c:
// - mcp_skills_list (every page, and the first page) lists the skill with its digest;
//   mcp_skill_load returns the SKILL.md verified (the body marker); an unknown skill throws
//   CODEX_STATUS_INVALID_ARGUMENT naming what the server lists;
// - add_skill_source: a bad label, an MCP client as the Codex side, a Codex client as the
//   source throw CODEX_STATUS_INVALID_ARGUMENT; remove_skill_source true then false.
//   MCP_NODE, MCP_MODULES: scripts/setup-mcp.sh.
#include "mcp_util.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

const char *BODY = "MCP-SKILL-BODY-cpp-5d07: convert with pdftotext";

} // namespace

int main() {
    auto t0 = std::chrono::steady_clock::now();
    static const char *const modules_links[] = {".cache/mcp-modules", nullptr};
    REQUIRE(setenv("MCP_MODULES", mcp_find("MCP_MODULES", modules_links), 1) == 0);
    char root[] = "/tmp/codexclient-cpp-skills-XXXXXX";
    REQUIRE(mkdtemp(root) != nullptr);
    std::string dir = std::string(root) + "/pdf-tools";
    REQUIRE(std::system(("mkdir -p '" + dir + "'").c_str()) == 0);
    {
        std::ofstream f(dir + "/SKILL.md");
        f << "---\nname: pdf-tools\ndescription: Work with PDF files\n---\n\n" << BODY << "\n";
        REQUIRE(f.good());
    }
    {
        codex::Options o;
        o.command = {mcp_node(), "testkit/sdk-servers/skills.mjs", root};
        codex::McpClient mcp(o);
        REQUIRE_HAS(mcp.connect(), "io.modelcontextprotocol/skills");

        std::string all = mcp.mcp_skills_list();
        REQUIRE_HAS(all, "\"uri\":\"skill://pdf-tools/SKILL.md\"");
        REQUIRE_HAS(all, "\"digest\":\"sha256:");
        std::string first = mcp.mcp_skills_list(false);
        REQUIRE_HAS(first, "pdf-tools");
        REQUIRE_HAS(first, "\"nextCursor\"");

        std::string skill = mcp.mcp_skill_load("pdf-tools");
        REQUIRE_HAS(skill, BODY);
        REQUIRE_HAS(skill, "\"entry\":{");
        std::string m = throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { mcp.mcp_skill_load("nope"); });
        REQUIRE_HAS(m, "pdf-tools");

        codex::Client codex{codex::Options{}};
        throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { codex.add_skill_source("a b", mcp); });
        // mcp.add_skill_source(...) does not compile: it is the Codex client's (codex::Client).
        throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { codex.add_skill_source("docs", codex); });
        codex.add_skill_source("docs", mcp);
        REQUIRE(codex.remove_skill_source("docs"));
        REQUIRE(!codex.remove_skill_source("docs"));
        REQUIRE(mcp.disconnect());
    }
    REQUIRE(std::system(("rm -rf '" + std::string(root) + "'").c_str()) == 0);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("test_mcp_skills_cpp: ok (%.1f s)\n", s);
    return 0;
}
