/* codex_options_set_transport(o, spec, token) (poll mode):
 * - a bad spec ("gopher://x") makes the setter fail with INVALID_ARGUMENT and a message;
 * - a token with a transport that is not ws:// / wss:// is refused (INVALID_ARGUMENT), and the
 *   token never appears in the message; a ws:// spec with a token is accepted, and so is every
 *   valid spec (codex_client_new succeeds with each);
 * - transport "exec" against the real Codex (the default, CODEX_DEFAULT) and the mock model: a turn streams the
 *   final agent message through events; turn/steer and thread/fork fail with
 *   CODEX_STATUS_UNSUPPORTED and a message naming the exec transport;
 * - transport "codex-mcp-server" against the real Codex 0.92.0 (`codex mcp-server`, CODEX_092_BIN) runs a
 *   turn the same way;
 * - connect_timeout_ms bounds a connect to a peer that accepts TCP and never answers the
 *   WebSocket upgrade (CODEX_STATUS_TIMEOUT), and codex_client_disconnect from another thread
 *   ends such a connect at once (CODEX_STATUS_DISCONNECTED).
 */
#include "test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#define SECRET "sekret-token-4242"

static void check_new_fails(const char *transport, const char *token, const char *needle) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    const char *msg;
    CHECK_STATUS(codex_options_set_transport(o, transport, token), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_last_error_status(), CODEX_STATUS_INVALID_ARGUMENT);
    msg = codex_last_error_message();
    CHECK(msg != NULL);
    if (strstr(msg, needle) == NULL) FAIL("message `%s` does not mention `%s`", msg, needle);
    if (strstr(msg, SECRET) != NULL) FAIL("message `%s` leaks the token", msg);
    printf("  refused transport=%s token=%s: %s\n", transport ? transport : "NULL",
           token ? "<set>" : "NULL", msg);
    codex_options_free(o);
}

static void check_bad_specs(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    check_new_fails("gopher://x", NULL, "gopher://x");
    check_new_fails("gopher://x", NULL, "exec");           /* names the accepted values */
    check_new_fails("exec", SECRET, "token");             /* (c) token with exec */
    check_new_fails(NULL, SECRET, "token");               /* token with the default stdio */
    check_new_fails("unix", SECRET, "token");
    /* a token with a WebSocket URL is accepted (nothing connects here) */
    CHECK_OK(codex_options_set_transport(o, "ws://127.0.0.1:9/", SECRET));
    CHECK_OK(codex_client_new(o, &c));
    CHECK(c != NULL);
    codex_client_free(c);
    /* every valid spec is accepted */
    {
        const char *ok[] = {"", "stdio", "exec", "mcp", "unix", "unix:///tmp/x.sock", "wss://example.com/"};
        size_t i;
        for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
            CHECK_OK(codex_options_set_transport(o, ok[i], NULL));
            c = NULL;
            CHECK_OK(codex_client_new(o, &c));
            codex_client_free(c);
        }
    }
    codex_options_free(o);
}

/* Next event within `seconds` (owned). */
static codex_event_t *next(codex_client_t *c, int seconds) {
    codex_event_t *ev = NULL;
    codex_status_t st = codex_client_next_event(c, (int64_t)seconds * 1000, &ev);
    if (st == CODEX_STATUS_TIMEOUT) FAIL("no event within %d s", seconds);
    CHECK_OK(st);
    CHECK(ev != NULL);
    return ev;
}

/* Run one turn with `prompt`; returns the final agent message (owned, malloc'd) and sets
 * *turn_out to the turn id (codex_string_free). Checks the streamed text and item/completed. */
static char *run_turn(codex_client_t *c, const char *thread, const char *prompt, char **turn_out) {
    char *turn = NULL;
    char streamed[4096] = "";
    size_t streamed_len = 0;
    char *final_text = NULL;
    int completed = 0;
    CHECK_OK(codex_client_turn_start(c, thread, prompt, NULL, 0, &turn));
    CHECK(turn != NULL);
    while (!completed) {
        codex_event_t *ev = next(c, 120);
        codex_event_kind_t k = codex_event_kind(ev);
        if (k == CODEX_EVENT_SERVER_REQUEST) FAIL("unexpected server request %s", codex_event_method(ev));
        if (k == CODEX_EVENT_NOTIFICATION) {
            const char *m = codex_event_method(ev);
            const char *tid = codex_event_turn_id(ev);
            const char *p = codex_event_params(ev);
            CHECK(m != NULL);
            if (strcmp(m, "item/agentMessage/delta") == 0 && tid != NULL && strcmp(tid, turn) == 0) {
                size_t len = 0;
                const char *d = codex_event_delta(ev, &len);
                CHECK(d != NULL);
                if (streamed_len + len < sizeof streamed) {
                    memcpy(streamed + streamed_len, d, len);
                    streamed_len += len;
                    streamed[streamed_len] = '\0';
                }
            } else if (strcmp(m, "item/completed") == 0 && p != NULL && strstr(p, "\"agentMessage\"") != NULL) {
                free(final_text);
                final_text = strdup(p);
            } else if (strcmp(m, "turn/completed") == 0 && tid != NULL && strcmp(tid, turn) == 0) {
                if (!turn_status_is(p, "completed")) FAIL("turn did not complete: %s", p);
                completed = 1;
            }
        }
        codex_event_free(ev);
    }
    CHECK(final_text != NULL);
    printf("  streamed: \"%s\"\n", streamed);
    /* the final agent message arrives both as deltas and in item/completed */
    {
        char *out = strdup(streamed);
        CHECK(strstr(final_text, streamed) != NULL && streamed_len > 0);
        free(final_text);
        *turn_out = turn;
        return out;
    }
}

static void check_unsupported(codex_status_t st, const char *method, const char *transport) {
    const char *msg = codex_last_error_message();
    if (st != CODEX_STATUS_UNSUPPORTED)
        FAIL("%s returned %s, expected CODEX_STATUS_UNSUPPORTED (%s)", method,
             codex_status_name((int)st), msg);
    CHECK_STATUS(codex_last_error_status(), CODEX_STATUS_UNSUPPORTED);
    if (strstr(msg, method) == NULL || strstr(msg, transport) == NULL)
        FAIL("message `%s` does not name %s and the %s transport", msg, method, transport);
    printf("  %s: %s\n", method, msg);
}

static void check_exec(void) {
    const char *args[] = {"--skip-git-repo-check"}; /* CODEX_WORK is not a Git repository */
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    char *init = NULL, *thread = NULL, *turn = NULL, *text, *fork = NULL;
    char params[512];
    CHECK_OK(codex_options_set_transport(o, "exec", NULL));
    CHECK_OK(codex_options_add_arg(o, args[0]));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, &init));
    CHECK(init != NULL);
    codex_string_free(init);
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    CHECK(thread != NULL);
    text = run_turn(c, thread, "MOCK_TEXT: hello exec", &turn);
    if (strcmp(text, "hello exec") != 0) FAIL("final agent message `%s`, expected `hello exec`", text);
    free(text);

    check_unsupported(codex_client_turn_steer(c, thread, turn, "more", 0), "turn/steer", "exec");
    snprintf(params, sizeof params, "{\"threadId\":\"%s\"}", thread);
    check_unsupported(codex_client_call(c, "thread/fork", params, 0, &fork), "thread/fork", "exec");
    CHECK(fork == NULL);
    /* the connection is still usable after an unsupported call */
    CHECK(codex_client_is_connected(c));

    codex_string_free(turn);
    codex_string_free(thread);
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  exec: ok\n");
}

static void check_mcp(void) {
    const char *bin = env_or_die("CODEX_092_BIN");
    const char *base = env_or_die("MOCK_MODEL_BASE_URL");
    char env0[512];
    const char *envs[1];
    const char *cfg[] = {"features.unified_exec=true"};
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    char *init = NULL, *thread = NULL, *turn = NULL, *text;
    /* OPENAI_BASE_URL keeps 0.92.0 off the network (it fetches the model list at start-up);
     * unified_exec as in core/tests/mcp_transport.rs */
    snprintf(env0, sizeof env0, "OPENAI_BASE_URL=%s", base);
    envs[0] = env0;
    CHECK_OK(codex_options_set_transport(o, "codex-mcp-server", NULL));
    CHECK_OK(codex_options_set_codex_bin(o, bin));
    CHECK_OK(codex_options_add_env(o, envs[0]));
    CHECK_OK(codex_options_add_config_override(o, cfg[0]));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, &init));
    CHECK(init != NULL && strstr(init, "0.92.0") != NULL);
    codex_string_free(init);
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    text = run_turn(c, thread, "MOCK_TEXT: hello mcp", &turn);
    if (strcmp(text, "hello mcp") != 0) FAIL("final agent message `%s`, expected `hello mcp`", text);
    free(text);
    codex_string_free(turn);
    codex_string_free(thread);
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  mcp: ok\n");
}

/* A listening socket on 127.0.0.1 that never accepts: the kernel completes TCP handshakes,
 * nobody answers the upgrade. Writes "ws://127.0.0.1:PORT/" into url. */
static int silent_listener(char *url, size_t len) {
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(fd, 8) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
    snprintf(url, len, "ws://127.0.0.1:%d/", ntohs(a.sin_port));
    return fd;
}

static void *connect_thread(void *arg) {
    static codex_status_t st;
    st = codex_client_connect((codex_client_t *)arg, NULL);
    return &st;
}

static void check_connect_bounds(void) {
    char url[64];
    int fd = silent_listener(url, sizeof url);
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    pthread_t th;
    void *ret;
    double t0;
    CHECK_OK(codex_options_set_codex_bin(o, NULL));
    CHECK_OK(codex_options_set_transport(o, url, NULL));
    CHECK_OK(codex_options_set_connect_timeout_ms(o, 300));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 300000));
    CHECK_OK(codex_client_new(o, &c));
    t0 = now_s();
    CHECK_STATUS(codex_client_connect(c, NULL), CODEX_STATUS_TIMEOUT);
    if (now_s() - t0 > 5.0) FAIL("connect took %.1f s with a 0.3 s connect timeout", now_s() - t0);
    CHECK(!codex_client_is_connected(c));
    printf("  connect timeout: %s after %.2f s\n", codex_last_error_message(), now_s() - t0);
    codex_client_free(c);

    /* the default (30 s) bound, cut short by a disconnect from another thread. A fresh
     * listener: the first connect's TCP connection is still queued on the old one, so polling
     * it would return before this connect has started (and the disconnect would find nothing
     * to end). */
    close(fd);
    fd = silent_listener(url, sizeof url);
    CHECK_OK(codex_options_set_transport(o, url, NULL));
    CHECK_OK(codex_options_set_connect_timeout_ms(o, 0));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK(pthread_create(&th, NULL, connect_thread, c) == 0);
    /* the connect is under way once the listener has a connection to accept */
    {
        struct pollfd p;
        int conn;
        p.fd = fd;
        p.events = POLLIN;
        CHECK(poll(&p, 1, 10000) == 1);
        conn = accept(fd, NULL, NULL);
        CHECK(conn >= 0);
        t0 = now_s();
        CHECK_OK(codex_client_disconnect(c));
        CHECK(pthread_join(th, &ret) == 0);
        CHECK_STATUS(*(codex_status_t *)ret, CODEX_STATUS_DISCONNECTED);
        if (now_s() - t0 > 3.0) FAIL("disconnect took %.1f s to end the connect", now_s() - t0);
        close(conn);
    }
    codex_client_free(c);
    close(fd);
    printf("  connect bounds: ok\n");
}

int main(void) {
    check_bad_specs();
    check_connect_bounds();
    check_exec();
    check_mcp();
    printf("test_transport: ok\n");
    return 0;
}
