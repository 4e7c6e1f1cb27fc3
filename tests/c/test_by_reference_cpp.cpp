// Answers by reference through the C++ wrapper (ABI 1.11), against the fake app-server
// ($FAKE_APP_SERVER), which records every answer to its server requests (test/lastAnswers):
// - Request::to_json() parks the request: the Request destroyed, it is not declined;
// - Client::respond_ref_decision() from the JSON text answers it once; again ->
//   CODEX_STATUS_ALREADY_RESPONDED; Connection::respond_ref_error() answers another;
// - another client's answer -> CODEX_STATUS_INVALID_ARGUMENT naming both ids;
// - never answered -> declined at the bound (parked_request_timeout), late answer refused;
// - EventView::to_json() / endpoint() of a poll-mode event (a server request's JSON is its
//   reference and parks it).
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "codexclient.hpp"

#include "test_require.hpp"

namespace {

codex::Options fake(const std::string &label) {
    const char *bin = std::getenv("FAKE_APP_SERVER");
    if (bin == nullptr) {
        std::fprintf(stderr, "FAKE_APP_SERVER is not set (run scripts/test-c.sh)\n");
        std::exit(1);
    }
    codex::Options o;
    o.codex_bin = bin;
    o.env = {"FAKE_MODE=approval"};
    o.default_timeout_ms = 20000;
    o.label = label;
    return o;
}

// The number of answers the fake server got, and their JSON.
std::string answers(codex::Client &c) { return c.call("test/lastAnswers"); }
size_t count(const std::string &answers_json) {
    size_t n = 0;
    for (size_t at = answers_json.find("\"id\":"); at != std::string::npos; at = answers_json.find("\"id\":", at + 1)) n++;
    return n;
}

// A client whose request handler keeps only each request's JSON reference.
struct Keeper {
    std::mutex mu;
    std::condition_variable cv;
    std::string ref, endpoint;

    void attach(codex::Client &c) {
        c.on_server_request([this](codex::Request r) {
            std::string json = r.to_json(); // parks it; `r` is destroyed unanswered
            std::lock_guard<std::mutex> g(mu);
            ref = json;
            endpoint = r.endpoint();
            cv.notify_all();
        });
    }
    std::string wait() {
        std::unique_lock<std::mutex> g(mu);
        REQUIRE(cv.wait_for(g, std::chrono::seconds(10), [&] { return !ref.empty(); }));
        std::string r = ref;
        ref.clear();
        return r;
    }
};

} // namespace

int main() {
    Keeper keep;
    codex::Client c(fake("cpp-east"));
    keep.attach(c);
    c.connect();
    REQUIRE(c.id().size() == 32);

    c.call("test/approval");
    std::string ref = keep.wait();
    REQUIRE(keep.endpoint == "cpp-east");
    REQUIRE_HAS(ref, "\"owner\":\"" + c.id() + "\"");
    REQUIRE_HAS(ref, "\"endpoint\":\"cpp-east\"");
    REQUIRE(count(answers(c)) == 0); // parked, not declined

    {
        codex::Client other(fake("cpp-west"));
        std::string msg = throws(CODEX_STATUS_INVALID_ARGUMENT,
                                 [&] { other.respond_ref(ref, R"({"decision":"accept"})"); });
        REQUIRE_HAS(msg, c.id());
        REQUIRE_HAS(msg, other.id());
    }
    c.respond_ref_decision(ref, "accept");
    REQUIRE_HAS(answers(c), R"("decision":"accept")");
    throws(CODEX_STATUS_ALREADY_RESPONDED, [&] { c.respond_ref_decision(ref, "decline"); });
    throws(CODEX_STATUS_INVALID_ARGUMENT, [&] { c.respond_ref_decision(ref, "maybe"); });

    c.call("test/approval");
    ref = keep.wait();
    c.respond_ref_error(ref, -32000, "no, from elsewhere");
    REQUIRE_HAS(answers(c), R"("code":-32000)");
    REQUIRE(count(answers(c)) == 2);

    // Never answered: declined at the bound.
    codex::Options bounded = fake("cpp-bounded");
    bounded.parked_request_timeout_ms = 300;
    Keeper keep2;
    codex::Client b(bounded);
    keep2.attach(b);
    b.connect();
    b.call("test/approval");
    std::string never = keep2.wait();
    REQUIRE(count(answers(b)) == 0);
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (count(answers(b)) == 0) {
        REQUIRE(std::chrono::steady_clock::now() < end);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE_HAS(answers(b), R"("decision":"decline")");
    throws(CODEX_STATUS_ALREADY_RESPONDED, [&] { b.respond_ref_decision(never, "accept"); });

    // Poll mode: the event's JSON form and endpoint.
    codex::Options polled = fake("cpp-poll");
    polled.delivery = "poll";
    codex::Client p(polled);
    p.connect();
    p.call("test/approval");
    for (;;) {
        std::optional<codex::Event> ev = p.next_event(10000);
        REQUIRE(ev.has_value());
        if (ev->kind() != CODEX_EVENT_SERVER_REQUEST) continue;
        REQUIRE(ev->endpoint() == "cpp-poll");
        std::string json = ev->to_json();
        REQUIRE(json.rfind("{\"server_request\":{", 0) == 0);
        REQUIRE_HAS(json, "\"owner\":\"" + p.id() + "\"");
        std::string r = json.substr(std::string("{\"server_request\":").size());
        r.pop_back();
        ev.reset(); // freed: parked, still open
        REQUIRE(count(answers(p)) == 0);
        p.respond_ref(r, R"({"decision":"decline"})");
        REQUIRE_HAS(answers(p), R"("decision":"decline")");
        break;
    }
    std::printf("test_by_reference_cpp: ok\n");
    return 0;
}
