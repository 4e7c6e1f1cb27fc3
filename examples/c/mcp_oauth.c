/* Example: an MCP server that needs authorization (OAuth 2.1), from C with libcodexclient.
 *
 *   mcp_oauth [--tool NAME] [--args JSON] [--store FILE] [--client-id ID] URL
 *
 * URL is the server's Streamable HTTP endpoint (https://..., or http:// on this machine). When
 * it answers 401 the library discovers its authorization server, registers this client (or
 * uses --client-id), and runs the authorization code flow with PKCE. The browser step is the
 * library's loopback helper (codex_options_set_oauth_loopback): it listens on
 * http://127.0.0.1:PORT/callback, and our `open` callback prints the authorization URL and
 * starts $BROWSER with it (when set; else xdg-open/open). Once the user has signed in, the
 * browser comes back to the loopback address and the request goes on with the token.
 *
 * --store FILE keeps the tokens (and the client's registration) across runs, through the
 * token store callbacks (codex_options_set_oauth_token_store): the library hands over JSON
 * text, this program only writes it to FILE, readable by its owner only. A second run with the
 * same FILE needs no browser; the token is refreshed when it expires.
 *
 * Authorization events (started, succeeded, refreshed, failed) arrive as CODEX_EVENT_AUTH on
 * the connection callback. Grants without a browser are options by name, for example
 *   codex_options_set(o, "oauth_grant", "\"client_credentials\"");
 *   codex_options_set(o, "oauth_client_id", "\"my-service\"");
 *   codex_options_set(o, "oauth_private_key_file", "\"/etc/my-service/key.pem\"");
 *
 * Build:  cc -std=c99 mcp_oauth.c $(pkg-config --cflags --libs codexclient) -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "codexclient.h"

extern char **environ;

/* The loopback helper's `open`: runs on a library-owned blocking thread; it starts the browser
 * and returns (the library waits for the redirect). */
static void open_browser(void *userdata, const char *url) {
    const char *browser = getenv("BROWSER");
    char *argv[3];
    pid_t pid;
    (void)userdata;
    fprintf(stderr, "Authorize in your browser: %s\n", url);
    argv[0] = (char *)(browser != NULL && *browser != '\0' ? browser : "xdg-open");
    argv[1] = (char *)url;
    argv[2] = NULL;
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0)
        fprintf(stderr, "(could not start %s: open the URL yourself)\n", argv[0]);
}

/* ---- a token store in one file (one server) ------------------------------------------------ */
static void store_load(void *userdata, const char *server, codex_oauth_answer_t *answer) {
    const char *path = (const char *)userdata;
    FILE *f = fopen(path, "r");
    char text[65536];
    size_t n;
    (void)server; /* a real store keys its entries by the server's URL */
    if (f == NULL) return; /* nothing stored yet */
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (n > 0) codex_oauth_answer_set(answer, text); /* copied by the library */
}

static void store_save(void *userdata, const char *server, const char *json, codex_oauth_answer_t *answer) {
    const char *path = (const char *)userdata;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600); /* it holds secrets */
    size_t len = strlen(json);
    (void)server;
    if (fd < 0 || write(fd, json, len) != (ssize_t)len) codex_oauth_answer_error(answer, "cannot write the token file");
    if (fd >= 0) close(fd);
}

static void store_clear(void *userdata, const char *server, codex_oauth_answer_t *answer) {
    (void)server;
    (void)answer;
    unlink((const char *)userdata);
}

/* CODEX_EVENT_AUTH: what the authorization did (never a secret). */
static void on_connection(void *userdata, codex_event_t *ev) {
    (void)userdata;
    if (codex_event_kind(ev) == CODEX_EVENT_AUTH)
        fprintf(stderr, "[auth] %s %s\n", codex_event_error_message(ev), codex_event_reconnect_json(ev));
}

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

int main(int argc, char **argv) {
    const char *tool = NULL, *args = "{}", *store = NULL, *client_id = NULL, *url = NULL;
    codex_options_t *opts;
    codex_client_t *client = NULL;
    codex_status_t st;
    char *redirect_uri = NULL, *result = NULL, value[512];
    int i, rc = 1;

    if (codex_abi_version() / 1000 != CODEX_ABI_VERSION / 1000 || codex_abi_version() < CODEX_ABI_VERSION) {
        fprintf(stderr, "libcodexclient ABI %u cannot run a program built for ABI %u\n",
                (unsigned)codex_abi_version(), (unsigned)CODEX_ABI_VERSION);
        return 1;
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tool") == 0 && i + 1 < argc) tool = argv[++i];
        else if (strcmp(argv[i], "--args") == 0 && i + 1 < argc) args = argv[++i];
        else if (strcmp(argv[i], "--store") == 0 && i + 1 < argc) store = argv[++i];
        else if (strcmp(argv[i], "--client-id") == 0 && i + 1 < argc) client_id = argv[++i];
        else if (argv[i][0] != '-' && url == NULL) url = argv[i];
        else url = NULL, i = argc + 1;
    }
    if (url == NULL || i > argc) {
        fprintf(stderr, "usage: %s [--tool NAME] [--args JSON] [--store FILE] [--client-id ID] URL\n", argv[0]);
        return 2;
    }
    opts = codex_options_new();
    if (opts == NULL) return 1;
    st = codex_options_set_transport(opts, url, NULL);
    /* The browser step: a loopback redirect on a free port, our `open` callback. */
    if (st == CODEX_STATUS_OK) st = codex_options_set_oauth_loopback(opts, 0, open_browser, NULL, NULL, &redirect_uri);
    if (st == CODEX_STATUS_OK && store != NULL)
        st = codex_options_set_oauth_token_store(opts, store_load, store_save, store_clear, (void *)store, NULL);
    if (st == CODEX_STATUS_OK && client_id != NULL) {
        snprintf(value, sizeof value, "\"%s\"", client_id); /* JSON text; a real program escapes it */
        st = codex_options_set(opts, "oauth_client_id", value);
    }
    /* The whole connect, authorization included, within 3 minutes. */
    if (st == CODEX_STATUS_OK) st = codex_options_set_connect_timeout_ms(opts, 180000);
    if (st == CODEX_STATUS_OK) st = codex_options_set_client_info(opts, "codexclient-oauth-example-c", NULL, NULL);
    if (st == CODEX_STATUS_OK) st = codex_client_new(opts, &client);
    codex_options_free(opts);
    if (st != CODEX_STATUS_OK) {
        fprintf(stderr, "options: %s\n", codex_last_error_message());
        codex_string_free(redirect_uri);
        return 1;
    }
    fprintf(stderr, "redirect URI: %s\n", redirect_uri);
    codex_string_free(redirect_uri);
    codex_client_register_callback(client, CODEX_CALLBACK_CONNECTION, on_connection, NULL);

    if (codex_client_connect(client, NULL) != CODEX_STATUS_OK) {
        fprintf(stderr, "connect failed: %s\n", codex_last_error_message());
        goto out;
    }
    result = tool != NULL ? mcp(client, "call_tool", tool, args) : mcp(client, "list_tools", NULL, NULL);
    if (result == NULL) goto out;
    printf("%s: %s\n", tool != NULL ? tool : "tools", result);
    rc = 0;
out:
    codex_string_free(result);
    codex_client_free(client);
    return rc;
}
