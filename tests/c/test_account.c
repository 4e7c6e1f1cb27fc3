/* Logging in, the core's helpers by name, and a turn run within bounds (ABI 1.6), against the
 * real Codex (the default, CODEX_DEFAULT) and the mock model:
 * - API-key login is stored in CODEX_HOME/auth.json; account_rate_limits is refused for an
 *   API-key account; account_logout forgets the key; an empty key is INVALID_ARGUMENT;
 * - the ChatGPT browser login gives the authorization URL, a short wait times out, cancel
 *   ends it with a failure outcome; stale and wrong-kind login handles are refused;
 * - config_batch_write writes config.toml; mcp_server_status_list lists; an OAuth login of an
 *   unknown MCP server is an RPC error naming it; an unknown helper is INVALID_ARGUMENT;
 * - compact and review run on a real thread;
 * - codex_client_turn_run completes a quick turn, and interrupts a turn silent for longer
 *   than its idle bound (TIMEOUT naming the bound and the last event; the result says
 *   "interrupted").
 * The device-code login and the feedback upload need OpenAI's servers: core/tests and the
 * Python tests cover them under `unshare -n`.
 */
#include "test_util.h"

#define KEY "sk-test-not-a-real-key-4242"

static char *read_file(const char *path) {
    FILE *f = fopen(path, "r");
    char *buf;
    size_t n;
    if (f == NULL) return NULL;
    buf = calloc(1, 1 << 20);
    CHECK(buf != NULL);
    n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void home_file(char *out, size_t len, const char *name) {
    snprintf(out, len, "%s/%s", env_or_die("CODEX_HOME"), name);
}

static void api_key_login(codex_client_t *c) {
    char path[1024], *auth, *r = NULL;
    CHECK_OK(codex_client_login_api_key(c, KEY));
    home_file(path, sizeof path, "auth.json");
    auth = read_file(path);
    CHECK_HAS(auth, KEY);
    free(auth);
    CHECK_STATUS(codex_client_login_api_key(c, ""), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_login_api_key(c, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_helper(c, "account_rate_limits", NULL, NULL, NULL, 0, &r), CODEX_STATUS_RPC_ERROR);
    CHECK(r == NULL);
    CHECK_OK(codex_client_helper(c, "account_logout", NULL, NULL, NULL, 0, NULL));
    auth = read_file(path);
    CHECK(auth == NULL || strstr(auth, KEY) == NULL);
    free(auth);
}

static void browser_login(codex_client_t *c) {
    codex_login_t *login = NULL;
    int ok = 1;
    char *error = NULL;
    const char *url;
    double t0;
    CHECK_OK(codex_client_login_chatgpt(c, false, &login));
    CHECK(login != NULL);
    url = codex_login_auth_url(login);
    CHECK_HAS(url, "https://auth.openai.com/oauth/authorize?");
    CHECK_HAS(url, "code_challenge_method=S256");
    CHECK(codex_login_user_code(login) == NULL && codex_login_verification_url(login) == NULL);
    CHECK(codex_login_id(login) != NULL);
    t0 = now_s();
    CHECK_STATUS(codex_login_wait(login, 300, &ok, &error), CODEX_STATUS_TIMEOUT);
    CHECK(now_s() - t0 < 5.0 && ok == 0 && error == NULL);
    CHECK_OK(codex_login_cancel(login));
    CHECK_OK(codex_login_wait(login, 20000, &ok, &error));
    CHECK(ok == 0 && error != NULL && *error != '\0');
    codex_string_free(error);
    codex_login_free(login);
    /* freed, NULL and wrong-kind handles are refused, never dereferenced */
    CHECK_STATUS(codex_login_wait(login, 10, &ok, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "codex_login_free");
    CHECK(codex_login_auth_url(login) == NULL);
    CHECK_STATUS(codex_login_cancel(NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_login_cancel((codex_login_t *)c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "codex_client_t handle");
    codex_login_free(login); /* ignored */
    CHECK_STATUS(codex_client_login_chatgpt(c, false, NULL), CODEX_STATUS_INVALID_ARGUMENT);
}

static void admin_helpers(codex_client_t *c) {
    char path[1024], *r = NULL, *toml;
    CHECK_OK(codex_client_helper(c, "config_batch_write", NULL,
                                 "[{\"keyPath\":\"model_reasoning_effort\",\"value\":\"low\",\"mergeStrategy\":\"replace\"}]",
                                 NULL, 0, &r));
    CHECK_HAS(r, "\"status\":\"ok\"");
    codex_string_free(r);
    home_file(path, sizeof path, "config.toml");
    toml = read_file(path);
    CHECK_HAS(toml, "model_reasoning_effort = \"low\"");
    free(toml);
    CHECK_OK(codex_client_helper(c, "mcp_server_status_list", NULL, NULL, "{}", 0, &r));
    CHECK_HAS(r, "\"data\":[");
    codex_string_free(r);
    CHECK_STATUS(codex_client_helper(c, "mcp_server_oauth_login", NULL, "\"no-such-server\"", NULL, 0, &r),
                 CODEX_STATUS_RPC_ERROR);
    CHECK_HAS(codex_last_error_message(), "no-such-server");
    CHECK_STATUS(codex_client_helper(c, "no_such_helper", NULL, NULL, NULL, 0, &r), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "no_such_helper");
    CHECK_STATUS(codex_client_helper(c, "config_read", NULL, "{oops", NULL, 0, &r), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_helper(c, "review_start", NULL, "{\"type\":\"uncommittedChanges\"}", NULL, 0, &r),
                 CODEX_STATUS_INVALID_ARGUMENT); /* needs a thread id */
}

static void compact_review_and_bounded_turns(codex_client_t *c) {
    char *thread = NULL, *r = NULL;
    double t0;
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    CHECK_OK(codex_client_turn_run(c, thread, "hello", NULL, 60000, 30000, &r));
    CHECK_HAS(r, "\"status\":\"completed\"");
    CHECK_HAS(r, "\"final_response\":\"Hello from the mock model.\"");
    codex_string_free(r);
    CHECK_OK(codex_client_helper(c, "thread_compact", thread, NULL, NULL, 0, &r));
    codex_string_free(r);
    CHECK_OK(codex_client_helper(c, "review_start", thread, "{\"type\":\"uncommittedChanges\"}", NULL, 0, &r));
    CHECK_HAS(r, "\"turn\":{");
    codex_string_free(r);
    /* A second thread for the silent turn (the review runs on the first). */
    codex_string_free(thread);
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    t0 = now_s();
    CHECK_STATUS(codex_client_turn_run(c, thread, "MOCK_SLOW: 3 20000", NULL, 120000, 2000, &r), CODEX_STATUS_TIMEOUT);
    CHECK(now_s() - t0 < 15.0);
    CHECK_HAS(codex_last_error_message(), "no event for 2s");
    CHECK_HAS(codex_last_error_message(), "last event: ");
    CHECK_HAS(r, "\"status\":\"interrupted\"");
    codex_string_free(r);
    codex_string_free(thread);
}

int main(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    CHECK(codex_abi_version() >= 1006);
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    api_key_login(c);
    browser_login(c);
    admin_helpers(c);
    compact_review_and_bounded_turns(c);
    codex_client_free(c);
    printf("test_account: ok\n");
    return 0;
}
