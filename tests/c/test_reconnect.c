/* Reconnect through the C API (ABI 1.2), against the real Codex: with
 * codex_options_set_reconnect, a SIGKILLed app-server is spawned again, the thread resumed
 * (CODEX_EVENT_RECONNECTING, then CODEX_EVENT_RECONNECTED whose JSON names the thread), and the
 * next request on that thread works; a server request of the lost connection answers
 * CODEX_STATUS_CONNECTION_LOST; codex_client_disconnect never reconnects. Bad option input is
 * refused with INVALID_ARGUMENT.
 */
#include "test_util.h"

#include <signal.h>
#include <sys/types.h>

static void bad_input(void) {
    codex_options_t *o = new_options();
    CHECK_STATUS(codex_options_set_reconnect(NULL, 3, 0, 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_options_set_reconnect(o, 3, UINT64_MAX, 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_options_set_reconnect(o, 0, 0, 0));
    CHECK_STATUS(codex_options_set_heartbeat(o, UINT64_MAX, 0), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_options_set_heartbeat(o, 0, 0));
    CHECK_STATUS(codex_options_set_tls_client_cert(o, "cert.pem", NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "[cert_path, key_path]"); /* both or neither */
    CHECK_OK(codex_options_set_tls_client_cert(o, NULL, NULL));
    CHECK_OK(codex_options_set_tls_ca_file(o, NULL));
    CHECK(strcmp(codex_status_name(CODEX_STATUS_CONNECTION_LOST), "CODEX_STATUS_CONNECTION_LOST") == 0);
    CHECK(codex_client_is_reconnecting(NULL) == false);
    codex_options_free(o);
}

/* Pull events until one of `kind` (30 s at most); returns it (the caller frees it). Server
 * requests met on the way are kept in *held when held is not NULL. */
static codex_event_t *until(codex_client_t *c, codex_event_kind_t kind, codex_request_t **held) {
    double end = now_s() + 30;
    while (now_s() < end) {
        codex_event_t *ev = NULL;
        CHECK_OK(codex_client_next_event(c, 500, &ev));
        if (ev == NULL) continue;
        if (codex_event_kind(ev) == kind) return ev;
        if (held != NULL && codex_event_kind(ev) == CODEX_EVENT_SERVER_REQUEST && *held == NULL)
            CHECK_OK(codex_event_take_request(ev, held));
        CHECK(codex_event_kind(ev) != CODEX_EVENT_DISCONNECTED);
        codex_event_free(ev);
    }
    FAIL("no event of kind %d in 30 s", (int)kind);
    return NULL;
}

static void killed_server_reconnects(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    CHECK_OK(codex_options_set_reconnect(o, 5, 20, 200));
    codex_client_t *c = NULL;
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    char *thread = NULL;
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    char params[512];
    snprintf(params, sizeof params,
             "{\"threadId\":\"%s\",\"input\":[{\"type\":\"text\",\"text\":\"MOCK_EXEC: true\"}]}", thread);
    char *turn = NULL;
    CHECK_OK(codex_client_call(c, "turn/start", params, 0, &turn));
    codex_string_free(turn);
    codex_request_t *approval = NULL;
    codex_event_t *ev = until(c, CODEX_EVENT_SERVER_REQUEST, NULL);
    CHECK_OK(codex_event_take_request(ev, &approval));
    CHECK(approval != NULL);
    codex_event_free(ev);
    uint32_t pid = 0;
    CHECK_OK(codex_client_server_pid(c, &pid));
    CHECK(kill((pid_t)pid, SIGKILL) == 0);

    ev = until(c, CODEX_EVENT_RECONNECTING, NULL);
    CHECK(codex_event_reconnect_attempt(ev) == 1);
    CHECK(codex_event_error_message(ev) != NULL);
    CHECK_HAS(codex_event_reconnect_json(ev), "\"maxAttempts\":5");
    codex_event_free(ev);
    ev = until(c, CODEX_EVENT_RECONNECTED, NULL);
    CHECK(codex_event_reconnect_attempt(ev) >= 1);
    CHECK_HAS(codex_event_reconnect_json(ev), thread);
    CHECK_HAS(codex_event_reconnect_json(ev), "\"serverRequestsDropped\":1");
    CHECK(codex_event_reconnect_delay_ms(ev) == 0);
    codex_event_free(ev);
    CHECK(codex_client_is_connected(c));
    CHECK(!codex_client_is_reconnecting(c));
    uint32_t new_pid = 0;
    CHECK_OK(codex_client_server_pid(c, &new_pid));
    CHECK(new_pid != pid);
    /* The approval of the dead server cannot be answered any more. */
    CHECK_STATUS(codex_client_respond(c, approval, "{\"decision\":\"accept\"}"), CODEX_STATUS_CONNECTION_LOST);
    codex_request_free(approval);
    /* The resumed thread answers. */
    snprintf(params, sizeof params, "{\"threadId\":\"%s\"}", thread);
    char *read = NULL;
    CHECK_OK(codex_client_call(c, "thread/read", params, 0, &read));
    CHECK_HAS(read, thread);
    codex_string_free(read);
    codex_string_free(thread);

    /* disconnect() never reconnects: the last event is DISCONNECTED. */
    codex_client_disconnect(c);
    int saw_disconnected = 0;
    for (;;) {
        codex_event_t *e = NULL;
        codex_status_t s = codex_client_next_event(c, 200, &e);
        if (s != CODEX_STATUS_OK || e == NULL) break;
        CHECK(codex_event_kind(e) != CODEX_EVENT_RECONNECTING);
        if (codex_event_kind(e) == CODEX_EVENT_DISCONNECTED) saw_disconnected = 1;
        codex_event_free(e);
    }
    CHECK(saw_disconnected);
    codex_client_free(c);
}

int main(void) {
    bad_input();
    killed_server_reconnects();
    printf("test_reconnect: ok\n");
    return 0;
}
