/* Example: talk to any MCP server from C with libcodexclient: list its tools, call one.
 *
 *   mcp_tools [--tool NAME] [--args JSON] [--header NAME=VALUE]... -- PROGRAM [ARG]...
 *   mcp_tools [--tool NAME] [--args JSON] [--header NAME=VALUE]... http(s)://HOST:PORT/mcp
 *
 * The server is a command (everything after `--`, passed as an argv: no shell) spoken to over
 * its stdin/stdout, or the URL of a Streamable HTTP server (a legacy HTTP+SSE server: its /sse
 * URL). The tool defaults to the everything server's `echo` with {"message":"hello from C"}:
 *
 *   mcp_tools -- node /path/to/server-everything/dist/index.js stdio
 *
 * Build:  cc -std=c99 mcp_tools.c $(pkg-config --cflags --libs codexclient) -lpthread
 *
 * Requests go through the generic codex_client_call(); codex_mcp_method_name() and
 * codex_mcp_params() name the MCP methods and build their params (JSON text), so nothing is
 * escaped by hand. Notifications (log records, progress) are printed by a callback on the
 * library's dispatch thread. A server request this example does not answer (sampling,
 * elicitation, roots) is answered fail-closed by the library: elicitations declined, the
 * others refused with an error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codexclient.h"

static void on_notification(void *userdata, codex_event_t *ev) {
    (void)userdata;
    fprintf(stderr, "[notification] %s %s\n", codex_event_method(ev), codex_event_params(ev));
}

/* Send the MCP request `request` (snake_case name, see codex_mcp_method_name) built from its
 * subject and arguments; returns the result JSON (codex_string_free) or NULL. */
static char *mcp(codex_client_t *c, const char *request, const char *subject, const char *args) {
    const char *method = codex_mcp_method_name(request);
    char *params = NULL, *result = NULL;
    codex_status_t st = method != NULL ? codex_mcp_params(request, subject, args, &params) : CODEX_STATUS_INVALID_ARGUMENT;
    if (st == CODEX_STATUS_OK) st = codex_client_call(c, method, params, 0, &result);
    if (st != CODEX_STATUS_OK)
        fprintf(stderr, "%s failed: %s: %s\n", request, codex_status_name((int)st), codex_last_error_message());
    codex_string_free(params);
    return result;
}

/* Print every "name":"..." of a tools/list result. A real program parses the JSON with its
 * JSON library; the tools' input schemas name their properties as objects ("name":{...}), so
 * this crude scan finds the tools' names. */
static void print_tool_names(const char *json) {
    const char *p = json;
    int n = 0;
    while ((p = strstr(p, "\"name\":\"")) != NULL) {
        const char *start = p + 8, *end = strchr(start, '"');
        if (end == NULL) break;
        printf("%s%.*s", n++ ? ", " : "tools: ", (int)(end - start), start);
        p = end;
    }
    printf("%s\n", n ? "" : "(none)");
}

static int usage(const char *me) {
    fprintf(stderr, "usage: %s [--tool NAME] [--args JSON] [--header NAME=VALUE]... (-- PROGRAM [ARG]... | URL)\n", me);
    return 2;
}

int main(int argc, char **argv) {
    const char *tool = "echo", *args = "{\"message\":\"hello from C\"}", *url = NULL;
    char **command = NULL;
    size_t command_len = 0;
    codex_options_t *opts;
    codex_client_t *client = NULL;
    codex_status_t st;
    char *init = NULL, *tools = NULL, *result = NULL;
    int i, rc = 1;

    /* The library loaded at run time must have every function of the header compiled in. */
    if (codex_abi_version() / 1000 != CODEX_ABI_VERSION / 1000 || codex_abi_version() < CODEX_ABI_VERSION) {
        fprintf(stderr, "libcodexclient ABI %u cannot run a program built for ABI %u\n",
                (unsigned)codex_abi_version(), (unsigned)CODEX_ABI_VERSION);
        return 1;
    }
    opts = codex_options_new();
    if (opts == NULL) return 1;
    st = CODEX_STATUS_OK;
    for (i = 1; i < argc && st == CODEX_STATUS_OK; i++) {
        if (strcmp(argv[i], "--") == 0) {
            command = argv + i + 1;
            command_len = (size_t)(argc - i - 1);
            break;
        } else if (strcmp(argv[i], "--tool") == 0 && i + 1 < argc) {
            tool = argv[++i];
        } else if (strcmp(argv[i], "--args") == 0 && i + 1 < argc) {
            args = argv[++i];
        } else if (strcmp(argv[i], "--header") == 0 && i + 1 < argc) {
            char name[256];
            const char *eq = strchr(argv[++i], '=');
            if (eq == NULL || (size_t)(eq - argv[i]) >= sizeof name) {
                codex_options_free(opts);
                return usage(argv[0]);
            }
            memcpy(name, argv[i], (size_t)(eq - argv[i]));
            name[eq - argv[i]] = '\0';
            st = codex_options_add_header(opts, name, eq + 1); /* checked: no CR/LF; never logged */
        } else if (argv[i][0] != '-' && url == NULL) {
            url = argv[i];
        } else {
            codex_options_free(opts);
            return usage(argv[0]);
        }
    }
    if (st == CODEX_STATUS_OK && command != NULL && command_len > 0 && url == NULL)
        st = codex_options_set_mcp_command(opts, (const char *const *)command, command_len);
    else if (st == CODEX_STATUS_OK && url != NULL && command == NULL)
        st = codex_options_set_transport(opts, url, getenv("MCP_TOKEN")); /* bearer token, if any */
    else if (st == CODEX_STATUS_OK) {
        codex_options_free(opts);
        return usage(argv[0]);
    }
    if (st == CODEX_STATUS_OK) st = codex_options_set_client_info(opts, "codexclient-mcp-example-c", NULL, NULL);
    if (st == CODEX_STATUS_OK) st = codex_options_set_default_timeout_ms(opts, 60000);
    if (st == CODEX_STATUS_OK) st = codex_client_new(opts, &client);
    codex_options_free(opts); /* the client copied its options */
    if (st != CODEX_STATUS_OK) {
        fprintf(stderr, "options: %s\n", codex_last_error_message());
        return 1;
    }
    codex_client_register_callback(client, CODEX_CALLBACK_NOTIFICATION, on_notification, NULL);

    if (codex_client_connect(client, &init) != CODEX_STATUS_OK) {
        fprintf(stderr, "connect failed: %s\n", codex_last_error_message());
        goto out;
    }
    /* protocolVersion, serverInfo, capabilities, instructions (shortened here) */
    printf("initialize: %.300s%s\n", init, strlen(init) > 300 ? "..." : "");
    tools = mcp(client, "list_tools", NULL, NULL); /* first page; pass nextCursor for more */
    if (tools == NULL) goto out;
    print_tool_names(tools);
    result = mcp(client, "call_tool", tool, args);
    if (result == NULL) goto out;
    printf("%s: %s\n", tool, result); /* {"content":[{"type":"text","text":...}],...} */
    /* A tool that failed still answers, with "isError":true. */
    rc = strstr(result, "\"isError\":true") != NULL ? 1 : 0;
    printf("example-mcp-c: %s\n", rc == 0 ? "ok" : "the tool reported an error");
out:
    codex_string_free(result);
    codex_string_free(tools);
    codex_string_free(init);
    codex_client_free(client); /* disconnects: stops the server process */
    return rc;
}
