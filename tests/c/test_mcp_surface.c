/* The C API against the MCP 2025-11-25 client surface of a server written with the official
 * Python SDK (testkit/sdk-servers/surface.py, `mcp` 2.3.0; MCP_SDK_PYTHON or
 * .cache/mcp-sdk-python, installed by scripts/setup-mcp.sh) over stdio:
 * - a tool result that breaks its outputSchema: CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH naming the
 *   JSON path (tools listed with a raw tools/list first), passed through with
 *   `mcp_validate_output` false;
 * - -32042: CODEX_STATUS_URL_ELICITATION_REQUIRED, the elicitations in the RPC data; after the
 *   out-of-band step the retry succeeds.
 */
#include "test_util.h"
#include "mcp_util.h"

static const char *sdk_python(void) {
    static const char *const links[] = {".cache/mcp-sdk-python", NULL};
    return mcp_find("MCP_SDK_PYTHON", links);
}

static codex_client_t *surface_client(int validate) {
    const char *argv[] = {sdk_python(), "testkit/sdk-servers/surface.py", "stdio"};
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    CHECK_OK(codex_options_set_mcp_command(o, argv, 3));
    CHECK_OK(codex_options_set(o, "mcp_protocol", "\"legacy\""));
    CHECK_OK(codex_options_set(o, "default_timeout", "30"));
    CHECK_OK(codex_options_set(o, "mcp_validate_output", validate ? "true" : "false"));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    return c;
}

static void call(codex_client_t *c, const char *params, codex_status_t want, char **result) {
    CHECK_STATUS(codex_client_call(c, "tools/call", params, 0, result), want);
}

int main(void) {
    char *out = NULL;
    codex_client_t *c = surface_client(1);

    /* outputSchema: the raw tools/list fills the connection's schemas; a mismatch names the path. */
    CHECK_OK(codex_client_call(c, "tools/list", "{}", 0, &out));
    CHECK_HAS(out, "\"shaped\"");
    codex_string_free(out);
    out = NULL;
    call(c, "{\"name\":\"shaped\",\"arguments\":{\"mode\":\"good\"}}", CODEX_STATUS_OK, &out);
    CHECK_HAS(out, "\"structuredContent\"");
    codex_string_free(out);
    out = NULL;
    call(c, "{\"name\":\"shaped\",\"arguments\":{\"mode\":\"bad\"}}", CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH, &out);
    CHECK(out == NULL);
    CHECK_HAS(codex_last_error_message(), "/items/1/n");
    CHECK_HAS(codex_last_error_message(), "shaped");
    CHECK(strcmp(codex_status_name(CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH), "CODEX_STATUS_OUTPUT_SCHEMA_MISMATCH") == 0);

    /* -32042: the elicitations come in the RPC data; complete them, then retry. */
    call(c, "{\"name\":\"connect\",\"arguments\":{}}", CODEX_STATUS_URL_ELICITATION_REQUIRED, &out);
    CHECK(codex_last_error_rpc_code() == -32042);
    CHECK_HAS(codex_last_error_rpc_data(), "\"elicitationId\":\"connect-1\"");
    CHECK_HAS(codex_last_error_rpc_data(), "https://127.0.0.1:9/connect");
    call(c, "{\"name\":\"finish_connect\",\"arguments\":{}}", CODEX_STATUS_OK, &out);
    codex_string_free(out);
    out = NULL;
    call(c, "{\"name\":\"connect\",\"arguments\":{}}", CODEX_STATUS_OK, &out);
    CHECK_HAS(out, "connected");
    codex_string_free(out);
    out = NULL;
    codex_client_free(c);

    /* Turned off: the result as the server sent it. */
    c = surface_client(0);
    CHECK_OK(codex_client_call(c, "tools/list", "{}", 0, &out));
    codex_string_free(out);
    out = NULL;
    call(c, "{\"name\":\"shaped\",\"arguments\":{\"mode\":\"bad\"}}", CODEX_STATUS_OK, &out);
    CHECK_HAS(out, "\"two\"");
    codex_string_free(out);
    codex_client_free(c);
    printf("test_mcp_surface: ok\n");
    return 0;
}
