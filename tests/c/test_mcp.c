/* The C API against a real MCP server: @modelcontextprotocol/server-everything over stdio
 * (MCP_NODE, MCP_EVERYTHING; scripts/setup-mcp.sh installs them).
 * - bad option input (argv NULL, argc 0, NULL element, bad UTF-8, empty program; header names
 *   with CR/LF or spaces, header values with CR/LF - never shown; roots, capabilities JSON,
 *   transport specs; headers without an HTTP transport; unknown request names; cancel on an
 *   unconnected client): INVALID_ARGUMENT (or NOT_CONNECTED) with a message, never a crash;
 *   a server program that does not exist: the connect fails, nothing crashes;
 * - connect through the `mcp+stdio:` transport spec: initialize 2025-11-25, tools/list, echo;
 * - connect through codex_options_set_mcp_command (argv): the whole exercise of
 *   mcp_everything.h (progress, sampling, elicitation defaults, roots, resources, prompts,
 *   logging, cancellation, timeout, fail-closed);
 * - poll mode: a sampling request answered from codex_client_next_event, and a cancelled
 *   call's RESPONSE event (CODEX_STATUS_CANCELLED, userdata back).
 */
#include "mcp_everything.h"

static void bad_input(void) {
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    const char *with_null[] = {"node", NULL};
    const char *empty_program[] = {""};
    const char *bad_utf8[] = {"node", "\xff\xfe"};
    const char *missing[] = {"/nonexistent/mcp-server-for-codexclient-tests", "--stdio"};
    char *params = NULL;
    char *init = NULL;
    codex_status_t s;

    CHECK_STATUS(codex_options_set_mcp_command(o, NULL, 1), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "argv is NULL");
    CHECK_STATUS(codex_options_set_mcp_command(o, with_null, 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "non-empty list"); /* the core's `command` rule */
    CHECK_STATUS(codex_options_set_mcp_command(o, with_null, 2), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "argv[1] is NULL");
    CHECK_STATUS(codex_options_set_mcp_command(o, bad_utf8, 2), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "argv[1] is not valid UTF-8");
    CHECK_STATUS(codex_options_set_mcp_command(o, empty_program, 1), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "empty");
    CHECK_STATUS(codex_options_set_mcp_command(NULL, with_null, 1), CODEX_STATUS_INVALID_ARGUMENT);

    CHECK_STATUS(codex_options_add_header(o, "X-Key\r\nInjected", "v"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "not a valid HTTP header name");
    CHECK_STATUS(codex_options_add_header(o, "X Key", "v"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_header(o, "", "v"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_header(o, "X-Key", "sekret\r\nInjected: 1"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "X-Key");
    CHECK(strstr(codex_last_error_message(), "sekret") == NULL);
    CHECK_STATUS(codex_options_add_header(o, NULL, "v"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_header(o, "X-Key", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_header(NULL, "X-Key", "v"), CODEX_STATUS_INVALID_ARGUMENT);

    CHECK_STATUS(codex_options_add_mcp_root(o, NULL, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_mcp_root(o, "", "x"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_mcp_root(o, "file:///ok", "\xff"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_set_mcp_capabilities_json(o, "{"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "not valid JSON");
    CHECK_STATUS(codex_options_set_mcp_capabilities_json(o, "[1]"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "object");

    CHECK_STATUS(codex_options_set_transport(o, "mcp+stdio:", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_set_transport(o, "mcp+stdio:node 'x", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "quote");
    CHECK_STATUS(codex_options_set_transport(o, "mcp+stdio:node", "tok"), CODEX_STATUS_INVALID_ARGUMENT);

    /* Headers need an HTTP transport: refused when the client is created. */
    CHECK_OK(codex_options_add_header(o, "X-Key", "sekret"));
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK_HAS(codex_last_error_message(), "MCP server over HTTP");
    CHECK(strstr(codex_last_error_message(), "sekret") == NULL);
    codex_options_free(o);

    /* Request names. */
    CHECK(codex_mcp_method_name("tools/call") == NULL);
    CHECK_HAS(codex_last_error_message(), "call_tool");
    CHECK(codex_mcp_method_name(NULL) == NULL);
    CHECK(strcmp(codex_mcp_method_name("call_tool"), "tools/call") == 0);
    CHECK_STATUS(codex_mcp_params("call_tool", NULL, NULL, &params), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(params == NULL);
    CHECK_STATUS(codex_mcp_params("call_tool", "echo", "[1]", &params), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_mcp_params("ping", NULL, NULL, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_mcp_params("call_tool", "echo", "{\"message\":\"a \\\"quoted\\\" word\"}", &params));
    CHECK_HAS(params, "\"name\":\"echo\"");
    CHECK_HAS(params, "\"arguments\":{\"message\":\"a \\\"quoted\\\" word\"}");
    codex_string_free(params);

    /* Status and version. */
    CHECK(strcmp(codex_status_name(CODEX_STATUS_CANCELLED), "CODEX_STATUS_CANCELLED") == 0);
    CHECK(CODEX_STATUS_CANCELLED == 15);
    CHECK(codex_abi_version() >= 1001);

    /* A server that cannot be started: the connect fails cleanly; cancel is refused. */
    o = new_options();
    CHECK_OK(codex_options_set_mcp_command(o, missing, 2));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_STATUS(codex_client_cancel_request(c, 1), CODEX_STATUS_NOT_CONNECTED);
    CHECK_STATUS(codex_client_cancel_request(c, 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_cancel_request(NULL, 1), CODEX_STATUS_INVALID_ARGUMENT);
    s = codex_client_connect(c, &init);
    CHECK(s != CODEX_STATUS_OK && init == NULL);
    CHECK(*codex_last_error_message() != '\0');
    printf("  missing server: %s (%s)\n", codex_status_name((int)s), codex_last_error_message());
    codex_client_free(c);
    printf("  bad input: INVALID_ARGUMENT with a message each time\n");
}

/* Connect through the `mcp+stdio:` spec (quoted paths): initialize, tools/list, echo, ping. */
static void connect_with_spec(void) {
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    char spec[4096], *init = NULL, *r;
    snprintf(spec, sizeof spec, "mcp+stdio:'%s' '%s' stdio", mcp_node(), mcp_everything());
    CHECK_OK(codex_options_set_transport(o, spec, NULL));
    CHECK_OK(codex_options_set_default_timeout_ms(o, MCP_WAIT_S * 1000));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, &init));
    CHECK_HAS(init, "\"protocolVersion\":\"2025-11-25\"");
    codex_string_free(init);
    r = mcp_call(c, "tools/list", NULL);
    CHECK_HAS(r, "\"name\":\"echo\"");
    codex_string_free(r);
    r = mcp_call(c, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}");
    CHECK_HAS(r, "Echo: hi");
    codex_string_free(r);
    codex_string_free(mcp_call(c, "ping", NULL));
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  mcp+stdio: spec: initialize, tools/list, echo, ping\n");
}

static codex_options_t *argv_options(void) {
    codex_options_t *o = new_options();
    const char *argv[3];
    argv[0] = mcp_node();
    argv[1] = mcp_everything();
    argv[2] = "stdio";
    CHECK_OK(codex_options_set_mcp_command(o, argv, 3));
    return o;
}

/* Pull events until one of `kind` (and for a RESPONSE, of request `id`) arrives. */
static codex_event_t *next_of(codex_client_t *c, codex_event_kind_t kind, uint64_t id, const char *what) {
    double end = now_s() + MCP_WAIT_S;
    while (now_s() < end) {
        codex_event_t *ev = NULL;
        codex_status_t s = codex_client_next_event(c, 1000, &ev);
        if (s == CODEX_STATUS_TIMEOUT) continue;
        CHECK_OK(s);
        if (codex_event_kind(ev) == kind && (kind != CODEX_EVENT_RESPONSE || codex_event_request_id(ev) == id))
            return ev;
        codex_event_free(ev);
    }
    FAIL("no %s within %d s", what, MCP_WAIT_S);
}

static void poll_mode(void) {
    codex_options_t *o = argv_options();
    codex_client_t *c = NULL;
    codex_event_t *ev;
    codex_request_t *req = NULL;
    int marker = 0;
    uint64_t id = 0;
    CHECK_OK(codex_options_set_delivery(o, CODEX_DELIVERY_POLL));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));

    /* Sampling, answered after the event is freed. */
    CHECK_OK(codex_client_request(c, "tools/call",
                                  "{\"name\":\"trigger-sampling-request\",\"arguments\":{\"prompt\":\"poll\"}}", 0,
                                  NULL, &marker, &id));
    ev = next_of(c, CODEX_EVENT_SERVER_REQUEST, 0, "sampling request");
    CHECK(strcmp(codex_event_method(ev), "sampling/createMessage") == 0);
    CHECK_OK(codex_event_take_request(ev, &req));
    codex_event_free(ev);
    CHECK_OK(codex_client_respond(c, req, MCP_SAMPLING_ANSWER));
    codex_request_free(req);
    ev = next_of(c, CODEX_EVENT_RESPONSE, id, "sampling tool result");
    CHECK_STATUS(codex_event_status(ev), CODEX_STATUS_OK);
    CHECK_HAS(codex_event_result(ev), "sampled by the C test");
    CHECK(codex_event_userdata(ev) == &marker);
    codex_event_free(ev);

    /* Cancel after the first progress: a RESPONSE event with CODEX_STATUS_CANCELLED. */
    CHECK_OK(codex_client_request(c, "tools/call", MCP_LONG_CALL("c1"), 0, NULL, &marker, &id));
    for (;;) {
        ev = next_of(c, CODEX_EVENT_NOTIFICATION, 0, "progress of the call to cancel");
        if (strcmp(codex_event_method(ev), "notifications/progress") == 0 &&
            strstr(codex_event_params(ev), "\"progressToken\":\"c1\"") != NULL)
            break;
        codex_event_free(ev);
    }
    codex_event_free(ev);
    CHECK_OK(codex_client_cancel_request(c, id));
    ev = next_of(c, CODEX_EVENT_RESPONSE, id, "cancelled response");
    CHECK_STATUS(codex_event_status(ev), CODEX_STATUS_CANCELLED);
    CHECK(codex_event_userdata(ev) == &marker);
    CHECK(codex_event_result(ev) == NULL && codex_event_error_message(ev) != NULL);
    printf("  poll mode: cancelled (%s)\n", codex_event_error_message(ev));
    codex_event_free(ev);
    codex_string_free(mcp_call(c, "ping", NULL));
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  poll mode: sampling answered from next_event, cancel -> RESPONSE CANCELLED\n");
}

int main(void) {
    codex_options_t *o;
    printf("test_mcp: node %s, server %s\n", mcp_node(), mcp_everything());
    bad_input();
    connect_with_spec();
    o = argv_options();
    mcp_exercise(o, "stdio (argv)");
    codex_options_free(o);
    poll_mode();
    printf("test_mcp: ok\n");
    return 0;
}
