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
typedef codex_options_t *(*options_new_fn)(void);
typedef void (*options_free_fn)(codex_options_t *);
typedef codex_status_t (*set_str_fn)(codex_options_t *, const char *);
typedef codex_status_t (*set_bool_fn)(codex_options_t *, bool);
typedef codex_status_t (*set_u64_fn)(codex_options_t *, uint64_t);
typedef codex_status_t (*set_size_fn)(codex_options_t *, size_t);
typedef codex_status_t (*set_delivery_fn)(codex_options_t *, codex_delivery_t);
typedef codex_status_t (*set_client_info_fn)(codex_options_t *, const char *, const char *, const char *);
typedef codex_status_t (*set_transport_fn)(codex_options_t *, const char *, const char *);
typedef uint32_t (*abi_version_fn)(void);
/* ABI 1.1: MCP */
typedef codex_status_t (*set_argv_fn)(codex_options_t *, const char *const *, size_t);
typedef codex_status_t (*set_pair_fn)(codex_options_t *, const char *, const char *);
typedef codex_status_t (*cancel_fn)(codex_client_t *, uint64_t);
typedef const char *(*mcp_method_fn)(const char *);
typedef codex_status_t (*mcp_params_fn)(const char *, const char *, const char *, char **);

int header_check_c(void);
int header_check_c(void) {
    new_fn a = codex_client_new;
    request_fn b = codex_client_request;
    call_fn c = codex_client_call;
    register_fn d = codex_client_register_callback;
    respond_fn e = codex_client_respond;
    next_event_fn f = codex_client_next_event;
    event_fd_fn g = codex_client_event_fd;
    /* codex_options_t is opaque (ABI 1): only pointers to it exist in a program */
    options_new_fn on = codex_options_new;
    options_free_fn of = codex_options_free;
    set_str_fn strs[] = {codex_options_set_codex_bin, codex_options_add_arg, codex_options_add_config_override,
                         codex_options_add_env, codex_options_set_cwd, codex_options_set_codex_home,
                         codex_options_add_opt_out_notification_method};
    set_bool_fn bools[] = {codex_options_set_clear_env, codex_options_set_experimental_api};
    set_u64_fn u64s[] = {codex_options_set_default_timeout_ms, codex_options_set_connect_timeout_ms};
    set_size_fn sizes[] = {codex_options_set_event_queue_capacity, codex_options_set_read_ahead_bytes,
                           codex_options_set_max_line_bytes};
    set_delivery_fn sd = codex_options_set_delivery;
    set_client_info_fn sci = codex_options_set_client_info;
    set_transport_fn st = codex_options_set_transport;
    abi_version_fn av = codex_abi_version;
    set_argv_fn sa = codex_options_set_mcp_command;
    set_pair_fn pairs[] = {codex_options_add_header, codex_options_add_mcp_root};
    set_str_fn caps = codex_options_set_mcp_capabilities_json;
    cancel_fn cancel = codex_client_cancel_request;
    mcp_method_fn mm = codex_mcp_method_name;
    mcp_params_fn mp = codex_mcp_params;
    int abi = CODEX_ABI_VERSION == CODEX_ABI_VERSION_MAJOR * 1000 + CODEX_ABI_VERSION_MINOR &&
              CODEX_ABI_VERSION_MAJOR == 1 && CODEX_ABI_VERSION_MINOR >= 1 && CODEX_OPTIONS_MAX_TIMEOUT_MS > 0;
    int stable = CODEX_STATUS_OK == 0 && CODEX_STATUS_INVALID_ARGUMENT == 1 && CODEX_STATUS_NOT_CONNECTED == 2 &&
                 CODEX_STATUS_ALREADY_CONNECTED == 3 && CODEX_STATUS_TIMEOUT == 4 &&
                 CODEX_STATUS_DISCONNECTED == 5 && CODEX_STATUS_RPC_ERROR == 6 &&
                 CODEX_STATUS_OVERLOADED == 7 && CODEX_STATUS_UNSUPPORTED == 12 && CODEX_STATUS_PANIC == 13 &&
                 CODEX_STATUS_INTERNAL == 14 && CODEX_STATUS_CANCELLED == 15;
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
    return stable && abi && a && b && c && d && e && f && g && on && of && strs[6] && bools[1] && u64s[1] &&
           sizes[2] && sd && sci && st && av && sa && pairs[1] && caps && cancel && mm && mp && CODEX_DELIVERY_POLL == 1 && CODEX_DELIVERY_CALLBACKS == 0 &&
           sizeof(codex_status_t) == sizeof(int);
}
