/* The C API against the everything server over HTTP: the exercise of mcp_everything.h
 * (progress, sampling, elicitation defaults, roots, resources, prompts, logging, cancellation,
 * timeout, fail-closed) over
 * - Streamable HTTP (`node everything streamableHttp`, http://127.0.0.1:PORT/mcp), with a custom
 *   header (codex_options_add_header) and a bearer token on the loopback address;
 * - legacy HTTP+SSE (`node everything sse`, http://127.0.0.1:PORT/sse), through the fallback.
 * Each server is started on a free port, waited for with a bounded readiness poll, and stopped.
 */
#include "mcp_everything.h"

/* Options for the everything server at `url`. */
static codex_options_t *http_options(const char *url, const char *token) {
    codex_options_t *o = new_options();
    CHECK_OK(codex_options_set_transport(o, url, token));
    CHECK_OK(codex_options_add_header(o, "X-Codexclient-Test", "c-header-value"));
    return o;
}

static void run(const char *mode, const char *path, const char *token) {
    char url[128], label[160];
    codex_options_t *o;
    mcp_http_server_t srv = mcp_http_start(mode);
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", srv.port, path);
    snprintf(label, sizeof label, "%s %s", mode, url);
    o = http_options(url, token);
    mcp_exercise(o, label);
    codex_options_free(o);
    mcp_http_stop(&srv);
}

int main(void) {
    printf("test_mcp_http: node %s, server %s\n", mcp_node(), mcp_everything());
    run("streamableHttp", "/mcp", "c-test-token");
    run("sse", "/sse", NULL);
    printf("test_mcp_http: ok\n");
    return 0;
}
