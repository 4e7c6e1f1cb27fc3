// Example: drive a real `codex app-server` from C++17 with codexclient.hpp (RAII wrapper).
//
//   1. stream a turn's answer (std::function callback, runs on the library's dispatch thread);
//   2. answer a command approval LATER, from the main thread (the request object is moved out
//      of the callback);
//   3. interrupt a running turn;
//   4. poll mode: the same client API without any library thread running your code.
//
// Build: c++ -std=c++17 stream_turn.cpp $(pkg-config --cflags --libs codexclient) -lpthread
// Run:   CODEX_HOME=/path/to/home [CODEX_BIN=/path/to/codex] [CODEX_WORK=dir] ./a.out
// Prompts use the project's local mock model (MOCK_TEXT / MOCK_EXEC / MOCK_SLOW directives).
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>

#include "codexclient.hpp"

namespace {

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

struct TurnState {
    std::mutex mu;
    std::condition_variable cv;
    std::string text;
    bool completed = false;
    std::string status;
    codex::Request pending; // an approval waiting for the main thread

    template <class Pred> bool wait(Pred pred, int seconds = 60) {
        std::unique_lock<std::mutex> g(mu);
        return cv.wait_for(g, std::chrono::seconds(seconds), pred);
    }
    void reset() {
        std::lock_guard<std::mutex> g(mu);
        text.clear();
        completed = false;
        status.clear();
    }
};

std::string status_of(const std::string &params) {
    auto p = params.find("\"status\":\"");
    if (p == std::string::npos) return "";
    p += 10;
    return params.substr(p, params.find('"', p) - p);
}

int run() {
    codex::Options o;
    o.codex_bin = env("CODEX_BIN");
    o.codex_home = env("CODEX_HOME");
    o.cwd = env("CODEX_WORK");
    o.client_name = "codexclient-example-cpp";
    o.default_timeout_ms = 60000;

    TurnState st;
    {
        codex::Client client(o);
        // The client keeps copies of these std::function objects.
        client.on_notification([&st](const codex::EventView &ev) {
            std::string m = ev.method();
            std::lock_guard<std::mutex> g(st.mu);
            if (m == "item/agentMessage/delta") {
                std::cout << ev.delta() << std::flush;
                st.text += ev.delta();
            } else if (m == "turn/completed") {
                st.completed = true;
                st.status = status_of(ev.params());
                std::cout << "\n[turn completed: " << st.status << "]\n";
            }
            st.cv.notify_all();
        });
        client.on_server_request([&st](codex::Request req) {
            // Keep it: the main thread answers later. (Dropping it would decline it.)
            std::lock_guard<std::mutex> g(st.mu);
            st.pending = std::move(req);
            st.cv.notify_all();
        });

        std::string init = client.connect();
        std::string thread = client.thread_start();

        // 1. streamed turn
        st.reset();
        client.turn_start(thread, "MOCK_TEXT: Hello from C++, streamed.");
        if (!st.wait([&] { return st.completed; }) || st.text != "Hello from C++, streamed.") {
            std::cerr << "streamed turn failed: '" << st.text << "'\n";
            return 1;
        }

        // 2. approval answered later from this (main) thread
        st.reset();
        client.turn_start(thread, "MOCK_EXEC: echo cpp-approved");
        if (!st.wait([&] { return bool(st.pending); })) {
            std::cerr << "no approval request\n";
            return 1;
        }
        codex::Request req;
        {
            std::lock_guard<std::mutex> g(st.mu);
            req = std::move(st.pending);
        }
        std::cout << "[approval: " << req.method() << " -> accept]\n";
        req.approve(true);
        try {
            req.approve(false);
            std::cerr << "second answer was accepted\n";
            return 1;
        } catch (const codex::Error &e) {
            if (e.status() != CODEX_STATUS_ALREADY_RESPONDED) throw;
        }
        if (!st.wait([&] { return st.completed; }) || st.text.find("cpp-approved") == std::string::npos) {
            std::cerr << "approved command did not run: '" << st.text << "'\n";
            return 1;
        }

        // 3. interrupt
        st.reset();
        std::string turn = client.turn_start(thread, "MOCK_SLOW: 50 200");
        if (!st.wait([&] { return !st.text.empty(); })) return 1;
        client.turn_interrupt(thread, turn);
        if (!st.wait([&] { return st.completed; }) || st.status != "interrupted") {
            std::cerr << "not interrupted: " << st.status << "\n";
            return 1;
        }
        // Errors are exceptions with stable status codes.
        try {
            client.call("no/such/method");
            return 1;
        } catch (const codex::Error &e) {
            std::cout << "[expected error: " << e.status_name() << " " << e.rpc_code() << "]\n";
            if (e.status() != CODEX_STATUS_RPC_ERROR) return 1;
        }
    } // ~Client: disconnects and frees; no callback runs afterwards

    // 4. poll mode
    o.delivery = "poll";
    codex::Client poll_client(o);
    poll_client.connect();
    std::string thread = poll_client.thread_start();
    poll_client.turn_start(thread, "MOCK_TEXT: polled");
    std::string text;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (bool done = false; !done && std::chrono::steady_clock::now() < deadline;) {
        auto ev = poll_client.next_event(1000);
        if (!ev) continue;
        if (ev->method() == "item/agentMessage/delta") text += ev->delta();
        if (ev->method() == "turn/completed") done = true;
    }
    if (text != "polled") {
        std::cerr << "poll mode text: '" << text << "'\n";
        return 1;
    }
    std::cout << "example-cpp: ok\n";
    return 0;
}

} // namespace

int main() {
    try {
        return run();
    } catch (const codex::Error &e) {
        std::cerr << "error: " << e.status_name() << ": " << e.what() << "\n";
        return 1;
    }
}
