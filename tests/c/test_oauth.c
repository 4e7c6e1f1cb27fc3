/* MCP authorization (OAuth 2.1) from C against real parts (oauth_fixture.h): the flow runs
 * against two real authorization servers, scripts/mcp/oauth-fixture.mjs (oidc-provider in
 * front of an MCP server on the official TypeScript SDK that verifies every token by
 * introspection) and scripts/mcp/oauth-fixture.py (the official Python SDK's own
 * authorization server, whose token endpoint identifies the client from the form's client_id
 * only, in front of an MCP server on the same SDK that requires a scope). Covered:
 * - bad input: NULL callbacks, dead options, an answer handle used after its callback, a
 *   grant name that does not exist, a grant without what it needs (refused at
 *   codex_client_new, naming the option), secrets read back "<redacted>"; release callbacks
 *   run once nothing holds the callbacks;
 * - against both servers, the full flow through codex_options_set_oauth_authorizer (401,
 *   discovery, dynamic registration, authorization code with PKCE; the callback runs off the
 *   calling thread), a tool call, step-up on 403 insufficient_scope (write_note; oidc only:
 *   the Python SDK's resource server has one required scope), a refresh after the access
 *   token is revoked or expired (no new authorization), a new authorization after the grant
 *   is revoked, CODEX_EVENT_AUTH events;
 * - a token store in C (codex_options_set_oauth_token_store: load/save/clear as JSON text):
 *   a second client starts from what the first saved, without the browser;
 * - failures: the callback answers an error, answers nothing, or blocks past option
 *   oauth_authorize_timeout: the connect fails with the reason, without hanging;
 * - the client credentials grant by option name (oauth_grant) with a client secret and with
 *   private_key_jwt (oauth_private_key_file);
 * - at TRACE level with trace_wire, no token, refresh token, client secret, private key or
 *   authorization code of either server appears in any log line.
 */
#include "oauth_fixture.h"

static oauth_fixture_t FX;
static pthread_t MAIN_THREAD;
static pthread_mutex_t MU = PTHREAD_MUTEX_INITIALIZER;
static int RELEASES = 0;
static char CODES[16][256];
static int NCODES = 0;

/* ---- the browser step ------------------------------------------------------------------ */
enum mode { BROWSE, REFUSE, SILENT, SLOW };
typedef struct {
    enum mode mode;
    int calls;
    int on_main_thread;
} authorizer_t;

static void authorize(void *userdata, const char *authorization_url, codex_oauth_answer_t *answer) {
    authorizer_t *a = (authorizer_t *)userdata;
    char *redirect, *code;
    pthread_mutex_lock(&MU);
    a->calls++;
    if (pthread_equal(pthread_self(), MAIN_THREAD)) a->on_main_thread = 1;
    pthread_mutex_unlock(&MU);
    CHECK(strstr(authorization_url, "code_challenge_method=S256") != NULL);
    switch (a->mode) {
    case REFUSE:
        CHECK_OK(codex_oauth_answer_error(answer, "the user closed the window"));
        /* Answered once only. */
        CHECK_STATUS(codex_oauth_answer_set(answer, "http://x/"), CODEX_STATUS_INVALID_STATE);
        return;
    case SILENT:
        return;
    case SLOW:
        sleep_ms(2500);
        CHECK_OK(codex_oauth_answer_error(answer, "too late"));
        return;
    case BROWSE:
        break;
    }
    redirect = oauth_browse(&FX, authorization_url);
    CHECK(redirect != NULL);
    CHECK_HAS(redirect, "code=");
    code = strstr(redirect, "code=") + 5;
    pthread_mutex_lock(&MU);
    if (NCODES < 16) {
        size_t len = strcspn(code, "&");
        snprintf(CODES[NCODES++], sizeof CODES[0], "%.*s", (int)len, code);
    }
    pthread_mutex_unlock(&MU);
    CHECK_OK(codex_oauth_answer_set(answer, redirect));
    free(redirect);
}

static void release(void *userdata) {
    (void)userdata;
    pthread_mutex_lock(&MU);
    RELEASES++;
    pthread_mutex_unlock(&MU);
}

/* ---- a token store in C ---------------------------------------------------------------- */
typedef struct {
    char server[256];
    char *json;
    int loads, saves, clears, fail_save;
} store_t;

static void store_load(void *userdata, const char *server, codex_oauth_answer_t *answer) {
    store_t *s = (store_t *)userdata;
    pthread_mutex_lock(&MU);
    s->loads++;
    if (s->json != NULL && strcmp(s->server, server) == 0) CHECK_OK(codex_oauth_answer_set(answer, s->json));
    pthread_mutex_unlock(&MU);
}

static void store_save(void *userdata, const char *server, const char *json, codex_oauth_answer_t *answer) {
    store_t *s = (store_t *)userdata;
    pthread_mutex_lock(&MU);
    s->saves++;
    if (s->fail_save) {
        CHECK_OK(codex_oauth_answer_error(answer, "the disk is full"));
    } else {
        snprintf(s->server, sizeof s->server, "%s", server);
        free(s->json);
        s->json = strdup(json);
    }
    pthread_mutex_unlock(&MU);
}

static void store_clear(void *userdata, const char *server, codex_oauth_answer_t *answer) {
    store_t *s = (store_t *)userdata;
    (void)server;
    (void)answer;
    pthread_mutex_lock(&MU);
    s->clears++;
    free(s->json);
    s->json = NULL;
    pthread_mutex_unlock(&MU);
}

/* ---- auth events ----------------------------------------------------------------------- */
static char EVENTS[8192];

static void on_connection(void *userdata, codex_event_t *ev) {
    (void)userdata;
    if (codex_event_kind(ev) == CODEX_EVENT_AUTH) {
        const char *j = codex_event_reconnect_json(ev);
        pthread_mutex_lock(&MU);
        if (j != NULL && strlen(EVENTS) + strlen(j) + 2 < sizeof EVENTS) {
            strcat(EVENTS, j);
            strcat(EVENTS, "\n");
        }
        pthread_mutex_unlock(&MU);
    }
}

static int events_have(const char *needle) {
    int r;
    pthread_mutex_lock(&MU);
    r = strstr(EVENTS, needle) != NULL;
    pthread_mutex_unlock(&MU);
    return r;
}

/* Wait (at most 20 s) for an auth event holding `needle` (events arrive on the dispatch thread). */
static void wait_event(const char *needle) {
    double until = now_s() + 20;
    while (!events_have(needle)) {
        if (now_s() > until) FAIL("no auth event holds %s within 20 s; events: %s", needle, EVENTS);
        sleep_ms(10);
    }
}

/* ---- helpers --------------------------------------------------------------------------- */
/* Options for a client of the fixture's MCP server (free with codex_options_free). */
static codex_options_t *fixture_options(void) {
    codex_options_t *o = new_options();
    char *mcp = oauth_json_str(FX.info, NULL, "mcp");
    CHECK_OK(codex_options_set_transport(o, mcp, NULL));
    free(mcp);
    CHECK_OK(codex_options_set(o, "oauth_redirect_uri", "\"http://127.0.0.1:1/callback\""));
    CHECK_OK(codex_options_set(o, "trace_wire", "true"));
    CHECK_OK(codex_options_set_connect_timeout_ms(o, 30000));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 30000));
    return o;
}

static codex_client_t *new_client(codex_options_t *o) {
    codex_client_t *c = NULL;
    CHECK_OK(codex_client_new(o, &c));
    CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_CONNECTION, on_connection, NULL));
    return c;
}

/* tools/call `tool` with `args`: its result (codex_string_free), or NULL with the status. */
static char *call_tool(codex_client_t *c, const char *tool, const char *args, codex_status_t *status) {
    char *params = NULL, *r = NULL;
    CHECK_OK(codex_mcp_params("call_tool", tool, args, &params));
    *status = codex_client_call(c, codex_mcp_method_name("call_tool"), params, 0, &r);
    codex_string_free(params);
    return r;
}

static char *must_call(codex_client_t *c, const char *tool, const char *args) {
    codex_status_t s;
    char *r = call_tool(c, tool, args, &s);
    if (s != CODEX_STATUS_OK) FAIL("tools/call %s: %s (%s)", tool, codex_status_name((int)s), codex_last_error_message());
    return r;
}

/* ---- the tests ------------------------------------------------------------------------- */
static void bad_input(void) {
    codex_options_t *o = new_options(), *o2;
    codex_client_t *c = NULL;
    authorizer_t a = {BROWSE, 0, 0};
    char *uri = NULL, *got;
    int before;

    CHECK_STATUS(codex_options_set_oauth_authorizer(o, NULL, NULL, release), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "callback is NULL");
    CHECK_STATUS(codex_options_set_oauth_authorizer(NULL, authorize, &a, release), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_set_oauth_token_store(o, store_load, NULL, store_clear, NULL, release),
                 CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "required");
    CHECK_STATUS(codex_oauth_answer_set(NULL, "x"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_oauth_answer_error((codex_oauth_answer_t *)o, "x"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "codex_options_t");
    pthread_mutex_lock(&MU);
    before = RELEASES;
    pthread_mutex_unlock(&MU);
    CHECK(before == 0); /* refused calls never release */

    CHECK_STATUS(codex_options_set(o, "oauth_grant", "\"password\""), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "client_credentials");
    CHECK_OK(codex_options_set_transport(o, "http://127.0.0.1:9/mcp", NULL));
    CHECK_OK(codex_options_set(o, "oauth_grant", "\"client_credentials\""));
    CHECK_OK(codex_options_set(o, "oauth_client_id", "\"svc\""));
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "oauth_client_secret");
    CHECK_OK(codex_options_set(o, "oauth_grant", "\"jwt_bearer\""));
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "oauth_assertion");
    CHECK_OK(codex_options_set(o, "oauth_assertion", "\"eyJ.C-ASSERTION-SECRET.sig\""));
    got = codex_options_get(o, "oauth_assertion");
    CHECK(got != NULL && strcmp(got, "\"<redacted>\"") == 0);
    codex_string_free(got);
    CHECK_OK(codex_client_new(o, &c));
    codex_client_free(c);
    CHECK_OK(codex_options_set(o, "oauth_private_key", "\"-----BEGIN PRIVATE KEY-----\\nnot a key\\n\""));
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "client assertion key");
    CHECK(strstr(codex_last_error_message(), "not a key") == NULL);

    /* The callbacks are released once the options (and every client made from them) are gone. */
    o2 = new_options();
    CHECK_OK(codex_options_set_transport(o2, "http://127.0.0.1:9/mcp", NULL));
    CHECK_OK(codex_options_set_oauth_authorizer(o2, authorize, &a, release));
    CHECK_OK(codex_options_set_oauth_token_store(o2, store_load, store_save, store_clear, NULL, release));
    CHECK_OK(codex_client_new(o2, &c));
    codex_options_free(o2);
    pthread_mutex_lock(&MU);
    CHECK(RELEASES == 0); /* the client still holds them */
    pthread_mutex_unlock(&MU);
    codex_client_free(c);
    pthread_mutex_lock(&MU);
    CHECK(RELEASES == 2);
    RELEASES = 0;
    pthread_mutex_unlock(&MU);

    /* The loopback helper: a free port, its redirect URI handed back; `release` at once
     * without an `open` callback. */
    CHECK_OK(codex_options_set_oauth_loopback(o, 0, NULL, &a, release, &uri));
    CHECK(uri != NULL && strncmp(uri, "http://127.0.0.1:", 17) == 0);
    CHECK_HAS(uri, "/callback");
    codex_string_free(uri);
    pthread_mutex_lock(&MU);
    CHECK(RELEASES == 1);
    RELEASES = 0;
    pthread_mutex_unlock(&MU);
    codex_options_free(o);
    printf("test_oauth: bad input refused, releases counted\n");
}

/* The flow against the running fixture FX; `step_up`: its MCP server has a tool that needs
 * another scope (write_note). */
static void full_flow(store_t *store, int step_up) {
    authorizer_t a = {BROWSE, 0, 0}, second = {BROWSE, 0, 0};
    codex_options_t *o = fixture_options();
    codex_client_t *c;
    char *r, *revoked;
    double t0;
    int authorized = 1;

    EVENTS[0] = '\0';
    CHECK_OK(codex_options_set_oauth_authorizer(o, authorize, &a, release));
    CHECK_OK(codex_options_set_oauth_token_store(o, store_load, store_save, store_clear, store, release));
    c = new_client(o);
    codex_options_free(o);

    /* 401 -> discovery, registration, authorization code + PKCE through the callback. */
    t0 = now_s();
    CHECK_OK(codex_client_connect(c, NULL));
    r = must_call(c, "whoami", "{}");
    CHECK_HAS(r, "\\\"sub\\\":\\\"alice\\\"");
    codex_string_free(r);
    CHECK(a.calls == 1 && !a.on_main_thread);
    CHECK(oauth_stat(&FX, "authorizations") == 1 && oauth_stat(&FX, "registrations") == 1);
    printf("test_oauth: authorized through the callback in %.2f s\n", now_s() - t0);

    if (step_up) {
        /* 403 insufficient_scope -> step-up: authorized again with mcp:write. */
        r = must_call(c, "write_note", "{\"text\":\"hi\"}");
        CHECK_HAS(r, "noted: hi");
        codex_string_free(r);
        authorized++;
        CHECK(a.calls == authorized && oauth_stat(&FX, "authorizations") == authorized &&
              oauth_stat(&FX, "registrations") == 1);
    }

    /* The access token is revoked (or expired) -> 401 invalid_token -> refreshed, no new
     * authorization. */
    revoked = oauth_control(&FX, "revoke-access", 1);
    CHECK(oauth_json_num(revoked, "revoked") >= 1);
    free(revoked);
    r = must_call(c, "whoami", "{}");
    CHECK_HAS(r, "alice");
    codex_string_free(r);
    CHECK(oauth_stat(&FX, "refreshes") >= 1 && oauth_stat(&FX, "authorizations") == authorized &&
          a.calls == authorized);
    wait_event("\"started\"");
    wait_event("\"succeeded\"");
    wait_event("\"refreshed\"");

    /* The grant is revoked (refresh token too) -> the refresh fails -> authorized again. */
    revoked = oauth_control(&FX, "revoke-grants", 1);
    CHECK(oauth_json_num(revoked, "revoked") >= 1);
    free(revoked);
    r = must_call(c, "whoami", "{}");
    CHECK_HAS(r, "alice");
    codex_string_free(r);
    authorized++;
    CHECK(a.calls == authorized && oauth_stat(&FX, "authorizations") == authorized &&
          oauth_stat(&FX, "registrations") == 1);
    codex_client_free(c);

    /* The store saw it all; the callbacks were released with the client. */
    pthread_mutex_lock(&MU);
    CHECK(store->loads >= 1 && store->saves >= 3 && store->json != NULL);
    CHECK_HAS(store->json, "access_token");
    CHECK(RELEASES == 2);
    RELEASES = 0;
    pthread_mutex_unlock(&MU);
    printf("test_oauth: %srefresh after revoke, authorized again after the grant went; store: %d loads, %d saves\n",
           step_up ? "step-up, " : "", store->loads, store->saves);

    /* A second client starts from the stored tokens and registration: no browser. */
    o = fixture_options();
    CHECK_OK(codex_options_set_oauth_authorizer(o, authorize, &second, NULL));
    CHECK_OK(codex_options_set_oauth_token_store(o, store_load, store_save, store_clear, store, NULL));
    c = new_client(o);
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    r = must_call(c, "whoami", "{}");
    CHECK_HAS(r, "alice");
    codex_string_free(r);
    codex_client_free(c);
    CHECK(second.calls == 0);
    CHECK(oauth_stat(&FX, "authorizations") == authorized && oauth_stat(&FX, "registrations") == 1);
    printf("test_oauth: a second client reused the stored tokens (no browser)\n");
}

/* The flow against the Python SDK's authorization server (after the oidc-provider run), and
 * no secret it handed out in any log line. */
static void python_sdk_server(void) {
    store_t store;
    char *secrets;
    int n, first_code = NCODES, i;
    memset(&store, 0, sizeof store);
    FX = oauth_fixture_start_server("python");
    printf("test_oauth: Python SDK fixture %.120s...\n", FX.info);
    full_flow(&store, 0);
    secrets = oauth_control(&FX, "secrets", 0);
    n = oauth_check_secrets_not_logged(secrets);
    CHECK(n >= 5); /* 3 access tokens, 3 refresh tokens, a client secret */
    for (i = first_code; i < NCODES; i++) oauth_check_not_logged(CODES[i]);
    CHECK(NCODES - first_code >= 2);
    printf("test_oauth: Python SDK server: %d secrets and %d codes in no log line\n", n, NCODES - first_code);
    free(secrets);
    oauth_fixture_stop(&FX);
    free(store.json);
}

/* The callback fails (answers an error, nothing, or too late): the connect fails with why. */
static void failures(void) {
    static const struct {
        enum mode mode;
        const char *says;
    } cases[] = {
        {REFUSE, "the user closed the window"},
        {SILENT, "no redirect URL"},
        {SLOW, "gave no redirect within"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        authorizer_t a = {cases[i].mode, 0, 0};
        codex_options_t *o = fixture_options();
        codex_client_t *c;
        codex_status_t s;
        double t0 = now_s();
        CHECK_OK(codex_options_set_oauth_authorizer(o, authorize, &a, NULL));
        if (cases[i].mode == SLOW) CHECK_OK(codex_options_set(o, "oauth_authorize_timeout", "1"));
        c = new_client(o);
        codex_options_free(o);
        s = codex_client_connect(c, NULL);
        if (s == CODEX_STATUS_OK) FAIL("connect succeeded with a failing authorize callback (%s)", cases[i].says);
        CHECK_HAS(codex_last_error_message(), cases[i].says);
        CHECK(now_s() - t0 < 20);
        /* Asked once per handshake attempt: with mcp_protocol "auto" the server/discover
         * probe, then initialize. */
        CHECK(a.calls >= 1 && a.calls <= 2);
        /* The failure is logged (no CODEX_EVENT_AUTH: a failed connect takes its connection's
         * events with it; the error says why). */
        oauth_wait_log("MCP authorization failed");
        codex_client_free(c);
        printf("test_oauth: failing callback (%d calls) -> %s (%.2f s): %s\n", a.calls, codex_status_name((int)s),
               now_s() - t0, cases[i].says);
    }
    /* Let the slow callbacks (2.5 s each) end before the fixture goes. */
    sleep_ms(3000);
}

/* The client credentials grant by option name: with a secret, and with private_key_jwt. */
static void client_credentials(const char *key_file) {
    char *id = oauth_json_str(FX.info, "\"service\"", "clientId");
    char *secret = oauth_json_str(FX.info, "\"service\"", "clientSecret");
    char *jwt_id = oauth_json_str(FX.info, "\"serviceJwt\"", "clientId");
    char value[512], *r;
    long before = oauth_stat(&FX, "clientCredentials");
    codex_options_t *o = fixture_options();
    codex_client_t *c;

    CHECK_OK(codex_options_set(o, "oauth_grant", "\"client_credentials\""));
    snprintf(value, sizeof value, "\"%s\"", id);
    CHECK_OK(codex_options_set(o, "oauth_client_id", value));
    snprintf(value, sizeof value, "\"%s\"", secret);
    CHECK_OK(codex_options_set(o, "oauth_client_secret", value));
    c = new_client(o);
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    r = must_call(c, "whoami", "{}");
    CHECK_HAS(r, id);
    codex_string_free(r);
    /* Step-up goes through the same grant. */
    r = must_call(c, "write_note", "{\"text\":\"c-oauth-cc\"}");
    CHECK_HAS(r, "noted: c-oauth-cc");
    codex_string_free(r);
    codex_client_free(c);
    CHECK(oauth_stat(&FX, "clientCredentials") >= before + 1);

    o = fixture_options();
    CHECK_OK(codex_options_set(o, "oauth_grant", "\"client_credentials\""));
    snprintf(value, sizeof value, "\"%s\"", jwt_id);
    CHECK_OK(codex_options_set(o, "oauth_client_id", value));
    snprintf(value, sizeof value, "\"%s\"", key_file);
    CHECK_OK(codex_options_set(o, "oauth_private_key_file", value));
    c = new_client(o);
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    r = must_call(c, "write_note", "{\"text\":\"c-oauth-final-marker\"}");
    CHECK_HAS(r, "c-oauth-final-marker");
    codex_string_free(r);
    r = must_call(c, "whoami", "{}");
    CHECK_HAS(r, jwt_id);
    codex_string_free(r);
    codex_client_free(c);
    printf("test_oauth: client credentials by option name (client secret, private_key_jwt)\n");
    free(id);
    free(secret);
    free(jwt_id);
}

int main(void) {
    store_t store;
    char key_file[] = "/tmp/codex-oauth-key-XXXXXX", *pem, *secrets;
    int fd, n, i;

    MAIN_THREAD = pthread_self();
    memset(&store, 0, sizeof store);
    CHECK_OK(codex_set_log_callback(CODEX_LOG_TRACE, oauth_on_log, NULL));
    bad_input();
    FX = oauth_fixture_start();
    printf("test_oauth: fixture %.120s...\n", FX.info);

    full_flow(&store, 1);
    failures();
    pem = oauth_json_str(FX.info, "\"serviceJwt\"", "privateKeyPem");
    fd = mkstemp(key_file);
    CHECK(fd >= 0 && write(fd, pem, strlen(pem)) == (ssize_t)strlen(pem));
    close(fd);
    client_credentials(key_file);
    unlink(key_file);

    /* No secret the authorization server handed out, nor ours, is in any log line. */
    oauth_wait_log("c-oauth-final-marker");
    secrets = oauth_control(&FX, "secrets", 0);
    n = oauth_check_secrets_not_logged(secrets);
    CHECK(n >= 4);
    for (i = 0; i < NCODES; i++) oauth_check_not_logged(CODES[i]);
    CHECK(NCODES >= 2);
    {
        char *line = strchr(pem, '\n') + 1, body[65];
        snprintf(body, sizeof body, "%.64s", line);
        oauth_check_not_logged(body);
    }
    {
        char *s1 = oauth_json_str(FX.info, "\"service\"", "clientSecret");
        char *s2 = oauth_json_str(FX.info, "\"preRegistered\"", "clientSecret");
        oauth_check_not_logged(s1);
        oauth_check_not_logged(s2);
        oauth_check_not_logged("C-ASSERTION-SECRET");
        free(s1);
        free(s2);
    }
    pthread_mutex_lock(&OAUTH_LOG_MU);
    CHECK(OAUTH_LOG != NULL && strstr(OAUTH_LOG, "tools/call") != NULL); /* the wire was traced */
    pthread_mutex_unlock(&OAUTH_LOG_MU);
    printf("test_oauth: %d secrets and %d codes in no log line (%zu bytes of TRACE logs)\n", n, NCODES, OAUTH_LOG_LEN);
    free(secrets);
    free(pem);

    oauth_fixture_stop(&FX);
    free(store.json);
    python_sdk_server();
    CHECK_OK(codex_set_log_callback(CODEX_LOG_ERROR, NULL, NULL));
    free(OAUTH_LOG);
    printf("test_oauth: ok\n");
    return 0;
}
