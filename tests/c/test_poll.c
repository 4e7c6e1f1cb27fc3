/* Poll mode against the real Codex and the local mock model (the NIF path):
 * - mixing modes is an error (callbacks on a poll client, next_event/event_fd on a callbacks
 *   client);
 * - the event fd becomes readable (poll(2)) when events wait; draining with next_event(0)
 *   until TIMEOUT; no library thread ever runs program code (no callbacks exist);
 * - a streamed turn's deltas add up to the scripted reply;
 * - async requests complete as RESPONSE events carrying id and userdata;
 * - approvals: accepted from ANOTHER thread later (command ran), declined explicitly (did not
 *   run), event freed unanswered (fail-closed: did not run);
 * - disconnect: the DISCONNECTED event, then NOT_CONNECTED.
 */
#include "test_util.h"

#include <poll.h>

static codex_client_t *C;
static const char *WORK;

typedef struct {
    char text[16384];
    size_t text_len;
    int deltas;
    int completed;
    char completed_params[4096];
    int fd_wakeups;
    int requests_seen;
} turn_t;

/* Wait on the fd, then drain. Returns the next event (owned), failing after `seconds`. */
static codex_event_t *next(int seconds, turn_t *t) {
    int fd = codex_client_event_fd(C);
    double end = now_s() + seconds;
    CHECK(fd >= 0);
    for (;;) {
        codex_event_t *ev = NULL;
        codex_status_t st = codex_client_next_event(C, 0, &ev);
        if (st == CODEX_STATUS_OK) {
            CHECK(ev != NULL);
            return ev;
        }
        CHECK_STATUS(st, CODEX_STATUS_TIMEOUT);
        CHECK(ev == NULL);
        if (now_s() > end) FAIL("no event within %d s", seconds);
        {
            struct pollfd p;
            int n;
            p.fd = fd;
            p.events = POLLIN;
            p.revents = 0;
            n = poll(&p, 1, 1000);
            CHECK(n >= 0);
            if (n == 1 && (p.revents & POLLIN) && t != NULL) t->fd_wakeups++;
        }
    }
}

/* Handle one event of a turn; returns the server request event if it is one (owned). */
static codex_event_t *on_event(codex_event_t *ev, turn_t *t, const char *turn_id) {
    codex_event_kind_t k = codex_event_kind(ev);
    if (k == CODEX_EVENT_SERVER_REQUEST) {
        t->requests_seen++;
        return ev;
    }
    if (k == CODEX_EVENT_NOTIFICATION) {
        const char *m = codex_event_method(ev);
        CHECK(m != NULL);
        if (strcmp(m, "item/agentMessage/delta") == 0) {
            size_t len = 0;
            const char *d = codex_event_delta(ev, &len);
            const char *tid = codex_event_turn_id(ev);
            CHECK(d != NULL);
            if (tid != NULL && strcmp(tid, turn_id) == 0 && t->text_len + len < sizeof t->text) {
                memcpy(t->text + t->text_len, d, len);
                t->text_len += len;
                t->text[t->text_len] = '\0';
                t->deltas++;
            }
        } else if (strcmp(m, "turn/completed") == 0) {
            /* turn/completed carries the turn (params.turn.id): codex_event_turn_id gives it */
            const char *p = codex_event_params(ev);
            const char *tid = codex_event_turn_id(ev);
            CHECK(tid != NULL);
            if (strcmp(tid, turn_id) == 0) {
                CHECK(p != NULL && strstr(p, turn_id) != NULL);
                snprintf(t->completed_params, sizeof t->completed_params, "%s", p);
                t->completed = 1;
            }
        }
    } else {
        CHECK(codex_event_delta(ev, NULL) == NULL);
    }
    codex_event_free(ev);
    return NULL;
}

/* Run a turn; `answer` decides what to do with each server request event (owned by it). */
typedef void (*answer_fn)(codex_event_t *req_event);

static void run_turn(const char *thread, const char *prompt, turn_t *t, answer_fn answer) {
    char *turn = NULL;
    memset(t, 0, sizeof *t);
    CHECK_OK(codex_client_turn_start(C, thread, prompt, NULL, 0, &turn));
    while (!t->completed) {
        codex_event_t *req = on_event(next(60, t), t, turn);
        if (req != NULL) {
            if (answer == NULL) FAIL("unexpected server request %s", codex_event_method(req));
            answer(req);
        }
    }
    codex_string_free(turn);
}

/* --- approval answered later from another thread ------------------------------------ */
typedef struct {
    codex_request_t *req;
    codex_status_t first, second;
    pthread_t self;
} responder_t;

static void *respond_later(void *arg) {
    responder_t *r = (responder_t *)arg;
    r->self = pthread_self();
    sleep_ms(100);
    r->first = codex_client_respond(C, r->req, "{\"decision\":\"accept\"}");
    r->second = codex_client_respond(C, r->req, "{\"decision\":\"decline\"}");
    codex_request_free(r->req);
    return NULL;
}

static void answer_from_thread(codex_event_t *ev) {
    responder_t r;
    pthread_t th;
    memset(&r, 0, sizeof r);
    CHECK(strcmp(codex_event_method(ev), "item/commandExecution/requestApproval") == 0);
    CHECK_OK(codex_event_take_request(ev, &r.req));
    CHECK(r.req != NULL);
    codex_event_free(ev); /* the taken request outlives its event */
    CHECK(codex_request_is_open(r.req));
    CHECK(strstr(codex_request_params(r.req), "touch") != NULL);
    CHECK(pthread_create(&th, NULL, respond_later, &r) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(!pthread_equal(r.self, pthread_self()));
    CHECK_STATUS(r.first, CODEX_STATUS_OK);
    CHECK_STATUS(r.second, CODEX_STATUS_ALREADY_RESPONDED);
}

static void answer_decline(codex_event_t *ev) {
    codex_request_t *req = codex_event_request(ev); /* borrowed: answered without taking */
    CHECK(req != NULL);
    CHECK_OK(codex_client_respond(C, req, "{\"decision\":\"decline\"}"));
    CHECK(!codex_request_is_open(req));
    codex_event_free(ev);
}

static void answer_by_freeing(codex_event_t *ev) {
    codex_event_free(ev); /* fail-closed: declined */
}

static void check_async_response(void) {
    uint64_t id = 0;
    int tag = 42;
    codex_event_t *ev;
    CHECK_STATUS(codex_client_request(C, "model/list", "{}", 0, (codex_callback_t)1, NULL, &id),
                 CODEX_STATUS_INVALID_STATE); /* callbacks not allowed in poll mode */
    CHECK(id == 0);
    CHECK_OK(codex_client_request(C, "model/list", NULL, 20000, NULL, &tag, &id));
    CHECK(id != 0);
    for (;;) {
        ev = next(30, NULL);
        if (codex_event_kind(ev) == CODEX_EVENT_RESPONSE) break;
        codex_event_free(ev);
    }
    CHECK(codex_event_request_id(ev) == id);
    CHECK(codex_event_userdata(ev) == &tag);
    CHECK_STATUS(codex_event_status(ev), CODEX_STATUS_OK);
    CHECK(strcmp(codex_event_method(ev), "model/list") == 0);
    CHECK(codex_event_result(ev) != NULL && strstr(codex_event_result(ev), "\"data\"") != NULL);
    codex_event_free(ev);
    /* An RPC error as a RESPONSE */
    CHECK_OK(codex_client_request(C, "no/such/method", "{}", 20000, NULL, NULL, &id));
    for (;;) {
        ev = next(30, NULL);
        if (codex_event_kind(ev) == CODEX_EVENT_RESPONSE) break;
        codex_event_free(ev);
    }
    CHECK_STATUS(codex_event_status(ev), CODEX_STATUS_RPC_ERROR);
    CHECK(codex_event_rpc_code(ev) == -32600);
    CHECK(codex_event_rpc_message(ev) != NULL);
    CHECK(codex_event_error_message(ev) != NULL);
    CHECK(codex_event_result(ev) == NULL);
    codex_event_free(ev);
}

typedef struct {
    codex_status_t status;
    int kind;
    double seconds;
} blocked_t;

/* next_event with no timeout, on a helper thread; events that still arrive are skipped. */
static void *blocked_next_event(void *arg) {
    blocked_t *b = (blocked_t *)arg;
    double t0 = now_s();
    for (;;) {
        codex_event_t *ev = NULL;
        b->status = codex_client_next_event(C, -1, &ev);
        if (b->status != CODEX_STATUS_OK) break;
        b->kind = (int)codex_event_kind(ev);
        codex_event_free(ev);
    }
    b->seconds = now_s() - t0;
    return NULL;
}

/* Drop whatever events are waiting right now. */
static void drain_now(void) {
    codex_event_t *ev = NULL;
    while (codex_client_next_event(C, 0, &ev) == CODEX_STATUS_OK) codex_event_free(ev);
}

static void noop_cb(void *u, codex_event_t *e) {
    (void)u;
    (void)e;
    FAIL("a callback ran in a poll-mode test");
}

int main(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_options_t *ocb = test_options(CODEX_DELIVERY_CALLBACKS);
    codex_client_t *cb = NULL;
    codex_event_t *ev = NULL;
    char *thread = NULL, *init = NULL;
    char marker[1024], prompt[2048];
    const char *text = "Poll mode streams this sentence in small pieces.";
    turn_t t;
    double t0 = now_s();
    int saw_disconnected = 0;
    codex_status_t st;

    WORK = env_or_die("CODEX_WORK");

    /* Mixing modes is an error, on both sides. */
    CHECK_OK(codex_client_new(ocb, &cb));
    codex_options_free(ocb);
    CHECK(codex_client_event_fd(cb) == -1);
    CHECK(codex_last_error_status() == CODEX_STATUS_INVALID_STATE);
    CHECK_STATUS(codex_client_next_event(cb, 0, &ev), CODEX_STATUS_INVALID_STATE);
    CHECK(ev == NULL);
    codex_client_free(cb);

    CHECK_OK(codex_client_new(o, &C));
    codex_options_free(o);
    CHECK_STATUS(codex_client_register_callback(C, CODEX_CALLBACK_NOTIFICATION, noop_cb, NULL),
                 CODEX_STATUS_INVALID_STATE);
    CHECK(strstr(codex_last_error_message(), "poll") != NULL);
    CHECK(codex_client_event_fd(C) >= 0);
    CHECK(codex_client_event_fd(C) == codex_client_event_fd(C));

    /* Before connect: nothing to pull, not a crash. */
    st = codex_client_next_event(C, 0, &ev);
    CHECK(st == CODEX_STATUS_NOT_CONNECTED || st == CODEX_STATUS_TIMEOUT);
    CHECK(ev == NULL);

    CHECK_OK(codex_client_connect(C, &init));
    CHECK(strstr(init, env_or_die("CODEX_VERSION")) != NULL);
    codex_string_free(init);

    check_async_response();

    CHECK_OK(codex_client_thread_start(C, NULL, 0, &thread));

    /* Streamed turn through poll(2) + next_event. */
    snprintf(prompt, sizeof prompt, "MOCK_TEXT: %s", text);
    run_turn(thread, prompt, &t, NULL);
    CHECK(turn_status_is(t.completed_params, "completed"));
    if (strcmp(t.text, text) != 0) FAIL("streamed '%s' != '%s'", t.text, text);
    CHECK(t.deltas > 3);
    CHECK(t.fd_wakeups > 0);

    /* Approval accepted later from another thread: the command ran. */
    snprintf(marker, sizeof marker, "%s/poll-accept.txt", WORK);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s && echo poll-ran", marker);
    run_turn(thread, prompt, &t, answer_from_thread);
    CHECK(t.requests_seen == 1);
    CHECK(turn_status_is(t.completed_params, "completed"));
    CHECK(file_exists(marker));
    if (strstr(t.text, "poll-ran") == NULL) FAIL("reply after accept: '%s'", t.text);

    /* Approval declined explicitly: the command did not run. */
    snprintf(marker, sizeof marker, "%s/poll-decline.txt", WORK);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s", marker);
    run_turn(thread, prompt, &t, answer_decline);
    CHECK(t.requests_seen == 1);
    CHECK(!file_exists(marker));

    /* Event freed unanswered: fail-closed, the command did not run. */
    snprintf(marker, sizeof marker, "%s/poll-dropped.txt", WORK);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s", marker);
    run_turn(thread, prompt, &t, answer_by_freeing);
    CHECK(t.requests_seen == 1);
    CHECK(!file_exists(marker));

    /* Disconnect while a helper thread is blocked in next_event(-1) (wait forever): it must
     * return, not hang. */
    {
        pthread_t th;
        blocked_t b;
        memset(&b, 0, sizeof b);
        drain_now();
        CHECK(pthread_create(&th, NULL, blocked_next_event, &b) == 0);
        sleep_ms(300);
        CHECK_OK(codex_client_disconnect(C));
        CHECK(pthread_join(th, NULL) == 0);
        CHECK(b.status == CODEX_STATUS_NOT_CONNECTED || b.status == CODEX_STATUS_DISCONNECTED);
        CHECK(b.seconds < 5.0);
    }
    for (;;) {
        ev = NULL;
        st = codex_client_next_event(C, 2000, &ev);
        if (st != CODEX_STATUS_OK) break;
        if (codex_event_kind(ev) == CODEX_EVENT_DISCONNECTED) saw_disconnected = 1;
        codex_event_free(ev);
    }
    CHECK(st == CODEX_STATUS_NOT_CONNECTED || st == CODEX_STATUS_DISCONNECTED);
    CHECK(ev == NULL);
    CHECK(!codex_client_is_connected(C));

    /* Reconnect works on the same client and fd. */
    CHECK_OK(codex_client_connect(C, NULL));
    CHECK(codex_client_is_connected(C));
    codex_string_free(thread);
    thread = NULL;
    CHECK_OK(codex_client_thread_start(C, NULL, 0, &thread));
    run_turn(thread, "MOCK_TEXT: again", &t, NULL);
    CHECK(strcmp(t.text, "again") == 0);

    codex_string_free(thread);
    codex_client_free(C); /* connected: free disconnects first */
    printf("test_poll: ok (disconnected event seen: %d; %.1f s)\n", saw_disconnected, now_s() - t0);
    return 0;
}
