// codexclient.hpp (C++17 RAII wrapper), against the fake app-server ($FAKE_APP_SERVER), which
// records every answer to its server requests (test/lastAnswers):
// - the client keeps its own copies of std::function callbacks (originals destroyed first);
// - all callbacks on one library thread, never the caller's;
// - a handler that throws: the exception stays on the library side, the approval is declined;
// - a codex::Request dropped unanswered declines; answered later from another thread accepts;
// - codex::Error carries status and JSON-RPC details; poll mode with RAII events;
// - ~Client disconnects: no callback afterwards.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

codex::Options fake(const char *modes, bool poll = false) {
    const char *bin = std::getenv("FAKE_APP_SERVER");
    if (bin == nullptr) {
        std::fprintf(stderr, "FAKE_APP_SERVER is not set (run scripts/test-c.sh)\n");
        std::exit(1);
    }
    codex::Options o;
    o.codex_bin = bin;
    o.env = {std::string("FAKE_MODE=") + modes};
    o.default_timeout_ms = 20000;
    if (poll) o.delivery = "poll";
    return o;
}

// Wait until the fake has recorded `n` answers; returns them (JSON text).
std::string answers(codex::Client &c, size_t n) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
        std::string a = c.call("test/lastAnswers");
        size_t count = 0;
        for (size_t p = a.find("\"decision\""); p != std::string::npos; p = a.find("\"decision\"", p + 1)) count++;
        if (count >= n || std::chrono::steady_clock::now() > end) return a;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

const char *APPROVAL = R"({"method":"item/commandExecution/requestApproval"})";

void callbacks_mode() {
    std::mutex mu;
    std::condition_variable cv;
    std::set<std::thread::id> threads;
    std::atomic<int> calls{0};
    auto witness = std::make_shared<int>(0);
    int requests = 0;
    codex::Request kept;
    const auto main_id = std::this_thread::get_id();
    {
        codex::Client c(fake("approval,unknown"));
        {
            // The original std::function dies at the end of this scope; the client has a copy.
            std::function<void(const codex::EventView &)> f = [&, witness](const codex::EventView &ev) {
                std::lock_guard<std::mutex> g(mu);
                threads.insert(std::this_thread::get_id());
                calls++;
                if (ev.method() == "brand/newThing") throw std::runtime_error("handler bug");
                cv.notify_all();
            };
            c.on_notification(f);
        }
        REQUIRE(witness.use_count() == 2); // the client's copy keeps the capture alive
        int mode = 0;                       // 0: throw, 1: drop, 2: keep for later
        c.on_server_request([&](codex::Request r) {
            std::lock_guard<std::mutex> g(mu);
            threads.insert(std::this_thread::get_id());
            calls++;
            if (r.method() != "brand/newRequest") requests++;
            if (r.method() == "brand/newRequest") { // from test/unknown: answer with an error
                r.respond_error(-32601, "not supported here");
                return;
            }
            REQUIRE(r.method() == "item/commandExecution/requestApproval");
            REQUIRE(r.is_open());
            cv.notify_all();
            if (mode == 0) throw std::runtime_error("request handler bug"); // -> declined
            if (mode == 2) kept = std::move(r);                              // answered later
            // mode 1: r destroyed here unanswered -> declined
        });
        c.connect();
        REQUIRE(c.is_connected());

        c.call("test/approval", APPROVAL); // handler throws
        REQUIRE(answers(c, 1).find("decline") != std::string::npos);
        mode = 1;
        c.call("test/approval", APPROVAL); // dropped
        std::string a = answers(c, 2);
        REQUIRE(a.find("accept") == std::string::npos);
        mode = 2;
        c.call("test/approval", APPROVAL); // kept
        {
            std::unique_lock<std::mutex> g(mu);
            REQUIRE(cv.wait_for(g, std::chrono::seconds(10), [&] { return bool(kept); }));
        }
        std::thread([&] { kept.approve(true); }).join(); // answer from another thread
        a = answers(c, 3);
        REQUIRE(a.find("accept") != std::string::npos);
        try {
            kept.approve(false);
            REQUIRE(false);
        } catch (const codex::Error &e) {
            REQUIRE(e.status() == CODEX_STATUS_ALREADY_RESPONDED);
        }

        // A notification whose handler throws does not take the client down.
        c.call("test/unknown");
        REQUIRE(c.call("echo/x", R"({"still":"alive"})").find("alive") != std::string::npos);

        // Async request completion on the same dispatch thread.
        std::atomic<bool> done{false};
        c.request("echo/async", "{}", 0, [&](const codex::EventView &ev) {
            std::lock_guard<std::mutex> g(mu);
            threads.insert(std::this_thread::get_id());
            REQUIRE(ev.status() == CODEX_STATUS_OK);
            REQUIRE(ev.result().find("echo/async") != std::string::npos);
            done = true;
            cv.notify_all();
        });
        {
            std::unique_lock<std::mutex> g(mu);
            REQUIRE(cv.wait_for(g, std::chrono::seconds(10), [&] { return done.load(); }));
        }
        kept.reset();
    } // ~Client
    int after = calls.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    REQUIRE(calls.load() == after);
    REQUIRE(requests == 3);
    REQUIRE(threads.size() == 1);
    REQUIRE(*threads.begin() != main_id);
    REQUIRE(witness.use_count() == 1); // the copy was destroyed with the client
}

void errors_and_poll_mode() {
    {
        // Options.transport / .token reach codex_options_set_transport: a bad spec and a token
        // outside ws:// / wss:// are refused by the constructor; a ws:// URL with a token is
        // accepted. Options::build() makes the opaque options object (freed by its handle).
        codex::Options o;
        o.transport = "gopher://x";
        try {
            codex::Client bad(o);
            REQUIRE(false);
        } catch (const codex::Error &e) {
            REQUIRE(e.status() == CODEX_STATUS_INVALID_ARGUMENT);
            REQUIRE(std::string(e.what()).find("gopher://x") != std::string::npos);
        }
        o.transport = "exec";
        o.token = "sekret";
        try {
            codex::Client bad(o);
            REQUIRE(false);
        } catch (const codex::Error &e) {
            REQUIRE(e.status() == CODEX_STATUS_INVALID_ARGUMENT);
            REQUIRE(std::string(e.what()).find("sekret") == std::string::npos);
        }
        o.transport = "ws://127.0.0.1:9/";
        codex::Client ok(o);
        codex::OptionsHandle h = o.build();
        REQUIRE(h != nullptr);
        codex::Options bad_env;
        bad_env.env = {"NO_EQUALS_SIGN"};
        try {
            (void)bad_env.build();
            REQUIRE(false);
        } catch (const codex::Error &e) {
            REQUIRE(e.status() == CODEX_STATUS_INVALID_ARGUMENT);
            REQUIRE(std::string(e.what()).find("NO_EQUALS_SIGN") != std::string::npos);
        }
    }
    {
        // Options by name (ABI 1.5): the library's table, checked by build().
        codex::Options o;
        o.set("default_timeout", "2.5").set("retry_max_attempts", "1");
        REQUIRE(o.build() != nullptr);
        REQUIRE(codex::Options::keys_json().find("\"exec_model\"") != std::string::npos);
        try {
            o.set("max_line_bytes", "-1").build();
            REQUIRE(false);
        } catch (const codex::Error &e) {
            REQUIRE(e.status() == CODEX_STATUS_INVALID_ARGUMENT);
            REQUIRE(std::string(e.what()).find("max_line_bytes") != std::string::npos);
        }
    }
    codex::Client c(fake("hang,approval", true));
    try {
        c.call("x/y");
        REQUIRE(false);
    } catch (const codex::Error &e) {
        REQUIRE(e.status() == CODEX_STATUS_NOT_CONNECTED);
    }
    try {
        c.on_notification([](const codex::EventView &) {});
        REQUIRE(false);
    } catch (const codex::Error &e) {
        REQUIRE(e.status() == CODEX_STATUS_INVALID_STATE); // poll client: no callbacks
    }
    c.connect();
    REQUIRE(c.event_fd() >= 0);
    REQUIRE(c.server_pid() > 0);
    c.notify("some/notification");
    REQUIRE(c.stderr_tail().find("fatal") == std::string::npos);
    try {
        c.call("test/hang", "{}", 200);
        REQUIRE(false);
    } catch (const codex::Error &e) {
        REQUIRE(e.status() == CODEX_STATUS_TIMEOUT);
        REQUIRE(std::string(e.status_name()) == "CODEX_STATUS_TIMEOUT");
    }
    try {
        c.call("initialize", R"({"clientInfo":{"name":"x","version":"1"}})");
        REQUIRE(false);
    } catch (const codex::Error &e) {
        REQUIRE(e.status() == CODEX_STATUS_RPC_ERROR);
        REQUIRE(e.rpc_code() == -32600);
    }
    uint64_t id = c.request("echo/poll");
    c.call("test/approval", APPROVAL);
    bool got_response = false, got_request = false;
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((!got_response || !got_request) && std::chrono::steady_clock::now() < end) {
        std::optional<codex::Event> ev = c.next_event(500);
        if (!ev) continue;
        if (ev->kind() == CODEX_EVENT_RESPONSE) {
            REQUIRE(ev->request_id() == id);
            got_response = true;
        } else if (ev->kind() == CODEX_EVENT_SERVER_REQUEST) {
            codex::Request r = ev->take_request();
            ev.reset(); // the request outlives its event
            r.approve(true);
            got_request = true;
        }
    }
    REQUIRE(got_response && got_request);
    REQUIRE(answers(c, 1).find("accept") != std::string::npos);
    REQUIRE(c.disconnect());
    REQUIRE(!c.disconnect());
}

} // namespace

int main() {
    try {
        callbacks_mode();
        errors_and_poll_mode();
    } catch (const codex::Error &e) {
        std::fprintf(stderr, "unexpected codex::Error %s: %s\n", e.status_name(), e.what());
        return 1;
    }
    std::printf("test_cpp_wrapper: ok\n");
    return 0;
}
