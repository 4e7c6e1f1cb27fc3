/* codex_set_log_callback (fake app-server):
 * - a bad level is INVALID_ARGUMENT;
 * - at CODEX_LOG_DEBUG the server's stderr lines arrive with target
 *   "codex_client::server_stderr", and a malformed line from the server arrives as a warning,
 *   all on the library's log thread ("codex-log");
 * - the deprecated transport "mcp" (it means `codex mcp-server`) is accepted and logged as a
 *   warning with target "codex_client::deprecated" naming "codex-mcp-server";
 * - after setting NULL no callback runs.
 */
#define _GNU_SOURCE
#include "test_util.h"

#include <pthread.h>

static pthread_mutex_t MU = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t CV = PTHREAD_COND_INITIALIZER;
static int stderr_line, malformed, deprecated, wrong_thread, calls, stopped_calls, stopped;

static void on_log(void *userdata, codex_log_level_t level, const char *target, const char *message) {
    char name[32] = "";
    CHECK(userdata == (void *)&MU);
    pthread_getname_np(pthread_self(), name, sizeof name);
    pthread_mutex_lock(&MU);
    calls++;
    if (stopped) stopped_calls++;
    if (strcmp(name, "codex-log") != 0) wrong_thread++;
    if (strcmp(target, "codex_client::server_stderr") == 0 && strstr(message, "fake stderr line 2"))
        stderr_line = level == CODEX_LOG_DEBUG ? 1 : -1;
    if (strstr(message, "malformed line from server")) malformed = level == CODEX_LOG_WARN ? 1 : -1;
    if (strcmp(target, "codex_client::deprecated") == 0)
        deprecated = level == CODEX_LOG_WARN && strstr(message, "\"codex-mcp-server\"") ? 1 : -1;
    pthread_cond_broadcast(&CV);
    pthread_mutex_unlock(&MU);
}

int main(void) {
    const char *args[] = {"--mode", "garbage", "--stderr-lines", "3"};
    codex_options_t *o = NULL;
    codex_client_t *c = NULL;
    char *r = NULL;
    size_t i;
    int seen;

    CHECK_STATUS(codex_set_log_callback(99, on_log, &MU), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_set_log_callback(CODEX_LOG_DEBUG, on_log, &MU));

    o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    for (i = 0; i < 4; i++) CHECK_OK(codex_options_add_arg(o, args[i]));
    CHECK_OK(codex_options_set_delivery(o, CODEX_DELIVERY_POLL));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_call(c, "test/garbage", NULL, 0, &r));
    codex_string_free(r);
    {
        struct timespec dl = deadline_in(10);
        pthread_mutex_lock(&MU);
        while (stderr_line == 0 || malformed == 0)
            if (pthread_cond_timedwait(&CV, &MU, &dl) != 0 && (stderr_line == 0 || malformed == 0)) {
                pthread_mutex_unlock(&MU);
                FAIL("missing records: stderr line %d, malformed %d (%d calls)", stderr_line, malformed, calls);
            }
        CHECK(stderr_line == 1);
        CHECK(malformed == 1);
        CHECK(wrong_thread == 0);
        pthread_mutex_unlock(&MU);
    }
    {
        struct timespec dl = deadline_in(10);
        codex_options_t *m = new_options();
        CHECK_OK(codex_options_set_transport(m, "mcp", NULL));
        codex_options_free(m);
        pthread_mutex_lock(&MU);
        while (deprecated == 0)
            if (pthread_cond_timedwait(&CV, &MU, &dl) != 0 && deprecated == 0) {
                pthread_mutex_unlock(&MU);
                FAIL("no deprecation warning for transport \"mcp\" (%d calls)", calls);
            }
        CHECK(deprecated == 1);
        pthread_mutex_unlock(&MU);
    }

    /* after NULL, nothing more arrives (a call in progress has returned) */
    CHECK_OK(codex_set_log_callback(CODEX_LOG_ERROR, NULL, NULL));
    pthread_mutex_lock(&MU);
    stopped = 1;
    seen = calls;
    pthread_mutex_unlock(&MU);
    CHECK_OK(codex_client_call(c, "test/garbage", NULL, 0, &r));
    codex_string_free(r);
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    pthread_mutex_lock(&MU);
    CHECK(stopped_calls == 0);
    pthread_mutex_unlock(&MU);
    printf("test_log: ok (%d records before the stop)\n", seen);
    return 0;
}
