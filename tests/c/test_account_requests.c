/* account/rateLimits/updated received as its notification event, and the server requests
 * item/permissions/requestApproval and attestation/generate answered by the program's
 * SERVER_REQUEST callback:
 * - the fake app-server ($FAKE_APP_SERVER) in mode rate-limits sends a full
 *   RateLimitSnapshot; its modes permissions and attestation answer test/requestPermissions
 *   and test/attest with what the callback's answer held (checked against the vendored
 *   schema), and without a callback with the fail-closed answer (nothing granted; a JSON-RPC
 *   error for the attestation);
 * - the real Codex (CODEX_BIN) sends account/rateLimits/updated after a model reply with
 *   rate-limit headers (the mock model's MOCK_RATE_LIMITS).
 */
#include "test_util.h"
#include "json_scan.h"

/* The value at JSON pointer `ptr` of `json` equals the JSON value `want` (a scalar). */
#define CHECK_AT(json, ptr, want)                                                              \
    do {                                                                                       \
        const char *v_ = js_pointer((json), (ptr));                                            \
        if (v_ == NULL || !js_eq(v_, (want)))                                                  \
            FAIL("%s at %s is %.200s, expected %s in: %.3000s", #json, ptr, v_ ? v_ : "(absent)", \
                 want, json);                                                                  \
    } while (0)

/* Options for the fake app-server in `modes` (free with codex_options_free). */
static codex_options_t *fake_options(const char *modes) {
    char env[128];
    codex_options_t *o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    snprintf(env, sizeof env, "FAKE_MODE=%s", modes);
    CHECK_OK(codex_options_add_env(o, env));
    CHECK_OK(codex_options_set_delivery(o, CODEX_DELIVERY_CALLBACKS));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 20000));
    return o;
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    codex_client_t *client;
    /* notifications */
    int rate_limits_seen;
    int rate_limits_thread_id_null;
    char rate_limits[4096];
    /* server requests */
    int requests;
    char request_method[128];
    char request_params[4096];
    codex_status_t respond_status;
} state_t;

static state_t S;

static void on_notification(void *userdata, codex_event_t *ev) {
    (void)userdata;
    if (codex_event_kind(ev) != CODEX_EVENT_NOTIFICATION) return;
    if (strcmp(codex_event_method(ev), "account/rateLimits/updated") != 0) return;
    pthread_mutex_lock(&S.mu);
    snprintf(S.rate_limits, sizeof S.rate_limits, "%s", codex_event_params(ev));
    S.rate_limits_thread_id_null = codex_event_thread_id(ev) == NULL;
    S.rate_limits_seen++;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
}

#define ATTESTATION_TOKEN "att.v1.eyJkZXZpY2UiOiJ0ZXN0In0.c2ln"

/* Grants the folder asked for (not the network) for the session; answers an attestation with
 * ATTESTATION_TOKEN. */
static void on_request(void *userdata, codex_event_t *ev) {
    const char *method = codex_event_method(ev);
    const char *answer = NULL;
    codex_status_t st = CODEX_STATUS_INVALID_STATE;
    (void)userdata;
    if (strcmp(method, "item/permissions/requestApproval") == 0)
        answer = "{\"permissions\":{\"fileSystem\":{\"write\":[\"/tmp/proj/out\"]},\"network\":{\"enabled\":false}},"
                 "\"scope\":\"session\",\"strictAutoReview\":true}";
    else if (strcmp(method, "attestation/generate") == 0)
        answer = "{\"token\":\"" ATTESTATION_TOKEN "\"}";
    if (answer != NULL) st = codex_client_respond(S.client, codex_event_request(ev), answer);
    pthread_mutex_lock(&S.mu);
    snprintf(S.request_method, sizeof S.request_method, "%s", method);
    snprintf(S.request_params, sizeof S.request_params, "%s", codex_event_params(ev));
    S.respond_status = st;
    S.requests++;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
}

static codex_client_t *fake_client(const char *modes, int handlers) {
    codex_options_t *o = fake_options(modes);
    codex_client_t *c = NULL;
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    S.client = c;
    if (handlers) {
        CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_NOTIFICATION, on_notification, NULL));
        CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_SERVER_REQUEST, on_request, NULL));
    }
    CHECK_OK(codex_client_connect(c, NULL));
    return c;
}

static void reset_state(void) {
    pthread_mutex_lock(&S.mu);
    S.rate_limits_seen = 0;
    S.rate_limits[0] = '\0';
    S.requests = 0;
    S.request_method[0] = S.request_params[0] = '\0';
    S.respond_status = CODEX_STATUS_INVALID_STATE;
    pthread_mutex_unlock(&S.mu);
}

static void rate_limits_from_the_fake(void) {
    codex_client_t *c;
    struct timespec dl;
    reset_state();
    c = fake_client("rate-limits", 1);
    CHECK_OK(codex_client_call(c, "test/rateLimitsUpdated", "{}", 0, NULL));
    dl = deadline_in(10);
    pthread_mutex_lock(&S.mu);
    while (S.rate_limits_seen == 0)
        if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) != 0 && S.rate_limits_seen == 0)
            FAIL("no account/rateLimits/updated notification within 10 s");
    pthread_mutex_unlock(&S.mu);
    CHECK(S.rate_limits_thread_id_null); /* not a thread's notification */
    CHECK_AT(S.rate_limits, "/rateLimits/limitId", "\"codex\"");
    CHECK_AT(S.rate_limits, "/rateLimits/limitName", "\"Codex\"");
    CHECK_AT(S.rate_limits, "/rateLimits/planType", "\"pro\"");
    CHECK_AT(S.rate_limits, "/rateLimits/primary/usedPercent", "87");
    CHECK_AT(S.rate_limits, "/rateLimits/primary/windowDurationMins", "300");
    CHECK_AT(S.rate_limits, "/rateLimits/primary/resetsAt", "1900000300");
    CHECK_AT(S.rate_limits, "/rateLimits/secondary/usedPercent", "12");
    CHECK_AT(S.rate_limits, "/rateLimits/secondary/windowDurationMins", "10080");
    CHECK_AT(S.rate_limits, "/rateLimits/credits/hasCredits", "true");
    CHECK_AT(S.rate_limits, "/rateLimits/credits/balance", "\"12.50\"");
    CHECK_AT(S.rate_limits, "/rateLimits/spendControlReached", "false");
    codex_client_free(c);
}

static void wait_requests(int n) {
    struct timespec dl = deadline_in(10);
    pthread_mutex_lock(&S.mu);
    while (S.requests < n)
        if (pthread_cond_timedwait(&S.cv, &S.mu, &dl) != 0 && S.requests < n)
            FAIL("server request %d never reached the callback", n);
    pthread_mutex_unlock(&S.mu);
}

static void permissions_answered_by_the_callback(void) {
    codex_client_t *c;
    char *r = NULL;
    reset_state();
    c = fake_client("permissions", 1);
    /* the fake answers once it has the callback's answer */
    CHECK_OK(codex_client_call(c, "test/requestPermissions", "{}", 0, &r));
    wait_requests(1);
    CHECK(strcmp(S.request_method, "item/permissions/requestApproval") == 0);
    CHECK_OK(S.respond_status);
    CHECK_AT(r, "/granted/permissions/fileSystem/write/0", "\"/tmp/proj/out\"");
    CHECK_AT(r, "/granted/permissions/network/enabled", "false");
    CHECK_AT(r, "/granted/scope", "\"session\"");
    CHECK_AT(r, "/granted/strictAutoReview", "true");
    codex_string_free(r);
    /* the callback saw the request's params */
    CHECK_AT(S.request_params, "/threadId", "\"thr_fake_1\"");
    CHECK_AT(S.request_params, "/itemId", "\"item_perm_1\"");
    CHECK_AT(S.request_params, "/cwd", "\"/tmp/proj\"");
    CHECK_AT(S.request_params, "/startedAtMs", "1900000000000");
    CHECK_AT(S.request_params, "/permissions/network/enabled", "true");
    CHECK_AT(S.request_params, "/permissions/fileSystem/entries/0/access", "\"write\"");
    CHECK_AT(S.request_params, "/permissions/fileSystem/entries/0/path/path", "\"/tmp/proj/out\"");
    codex_client_free(c);

    /* no SERVER_REQUEST callback: the fail-closed answer grants nothing */
    c = fake_client("permissions", 0);
    CHECK_OK(codex_client_call(c, "test/requestPermissions", "{}", 0, &r));
    CHECK_AT(r, "/granted/scope", "\"turn\"");
    CHECK_HAS(r, "\"permissions\":{}");
    codex_string_free(r);
    codex_client_free(c);
}

static void attestation_answered_by_the_callback(void) {
    codex_client_t *c;
    char *r = NULL;
    reset_state();
    c = fake_client("attestation", 1);
    CHECK_OK(codex_client_call(c, "test/attest", "{}", 0, &r));
    wait_requests(1);
    CHECK(strcmp(S.request_method, "attestation/generate") == 0);
    CHECK_OK(S.respond_status);
    CHECK(strcmp(S.request_params, "{}") == 0);
    CHECK_AT(r, "/token", "\"" ATTESTATION_TOKEN "\"");
    codex_string_free(r);
    codex_client_free(c);

    /* no SERVER_REQUEST callback: refused with a JSON-RPC error, never answered empty */
    c = fake_client("attestation", 0);
    CHECK_STATUS(codex_client_call(c, "test/attest", "{}", 0, &r), CODEX_STATUS_RPC_ERROR);
    CHECK(r == NULL);
    CHECK_HAS(codex_last_error_message(), "attestation refused");
    codex_client_free(c);
}

/* The real Codex: a turn whose model reply carries rate-limit headers. */
static void rate_limits_from_real_codex(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    char *thread = NULL, *turn = NULL, *limits = NULL, *completed = NULL;
    double end;
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    CHECK_OK(codex_client_turn_start(c, thread, "MOCK_RATE_LIMITS: 87 12", NULL, 0, &turn));
    end = now_s() + 60;
    while (completed == NULL) {
        codex_event_t *ev = NULL;
        codex_status_t st;
        if (now_s() > end) FAIL("turn %s did not complete in 60 s", turn);
        st = codex_client_next_event(c, 1000, &ev);
        if (st == CODEX_STATUS_TIMEOUT) continue;
        CHECK_OK(st);
        if (codex_event_kind(ev) == CODEX_EVENT_NOTIFICATION) {
            const char *m = codex_event_method(ev);
            if (strcmp(m, "account/rateLimits/updated") == 0 && limits == NULL) {
                limits = strdup(codex_event_params(ev));
            } else if (strcmp(m, "turn/completed") == 0 && codex_event_thread_id(ev) != NULL &&
                       strcmp(codex_event_thread_id(ev), thread) == 0) {
                completed = strdup(codex_event_params(ev));
            }
        } else if (codex_event_kind(ev) == CODEX_EVENT_SERVER_REQUEST) {
            FAIL("unexpected server request %s", codex_event_method(ev));
        }
        codex_event_free(ev);
    }
    if (!turn_status_is(completed, "completed")) FAIL("the turn did not complete: %s", completed);
    if (limits == NULL) FAIL("no account/rateLimits/updated during the turn (turn/completed: %s)", completed);
    CHECK_AT(limits, "/rateLimits/limitId", "\"codex\"");
    CHECK_AT(limits, "/rateLimits/primary/usedPercent", "87");
    CHECK_AT(limits, "/rateLimits/primary/windowDurationMins", "300");
    CHECK_AT(limits, "/rateLimits/primary/resetsAt", "1900000000");
    CHECK_AT(limits, "/rateLimits/secondary/usedPercent", "12");
    CHECK_AT(limits, "/rateLimits/secondary/windowDurationMins", "10080");
    CHECK_AT(limits, "/rateLimits/secondary/resetsAt", "1900500000");
    free(limits);
    free(completed);
    codex_string_free(turn);
    codex_string_free(thread);
    codex_client_free(c);
}

int main(void) {
    pthread_mutex_init(&S.mu, NULL);
    pthread_cond_init(&S.cv, NULL);
    rate_limits_from_the_fake();
    permissions_answered_by_the_callback();
    attestation_answered_by_the_callback();
    rate_limits_from_real_codex();
    pthread_cond_destroy(&S.cv);
    pthread_mutex_destroy(&S.mu);
    printf("test_account_requests: ok\n");
    return 0;
}
