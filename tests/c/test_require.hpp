/* REQUIRE for the C++ tests: print the failed condition with its place and exit 1. */
#ifndef CODEXCLIENT_TEST_REQUIRE_HPP
#define CODEXCLIENT_TEST_REQUIRE_HPP

#include <cstdio>
#include <cstdlib>

#define REQUIRE(cond)                                                                         \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);   \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

#endif
