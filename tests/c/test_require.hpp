/* REQUIRE, REQUIRE_HAS and throws() for the C++ tests: print the failed condition with its
 * place and exit 1. */
#ifndef CODEXCLIENT_TEST_REQUIRE_HPP
#define CODEXCLIENT_TEST_REQUIRE_HPP

#include <cstdio>
#include <cstdlib>
#include <string>

#include "codexclient.hpp"

// The connect bound of a spawned real Codex in the C++ tests (test_util.h says why).
constexpr double kTestConnectTimeoutMs = 120000;

#define REQUIRE(cond)                                                                         \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);   \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

#define REQUIRE_HAS(text, needle)                                                             \
    do {                                                                                      \
        const std::string t_ = (text), n_ = (needle);                                         \
        if (t_.find(n_) == std::string::npos) {                                               \
            std::fprintf(stderr, "%s:%d: %s does not contain %s: %.3000s\n", __FILE__, __LINE__, \
                         #text, n_.c_str(), t_.c_str());                                      \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

// Expect `f` to throw codex::Error with `status`; returns its message.
template <class F> inline std::string throws(codex_status_t status, F f) {
    try {
        f();
    } catch (const codex::Error &e) {
        if (e.status() != status) {
            std::fprintf(stderr, "threw %s, expected %s: %s\n", e.status_name(), codex_status_name(status), e.what());
            std::exit(1);
        }
        return e.what();
    }
    std::fprintf(stderr, "did not throw %s\n", codex_status_name(status));
    std::exit(1);
}

#endif
