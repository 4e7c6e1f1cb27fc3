// codexclient.hpp's MCP client (codex::McpClient) against @modelcontextprotocol/server-everything over stdio
// (MCP_NODE, MCP_EVERYTHING; scripts/setup-mcp.sh):
// - Options: command (argv), mcp_roots; mcp_command with transport, headers without an HTTP
//   transport, a header with CR/LF and bad capabilities JSON throw CODEX_STATUS_INVALID_ARGUMENT;
// - list_tools, call_tool (echo), list_resources + read_resource, list_resource_templates,
//   list_prompts + get_prompt, complete, set_logging_level, ping, mcp_call by name; an unknown
//   name throws; a tool error is a result with "isError":true;
// - sampling and elicitation answered by on_server_request (the elicitation's schema defaults
//   filled in by the library), roots answered by the library;
// - mcp_request + cancel_request: the completion has CODEX_STATUS_CANCELLED, a second cancel
//   is false, ping still answers; a timeout throws CODEX_STATUS_TIMEOUT, ping still answers;
// (codex::Client has none of these: test_clients_split.cpp.)
#include "mcp_util.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

const char *ROOT = "file:///work/project-cpp";

codex::Options everything() {
    codex::Options o;
    o.command = {mcp_node(), mcp_everything(), "stdio"};
    o.mcp_roots = {{ROOT, "project"}};
    o.default_timeout_ms = 60000;
    return o;
}

void bad_options() {
    codex::Options both = everything();
    both.transport = "stdio";
    throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { codex::McpClient c(both); });
    codex::Options header = everything();
    header.headers = {{"X-Key", "sekret"}};
    std::string m = throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { codex::McpClient c(header); });
    REQUIRE(m.find("sekret") == std::string::npos);
    codex::Options crlf;
    crlf.transport = "http://127.0.0.1:9/mcp";
    crlf.headers = {{"X-Key\r\nInjected", "v"}};
    throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { crlf.build(); });
    codex::Options caps = everything();
    caps.mcp_capabilities_json = "[1]";
    throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { caps.build(); });
    throws(CODEX_STATUS_INVALID_ARGUMENT, [] { codex::McpClient::mcp_method("tools/call"); });
    REQUIRE(codex::McpClient::mcp_method("call_tool") == "tools/call");
    REQUIRE_HAS(codex::McpClient::mcp_params("call_tool", std::string("echo"), R"({"message":"x"})"), "\"name\":\"echo\"");
    std::printf("  bad options and names throw CODEX_STATUS_INVALID_ARGUMENT\n");
}

void everything_server() {
    std::mutex mu;
    std::condition_variable cv;
    int sampling = 0, elicitation = 0, roots = 0;
    bool done = false;
    codex_status_t done_status = CODEX_STATUS_OK;

    codex::McpClient c(everything());
    c.on_server_request([&](codex::Request r) {
        {
            std::lock_guard<std::mutex> g(mu);
            if (r.method() == "sampling/createMessage") sampling++;
            if (r.method() == "elicitation/create") elicitation++;
            if (r.method() == "roots/list") roots++;
        }
        if (r.method() == "sampling/createMessage")
            r.respond(R"({"role":"assistant","content":{"type":"text","text":"sampled by C++"},"model":"m","stopReason":"endTurn"})");
        else if (r.method() == "elicitation/create")
            r.respond(R"({"action":"accept","content":{"name":"Grace"}})");
        // anything else: dropped unanswered, answered fail-closed
    });
    std::string init = c.connect();
    REQUIRE_HAS(init, "\"protocolVersion\":\"2025-11-25\"");

    REQUIRE_HAS(c.list_tools(), "\"name\":\"echo\"");
    REQUIRE_HAS(c.call_tool("echo", R"({"message":"hi"})"), "Echo: hi");
    REQUIRE_HAS(c.mcp_call("call_tool", std::string("echo"), R"({"message":"by name"})"), "Echo: by name");
    REQUIRE_HAS(c.call_tool("get-sum", R"({"a":"x"})"), "\"isError\":true");
    REQUIRE_HAS(c.call_tool("trigger-sampling-request", R"({"prompt":"colours"})"), "sampled by C++");
    std::string e = c.call_tool("trigger-elicitation-request");
    REQUIRE_HAS(e, "Name: Grace");
    REQUIRE_HAS(e, "It was a dark and stormy night.");
    REQUIRE_HAS(c.call_tool("get-roots-list"), ROOT);
    {
        std::lock_guard<std::mutex> g(mu);
        REQUIRE(sampling == 1 && elicitation == 1 && roots == 0);
    }
    std::printf("  tools: echo, isError, sampling, elicitation defaults, roots\n");

    std::string resources = c.list_resources();
    size_t at = resources.find("\"uri\":\"");
    REQUIRE(at != std::string::npos);
    at += 7;
    std::string uri = resources.substr(at, resources.find('"', at) - at);
    REQUIRE_HAS(c.read_resource(uri), "\"uri\":\"" + uri + "\"");
    REQUIRE_HAS(c.list_resource_templates(), "{resourceId}");
    c.subscribe_resource(uri);
    c.unsubscribe_resource(uri);
    REQUIRE_HAS(c.list_prompts(), "\"name\":\"args-prompt\"");
    REQUIRE_HAS(c.get_prompt("args-prompt", R"({"city":"Paris"})"), "Paris");
    REQUIRE_HAS(c.complete(R"({"ref":{"type":"ref/prompt","name":"completable-prompt"},)"
                           R"("argument":{"name":"department","value":"E"}})"),
                "\"values\":[");
    c.set_logging_level("debug");
    c.ping();
    std::printf("  resources (%s), templates, subscribe, prompts, complete, logging, ping\n", uri.c_str());

    // Cancel an async call; the connection goes on.
    uint64_t id = c.mcp_request("call_tool", std::string("trigger-long-running-operation"),
                                R"({"duration":30,"steps":60})", 0, [&](const codex::EventView &ev) {
                                    std::lock_guard<std::mutex> g(mu);
                                    done_status = ev.status();
                                    done = true;
                                    cv.notify_all();
                                });
    REQUIRE(c.cancel_request(id));
    {
        std::unique_lock<std::mutex> g(mu);
        REQUIRE(cv.wait_for(g, std::chrono::seconds(60), [&] { return done; }));
        REQUIRE(done_status == CODEX_STATUS_CANCELLED);
    }
    REQUIRE(!c.cancel_request(id));
    c.ping();
    throws(CODEX_STATUS_TIMEOUT, [&] { c.call_tool("trigger-long-running-operation", R"({"duration":30,"steps":1})", 300); });
    c.ping();
    std::printf("  cancel_request -> CANCELLED, timeout -> TIMEOUT, ping answers after both\n");
    REQUIRE(c.disconnect());
}

// The negotiated era (codex_client_mcp_prior, ABI 1.11) given back as Options::mcp_prior_json.
void remembered_era() {
    codex::McpClient a(everything());
    a.connect();
    std::string prior = a.mcp_prior();
    REQUIRE(prior == R"({"kind":"legacy"})");
    REQUIRE(a.disconnect());
    throws(CODEX_STATUS_NOT_CONNECTED, [&] { a.mcp_prior(); });
    codex::Options o = everything();
    o.mcp_prior_json = prior;
    codex::McpClient b(o);
    REQUIRE_HAS(b.connect(), "\"protocolVersion\":\"2025-11-25\"");
    REQUIRE(b.mcp_prior() == prior);
    REQUIRE_HAS(b.call_tool("echo", R"({"message":"remembered"})"), "Echo: remembered");
    REQUIRE(b.disconnect());
    codex::Options bad = everything();
    bad.mcp_prior_json = R"({"kind":"legacy"})";
    bad.mcp_protocol = "2026-07-28";
    throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { codex::McpClient c(bad); });
    std::printf("  mcp_prior(): {\"kind\":\"legacy\"}, given back as Options::mcp_prior_json\n");
}

} // namespace

int main() {
    std::printf("test_mcp_cpp: node %s, server %s\n", mcp_node(), mcp_everything());
    bad_options();
    everything_server();
    remembered_era();
    std::printf("test_mcp_cpp: ok\n");
    return 0;
}
