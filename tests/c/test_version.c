/* Version awareness and the smoke set through the C API (ABI 1.10), against the real Codex
 * CODEX_VERSION (scripts/test-c.sh runs it on CODEX_DEFAULT, then on each CODEX_SMOKE version)
 * and the mock model:
 * - handshake: the user agent and codex_client_server_version name CODEX_VERSION, inside the
 *   window, matching it; codex_client_supports answers from the window's method table;
 * - thread/search/stream: on a version that lacks it (0.163.0) the call fails at once with
 *   CODEX_STATUS_UNSUPPORTED_BY_VERSION naming the method and the version, and the connection
 *   goes on; on one that has it the call reaches the server;
 * - a streamed turn with a command approval (accepted: the command runs); every event is a
 *   notification or server request of that version's vendored schema with the members it
 *   requires, every thread item one of its ThreadItem variants with its required members, and
 *   the library's accessors (thread, turn, delta, the request's thread and turn) decode it
 *   (schema_check.h; see approval_turn);
 * - the thread resumed by a new server process; API-key login stored in CODEX_HOME/auth.json.
 * The outside-window event (CODEX_EVENT_OUTSIDE_WINDOW) is checked with the real Codex 0.92.0
 * when CODEX_092_BIN is set (only on the default run).
 */
#include "schema_check.h"

#define SEARCH "thread/search/stream"

static codex_client_t *connect_poll(const char *bin) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    if (bin != NULL) CHECK_OK(codex_options_set_codex_bin(o, bin));
    CHECK_OK(codex_options_set_experimental_api(o, true));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    return c;
}

static void handshake_and_supports(codex_client_t *c, const char *version) {
    char *v = NULL, *r = NULL, quoted[128];
    bool has = true, search = false;
    CHECK_OK(codex_client_server_version(c, &v));
    snprintf(quoted, sizeof quoted, "\"version\":\"%s\"", version);
    CHECK_HAS(v, quoted);
    CHECK_HAS(v, "\"position\":\"inside\"");
    snprintf(quoted, sizeof quoted, "\"matches\":\"%s\"", version);
    CHECK_HAS(v, quoted);
    codex_string_free(v);
    CHECK_OK(codex_client_supports(c, "thread/start", &has));
    CHECK(has);
    CHECK_OK(codex_client_supports(c, "no/such/method", &has));
    CHECK(!has);
    CHECK_STATUS(codex_client_supports(c, NULL, &has), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_supports(c, "thread/start", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_client_supports(c, SEARCH, &search));
    if (search) {
        codex_status_t st = codex_client_call(c, SEARCH, "{\"query\":\"x\"}", 0, &r);
        CHECK(st != CODEX_STATUS_UNSUPPORTED_BY_VERSION);
        codex_string_free(r);
    } else {
        CHECK_STATUS(codex_client_call(c, SEARCH, "{\"query\":\"x\"}", 0, &r), CODEX_STATUS_UNSUPPORTED_BY_VERSION);
        CHECK(r == NULL);
        CHECK_HAS(codex_last_error_message(), SEARCH);
        CHECK_HAS(codex_last_error_message(), version);
        CHECK(strcmp(codex_status_name(CODEX_STATUS_UNSUPPORTED_BY_VERSION), "CODEX_STATUS_UNSUPPORTED_BY_VERSION") == 0);
        CHECK(codex_client_is_connected(c));
        CHECK_OK(codex_client_call(c, "model/list", "{}", 0, &r));
        codex_string_free(r);
    }
}

/* Equal strings, NULL only to NULL. */
static int same(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The string member `key` of the JSON object `json` (unescaped into buf), or NULL. */
static const char *member_str(const char *json, const char *key, char *buf, size_t n) {
    const char *v = js_member(json, key);
    return v != NULL && js_str(v, buf, n) ? buf : NULL;
}

/* A turn whose command the approval accepts; returns once turn/completed came. Every event is
 * checked against the vendored schema of CODEX_VERSION (schema_check.h: a known method, the
 * required params, known thread items with their required members) and through the library's
 * decoding accessors: its kind, thread and turn (codex_event_thread_id / codex_event_turn_id, the
 * request's codex_request_thread_id / codex_request_turn_id), and the text of every delta
 * (codex_event_delta), the agent message deltas adding up to the completed agent message. */
static void approval_turn(codex_client_t *c, const char *thread, const char *version) {
    char prompt[1024], marker[900], *turn = NULL, *schema = schema_load(version), buf[512];
    char deltas[4096] = "", agent_text[4096] = "";
    int approvals = 0, completed = 0, checked = 0, items = 0, command_done = 0;
    double end = now_s() + 60;
    snprintf(marker, sizeof marker, "%s/smoke-ran.txt", env_or_die("CODEX_WORK"));
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s && echo ran-ok", marker);
    CHECK_OK(codex_client_turn_start(c, thread, prompt, NULL, 0, &turn));
    while (!completed) {
        codex_event_t *ev = NULL;
        codex_status_t st = codex_client_next_event(c, 1000, &ev);
        codex_event_kind_t k;
        const char *m, *p, *item;
        if (now_s() > end) FAIL("the turn did not complete within 60 s");
        if (st == CODEX_STATUS_TIMEOUT) continue;
        CHECK_OK(st);
        k = codex_event_kind(ev);
        CHECK(k == CODEX_EVENT_NOTIFICATION || k == CODEX_EVENT_SERVER_REQUEST);
        m = codex_event_method(ev);
        p = codex_event_params(ev);
        CHECK(m != NULL && *m != '\0');
        CHECK(p != NULL);
        schema_check_event(schema, k == CODEX_EVENT_SERVER_REQUEST, m, p, version);
        checked++;
        /* The accessors decode what the params say. */
        if (!same(codex_event_thread_id(ev), member_str(p, "threadId", buf, sizeof buf)))
            FAIL("Codex %s: codex_event_thread_id of %s is %s: %.1000s", version, m, codex_event_thread_id(ev), p);
        if (codex_event_thread_id(ev) != NULL) CHECK(strcmp(codex_event_thread_id(ev), thread) == 0);
        if (js_member(p, "turnId") != NULL || strncmp(m, "turn/", 5) == 0 || strncmp(m, "item/", 5) == 0) {
            if (!same(codex_event_turn_id(ev), turn))
                FAIL("Codex %s: codex_event_turn_id of %s is %s, not the turn %s", version, m, codex_event_turn_id(ev), turn);
        }
        if (strlen(m) > 6 && strcmp(m + strlen(m) - 6, "/delta") == 0) {
            const char *d = codex_event_delta(ev, NULL);
            CHECK(d != NULL && same(d, member_str(p, "delta", buf, sizeof buf)));
            if (strcmp(m, "item/agentMessage/delta") == 0) strncat(deltas, d, sizeof deltas - strlen(deltas) - 1);
        }
        item = js_member(p, "item");
        if (strcmp(m, "item/completed") == 0 && item != NULL) {
            char type[64];
            items++;
            if (member_str(item, "type", type, sizeof type) != NULL && strcmp(type, "agentMessage") == 0)
                member_str(item, "text", agent_text, sizeof agent_text);
            if (strcmp(type, "commandExecution") == 0) {
                CHECK(member_str(item, "status", buf, sizeof buf) != NULL && strcmp(buf, "completed") == 0);
                CHECK(member_str(item, "aggregatedOutput", buf, sizeof buf) != NULL && strstr(buf, "ran-ok") != NULL);
                command_done = 1;
            }
        }
        if (k == CODEX_EVENT_SERVER_REQUEST) {
            codex_request_t *req = NULL;
            CHECK(strcmp(m, "item/commandExecution/requestApproval") == 0);
            CHECK_OK(codex_event_take_request(ev, &req));
            CHECK(same(codex_request_thread_id(req), thread));
            CHECK(same(codex_request_turn_id(req), turn));
            CHECK_HAS(codex_request_params(req), "ran-ok");
            CHECK_OK(codex_client_respond_decision(c, req, "accept"));
            codex_request_free(req);
            approvals++;
        } else if (strcmp(m, "turn/completed") == 0) {
            CHECK(turn_status_is(p, "completed"));
            completed = 1;
        }
        codex_event_free(ev);
    }
    CHECK(approvals == 1);
    CHECK(file_exists(marker));
    CHECK(command_done);
    CHECK(items >= 2); /* at least the command and the agent message */
    if (strcmp(agent_text, "command output: ran-ok") != 0) FAIL("Codex %s: the agent message is %s", version, agent_text);
    if (strcmp(deltas, agent_text) != 0)
        FAIL("Codex %s: the agent message deltas (%s) do not add up to its text (%s)", version, deltas, agent_text);
    printf("test_version: Codex %s: %d events of the turn match its schema and the accessors\n", version, checked);
    free(schema);
    codex_string_free(turn);
}

static void resume_and_login(const char *thread) {
    codex_client_t *c = connect_poll(NULL); /* a new server process */
    char params[512], *r = NULL, path[1024];
    FILE *f;
    char buf[4096];
    size_t n;
    snprintf(params, sizeof params, "{\"threadId\":\"%s\"}", thread);
    CHECK_OK(codex_client_call(c, "thread/resume", params, 0, &r));
    CHECK_HAS(r, thread);
    codex_string_free(r);
    CHECK_OK(codex_client_turn_run(c, thread, "MOCK_TEXT: resumed", NULL, 60000, 30000, &r));
    CHECK_HAS(r, "\"final_response\":\"resumed\"");
    codex_string_free(r);
    CHECK_OK(codex_client_login_api_key(c, "sk-test-not-a-real-key-4242"));
    snprintf(path, sizeof path, "%s/auth.json", env_or_die("CODEX_HOME"));
    f = fopen(path, "r");
    CHECK(f != NULL);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    CHECK_HAS(buf, "sk-test-not-a-real-key-4242");
    codex_client_free(c);
}

static void outside_window(const char *bin) {
    codex_client_t *c = connect_poll(bin); /* not refused */
    codex_event_t *ev = NULL;
    char *v = NULL;
    bool has = false;
    CHECK_OK(codex_client_next_event(c, 10000, &ev));
    CHECK(codex_event_kind(ev) == CODEX_EVENT_OUTSIDE_WINDOW);
    CHECK_HAS(codex_event_reconnect_json(ev), "\"position\":\"older\"");
    CHECK_HAS(codex_event_reconnect_json(ev), "\"version\":\"0.92.0\"");
    codex_event_free(ev);
    CHECK_OK(codex_client_server_version(c, &v));
    CHECK_HAS(v, "\"position\":\"older\"");
    codex_string_free(v);
    CHECK_OK(codex_client_supports(c, SEARCH, &has));
    CHECK(has); /* outside the window: never refused by version */
    codex_client_free(c);
}

int main(void) {
    const char *version = env_or_die("CODEX_VERSION");
    const char *old = getenv("CODEX_092_BIN");
    codex_client_t *c;
    char *thread = NULL, *v = NULL;
    bool has = false;
    CHECK(codex_abi_version() >= 1010);
    c = connect_poll(NULL);
    handshake_and_supports(c, version);
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    approval_turn(c, thread, version);
    codex_client_free(c);
    resume_and_login(thread);
    codex_string_free(thread);
    /* Not connected: NOT_CONNECTED, not a crash. */
    {
        codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
        CHECK_OK(codex_client_new(o, &c));
        codex_options_free(o);
        CHECK_STATUS(codex_client_server_version(c, &v), CODEX_STATUS_NOT_CONNECTED);
        CHECK(v == NULL);
        CHECK_STATUS(codex_client_supports(c, "thread/start", &has), CODEX_STATUS_NOT_CONNECTED);
        codex_client_free(c);
    }
    if (old != NULL && *old != '\0' && getenv("CODEX_SMOKE_ONLY") == NULL) outside_window(old);
    printf("test_version: ok (Codex %s)\n", version);
    return 0;
}
