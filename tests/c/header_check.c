/* Compile-only check: include/codexclient.h is valid C99 under -Wall -Wextra -Werror -pedantic
 * and its declarations have the documented shapes (names are part of the contract). */
#include "codexclient.h"

#include <stddef.h>

typedef codex_status_t (*new_fn)(const codex_options_t *, codex_client_t **);
typedef codex_status_t (*request_fn)(codex_client_t *, const char *, const char *, uint64_t,
                                     codex_callback_t, void *, uint64_t *);
typedef codex_status_t (*call_fn)(codex_client_t *, const char *, const char *, uint64_t, char **);
typedef codex_status_t (*register_fn)(codex_client_t *, codex_callback_kind_t, codex_callback_t, void *);
typedef codex_status_t (*respond_fn)(codex_client_t *, codex_request_t *, const char *);
typedef codex_status_t (*next_event_fn)(codex_client_t *, int64_t, codex_event_t **);
typedef int (*event_fd_fn)(const codex_client_t *);

int header_check_c(void);
int header_check_c(void) {
    new_fn a = codex_client_new;
    request_fn b = codex_client_request;
    call_fn c = codex_client_call;
    register_fn d = codex_client_register_callback;
    respond_fn e = codex_client_respond;
    next_event_fn f = codex_client_next_event;
    event_fd_fn g = codex_client_event_fd;
    codex_options_t o = {0};
    int stable = CODEX_STATUS_OK == 0 && CODEX_STATUS_INVALID_ARGUMENT == 1 && CODEX_STATUS_NOT_CONNECTED == 2 &&
                 CODEX_STATUS_ALREADY_CONNECTED == 3 && CODEX_STATUS_TIMEOUT == 4 &&
                 CODEX_STATUS_DISCONNECTED == 5 && CODEX_STATUS_RPC_ERROR == 6 &&
                 CODEX_STATUS_OVERLOADED == 7 && CODEX_STATUS_UNSUPPORTED == 12 && CODEX_STATUS_PANIC == 13;
    (void)codex_client_free;
    (void)codex_client_connect;
    (void)codex_client_disconnect;
    (void)codex_client_is_connected;
    (void)codex_client_respond_error;
    (void)codex_event_free;
    (void)codex_string_free;
    (void)codex_last_error_message;
    (void)codex_event_kind;
    (void)codex_event_method;
    (void)codex_event_params;
    (void)codex_event_thread_id;
    (void)codex_event_turn_id;
    (void)codex_event_delta;
    (void)codex_client_thread_start;
    (void)codex_client_turn_start;
    (void)codex_client_turn_interrupt;
    (void)codex_client_turn_steer;
    o.delivery = CODEX_DELIVERY_POLL;
    o.transport = "exec"; /* the two fields added last: zero-initialised users keep working */
    o.token = NULL;
    return stable && a && b && c && d && e && f && g && o.delivery == 1 && sizeof(codex_status_t) == sizeof(int);
}
