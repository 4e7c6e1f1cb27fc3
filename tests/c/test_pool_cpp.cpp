// codex::Pool (the C++ wrapper of codex_pool_t, ABI 1.11) against two fake app-servers
// ($FAKE_APP_SERVER --mode turns) and one that answers thread/start overloaded:
// - threads placed alternately on the two that take them (least busy, ties rotating), never on
//   the overloaded one; endpoint_of agrees; pool.endpoint(name).turn_run runs each turn to
//   the fake's echo;
// - a server request raised on an endpoint reaches the callback registered on handlers();
// - drain: the drained endpoint takes no new thread and leaves once idle;
// - errors: a duplicate or unknown name -> CODEX_STATUS_INVALID_ARGUMENT, no endpoint that takes
//   threads -> CODEX_STATUS_UNAVAILABLE, only an overloaded one -> CODEX_STATUS_OVERLOADED; the pool destroyed with endpoint handles still alive.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

codex::Options fake(const char *mode) {
    const char *bin = std::getenv("FAKE_APP_SERVER");
    if (bin == nullptr) {
        std::fprintf(stderr, "FAKE_APP_SERVER is not set (run scripts/test-c.sh)\n");
        std::exit(1);
    }
    codex::Options o;
    o.codex_bin = bin;
    o.args = {"--mode", mode, "--mode", "approval"};
    o.default_timeout_ms = 20000;
    return o;
}

bool eventually(const std::function<bool()> &cond, int seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!cond()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

} // namespace

int main() {
    std::atomic<int> requests{0};
    std::string request_endpoint;
    std::unique_ptr<codex::Client> kept; // an endpoint handle that outlives the pool
    {
        codex::Pool pool("{\"overload_backoff\": 0.2, \"place_timeout\": 3}");
        pool.handlers().on_server_request([&](codex::Request r) {
            request_endpoint = r.endpoint();
            requests++;
            // unanswered: declined when `r` goes
        });
        pool.add_endpoint("east", fake("turns"));
        pool.add_endpoint("west", fake("turns"));
        pool.add_endpoint("busy", fake("overload-start"));
        std::string dup = throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { pool.add_endpoint("east", fake("turns")); });
        REQUIRE_HAS(dup, "east");
        std::string unknown = throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { pool.endpoint("nowhere"); });
        REQUIRE_HAS(unknown, "nowhere");

        std::map<std::string, int> placed;
        for (int i = 0; i < 10; i++) {
            codex::Pool::Placed p = pool.thread_start();
            REQUIRE(p.endpoint == "east" || p.endpoint == "west");
            REQUIRE(pool.endpoint_of(p.thread_id) == p.endpoint);
            codex::Client c = pool.endpoint(p.endpoint);
            std::string text = "turn " + std::to_string(i), result;
            c.turn_run(p.thread_id, text, 20000, 10000, "{}", &result);
            REQUIRE_HAS(result, "\"final_response\":\"echo: " + text + "\"");
            placed[p.endpoint]++;
        }
        REQUIRE(placed["east"] == 5 && placed["west"] == 5);
        std::printf("  10 threads: east=%d west=%d, none on the overloaded endpoint\n", placed["east"], placed["west"]);

        // A server request on an endpoint reaches the pool's handler, tagged with the endpoint.
        codex::Client west = pool.endpoint("west");
        west.call("test/approval");
        REQUIRE(eventually([&] { return requests.load() == 1; }, 10));
        REQUIRE(request_endpoint == "west");

        pool.drain_endpoint("west");
        REQUIRE(eventually([&] { return pool.endpoints_json().find("\"name\":\"west\"") == std::string::npos; }, 10));
        for (int i = 0; i < 3; i++) REQUIRE(pool.thread_start().endpoint == "east");
        kept.reset(new codex::Client(pool.endpoint("east")));
        REQUIRE(kept->is_connected());
        pool.remove_endpoint("east");
        std::string over = throws(CODEX_STATUS_OVERLOADED, [&] { pool.thread_start(); });
        std::printf("  only the overloaded endpoint left: %s\n", over.c_str());
        pool.remove_endpoint("busy");
        std::string none = throws(CODEX_STATUS_UNAVAILABLE, [&] { pool.thread_start(); });
        std::printf("  no endpoint takes threads: %s\n", none.c_str());
    }
    REQUIRE(!kept->is_connected());
    kept.reset();
    std::printf("test_pool_cpp: ok\n");
    return 0;
}
