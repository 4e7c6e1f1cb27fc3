/* The C API against an old MCP server that exits on a method it does not know
 * (testkit/sdk-servers/old_server.py: the official Python SDK's low-level server, handshake era
 * only, patched to exit), in the default mode `auto`: the server ends on the server/discover
 * probe, the library starts it again once for the initialize handshake (an INFO record
 * through codex_set_log_callback names the server and why) and a tool call works; the era the
 * connect negotiated (codex_client_mcp_prior) given back as option "mcp_prior" skips the probe
 * (the server's method log shows no server/discover); a server that also dies on initialize
 * fails the connect with CODEX_STATUS_DISCONNECTED and a message that says both, after one
 * restart. Same as core/tests/mcp_old_server.rs and tests/python/test_mcp_old_server.py.
 *
 *   MCP_SDK_PYTHON  the Python of the SDK venv (else .cache/mcp-sdk-python)
 *   CODEX_WORK      a scratch directory (scripts/test-c.sh)
 */
#include "test_util.h"

#include <sys/stat.h>

#include "json_scan.h"
#include "mcp_util.h"

#define SCRIPT "testkit/sdk-servers/old_server.py"

static char PROGRAM[4096]; /* a wrapper of the SDK's Python of this test's own */
static char LOG[4096];     /* the server's method log */

/* The log records of the restart of PROGRAM (INFO). */
static pthread_mutex_t LOG_MU = PTHREAD_MUTEX_INITIALIZER;
static char RESTART[4096];
static codex_log_level_t RESTART_LEVEL;

static void on_log(void *userdata, codex_log_level_t level, const char *target, const char *message) {
    (void)userdata;
    (void)target;
    pthread_mutex_lock(&LOG_MU);
    if (RESTART[0] == '\0' && strstr(message, PROGRAM) != NULL &&
        strstr(message, "ended during the server/discover probe") != NULL) {
        snprintf(RESTART, sizeof RESTART, "%s", message);
        RESTART_LEVEL = level;
    }
    pthread_mutex_unlock(&LOG_MU);
}

static void setup(void) {
    static const char *const links[] = {".cache/mcp-sdk-python", NULL};
    const char *py = mcp_find("MCP_SDK_PYTHON", links);
    const char *work = env_or_die("CODEX_WORK");
    FILE *f;
    snprintf(PROGRAM, sizeof PROGRAM, "%s/c-old-server", work);
    snprintf(LOG, sizeof LOG, "%s/old-server-methods.log", work);
    f = fopen(PROGRAM, "w");
    CHECK(f != NULL);
    fprintf(f, "#!/bin/sh\nexec '%s' \"$@\"\n", py);
    fclose(f);
    CHECK(chmod(PROGRAM, 0755) == 0);
    remove(LOG);
}

/* The method log: the number of processes started, and the methods after start number
 * `from` (0-based) joined with spaces into buf. */
static int runs(int from, char *buf, size_t n) {
    FILE *f = fopen(LOG, "r");
    char line[512];
    int started = 0;
    buf[0] = '\0';
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char p[32], what[256];
        if (sscanf(line, "%31s %255s", p, what) != 2) continue;
        if (strcmp(what, "start") == 0) {
            started++;
            continue;
        }
        if (started > from) {
            size_t len = strlen(buf);
            snprintf(buf + len, n - len, "%s%s", len ? " " : "", what);
        }
    }
    fclose(f);
    return started;
}

static codex_client_t *client(const char *extra_flag, const char *prior_json) {
    const char *argv[5];
    size_t argc = 0;
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    argv[argc++] = PROGRAM;
    argv[argc++] = SCRIPT;
    argv[argc++] = "--log";
    argv[argc++] = LOG;
    if (extra_flag != NULL) argv[argc++] = extra_flag;
    CHECK_OK(codex_options_set_mcp_command(o, argv, argc));
    CHECK_OK(codex_options_set_connect_timeout_ms(o, 90000));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 30000));
    if (prior_json != NULL) CHECK_OK(codex_options_set(o, "mcp_prior", prior_json));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    return c;
}

static void call_echo(codex_client_t *c) {
    char *params = NULL, *result = NULL;
    CHECK_OK(codex_mcp_params("call_tool", "echo", "{\"message\":\"hi\"}", &params));
    CHECK_OK(codex_client_call(c, "tools/call", params, 0, &result));
    CHECK_HAS(result, "echo: hi");
    codex_string_free(params);
    codex_string_free(result);
}

/* auto (the default): probe, exit, one restart, initialize, a tool. Returns the prior. */
static char *auto_restarts(void) {
    char methods[1024], *init = NULL, *prior = NULL;
    codex_client_t *c = client(NULL, NULL);
    CHECK_STATUS(codex_client_mcp_prior(c, &prior), CODEX_STATUS_NOT_CONNECTED);
    CHECK(prior == NULL);
    CHECK_OK(codex_client_connect(c, &init));
    CHECK(js_eq(js_member(init, "protocolVersion"), "\"2025-11-25\""));
    CHECK(js_member(init, "era") == NULL);
    CHECK(js_eq(js_pointer(init, "/serverInfo/name"), "\"old-server\""));
    codex_string_free(init);
    call_echo(c);
    CHECK_OK(codex_client_mcp_prior(c, &prior));
    CHECK(strcmp(prior, "{\"kind\":\"legacy\"}") == 0);
    CHECK(runs(0, methods, sizeof methods) == 2);
    if (strcmp(methods, "server/discover initialize notifications/initialized tools/call") != 0)
        FAIL("methods: %s", methods);
    runs(1, methods, sizeof methods);
    if (strcmp(methods, "initialize notifications/initialized tools/call") != 0) FAIL("second run: %s", methods);
    codex_client_disconnect(c);
    codex_client_free(c);
    /* The log record: INFO, naming the program and why. */
    {
        int seen = 0, i;
        for (i = 0; i < 500 && !seen; i++) {
            pthread_mutex_lock(&LOG_MU);
            seen = RESTART[0] != '\0';
            pthread_mutex_unlock(&LOG_MU);
            if (!seen) sleep_ms(10); /* the log callback runs on the library's log thread */
        }
        if (!seen) FAIL("no INFO record of the restart naming %s", PROGRAM);
        CHECK(RESTART_LEVEL == CODEX_LOG_INFO);
        CHECK_HAS(RESTART, "unknown method server/discover: exiting");
    }
    printf("  auto: the server exited on the probe, started again, echo answered\n");
    return prior;
}

/* The remembered era: one process, no server/discover. */
static void prior_skips_the_probe(const char *prior) {
    char methods[1024];
    char *init = NULL;
    codex_client_t *c;
    int before = runs(0, methods, sizeof methods);
    codex_options_t *o = new_options();
    CHECK_STATUS(codex_options_set(o, "mcp_prior", "\"legacy\""), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "mcp_prior");
    CHECK_OK(codex_options_set(o, "mcp_prior", prior));
    CHECK_OK(codex_options_set(o, "mcp_protocol", "\"2026-07-28\""));
    CHECK_OK(codex_options_set_transport(o, "mcp+stdio:server", NULL));
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT); /* the two disagree */
    CHECK_HAS(codex_last_error_message(), "mcp_prior");
    codex_options_free(o);

    c = client(NULL, prior);
    CHECK_OK(codex_client_connect(c, &init));
    codex_string_free(init);
    call_echo(c);
    codex_client_free(c);
    CHECK(runs(0, methods, sizeof methods) == before + 1);
    runs(before, methods, sizeof methods);
    if (strcmp(methods, "initialize notifications/initialized tools/call") != 0)
        FAIL("with mcp_prior: %s (no server/discover expected)", methods);
    printf("  mcp_prior %s: no probe, one process\n", prior);
}

/* Dies on initialize too: DISCONNECTED, one restart, no hang. */
static void dies_twice(void) {
    char methods[1024];
    char *init = NULL;
    codex_client_t *c = client("--die-on-initialize", NULL);
    int before = runs(0, methods, sizeof methods);
    double t0 = now_s();
    CHECK_STATUS(codex_client_connect(c, &init), CODEX_STATUS_DISCONNECTED);
    CHECK(init == NULL);
    CHECK(now_s() - t0 < 90);
    CHECK_HAS(codex_last_error_message(), "during the initialize handshake, after a restart");
    CHECK_HAS(codex_last_error_message(), "unknown method server/discover: exiting");
    CHECK_HAS(codex_last_error_message(), "not started again");
    CHECK_HAS(codex_last_error_message(), "unknown method initialize: exiting");
    CHECK(runs(0, methods, sizeof methods) == before + 2);
    runs(before, methods, sizeof methods);
    if (strcmp(methods, "server/discover initialize") != 0) FAIL("dies twice: %s", methods);
    codex_client_free(c);
    printf("  dies on initialize too: DISCONNECTED after one restart (%.1f s)\n", now_s() - t0);
}

int main(void) {
    char *prior;
    setup();
    CHECK(codex_abi_version() >= 1011);
    CHECK_OK(codex_set_log_callback(CODEX_LOG_INFO, on_log, NULL));
    prior = auto_restarts();
    prior_skips_the_probe(prior);
    codex_string_free(prior);
    dies_twice();
    CHECK_OK(codex_set_log_callback(CODEX_LOG_ERROR, NULL, NULL));
    printf("test_mcp_old_server: ok\n");
    return 0;
}
