// codexclient.hpp's MCP authorization against the real OAuth fixture (oauth_fixture.h):
// - Options::oauth_authorizer (a lambda: the fixture's headless browser) and
//   Options::oauth_token_store (lambdas over a std::map): connect, whoami as alice, step-up on
//   write_note; the store saw the credentials; a second Client from the same store connects
//   without the browser;
// - a throwing authorizer: connect throws codex::Error with the exception's message;
// - a token store with a missing function throws CODEX_STATUS_INVALID_ARGUMENT at build;
// - the lambdas' copies are destroyed once the Clients are gone (a shared_ptr's use count).
#include "oauth_fixture.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

oauth_fixture_t FX;

codex::Options fixture_options() {
    codex::Options o;
    char *mcp = oauth_json_str(FX.info, nullptr, "mcp");
    o.transport = mcp;
    std::free(mcp);
    o.connect_timeout_ms = 30000;
    o.default_timeout_ms = 30000;
    o.set("oauth_redirect_uri", "\"http://127.0.0.1:1/callback\"");
    return o;
}

struct Store {
    std::mutex mu;
    std::map<std::string, std::string> entries;
    int saves = 0;
};

codex::OAuthTokenStore store_of(std::shared_ptr<Store> s) {
    codex::OAuthTokenStore t;
    t.load = [s](const std::string &server) -> std::optional<std::string> {
        std::lock_guard<std::mutex> g(s->mu);
        auto it = s->entries.find(server);
        if (it == s->entries.end()) return std::nullopt;
        return it->second;
    };
    t.save = [s](const std::string &server, const std::string &json) {
        std::lock_guard<std::mutex> g(s->mu);
        s->entries[server] = json;
        s->saves++;
    };
    t.clear = [s](const std::string &server) {
        std::lock_guard<std::mutex> g(s->mu);
        s->entries.erase(server);
    };
    return t;
}

} // namespace

int main() {
    FX = oauth_fixture_start();
    auto store = std::make_shared<Store>();
    auto browser_calls = std::make_shared<int>(0);
    {
        codex::Options o = fixture_options();
        o.oauth_authorizer = [browser_calls](const std::string &url) {
            ++*browser_calls;
            char *redirect = oauth_browse(&FX, url.c_str());
            if (redirect == nullptr) throw std::runtime_error("the browser failed");
            std::string r(redirect);
            std::free(redirect);
            return r;
        };
        o.oauth_token_store = store_of(store);
        codex::McpClient c(o);
        c.connect();
        REQUIRE(c.call_tool("whoami").find("alice") != std::string::npos);
        REQUIRE(c.call_tool("write_note", "{\"text\":\"cpp\"}").find("noted: cpp") != std::string::npos);
        REQUIRE(*browser_calls == 2); // first authorization, step-up
    }
    {
        std::lock_guard<std::mutex> g(store->mu);
        REQUIRE(store->saves >= 2 && store->entries.size() == 1);
        REQUIRE(store->entries.begin()->second.find("access_token") != std::string::npos);
    }
    // The library's copies of the lambdas are gone with the client and its options.
    REQUIRE(browser_calls.use_count() == 1);
    std::printf("test_oauth_cpp: authorized with a lambda, %d saves in the lambda store\n", store->saves);

    // A second client starts from the store, without the browser.
    {
        codex::Options o = fixture_options();
        o.oauth_authorizer = [](const std::string &) -> std::string { throw std::runtime_error("no browser now"); };
        o.oauth_token_store = store_of(store);
        codex::McpClient c(o);
        c.connect();
        REQUIRE(c.call_tool("whoami").find("alice") != std::string::npos);
    }

    // A throwing authorizer fails the connect with its message.
    {
        codex::Options o = fixture_options();
        o.oauth_authorizer = [](const std::string &) -> std::string { throw std::runtime_error("cpp: user said no"); };
        codex::McpClient c(o);
        bool threw = false;
        try {
            c.connect();
        } catch (const codex::Error &e) {
            threw = std::string(e.what()).find("cpp: user said no") != std::string::npos;
            if (!threw) std::fprintf(stderr, "connect: %s\n", e.what());
        }
        REQUIRE(threw);
    }

    // A store without all three functions is refused.
    {
        codex::Options o = fixture_options();
        o.oauth_token_store.load = [](const std::string &) { return std::optional<std::string>(); };
        bool threw = false;
        try {
            codex::McpClient c(o);
        } catch (const codex::Error &e) {
            threw = e.status() == CODEX_STATUS_INVALID_ARGUMENT;
        }
        REQUIRE(threw);
    }
    REQUIRE(oauth_stat(&FX, "authorizations") == 2);
    oauth_fixture_stop(&FX);
    std::printf("test_oauth_cpp: ok\n");
    return 0;
}
