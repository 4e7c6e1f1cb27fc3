/* Callbacks mode against the real Codex and the local mock model:
 * - every callback (notifications, server requests, connection events, async request
 *   completions) runs on ONE library-owned thread (recorded with pthread_self());
 * - a streamed turn's deltas add up to the scripted reply;
 * - a blocking call made from inside a callback completes;
 * - an approval taken in the callback and answered later from the main thread;
 * - no server-request handler: the approval is declined (the command never runs);
 * - interrupt and steer of a running turn; disconnect ends callbacks.
 */
#include "test_util.h"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t main_thread;
    pthread_t cb_thread;
    int cb_thread_set;
    int wrong_thread; /* callbacks seen on another thread */
    int callbacks;
    codex_client_t *client;
    /* current turn */
    char turn_id[128];
    char text[16384];
    size_t text_len;
    int deltas;
    int completed;
    char completed_params[4096];
    /* server requests */
    codex_request_t *request;
    char request_method[128];
    /* async responses */
    int responses;
    uint64_t response_id;
    codex_status_t response_status;
    char response_result[256];
    int64_t response_rpc_code;
    /* blocking call from inside a callback */
    int nested_call_done;
    codex_status_t nested_call_status;
    /* connection events */
    int connection_events;
} state_t;

static state_t S;

static void note_thread(void) {
    pthread_t me = pthread_self();
    pthread_mutex_lock(&S.mu);
    if (!S.cb_thread_set) {
        S.cb_thread = me;
        S.cb_thread_set = 1;
    } else if (!pthread_equal(me, S.cb_thread)) {
        S.wrong_thread++;
    }
    if (pthread_equal(me, S.main_thread)) S.wrong_thread++;
    S.callbacks++;
    pthread_mutex_unlock(&S.mu);
}

static void on_notification(void *userdata, codex_event_t *ev) {
    const char *method;
    note_thread();
    CHECK(userdata == &S);
    CHECK(codex_event_kind(ev) == CODEX_EVENT_NOTIFICATION);
    method = codex_event_method(ev);
    CHECK(method != NULL);
    CHECK(codex_event_params(ev) != NULL);
    if (strcmp(method, "turn/started") == 0 && !S.nested_call_done) {
        /* A blocking request from inside a callback must complete, not deadlock. */
        char *result = NULL;
        codex_status_t st = codex_client_call(S.client, "model/list", "{}", 20000, &result);
        CHECK(st != CODEX_STATUS_OK || (result != NULL && strstr(result, "\"data\"") != NULL));
        codex_string_free(result);
        pthread_mutex_lock(&S.mu);
        S.nested_call_done = 1;
        S.nested_call_status = st;
        pthread_mutex_unlock(&S.mu);
    }
    pthread_mutex_lock(&S.mu);
    if (strcmp(method, "item/agentMessage/delta") == 0) {
        size_t len = 0;
        const char *d = codex_event_delta(ev, &len);
        const char *turn = codex_event_turn_id(ev);
        CHECK(d != NULL && len == strlen(d));
        CHECK(codex_event_thread_id(ev) != NULL);
        if (turn != NULL && strcmp(turn, S.turn_id) == 0 && S.text_len + len < sizeof S.text) {
            memcpy(S.text + S.text_len, d, len);
            S.text_len += len;
            S.text[S.text_len] = '\0';
            S.deltas++;
        }
    } else if (strcmp(method, "turn/completed") == 0) {
        const char *p = codex_event_params(ev);
        snprintf(S.completed_params, sizeof S.completed_params, "%s", p);
        S.completed = 1;
    }
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
}

static void on_server_request(void *userdata, codex_event_t *ev) {
    codex_request_t *req = NULL;
    note_thread();
    CHECK(userdata == &S);
    CHECK(codex_event_kind(ev) == CODEX_EVENT_SERVER_REQUEST);
    CHECK(codex_event_request(ev) != NULL);
    /* Keep it: the main thread answers later. */
    CHECK_OK(codex_event_take_request(ev, &req));
    CHECK_STATUS(codex_event_take_request(ev, &req), CODEX_STATUS_INVALID_STATE);
    pthread_mutex_lock(&S.mu);
    S.request = codex_event_request(ev);
    snprintf(S.request_method, sizeof S.request_method, "%s", codex_request_method(S.request));
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
}

static void on_connection(void *userdata, codex_event_t *ev) {
    note_thread();
    CHECK(userdata == &S);
    pthread_mutex_lock(&S.mu);
    S.connection_events++;
    pthread_mutex_unlock(&S.mu);
    fprintf(stderr, "connection event %d: %s\n", (int)codex_event_kind(ev),
            codex_event_error_message(ev) ? codex_event_error_message(ev) : "");
}

static void on_response(void *userdata, codex_event_t *ev) {
    const char *r;
    note_thread();
    CHECK(userdata == &S.responses);
    CHECK(codex_event_kind(ev) == CODEX_EVENT_RESPONSE);
    CHECK(codex_event_userdata(ev) == userdata);
    pthread_mutex_lock(&S.mu);
    S.responses++;
    S.response_id = codex_event_request_id(ev);
    S.response_status = codex_event_status(ev);
    S.response_rpc_code = codex_event_rpc_code(ev);
    r = codex_event_result(ev);
    snprintf(S.response_result, sizeof S.response_result, "%s", r ? r : "");
    if (S.response_status != CODEX_STATUS_OK) CHECK(codex_event_error_message(ev) != NULL);
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
}

/* Wait (holding S.mu) until *flag becomes nonzero. */
static void wait_for(const int *flag, int seconds, const char *what) {
    struct timespec dl = deadline_in(seconds);
    while (!*flag) {
        if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) != 0 && !*flag) {
            pthread_mutex_unlock(&S.mu);
            FAIL("timed out waiting for %s", what);
        }
    }
}

static void begin_turn(const char *thread_id, const char *prompt) {
    char *turn = NULL;
    pthread_mutex_lock(&S.mu);
    S.text_len = 0;
    S.text[0] = '\0';
    S.deltas = 0;
    S.completed = 0;
    S.completed_params[0] = '\0';
    /* Hold the lock so no delta of this turn is filtered out before turn_id is set. */
    CHECK_OK(codex_client_turn_start(S.client, thread_id, prompt, NULL, 0, &turn));
    snprintf(S.turn_id, sizeof S.turn_id, "%s", turn);
    pthread_mutex_unlock(&S.mu);
    codex_string_free(turn);
}

static void async_request(const char *method, codex_status_t want) {
    uint64_t id = 0;
    pthread_mutex_lock(&S.mu);
    S.responses = 0;
    CHECK_OK(codex_client_request(S.client, method, "{}", 20000, on_response, &S.responses, &id));
    CHECK(id != 0);
    wait_for(&S.responses, 30, method);
    CHECK(S.responses == 1);
    CHECK(S.response_id == id);
    CHECK_STATUS(S.response_status, want);
    pthread_mutex_unlock(&S.mu);
}

int main(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_CALLBACKS);
    const char *work = env_or_die("CODEX_WORK");
    char *init = NULL, *thread = NULL;
    char marker[1024], prompt[2048];
    const char *fox = "The quick brown fox jumps over the lazy dog, streamed in pieces.";
    int callbacks_after;
    double t0 = now_s();

    memset(&S, 0, sizeof S);
    pthread_mutex_init(&S.mu, NULL);
    pthread_cond_init(&S.cv, NULL);
    S.main_thread = pthread_self();

    CHECK_OK(codex_client_new(o, &S.client));
    codex_options_free(o); /* the client copied its options */
    CHECK_OK(codex_client_register_callback(S.client, CODEX_CALLBACK_NOTIFICATION, on_notification, &S));
    CHECK_OK(codex_client_register_callback(S.client, CODEX_CALLBACK_SERVER_REQUEST, on_server_request, &S));
    CHECK_OK(codex_client_register_callback(S.client, CODEX_CALLBACK_CONNECTION, on_connection, &S));
    CHECK(!codex_client_is_connected(S.client));
    CHECK_OK(codex_client_connect(S.client, &init));
    CHECK(codex_client_is_connected(S.client));
    CHECK(init != NULL && strstr(init, env_or_die("CODEX_VERSION")) != NULL);
    CHECK(strstr(init, "codexclient-c-tests") != NULL);
    codex_string_free(init);

    /* Async requests: completion callbacks on the dispatch thread, success and RPC error. */
    async_request("model/list", CODEX_STATUS_OK);
    CHECK(strstr(S.response_result, "\"data\"") != NULL);
    async_request("no/such/method", CODEX_STATUS_RPC_ERROR);
    CHECK(S.response_rpc_code == -32600);

    CHECK_OK(codex_client_thread_start(S.client, NULL, 0, &thread));
    CHECK(thread != NULL && *thread != '\0');

    /* 1. A streamed turn; a blocking call runs inside the turn/started callback. */
    snprintf(prompt, sizeof prompt, "MOCK_TEXT: %s", fox);
    begin_turn(thread, prompt);
    pthread_mutex_lock(&S.mu);
    wait_for(&S.completed, 60, "turn 1 completion");
    CHECK(turn_status_is(S.completed_params, "completed"));
    if (strcmp(S.text, fox) != 0) FAIL("streamed text '%s' != '%s'", S.text, fox);
    CHECK(S.deltas > 3);
    CHECK(S.nested_call_done);
    CHECK_STATUS(S.nested_call_status, CODEX_STATUS_OK);
    pthread_mutex_unlock(&S.mu);

    /* 2. An approval, taken in the callback and accepted later from the main thread. */
    snprintf(marker, sizeof marker, "%s/ran-accept.txt", work);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s && echo ran-ok", marker);
    pthread_mutex_lock(&S.mu);
    S.request = NULL;
    pthread_mutex_unlock(&S.mu);
    begin_turn(thread, prompt);
    pthread_mutex_lock(&S.mu);
    {
        struct timespec dl = deadline_in(60);
        while (S.request == NULL)
            if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) != 0 && S.request == NULL) FAIL("no approval request");
    }
    CHECK(strcmp(S.request_method, "item/commandExecution/requestApproval") == 0);
    CHECK(codex_request_params(S.request) != NULL && strstr(codex_request_params(S.request), "touch") != NULL);
    CHECK(codex_request_thread_id(S.request) != NULL && strcmp(codex_request_thread_id(S.request), thread) == 0);
    CHECK(codex_request_id(S.request) != NULL);
    CHECK(codex_request_is_open(S.request));
    pthread_mutex_unlock(&S.mu);
    sleep_ms(50); /* answer "later", from another thread than the callback's */
    CHECK_OK(codex_client_respond(S.client, S.request, "{\"decision\":\"accept\"}"));
    CHECK_STATUS(codex_client_respond(S.client, S.request, "{\"decision\":\"accept\"}"),
                 CODEX_STATUS_ALREADY_RESPONDED);
    codex_request_free(S.request);
    pthread_mutex_lock(&S.mu);
    wait_for(&S.completed, 60, "turn 2 completion");
    CHECK(turn_status_is(S.completed_params, "completed"));
    if (strstr(S.text, "command output") == NULL || strstr(S.text, "ran-ok") == NULL)
        FAIL("unexpected reply after accept: '%s'", S.text);
    pthread_mutex_unlock(&S.mu);
    CHECK(file_exists(marker));

    /* 3. No server-request handler: the approval is declined, the command never runs. */
    CHECK_OK(codex_client_register_callback(S.client, CODEX_CALLBACK_SERVER_REQUEST, NULL, NULL));
    snprintf(marker, sizeof marker, "%s/ran-nohandler.txt", work);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s", marker);
    begin_turn(thread, prompt);
    pthread_mutex_lock(&S.mu);
    wait_for(&S.completed, 60, "turn 3 completion");
    pthread_mutex_unlock(&S.mu);
    CHECK(!file_exists(marker));

    /* 4. Interrupt a slow turn after its first delta. */
    begin_turn(thread, "MOCK_SLOW: 40 200");
    pthread_mutex_lock(&S.mu);
    {
        struct timespec dl = deadline_in(60);
        while (S.deltas == 0)
            if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) != 0 && S.deltas == 0) FAIL("no delta of the slow turn");
    }
    pthread_mutex_unlock(&S.mu);
    CHECK_OK(codex_client_turn_interrupt(S.client, thread, S.turn_id, 0));
    pthread_mutex_lock(&S.mu);
    wait_for(&S.completed, 60, "interrupted turn completion");
    if (!turn_status_is(S.completed_params, "interrupted")) FAIL("not interrupted: %s", S.completed_params);
    CHECK(strstr(S.text, "tick 39") == NULL);
    pthread_mutex_unlock(&S.mu);

    /* 5. Steer a running turn: the steered input is answered within the same turn. */
    begin_turn(thread, "MOCK_SLOW: 8 150");
    pthread_mutex_lock(&S.mu);
    {
        struct timespec dl = deadline_in(60);
        while (S.deltas == 0)
            if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) != 0 && S.deltas == 0) FAIL("no delta of the steered turn");
    }
    pthread_mutex_unlock(&S.mu);
    CHECK_OK(codex_client_turn_steer(S.client, thread, S.turn_id, "MOCK_TEXT: steered-reply", 0));
    CHECK_STATUS(codex_client_turn_steer(S.client, thread, "not-a-turn", "x", 0), CODEX_STATUS_RPC_ERROR);
    CHECK(codex_last_error_rpc_code() != 0);
    pthread_mutex_lock(&S.mu);
    wait_for(&S.completed, 60, "steered turn completion");
    CHECK(turn_status_is(S.completed_params, "completed"));
    if (strstr(S.text, "steered-reply") == NULL) FAIL("steer not answered in the turn: '%s'", S.text);
    pthread_mutex_unlock(&S.mu);

    /* Disconnect: no callback afterwards; a second disconnect is an error code. */
    CHECK_OK(codex_client_disconnect(S.client));
    CHECK(!codex_client_is_connected(S.client));
    pthread_mutex_lock(&S.mu);
    callbacks_after = S.callbacks;
    pthread_mutex_unlock(&S.mu);
    sleep_ms(200);
    pthread_mutex_lock(&S.mu);
    CHECK(S.callbacks == callbacks_after);
    CHECK(S.wrong_thread == 0);
    CHECK(S.cb_thread_set && !pthread_equal(S.cb_thread, S.main_thread));
    pthread_mutex_unlock(&S.mu);
    CHECK_STATUS(codex_client_disconnect(S.client), CODEX_STATUS_NOT_CONNECTED);

    codex_string_free(thread);
    codex_client_free(S.client);
    pthread_cond_destroy(&S.cv);
    pthread_mutex_destroy(&S.mu);
    printf("test_callbacks: ok (%d callbacks, all on one library thread; %.1f s)\n", callbacks_after,
           now_s() - t0);
    return 0;
}
