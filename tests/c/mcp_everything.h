/* The everything-server exercise shared by test_mcp.c (stdio) and test_mcp_http.c (Streamable
 * HTTP, legacy HTTP+SSE): one client in callbacks mode, every step synchronised on its events
 * (condition variable, bounded waits), never on sleeps. C99.
 *
 * mcp_exercise(o, label): connect with the options `o` (transport chosen by the caller), then
 * - initialize result: protocolVersion 2025-11-25, serverInfo, capabilities;
 * - tools/list has echo and the trigger tools; tools/call echo -> "Echo: hi" (method and params
 *   from codex_mcp_method_name / codex_mcp_params);
 * - progress: an async tools/call of trigger-long-running-operation with
 *   _meta.progressToken "t1": progress 1/3, 2/3, 3/3 arrive as notifications, in order, and
 *   the completion carries the result;
 * - sampling (trigger-sampling-request) answered by the SERVER_REQUEST callback;
 * - elicitation (trigger-elicitation-request) accepted with only "name": the schema's defaults
 *   are filled in by the library ("It was a dark and stormy night.");
 * - roots (get-roots-list): the root of codex_options_add_mcp_root, answered by the library
 *   (the callback never sees roots/list);
 * - resources/list + resources/read, prompts/list + prompts/get;
 * - logging/setLevel debug + toggle-simulated-logging: a notifications/message arrives;
 * - codex_client_cancel_request on a running long call (after its first progress):
 *   CODEX_STATUS_CANCELLED, a second cancel is INVALID_STATE, ping still answers;
 * - a per-request timeout on a long call: CODEX_STATUS_TIMEOUT, ping still answers;
 * - fail-closed: a callback that returns without answering, then no callback at all: the
 *   elicitation is declined and sampling fails, with no hang.
 */
#ifndef CODEXCLIENT_MCP_EVERYTHING_H
#define CODEXCLIENT_MCP_EVERYTHING_H

#include "test_util.h"

#include "mcp_util.h"

/* Bound of every wait, in seconds (valgrind runs the library about 20 times slower). */
#define MCP_WAIT_S 60

#define MCP_ROOT "file:///work/project-c"
#define MCP_SAMPLING_ANSWER                                                                  \
    "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"sampled by the C test\"}," \
    "\"model\":\"c-test-model\",\"stopReason\":\"endTurn\"}"
#define MCP_LONG_CALL(token)                                                                 \
    "{\"name\":\"trigger-long-running-operation\",\"arguments\":{\"duration\":30,\"steps\":60}," \
    "\"_meta\":{\"progressToken\":\"" token "\"}}"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int progress_n; /* notifications/progress of token "t1" */
    double progress[8];
    double total[8];
    int long_progress_n; /* ... of token "c1" (the call that is cancelled) */
    int log_messages;    /* notifications/message */
    int answer;          /* the SERVER_REQUEST callback answers (1) or returns without (0) */
    int sampling_n, elicitation_n, roots_n;
} mcp_state_t;

static mcp_state_t MS = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}, {0}, 0, 0, 1, 0, 0, 0};

/* The completion of one codex_client_request. */
typedef struct {
    int done;
    codex_status_t status;
    char *result;         /* a copy of the result JSON (free()), or NULL */
    int progress_at_done; /* MS.progress_n when the completion callback ran */
} mcp_resp_t;

/* Wait until `cond` holds (evaluated with MS.mu held), at most MCP_WAIT_S seconds. */
#define MCP_WAIT(cond, what)                                                                 \
    do {                                                                                     \
        struct timespec dl_ = deadline_in(MCP_WAIT_S);                                       \
        int timed_out_ = 0;                                                                  \
        pthread_mutex_lock(&MS.mu);                                                          \
        while (!(cond) && !timed_out_)                                                       \
            timed_out_ = pthread_cond_timedwait(&MS.cv, &MS.mu, &dl_) == ETIMEDOUT && !(cond); \
        pthread_mutex_unlock(&MS.mu);                                                        \
        if (timed_out_) FAIL("no %s within %d s", what, MCP_WAIT_S);                         \
    } while (0)

static inline void mcp_reset(void) {
    pthread_mutex_lock(&MS.mu);
    MS.progress_n = MS.long_progress_n = MS.log_messages = 0;
    MS.sampling_n = MS.elicitation_n = MS.roots_n = 0;
    MS.answer = 1;
    pthread_mutex_unlock(&MS.mu);
}

/* The number after "key": in compact JSON text (-1 when absent). */
static inline double json_num(const char *json, const char *key) {
    char needle[64];
    const char *p;
    snprintf(needle, sizeof needle, "\"%s\":", key);
    p = strstr(json, needle);
    return p != NULL ? strtod(p + strlen(needle), NULL) : -1;
}

static void mcp_on_notification(void *userdata, codex_event_t *ev) {
    const char *m = codex_event_method(ev), *p = codex_event_params(ev);
    (void)userdata;
    pthread_mutex_lock(&MS.mu);
    if (strcmp(m, "notifications/progress") == 0) {
        if (strstr(p, "\"progressToken\":\"t1\"") != NULL && MS.progress_n < 8) {
            MS.progress[MS.progress_n] = json_num(p, "progress");
            MS.total[MS.progress_n] = json_num(p, "total");
            MS.progress_n++;
        } else if (strstr(p, "\"progressToken\":\"c1\"") != NULL) {
            MS.long_progress_n++;
        }
    } else if (strcmp(m, "notifications/message") == 0) {
        MS.log_messages++;
    }
    pthread_cond_broadcast(&MS.cv);
    pthread_mutex_unlock(&MS.mu);
}

/* SERVER_REQUEST callback (userdata: the client): answers sampling, accepts an elicitation
 * with only "name", answers roots/list with another root (it must never be asked: the library
 * answers the configured roots). With MS.answer 0 it returns without answering. */
static void mcp_on_request(void *userdata, codex_event_t *ev) {
    codex_client_t *c = (codex_client_t *)userdata;
    codex_request_t *r = codex_event_request(ev);
    const char *m = codex_event_method(ev);
    int answer;
    pthread_mutex_lock(&MS.mu);
    answer = MS.answer;
    if (strcmp(m, "sampling/createMessage") == 0) MS.sampling_n++;
    if (strcmp(m, "elicitation/create") == 0) MS.elicitation_n++;
    if (strcmp(m, "roots/list") == 0) MS.roots_n++;
    pthread_cond_broadcast(&MS.cv);
    pthread_mutex_unlock(&MS.mu);
    if (!answer) return; /* answered fail-closed when this returns */
    if (strcmp(m, "sampling/createMessage") == 0) {
        CHECK_HAS(codex_event_params(ev), "\"maxTokens\"");
        CHECK_OK(codex_client_respond(c, r, MCP_SAMPLING_ANSWER));
    } else if (strcmp(m, "elicitation/create") == 0) {
        CHECK_HAS(codex_event_params(ev), "\"requestedSchema\"");
        CHECK_OK(codex_client_respond(c, r, "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"));
    } else if (strcmp(m, "roots/list") == 0) {
        CHECK_OK(codex_client_respond(c, r, "{\"roots\":[{\"uri\":\"file:///from-the-callback\"}]}"));
    }
}

static void mcp_on_response(void *userdata, codex_event_t *ev) {
    mcp_resp_t *r = (mcp_resp_t *)userdata;
    const char *res = codex_event_result(ev);
    pthread_mutex_lock(&MS.mu);
    r->status = codex_event_status(ev);
    r->result = res != NULL ? strdup(res) : NULL;
    r->progress_at_done = MS.progress_n;
    r->done = 1;
    pthread_cond_broadcast(&MS.cv);
    pthread_mutex_unlock(&MS.mu);
}

/* A blocking request that must succeed; its result (codex_string_free). */
static inline char *mcp_call(codex_client_t *c, const char *method, const char *params) {
    char *r = NULL;
    codex_status_t s = codex_client_call(c, method, params, 0, &r);
    if (s != CODEX_STATUS_OK)
        FAIL("%s %s: %s (%s)", method, params ? params : "", codex_status_name((int)s), codex_last_error_message());
    return r;
}

/* The same for an MCP request named in snake_case, its method and params from the library. */
static inline char *mcp_named(codex_client_t *c, const char *request, const char *subject, const char *args) {
    const char *method = codex_mcp_method_name(request);
    char *params = NULL, *r;
    CHECK(method != NULL);
    CHECK_OK(codex_mcp_params(request, subject, args, &params));
    r = mcp_call(c, method, params);
    codex_string_free(params);
    return r;
}

/* Send a request (async); its completion goes to `r`. */
static inline uint64_t mcp_start(codex_client_t *c, const char *method, const char *params, uint64_t timeout_ms,
                                 mcp_resp_t *r) {
    uint64_t id = 0;
    memset(r, 0, sizeof *r);
    CHECK_OK(codex_client_request(c, method, params, timeout_ms, mcp_on_response, r, &id));
    CHECK(id != 0);
    return id;
}

/* Copy the first "uri":"..." of `json` into `out`. */
static inline void first_uri(const char *json, char *out, size_t size) {
    const char *p = strstr(json, "\"uri\":\""), *end;
    if (p == NULL) FAIL("no uri in %.2000s", json);
    p += strlen("\"uri\":\"");
    end = strchr(p, '"');
    if (end == NULL || (size_t)(end - p) >= size) FAIL("bad uri in %.2000s", json);
    memcpy(out, p, (size_t)(end - p));
    out[end - p] = '\0';
}

static inline void mcp_exercise(codex_options_t *o, const char *label) {
    static const char *const tools[] = {"echo", "trigger-long-running-operation", "trigger-sampling-request",
                                        "trigger-elicitation-request", "get-roots-list"};
    codex_client_t *c = NULL;
    char *init = NULL, *r = NULL;
    char uri[512], needle[600];
    mcp_resp_t resp;
    uint64_t id;
    codex_status_t s;
    size_t i;
    double t0 = now_s();

    mcp_reset();
    CHECK_OK(codex_options_add_mcp_root(o, MCP_ROOT, "project"));
    CHECK_OK(codex_options_set_default_timeout_ms(o, MCP_WAIT_S * 1000));
    CHECK_OK(codex_client_new(o, &c));
    CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_NOTIFICATION, mcp_on_notification, NULL));
    CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_SERVER_REQUEST, mcp_on_request, c));
    CHECK_OK(codex_client_connect(c, &init));
    CHECK_HAS(init, "\"protocolVersion\":\"2025-11-25\"");
    CHECK_HAS(init, "\"serverInfo\":{");
    CHECK_HAS(init, "mcp-servers/everything");
    CHECK_HAS(init, "\"capabilities\":{");
    codex_string_free(init);

    /* Tools. */
    r = mcp_named(c, "list_tools", NULL, NULL);
    for (i = 0; i < sizeof tools / sizeof *tools; i++) {
        snprintf(needle, sizeof needle, "\"name\":\"%s\"", tools[i]);
        CHECK_HAS(r, needle);
    }
    codex_string_free(r);
    r = mcp_named(c, "call_tool", "echo", "{\"message\":\"hi\"}");
    CHECK_HAS(r, "Echo: hi");
    codex_string_free(r);
    printf("  %s: initialize 2025-11-25, tools/list, tools/call echo\n", label);

    /* Progress: three notifications of token t1, in order, and the result. */
    mcp_start(c, "tools/call",
              "{\"name\":\"trigger-long-running-operation\",\"arguments\":{\"duration\":0.3,\"steps\":3},"
              "\"_meta\":{\"progressToken\":\"t1\"}}",
              0, &resp);
    MCP_WAIT(resp.done && MS.progress_n >= 3, "answer and 3 progress notifications of the long operation");
    CHECK_STATUS(resp.status, CODEX_STATUS_OK);
    CHECK_HAS(resp.result, "Long running operation completed");
    pthread_mutex_lock(&MS.mu);
    for (i = 0; i < 3; i++)
        if (MS.progress[i] != (double)(i + 1) || MS.total[i] != 3.0)
            FAIL("progress %d: %g of %g", (int)i, MS.progress[i], MS.total[i]);
    CHECK(MS.progress_n == 3);
    pthread_mutex_unlock(&MS.mu);
    printf("  %s: progress 1/3 2/3 3/3 (%d delivered before the completion callback)\n", label,
           resp.progress_at_done);
    free(resp.result);

    /* Server requests: sampling and elicitation through the callback, roots by the library. */
    r = mcp_named(c, "call_tool", "trigger-sampling-request", "{\"prompt\":\"colours\"}");
    CHECK_HAS(r, "sampled by the C test");
    codex_string_free(r);
    r = mcp_named(c, "call_tool", "trigger-elicitation-request", "{}");
    CHECK_HAS(r, "Name: Ada");
    CHECK_HAS(r, "It was a dark and stormy night."); /* the schema default, filled in */
    codex_string_free(r);
    r = mcp_named(c, "call_tool", "get-roots-list", "{}");
    CHECK_HAS(r, MCP_ROOT);
    codex_string_free(r);
    pthread_mutex_lock(&MS.mu);
    CHECK(MS.sampling_n == 1 && MS.elicitation_n == 1 && MS.roots_n == 0);
    pthread_mutex_unlock(&MS.mu);
    printf("  %s: sampling answered, elicitation defaults filled, roots answered by the library\n", label);

    /* Resources and prompts. */
    r = mcp_named(c, "list_resources", NULL, NULL);
    first_uri(r, uri, sizeof uri);
    codex_string_free(r);
    r = mcp_named(c, "read_resource", uri, NULL);
    snprintf(needle, sizeof needle, "\"uri\":\"%s\"", uri);
    CHECK_HAS(r, needle);
    codex_string_free(r);
    r = mcp_named(c, "list_prompts", NULL, NULL);
    CHECK_HAS(r, "\"name\":\"simple-prompt\"");
    codex_string_free(r);
    r = mcp_named(c, "get_prompt", "args-prompt", "{\"city\":\"Paris\"}");
    CHECK_HAS(r, "Paris");
    codex_string_free(r);

    /* Logging: the server's records arrive as notifications/message. */
    codex_string_free(mcp_named(c, "set_logging_level", "debug", NULL));
    codex_string_free(mcp_named(c, "call_tool", "toggle-simulated-logging", "{}"));
    MCP_WAIT(MS.log_messages >= 1, "notifications/message after toggle-simulated-logging");
    codex_string_free(mcp_named(c, "call_tool", "toggle-simulated-logging", "{}"));
    printf("  %s: resources/read %s, prompts/get, logging\n", label, uri);

    /* Cancellation of a running call; the connection goes on. */
    id = mcp_start(c, "tools/call", MCP_LONG_CALL("c1"), 0, &resp);
    MCP_WAIT(MS.long_progress_n >= 1, "first progress of the call to cancel");
    CHECK_OK(codex_client_cancel_request(c, id));
    MCP_WAIT(resp.done, "completion of the cancelled call");
    CHECK_STATUS(resp.status, CODEX_STATUS_CANCELLED);
    CHECK(resp.result == NULL);
    CHECK_STATUS(codex_client_cancel_request(c, id), CODEX_STATUS_INVALID_STATE);
    codex_string_free(mcp_named(c, "ping", NULL, NULL));

    /* A per-request timeout on a long call; the connection goes on. */
    r = NULL;
    s = codex_client_call(c, "tools/call",
                          "{\"name\":\"trigger-long-running-operation\",\"arguments\":{\"duration\":30,\"steps\":1}}", 300,
                          &r);
    CHECK_STATUS(s, CODEX_STATUS_TIMEOUT);
    CHECK(r == NULL);
    codex_string_free(mcp_named(c, "ping", NULL, NULL));
    printf("  %s: cancel -> CANCELLED, timeout -> TIMEOUT, ping answers after both\n", label);

    /* Fail-closed: a callback that returns without answering, then no callback. */
    pthread_mutex_lock(&MS.mu);
    MS.answer = 0;
    pthread_mutex_unlock(&MS.mu);
    r = mcp_named(c, "call_tool", "trigger-elicitation-request", "{}");
    CHECK_HAS(r, "declined");
    codex_string_free(r);
    CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_SERVER_REQUEST, NULL, NULL));
    r = mcp_named(c, "call_tool", "trigger-elicitation-request", "{}");
    CHECK_HAS(r, "declined");
    codex_string_free(r);
    r = NULL;
    s = codex_client_call(c, "tools/call", "{\"name\":\"trigger-sampling-request\",\"arguments\":{\"prompt\":\"x\"}}", 0,
                          &r);
    if (s == CODEX_STATUS_OK)
        CHECK_HAS(r, "\"isError\":true");
    else
        CHECK_STATUS(s, CODEX_STATUS_RPC_ERROR);
    codex_string_free(r);
    pthread_mutex_lock(&MS.mu);
    CHECK(MS.elicitation_n == 2 && MS.sampling_n == 1);
    pthread_mutex_unlock(&MS.mu);
    printf("  %s: unanswered elicitation declined, sampling refused (fail-closed)\n", label);

    CHECK_OK(codex_client_disconnect(c));
    CHECK_STATUS(codex_client_cancel_request(c, id), CODEX_STATUS_NOT_CONNECTED);
    codex_client_free(c);
    printf("  %s: done in %.1f s\n", label, now_s() - t0);
}

#endif
