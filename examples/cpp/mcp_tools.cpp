// Example: talk to any MCP server from C++17 with codexclient.hpp: list its tools, call one.
//
//   mcp_tools [--tool NAME] [--args JSON] [--header NAME=VALUE]... -- PROGRAM [ARG]...
//   mcp_tools [--tool NAME] [--args JSON] [--header NAME=VALUE]... http(s)://HOST:PORT/mcp
//
// The server is a command (everything after `--`, an argv: no shell) spoken to over its
// stdin/stdout, or the URL of a Streamable HTTP server (for a legacy HTTP+SSE server, its /sse
// URL; MCP_TOKEN in the environment is sent as the bearer token). The tool defaults to the
// everything server's `echo`:
//
//   mcp_tools -- node /path/to/server-everything/dist/index.js stdio
//
// Build: c++ -std=c++17 mcp_tools.cpp $(pkg-config --cflags --libs codexclient) -lpthread
//
// codex::McpClient's MCP helpers (list_tools, call_tool, read_resource, get_prompt, ping, ...)
// return the results as JSON text; the library names the methods and builds the params.
// Server requests reach on_server_request() on the library's dispatch thread: this example
// declines elicitations (asking a user is up to a real program) and lets everything else be
// answered fail-closed by dropping it.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "codexclient.hpp"

namespace {

int usage(const char *me) {
    std::cerr << "usage: " << me
              << " [--tool NAME] [--args JSON] [--header NAME=VALUE]... (-- PROGRAM [ARG]... | URL)\n";
    return 2;
}

// The "name" of every tool in a tools/list result. A real program uses its JSON library; the
// tools' input schemas name their properties as objects ("name":{...}), so this scan finds
// only the tools' names.
std::string tool_names(const std::string &json) {
    std::string out;
    const std::string key = "\"name\":\"";
    for (size_t p = json.find(key); p != std::string::npos; p = json.find(key, p)) {
        size_t start = p + key.size(), end = json.find('"', start);
        if (end == std::string::npos) break;
        out += (out.empty() ? "" : ", ") + json.substr(start, end - start);
        p = end;
    }
    return out.empty() ? "(none)" : out;
}

} // namespace

int main(int argc, char **argv) {
    if (codex_abi_version() / 1000 != CODEX_ABI_VERSION / 1000 || codex_abi_version() < CODEX_ABI_VERSION) {
        std::cerr << "libcodexclient ABI " << codex_abi_version() << " cannot run a program built for ABI "
                  << CODEX_ABI_VERSION << "\n";
        return 1;
    }
    std::string tool = "echo", args = R"({"message":"hello from C++"})";
    codex::Options o;
    o.client_name = "codexclient-mcp-example-cpp";
    o.default_timeout_ms = 60000;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--") {
            o.command.assign(argv + i + 1, argv + argc);
            break;
        } else if (a == "--tool" && i + 1 < argc) {
            tool = argv[++i];
        } else if (a == "--args" && i + 1 < argc) {
            args = argv[++i];
        } else if (a == "--header" && i + 1 < argc) {
            std::string h = argv[++i];
            size_t eq = h.find('=');
            if (eq == std::string::npos) return usage(argv[0]);
            o.headers.emplace_back(h.substr(0, eq), h.substr(eq + 1)); // checked; never logged
        } else if (a[0] != '-' && o.transport.empty()) {
            o.transport = a;
            if (const char *t = std::getenv("MCP_TOKEN")) o.token = t;
        } else {
            return usage(argv[0]);
        }
    }
    if (o.command.empty() == o.transport.empty()) return usage(argv[0]);

    try {
        codex::McpClient c(o);
        c.on_notification([](const codex::EventView &ev) {
            std::cerr << "[notification] " << ev.method() << " " << ev.params() << "\n";
        });
        c.on_server_request([](codex::Request r) {
            std::cerr << "[server request] " << r.method() << "\n";
            if (r.method() == "elicitation/create") r.respond(R"({"action":"decline"})");
            // Anything else: `r` is dropped unanswered and answered fail-closed.
        });
        std::string init = c.connect(); // protocolVersion, serverInfo, capabilities
        std::cout << "initialize: " << init.substr(0, 300) << (init.size() > 300 ? "..." : "") << "\n";
        std::cout << "tools: " << tool_names(c.list_tools()) << "\n";
        std::string result = c.call_tool(tool, args);
        std::cout << tool << ": " << result << "\n";
        c.ping();
        bool failed = result.find("\"isError\":true") != std::string::npos; // a tool that failed
        std::cout << "example-mcp-cpp: " << (failed ? "the tool reported an error" : "ok") << "\n";
        return failed ? 1 : 0;
    } catch (const codex::Error &e) {
        std::cerr << "error: " << e.status_name() << ": " << e.what() << "\n";
        return 1;
    }
}
