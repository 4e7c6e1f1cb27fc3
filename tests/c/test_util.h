/* Shared helpers of the C tests (C99). Each test gets its configuration from the
 * environment that scripts/test-c.sh prepares:
 *   CODEX_BIN    the real codex binary (CODEX_DEFAULT of scripts/codex-versions.sh)
 *   CODEX_VERSION its version (test_version runs on each CODEX_SMOKE version too)
 *   CODEX_HOME   a fresh codex home whose config.toml points at the local mock model
 *   CODEX_WORK   a scratch directory (the server's cwd)
 */
#ifndef CODEXCLIENT_TEST_UTIL_H
#define CODEXCLIENT_TEST_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codexclient.h"

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                            \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        exit(1);                                                                   \
    } while (0)

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond))                                                               \
            FAIL("CHECK failed: %s (last error: %s)", #cond,                       \
                 codex_last_error_message());                                      \
    } while (0)

#define CHECK_STATUS(expr, want)                                                   \
    do {                                                                           \
        codex_status_t got_ = (expr);                                              \
        if (got_ != (want))                                                        \
            FAIL("%s returned %s, expected %s (last error: %s)", #expr,            \
                 codex_status_name((int)got_), codex_status_name((int)(want)),     \
                 codex_last_error_message());                                      \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, CODEX_STATUS_OK)

#define CHECK_HAS(text, needle)                                                              \
    do {                                                                                     \
        const char *t_ = (text);                                                             \
        if (t_ == NULL || strstr(t_, (needle)) == NULL)                                      \
            FAIL("%s does not contain %s: %.3000s", #text, needle, t_ ? t_ : "(null)");      \
    } while (0)

static inline const char *env_or_die(const char *name) {
    const char *v = getenv(name);
    if (v == NULL || *v == '\0') FAIL("environment variable %s is not set (run scripts/test-c.sh)", name);
    return v;
}

/* A new options object (every option at its default); the caller frees it with
 * codex_options_free (it may do so right after codex_client_new). */
static inline codex_options_t *new_options(void) {
    codex_options_t *o = codex_options_new();
    if (o == NULL) FAIL("codex_options_new returned NULL (last error: %s)", codex_last_error_message());
    return o;
}

/* Options for the real Codex and the mock model, from the environment (free with
 * codex_options_free). */
/* The tests' connect bound for a spawned real Codex: 120 s, not the library's default 30 s.
 * Why: on the CI machine (a VM whose host reclaims page cache within minutes and whose disk
 * stalls: /proc/pressure/io "full" at 31 % over a minute of the C step) a Codex start took
 * 30-31 s to answer `initialize` twice in five runs: its binary paged in by faults
 * (scripts/page-in-codex.sh now reads it first), then its five SQLite databases created in
 * 31 s (18-40 ms otherwise). What these tests test is not start-up latency; the tests of the
 * bound itself set their own (test_transport.c). */
#define TEST_CONNECT_TIMEOUT_MS 120000

static inline codex_options_t *test_options(codex_delivery_t delivery) {
    codex_options_t *o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("CODEX_BIN")));
    CHECK_OK(codex_options_set_codex_home(o, env_or_die("CODEX_HOME")));
    CHECK_OK(codex_options_set_cwd(o, env_or_die("CODEX_WORK")));
    CHECK_OK(codex_options_set_client_info(o, "codexclient-c-tests", NULL, "0.1.0"));
    CHECK_OK(codex_options_set_delivery(o, delivery));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 60000));
    CHECK_OK(codex_options_set_connect_timeout_ms(o, TEST_CONNECT_TIMEOUT_MS));
    return o;
}

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* A deadline for condition waits: now + seconds. */
static inline struct timespec deadline_in(int seconds) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += seconds;
    return ts;
}

/* Whether `params` (JSON text of turn/completed) reports `status`. */
static inline int turn_status_is(const char *params, const char *status) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"status\":\"%s\"", status);
    return params != NULL && strstr(params, needle) != NULL;
}

static inline int file_exists(const char *path) {
    FILE *f = fopen(path, "r");
    if (f != NULL) fclose(f);
    return f != NULL;
}

#endif
