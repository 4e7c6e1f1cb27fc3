/* MCP `tools/call` round trips through libcodexclient's C API, for bench/mcp/run.py:
 *
 *     bench-mcp-c stdio N        spawns $MCP_NODE $MCP_EVERYTHING stdio
 *     bench-mcp-c http URL N     Streamable HTTP to URL
 *
 * Connects, makes 200 warm-up calls, times N sequential blocking codex_client_call()s of
 * `tools/call echo {"message":"hi"}` (method and params from codex_mcp_method_name /
 * codex_mcp_params) and prints one JSON line: client, transport, n, median_us, p99_us, mean_us.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codexclient.h"

#define WARMUP 200

static void check(codex_status_t s, const char *what) {
    if (s != CODEX_STATUS_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, codex_status_name(s), codex_last_error_message());
        exit(1);
    }
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    codex_options_t *o = codex_options_new();
    int n;
    if (argc == 3 && strcmp(argv[1], "stdio") == 0) {
        const char *cmd[3] = {getenv("MCP_NODE"), getenv("MCP_EVERYTHING"), "stdio"};
        if (!cmd[0] || !cmd[1]) {
            fprintf(stderr, "MCP_NODE and MCP_EVERYTHING must be set\n");
            return 1;
        }
        check(codex_options_set_mcp_command(o, cmd, 3), "command");
        n = atoi(argv[2]);
    } else if (argc == 4 && strcmp(argv[1], "http") == 0) {
        check(codex_options_set_transport(o, argv[2], NULL), "transport");
        n = atoi(argv[3]);
    } else {
        fprintf(stderr, "usage: bench-mcp-c stdio N | http URL N\n");
        return 1;
    }
    /* The era (bench/mcp/run.py): BENCH_MCP_PROTOCOL, the option mcp_protocol (default auto). */
    if (getenv("BENCH_MCP_PROTOCOL") != NULL) {
        char mode[64];
        snprintf(mode, sizeof mode, "\"%s\"", getenv("BENCH_MCP_PROTOCOL"));
        check(codex_options_set(o, "mcp_protocol", mode), "mcp_protocol");
    }
    codex_client_t *c = NULL;
    check(codex_client_new(o, &c), "new");
    codex_options_free(o);
    check(codex_client_connect(c, NULL), "connect");
    const char *method = codex_mcp_method_name("call_tool");
    char *params = NULL;
    check(codex_mcp_params("call_tool", "echo", "{\"message\":\"hi\"}", &params), "params");
    double *samples = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < WARMUP + n; i++) {
        char *result = NULL;
        double t = now_us();
        check(codex_client_call(c, method, params, 0, &result), "call");
        if (i >= WARMUP) samples[i - WARMUP] = now_us() - t;
        if (i == 0 && !strstr(result, "Echo: hi")) {
            fprintf(stderr, "unexpected answer: %s\n", result);
            return 1;
        }
        codex_string_free(result);
    }
    double sum = 0;
    for (int i = 0; i < n; i++) sum += samples[i];
    qsort(samples, (size_t)n, sizeof(double), cmp);
    printf("{\"client\":\"libcodexclient-c\",\"transport\":\"%s\",\"n\":%d,\"median_us\":%.1f,"
           "\"p99_us\":%.1f,\"mean_us\":%.1f}\n",
           argv[1], n, samples[(int)((n - 1) * 0.5 + 0.5)], samples[(int)((n - 1) * 0.99 + 0.5)],
           sum / n);
    free(samples);
    codex_string_free(params);
    codex_client_free(c);
    return 0;
}
