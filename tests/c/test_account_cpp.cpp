// The C++ wrapper's login, helpers and bounded turns (ABI 1.6) against the real Codex (the default, CODEX_DEFAULT)
// and the mock model: API-key login stored and logged out, the browser login's URL, a short
// wait that times out, cancel; helper() results and errors; turn_run's idle bound.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "codexclient.hpp"
#include "test_require.hpp"

static std::string env(const char *name) {
    const char *v = std::getenv(name);
    REQUIRE(v != nullptr && *v != '\0');
    return v;
}

static std::string slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

static codex_status_t status_of(void (*f)(codex::Client &), codex::Client &c) {
    try {
        f(c);
    } catch (const codex::Error &e) {
        return e.status();
    }
    return CODEX_STATUS_OK;
}

int main() {
    codex::Options o;
    o.codex_bin = env("CODEX_BIN");
    o.connect_timeout_ms = kTestConnectTimeoutMs;
    o.codex_home = env("CODEX_HOME");
    o.cwd = env("CODEX_WORK");
    o.delivery = "poll";
    o.default_timeout_ms = 60000;
    codex::Client client(o);
    client.connect();

    const std::string key = "sk-test-not-a-real-key-cpp-77";
    client.login_api_key(key);
    REQUIRE(slurp(env("CODEX_HOME") + "/auth.json").find(key) != std::string::npos);
    REQUIRE(status_of([](codex::Client &c) { c.rate_limits(); }, client) == CODEX_STATUS_RPC_ERROR);
    client.logout();
    REQUIRE(slurp(env("CODEX_HOME") + "/auth.json").find(key) == std::string::npos);

    {
        codex::Login login = client.login_chatgpt();
        REQUIRE(login && login.auth_url().rfind("https://auth.openai.com/oauth/authorize?", 0) == 0);
        REQUIRE(login.user_code().empty() && !login.id().empty());
        try {
            login.wait(200);
            REQUIRE(false);
        } catch (const codex::Error &e) {
            REQUIRE(e.status() == CODEX_STATUS_TIMEOUT);
        }
        login.cancel();
        std::string why;
        REQUIRE(!login.wait(20000, &why) && !why.empty());
        codex::Login moved = std::move(login);
        REQUIRE(moved && !login);
    } // freed here

    std::string r = client.helper("mcp_server_status_list");
    REQUIRE(r.find("\"data\":[") != std::string::npos);
    REQUIRE(status_of([](codex::Client &c) { c.helper("no_such_helper"); }, client) == CODEX_STATUS_INVALID_ARGUMENT);

    std::string thread = client.thread_start();
    std::string done = client.turn_run(thread, "hello", 60000, 30000);
    REQUIRE(done.find("\"status\":\"completed\"") != std::string::npos);
    std::string partial;
    auto t0 = std::chrono::steady_clock::now();
    try {
        client.turn_run(thread, "MOCK_SLOW: 3 20000", 120000, 2000, "{}", &partial);
        REQUIRE(false);
    } catch (const codex::Error &e) {
        REQUIRE(e.status() == CODEX_STATUS_TIMEOUT);
        REQUIRE(std::string(e.what()).find("no event for 2s") != std::string::npos);
    }
    REQUIRE(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15));
    REQUIRE(partial.find("\"status\":\"interrupted\"") != std::string::npos);
    std::cout << "test_account_cpp: ok\n";
    return 0;
}
