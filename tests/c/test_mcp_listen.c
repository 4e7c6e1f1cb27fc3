/* MCP 2026-07-28 subscription streams through the C API (codex_client_mcp_listen, ABI 1.9)
 * against the servers written with the official SDKs (testkit/sdk-servers: Python `mcp` 2.3.0
 * and TypeScript `@modelcontextprotocol/server` 2.4.0) over stdio:
 * - in the stateless era (mcp_protocol "auto"): a filter with toolsListChanged and a resource
 *   subscription is acknowledged (codex_mcp_listen_acknowledged says toolsListChanged true);
 *   the snake_case names are accepted too; freeing the handle closes the stream and the
 *   connection goes on (tools/call answers); a freed or NULL handle is ignored / gives NULL;
 * - filters the library refuses (unknown key, wrong type, not JSON, NULL out-parameter) are
 *   INVALID_ARGUMENT naming what is wrong, before anything is sent;
 * - in the handshake era (mcp_protocol "legacy") it is UNSUPPORTED with a message naming the
 *   revision, and the out-parameter stays NULL.
 *
 *   MCP_SDK_PYTHON  the Python of the SDK venv (else .cache/mcp-sdk-python)
 *   MCP_NODE        Node 22 (else .cache/mcp-node)
 *   MCP_MODULES     the node_modules with @modelcontextprotocol/server (else .cache/mcp-modules)
 */
#include "test_util.h"

#include "mcp_util.h"

#define WAIT_MS 60000

static codex_client_t *connect_sdk(const char *sdk, const char *mode) {
    static const char *const python_links[] = {".cache/mcp-sdk-python", NULL};
    const char *argv[3];
    char buf[32];
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    char *init = NULL;
    int python = strcmp(sdk, "python") == 0;
    argv[0] = python ? mcp_find("MCP_SDK_PYTHON", python_links) : mcp_node();
    argv[1] = python ? "testkit/sdk-servers/server.py" : "testkit/sdk-servers/server.mjs";
    argv[2] = "stdio";
    CHECK_OK(codex_options_set_mcp_command(o, argv, 3));
    snprintf(buf, sizeof buf, "\"%s\"", mode);
    CHECK_OK(codex_options_set(o, "mcp_protocol", buf));
    CHECK_OK(codex_options_set_default_timeout_ms(o, WAIT_MS));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, &init));
    if (strcmp(mode, "legacy") == 0) {
        CHECK(strstr(init, "\"era\":\"stateless\"") == NULL);
    } else {
        CHECK_HAS(init, "\"era\":\"stateless\"");
    }
    codex_string_free(init);
    return c;
}

static void refused(codex_client_t *c, const char *filter, const char *needle) {
    codex_mcp_listen_t *l = (codex_mcp_listen_t *)1;
    CHECK_STATUS(codex_client_mcp_listen(c, filter, WAIT_MS, &l), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(l == NULL);
    CHECK_HAS(codex_last_error_message(), needle);
}

static void stateless(const char *sdk) {
    double t0 = now_s();
    codex_client_t *c = connect_sdk(sdk, "auto");
    codex_mcp_listen_t *l = NULL, *l2 = NULL;
    char *sum = NULL, *params = NULL;

    CHECK_STATUS(codex_client_mcp_listen(c, "{}", WAIT_MS, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    refused(c, "{\"tools\":true}", "tools_list_changed (toolsListChanged)");
    refused(c, "{\"toolsListChanged\":1}", "must be a boolean");
    refused(c, "{\"resourceSubscriptions\":\"demo://greeting\"}", "list of URI strings");
    refused(c, "{\"toolsListChanged\":true,\"tools_list_changed\":true}", "same key");
    refused(c, "[true]", "not a JSON object");
    refused(c, "{", "filter_json is not valid JSON");

    CHECK_OK(codex_client_mcp_listen(
        c, "{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"demo://greeting\"]}", WAIT_MS, &l));
    CHECK(l != NULL);
    CHECK_HAS(codex_mcp_listen_acknowledged(l), "\"toolsListChanged\":true");
    /* A second stream beside it, by the snake_case names and the default bound. */
    CHECK_OK(codex_client_mcp_listen(c, "{\"tools_list_changed\":true,\"prompts_list_changed\":null}", 0, &l2));
    CHECK_HAS(codex_mcp_listen_acknowledged(l2), "\"toolsListChanged\":true");
    codex_mcp_listen_free(l2);
    CHECK(codex_mcp_listen_acknowledged(l2) == NULL);
    codex_mcp_listen_free(l2); /* a freed handle is ignored */
    codex_mcp_listen_free(NULL);
    CHECK(codex_mcp_listen_acknowledged(NULL) == NULL);
    codex_mcp_listen_free(l);

    /* The connection goes on after the streams closed. */
    CHECK_OK(codex_mcp_params("call_tool", "add", "{\"a\":1,\"b\":0.5}", &params));
    CHECK_OK(codex_client_call(c, "tools/call", params, WAIT_MS, &sum));
    CHECK_HAS(sum, "\"sum\":1.5");
    codex_string_free(sum);
    codex_string_free(params);

    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  %s stdio auto: acknowledged, closed, the connection goes on (%.1f s)\n", sdk, now_s() - t0);
}

static void handshake_era(const char *sdk) {
    double t0 = now_s();
    codex_client_t *c = connect_sdk(sdk, "legacy");
    codex_mcp_listen_t *l = (codex_mcp_listen_t *)1;
    CHECK_STATUS(codex_client_mcp_listen(c, "{\"toolsListChanged\":true}", WAIT_MS, &l), CODEX_STATUS_UNSUPPORTED);
    CHECK(l == NULL);
    CHECK_HAS(codex_last_error_message(), "2026-07-28");
    CHECK_OK(codex_client_call(c, "ping", "{}", WAIT_MS, NULL));
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  %s stdio legacy: UNSUPPORTED (%.1f s)\n", sdk, now_s() - t0);
}

int main(void) {
    static const char *const modules_links[] = {".cache/mcp-modules", NULL};
    double t0 = now_s();
    const char *sdks[] = {"python", "typescript"};
    size_t i;
    /* For the TypeScript server, spawned over stdio with this environment. */
    CHECK(setenv("MCP_MODULES", mcp_find("MCP_MODULES", modules_links), 1) == 0);
    for (i = 0; i < 2; i++) {
        stateless(sdks[i]);
        handshake_era(sdks[i]);
    }
    printf("test_mcp_listen: ok (%.1f s)\n", now_s() - t0);
    return 0;
}
