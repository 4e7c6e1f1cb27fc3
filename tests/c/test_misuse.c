/* Misuse and failure modes: every one must end in a clear status code, never a crash.
 * - NULL arguments to every function; accessors on NULL;
 * - calls before connect, connect twice, disconnect twice;
 * - invalid JSON, invalid UTF-8, bad options (refused by their setters), unknown callback kind;
 * - double free of clients, events, requests; use of a freed client; a callback's borrowed
 *   event passed to codex_event_free; respond twice, respond after free, respond through
 *   another client;
 * - blocking-call TIMEOUT (server silent, connection stays up) vs DISCONNECTED (server died,
 *   message carries its stderr) vs TRANSPORT (binary missing), and OVERLOADED after retries:
 *   driven by testkit/fake-app-server ($FAKE_APP_SERVER);
 * - async completions on timeout and on disconnect; unhandled approval declined (callbacks
 *   mode, checked by what the fake server received);
 * - SIGPIPE from a server that closed its stdin does not kill the process;
 * - codex_client_free inside the client's own callback;
 * - options reach the server (args, -c overrides, env + clear_env, default timeout, opt-out).
 */
#include "test_util.h"

#include <sys/stat.h>

/* Options for the fake app-server in `modes` (free with codex_options_free). */
static codex_options_t *fake_options(const char *modes, codex_delivery_t delivery) {
    char env[128];
    codex_options_t *o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    snprintf(env, sizeof env, "FAKE_MODE=%s", modes);
    CHECK_OK(codex_options_add_env(o, env)); /* copied: env may go away */
    CHECK_OK(codex_options_set_delivery(o, delivery));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 20000));
    return o;
}

static void null_arguments(void) {
    codex_client_t *c = NULL;
    char *s = (char *)"x";
    uint64_t id = 7;
    codex_event_t *ev = (codex_event_t *)&id;
    codex_request_t *req = (codex_request_t *)&id;
    size_t len = 9;

    CHECK_STATUS(codex_client_new(NULL, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(codex_last_error_message(), "NULL") != NULL);
    CHECK(codex_last_error_status() == CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_connect(NULL, &s), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(s == NULL); /* out-parameters are cleared */
    CHECK_STATUS(codex_client_disconnect(NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(!codex_client_is_connected(NULL));
    CHECK_STATUS(codex_client_register_callback(NULL, CODEX_CALLBACK_NOTIFICATION, NULL, NULL),
                 CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_request(NULL, "m", "{}", 0, NULL, NULL, &id), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(id == 0);
    s = (char *)"x";
    CHECK_STATUS(codex_client_call(NULL, "m", "{}", 0, &s), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(s == NULL);
    CHECK_STATUS(codex_client_notify(NULL, "m", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_next_event(NULL, 0, &ev), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(ev == NULL);
    CHECK(codex_client_event_fd(NULL) == -1);
    CHECK_STATUS(codex_client_respond(NULL, NULL, "{}"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_respond_error(NULL, NULL, 1, "m", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_thread_start(NULL, NULL, 0, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_turn_start(NULL, "t", "x", NULL, 0, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_turn_interrupt(NULL, "t", "u", 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_turn_steer(NULL, "t", "u", "x", 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_stderr_tail(NULL, &s), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_event_take_request(NULL, &req), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(req == NULL);
    /* accessors on NULL: neutral values */
    CHECK(codex_event_kind(NULL) == CODEX_EVENT_NONE);
    CHECK(codex_event_method(NULL) == NULL);
    CHECK(codex_event_params(NULL) == NULL);
    CHECK(codex_event_thread_id(NULL) == NULL);
    CHECK(codex_event_turn_id(NULL) == NULL);
    CHECK(codex_event_delta(NULL, &len) == NULL && len == 0);
    CHECK(codex_event_request(NULL) == NULL);
    CHECK(codex_event_status(NULL) == CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(codex_event_result(NULL) == NULL);
    CHECK(codex_event_error_message(NULL) == NULL);
    CHECK(codex_event_rpc_code(NULL) == 0);
    CHECK(codex_request_method(NULL) == NULL);
    CHECK(codex_request_params(NULL) == NULL);
    CHECK(!codex_request_is_open(NULL));
    /* frees of NULL are no-ops */
    codex_client_free(NULL);
    codex_event_free(NULL);
    codex_request_free(NULL);
    codex_string_free(NULL);
    /* a made-up request handle is unknown, not dereferenced */
    CHECK(codex_request_method((codex_request_t *)(uintptr_t)0xdeadbeef) == NULL);
    codex_request_free((codex_request_t *)(uintptr_t)0xdeadbeef);
    CHECK(strcmp(codex_status_name(CODEX_STATUS_TIMEOUT), "CODEX_STATUS_TIMEOUT") == 0);
    CHECK(strcmp(codex_status_name(999), "CODEX_STATUS_UNKNOWN") == 0);
    CHECK(codex_version() != NULL && *codex_version() != '\0');

    /* a NULL options pointer means defaults */
    CHECK_OK(codex_client_new(NULL, &c));
    CHECK(c != NULL);
    CHECK_STATUS(codex_client_call(c, NULL, "{}", 0, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_register_callback(c, 99, NULL, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_server_pid(c, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    codex_client_free(c);
}

static void bad_options(void) {
    codex_client_t *c = (codex_client_t *)&c;
    codex_options_t *o = new_options();
    CHECK_STATUS(codex_options_set_delivery(o, 7), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_arg(o, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_env(o, "NO_EQUALS_SIGN"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_add_env(o, "A=\xff\xfe"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(codex_last_error_message(), "UTF-8") != NULL);
    /* the refused values changed nothing: the object still makes a (default) client */
    CHECK_OK(codex_client_new(o, &c));
    CHECK(c != NULL);
    codex_client_free(c);
    codex_options_free(o);
    /* a freed options object is refused, and the out-parameter is cleared */
    c = (codex_client_t *)&c;
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK(strstr(codex_last_error_message(), "codex_options_new") != NULL);
}

static void before_connect_and_freed_client(void) {
    codex_client_t *c = NULL;
    char *s = NULL;
    uint64_t id = 0;
    CHECK_OK(codex_client_new(NULL, &c));
    CHECK_STATUS(codex_client_call(c, "thread/start", "{}", 0, &s), CODEX_STATUS_NOT_CONNECTED);
    CHECK(s == NULL);
    CHECK_STATUS(codex_client_request(c, "thread/start", "{}", 0, NULL, NULL, &id), CODEX_STATUS_NOT_CONNECTED);
    CHECK_STATUS(codex_client_thread_start(c, NULL, 0, &s), CODEX_STATUS_NOT_CONNECTED);
    CHECK_STATUS(codex_client_turn_start(c, "t", "hi", NULL, 0, &s), CODEX_STATUS_NOT_CONNECTED);
    CHECK_STATUS(codex_client_notify(c, "x", NULL), CODEX_STATUS_NOT_CONNECTED);
    CHECK_STATUS(codex_client_disconnect(c), CODEX_STATUS_NOT_CONNECTED);
    /* invalid JSON is reported as such, before anything else */
    CHECK_STATUS(codex_client_call(c, "thread/start", "{not json", 0, &s), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(codex_last_error_message(), "JSON") != NULL);
    CHECK_STATUS(codex_client_request(c, "m", "[1,", 0, NULL, NULL, &id), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_thread_start(c, "[1,2]", 0, &s), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_call(c, "\xc3\x28", "{}", 0, &s), CODEX_STATUS_INVALID_ARGUMENT);
    codex_client_free(c);
    /* the freed handle is recognised: error codes, no crash */
    CHECK_STATUS(codex_client_call(c, "thread/start", "{}", 0, &s), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(codex_last_error_message(), "freed") != NULL);
    CHECK_STATUS(codex_client_connect(c, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(!codex_client_is_connected(c));
    codex_client_free(c); /* double free: detected and ignored */
    CHECK(codex_last_error_status() == CODEX_STATUS_INVALID_ARGUMENT);
}

static void timeout_vs_disconnect_vs_transport(void) {
    char *s = NULL;
    codex_options_t *o = fake_options("hang,die,overload", CODEX_DELIVERY_CALLBACKS);
    codex_client_t *c = NULL;
    double t0;
    codex_options_t *missing;

    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_STATUS(codex_client_connect(c, NULL), CODEX_STATUS_ALREADY_CONNECTED);

    /* silent server: TIMEOUT after the per-call timeout; the connection stays up */
    t0 = now_s();
    CHECK_STATUS(codex_client_call(c, "test/hang", "{}", 300, &s), CODEX_STATUS_TIMEOUT);
    CHECK(now_s() - t0 >= 0.29 && now_s() - t0 < 10.0);
    CHECK(strstr(codex_last_error_message(), "test/hang") != NULL);
    CHECK(s == NULL);
    CHECK(codex_client_is_connected(c));
    CHECK_OK(codex_client_call(c, "echo/me", "{\"a\":1}", 0, &s));
    CHECK(strstr(s, "echo/me") != NULL);
    codex_string_free(s);
    s = NULL;

    /* overload answered -32001 on every retry: OVERLOADED with the code */
    CHECK_STATUS(codex_client_call(c, "test/overload", "{\"failures\":100}", 0, &s), CODEX_STATUS_OVERLOADED);
    CHECK(codex_last_error_rpc_code() == -32001);

    /* server dies mid-request: DISCONNECTED at once, with its stderr, not a timeout */
    t0 = now_s();
    CHECK_STATUS(codex_client_call(c, "test/die", "{}", 60000, &s), CODEX_STATUS_DISCONNECTED);
    CHECK(now_s() - t0 < 10.0);
    CHECK(strstr(codex_last_error_message(), "dying on purpose") != NULL);
    CHECK(!codex_client_is_connected(c));
    CHECK(codex_last_error_rpc_code() == 0);
    {
        codex_status_t st = codex_client_call(c, "echo/me", "{}", 0, &s);
        CHECK(st == CODEX_STATUS_NOT_CONNECTED || st == CODEX_STATUS_DISCONNECTED);
    }
    CHECK_OK(codex_client_stderr_tail(c, &s));
    CHECK(strstr(s, "dying on purpose") != NULL);
    codex_string_free(s);
    s = NULL;
    /* connect again after the death */
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_call(c, "echo/again", NULL, 0, &s));
    codex_string_free(s);
    CHECK_OK(codex_client_disconnect(c));
    CHECK_STATUS(codex_client_disconnect(c), CODEX_STATUS_NOT_CONNECTED); /* double disconnect */
    codex_client_free(c);

    /* missing binary: TRANSPORT, distinct from both */
    missing = new_options();
    CHECK_OK(codex_options_set_codex_bin(missing, "/nonexistent/codex-binary"));
    CHECK_OK(codex_client_new(missing, &c));
    codex_options_free(missing);
    {
        /* Under valgrind the spawn itself "succeeds" and the child exits 127 (valgrind runs
         * exec in the child), so there the failure is DISCONNECTED with exit status 127. */
        codex_status_t st = codex_client_connect(c, NULL);
        const char *vg = getenv("CODEX_TEST_UNDER_VALGRIND");
        if (vg != NULL && st == CODEX_STATUS_DISCONNECTED)
            CHECK(strstr(codex_last_error_message(), "127") != NULL);
        else
            CHECK_STATUS(st, CODEX_STATUS_TRANSPORT);
    }
    CHECK(!codex_client_is_connected(c));
    codex_client_free(c);
}

/* --- callbacks-mode async completions and unhandled approvals --------------------------- */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    codex_status_t status[4];
    pthread_t thread[4];
} completions_t;

static void on_done(void *ud, codex_event_t *ev) {
    completions_t *c = (completions_t *)ud;
    pthread_mutex_lock(&c->mu);
    if (c->done < 4) {
        c->status[c->done] = codex_event_status(ev);
        c->thread[c->done] = pthread_self();
    }
    c->done++;
    /* the borrowed event must not be freed: detected and ignored */
    codex_event_free(ev);
    CHECK(codex_last_error_status() == CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(codex_event_kind(ev) == CODEX_EVENT_RESPONSE);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void wait_done(completions_t *c, int n) {
    struct timespec dl = deadline_in(30);
    pthread_mutex_lock(&c->mu);
    while (c->done < n)
        if (pthread_cond_timedwait(&c->cv, &c->mu, &dl) != 0 && c->done < n) FAIL("completion %d missing", n);
    pthread_mutex_unlock(&c->mu);
}

static void async_and_unhandled(void) {
    char *s = NULL;
    codex_options_t *o = fake_options("hang,approval", CODEX_DELIVERY_CALLBACKS);
    codex_client_t *c = NULL;
    completions_t k;
    uint64_t id = 0;

    memset(&k, 0, sizeof k);
    pthread_mutex_init(&k.mu, NULL);
    pthread_cond_init(&k.cv, NULL);
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));

    /* async timeout: completion with TIMEOUT */
    CHECK_OK(codex_client_request(c, "test/hang", "{}", 200, on_done, &k, &id));
    wait_done(&k, 1);
    CHECK_STATUS(k.status[0], CODEX_STATUS_TIMEOUT);

    /* no SERVER_REQUEST callback: the approval is declined (the fake records the answer) */
    CHECK_OK(codex_client_call(c, "test/approval", "{\"method\":\"item/commandExecution/requestApproval\"}", 0, NULL));
    {
        double end = now_s() + 10;
        for (;;) {
            CHECK_OK(codex_client_call(c, "test/lastAnswers", "{}", 0, &s));
            if (strstr(s, "decline") != NULL) break;
            if (now_s() > end) FAIL("approval not declined: %s", s);
            codex_string_free(s);
            s = NULL;
            sleep_ms(20);
        }
        codex_string_free(s);
        s = NULL;
    }

    /* in-flight async request when disconnecting: completion with DISCONNECTED, delivered
     * before disconnect returns */
    CHECK_OK(codex_client_request(c, "test/hang", "{}", 0, on_done, &k, &id));
    CHECK_OK(codex_client_disconnect(c));
    pthread_mutex_lock(&k.mu);
    CHECK(k.done == 2);
    CHECK_STATUS(k.status[1], CODEX_STATUS_DISCONNECTED);
    CHECK(pthread_equal(k.thread[0], k.thread[1]));
    CHECK(!pthread_equal(k.thread[0], pthread_self()));
    pthread_mutex_unlock(&k.mu);
    codex_client_free(c);
    pthread_cond_destroy(&k.cv);
    pthread_mutex_destroy(&k.mu);
}

/* --- server request handles: respond twice, after free, through another client --------- */
static void request_handles(void) {
    char *s = NULL;
    codex_options_t *o = fake_options("approval", CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL, *other = NULL;
    codex_event_t *ev = NULL;
    codex_request_t *req = NULL;
    double end;

    CHECK_OK(codex_client_new(o, &c));
    CHECK_OK(codex_client_new(o, &other)); /* one options object, two clients */
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_call(c, "test/approval", "{\"method\":\"item/commandExecution/requestApproval\"}", 0, NULL));
    end = now_s() + 10;
    for (;;) {
        codex_status_t st = codex_client_next_event(c, 1000, &ev);
        if (st == CODEX_STATUS_OK && codex_event_kind(ev) == CODEX_EVENT_SERVER_REQUEST) break;
        if (st == CODEX_STATUS_OK) codex_event_free(ev);
        if (now_s() > end) FAIL("no server request from the fake");
    }
    CHECK(codex_event_request(ev) != NULL);
    CHECK_STATUS(codex_event_take_request(ev, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_event_take_request(ev, &req));
    CHECK_STATUS(codex_event_take_request(ev, &req), CODEX_STATUS_INVALID_STATE);
    CHECK(req == NULL);
    req = codex_event_request(ev);
    codex_event_free(ev);
    codex_event_free(ev); /* double free: detected and ignored */
    CHECK(codex_last_error_status() == CODEX_STATUS_INVALID_ARGUMENT);

    CHECK_STATUS(codex_client_respond(c, req, "{not json"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_respond(c, req, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_respond(other, req, "{\"decision\":\"accept\"}"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(codex_last_error_message(), "another client") != NULL);
    CHECK(codex_request_is_open(req));
    CHECK_OK(codex_client_respond(c, req, "{\"decision\":\"accept\"}"));
    CHECK_STATUS(codex_client_respond(c, req, "{\"decision\":\"decline\"}"), CODEX_STATUS_ALREADY_RESPONDED);
    CHECK_STATUS(codex_client_respond_error(c, req, -32000, "no", NULL), CODEX_STATUS_ALREADY_RESPONDED);
    CHECK(!codex_request_is_open(req));
    codex_request_free(req);
    codex_request_free(req); /* double free: ignored */
    CHECK_STATUS(codex_client_respond(c, req, "{\"decision\":\"accept\"}"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(codex_request_method(req) == NULL);
    /* the fake saw exactly one answer: accept */
    CHECK_OK(codex_client_call(c, "test/lastAnswers", "{}", 0, &s));
    CHECK(strstr(s, "accept") != NULL && strstr(s, "decline") == NULL);
    codex_string_free(s);

    codex_client_free(other);
    codex_client_free(c);
}

/* Options reach the server: args, -c overrides, env with clear_env, default timeout,
 * opted-out notification methods. */
static int saw_method(codex_client_t *c, const char *method, double seconds) {
    double end = now_s() + seconds;
    int seen = 0;
    while (now_s() < end) {
        codex_event_t *ev = NULL;
        if (codex_client_next_event(c, 50, &ev) != CODEX_STATUS_OK) continue;
        if (codex_event_method(ev) != NULL && strcmp(codex_event_method(ev), method) == 0) seen = 1;
        codex_event_free(ev);
    }
    return seen;
}

static void options_reach_the_server(void) {
    const char *args[] = {"--mode", "hang", "--mode", "unknown", "--stderr-lines", "3"};
    const char *cfg[] = {"model=\"some-model\"", "features.x=true"};
    const char *env[] = {"FAKE_MODE=hang"};
    const char *opt_out[] = {"brand/newThing"};
    codex_options_t *o, *o2;
    codex_client_t *c = NULL;
    char *s = NULL;
    double t0;
    size_t i;

    /* the same options, without the opt-out, are set on o2 */
    o = new_options();
    o2 = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    CHECK_OK(codex_options_set_codex_bin(o2, env_or_die("FAKE_APP_SERVER")));
    for (i = 0; i < 6; i++) {
        CHECK_OK(codex_options_add_arg(o, args[i]));
        CHECK_OK(codex_options_add_arg(o2, args[i]));
    }
    for (i = 0; i < 2; i++) {
        CHECK_OK(codex_options_add_config_override(o, cfg[i]));
        CHECK_OK(codex_options_add_config_override(o2, cfg[i]));
    }
    CHECK_OK(codex_options_set_default_timeout_ms(o, 300));
    CHECK_OK(codex_options_set_default_timeout_ms(o2, 300));
    CHECK_OK(codex_options_set_delivery(o, CODEX_DELIVERY_POLL));
    CHECK_OK(codex_options_set_delivery(o2, CODEX_DELIVERY_POLL));
    CHECK_OK(codex_options_set_client_info(o, "misuse-test", NULL, "9.9.9"));
    CHECK_OK(codex_options_set_client_info(o2, "misuse-test", NULL, "9.9.9"));
    CHECK_OK(codex_options_set_experimental_api(o, true));
    CHECK_OK(codex_options_set_experimental_api(o2, true));
    CHECK_OK(codex_options_add_opt_out_notification_method(o, opt_out[0]));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    t0 = now_s();
    CHECK_STATUS(codex_client_call(c, "test/hang", "{}", 0, NULL), CODEX_STATUS_TIMEOUT); /* default 300 ms */
    CHECK(now_s() - t0 < 5.0);
    CHECK_OK(codex_client_call(c, "test/unknown", "{}", 2000, NULL));
    CHECK(!saw_method(c, "brand/newThing", 0.3)); /* opted out */
    CHECK_OK(codex_client_stderr_tail(c, &s));
    if (strstr(s, "fake stderr line 2") == NULL) FAIL("args not passed: stderr tail '%s'", s);
    codex_string_free(s);
    codex_client_free(c);

    /* the same without the opt-out: the notification arrives */
    CHECK_OK(codex_client_new(o2, &c));
    codex_options_free(o2);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_call(c, "test/unknown", "{}", 2000, NULL));
    CHECK(saw_method(c, "brand/newThing", 0.5));
    codex_client_free(c);

    /* env with clear_env: the mode comes only from the environment given */
    o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    CHECK_OK(codex_options_add_env(o, env[0]));
    CHECK_OK(codex_options_set_clear_env(o, true));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 300));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_STATUS(codex_client_call(c, "test/hang", "{}", 0, NULL), CODEX_STATUS_TIMEOUT);
    codex_client_free(c);
}

/* codex_client_free from inside one of the client's own callbacks (discouraged, but must not
 * crash, deadlock or leak): the callback is the last one; the handle is dead afterwards. */
static volatile int freed_in_callback;
static void free_me(void *ud, codex_event_t *ev) {
    codex_client_t *c = (codex_client_t *)ud;
    (void)ev;
    if (freed_in_callback) return;
    freed_in_callback = 1;
    codex_client_free(c);
    freed_in_callback = 2;
}

static void free_inside_callback(void) {
    codex_options_t *o = fake_options("unknown", CODEX_DELIVERY_CALLBACKS);
    codex_client_t *c = NULL;
    double end;
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_NOTIFICATION, free_me, c));
    CHECK_OK(codex_client_connect(c, NULL));
    /* test/unknown sends a notification; the callback frees the client; the call itself may
     * then end with DISCONNECTED */
    (void)codex_client_call(c, "test/unknown", "{}", 5000, NULL);
    end = now_s() + 10;
    while (freed_in_callback != 2 && now_s() < end) sleep_ms(10);
    CHECK(freed_in_callback == 2);
    CHECK_STATUS(codex_client_call(c, "echo/x", "{}", 0, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    sleep_ms(200); /* let the detached dispatch thread finish */
}

/* A server that answers initialize and then closes its stdin: the library's next write gets
 * EPIPE. C programs keep SIGPIPE's default action (terminate); the library must block it in its
 * own threads so the failure is a status code, not a dead host process. */
static void sigpipe_does_not_kill(void) {
    char script[1024], *s = NULL;
    FILE *f;
    codex_options_t *o;
    codex_client_t *c = NULL;
    codex_status_t st;
    snprintf(script, sizeof script, "%s/closes-stdin.sh", env_or_die("CODEX_WORK"));
    f = fopen(script, "w");
    CHECK(f != NULL);
    fputs("#!/bin/sh\n"
          "IFS= read -r line\n"
          "id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\([0-9]*\\).*/\\1/p')\n"
          "exec 0<&-\n"
          "printf '{\"id\":%s,\"result\":{\"userAgent\":\"closer/0\",\"codexHome\":\"/x\","
          "\"platformFamily\":\"unix\",\"platformOs\":\"linux\"}}\\n' \"$id\"\n"
          "sleep 1\n",
          f);
    fclose(f);
    CHECK(chmod(script, 0755) == 0);
    o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, script));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 5000));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    st = codex_client_connect(c, NULL); /* the `initialized` notification may already hit EPIPE */
    CHECK(st == CODEX_STATUS_OK || st == CODEX_STATUS_DISCONNECTED || st == CODEX_STATUS_TRANSPORT);
    st = codex_client_call(c, "after/close", "{}", 0, &s);
    CHECK(st == CODEX_STATUS_DISCONNECTED || st == CODEX_STATUS_TRANSPORT || st == CODEX_STATUS_NOT_CONNECTED);
    CHECK(s == NULL);
    codex_client_free(c); /* still alive: no SIGPIPE */
}

int main(void) {
    double t0 = now_s();
    null_arguments();
    bad_options();
    before_connect_and_freed_client();
    timeout_vs_disconnect_vs_transport();
    async_and_unhandled();
    request_handles();
    sigpipe_does_not_kill();
    free_inside_callback();
    options_reach_the_server();
    printf("test_misuse: ok (%.1f s)\n", now_s() - t0);
    return 0;
}
