/* The ABI can grow (ABI 1):
 * - codex_abi_version() of the loaded library equals the header's CODEX_ABI_VERSION
 *   (major * 1000 + minor), and the major version is 1;
 * - a program compiled against the ABI 0 header passed a pointer to its own public
 *   codex_options_t struct: the library now answers INVALID_ARGUMENT, a NULL client and a
 *   message that says what happened - and never reads the struct (it is allocated with its exact
 *   size, so valgrind and ASan would report any read past or into it... and it is also
 *   checked unchanged);
 * - every setter refuses a NULL or freed options object, and its bad values: a bad transport
 *   spec, a token with a transport that is not ws:// / wss://, a config override or env entry
 *   that is not key=value, NULL / non-UTF-8 strings, an unknown delivery, a too large timeout;
 *   a refused value changes nothing;
 * - strings passed to setters are copied, and the options object may be freed right after
 *   codex_client_new (checked against the fake app-server: the options still apply).
 */
#include "test_util.h"

#include <stdint.h>

/* The fields every ABI 0 header's options struct began with. */
#define ABI0_COMMON_FIELDS                                  \
    const char *codex_bin;                                  \
    const char *const *args;                                \
    size_t args_len;                                        \
    const char *const *config_overrides;                    \
    size_t config_overrides_len;                            \
    const char *const *env;                                 \
    size_t env_len;                                         \
    bool clear_env;                                         \
    const char *cwd;                                        \
    const char *codex_home;                                 \
    const char *client_name;                                \
    const char *client_title;                               \
    const char *client_version;                             \
    bool experimental_api;                                  \
    const char *const *opt_out_notification_methods;        \
    size_t opt_out_notification_methods_len;                \
    uint64_t default_timeout_ms;                            \
    codex_delivery_t delivery;                              \
    size_t event_queue_capacity;                            \
    size_t max_line_bytes;

/* The public options struct of the ABI 0 header (include/codexclient.h before ABI 1), field
 * for field under another name: this is what a program built against that header passed. */
typedef struct old_codex_options_t {
    ABI0_COMMON_FIELDS
    const char *transport;
    const char *token;
    uint64_t connect_timeout_ms;
    size_t read_ahead_bytes;
} old_codex_options_t;

/* The same struct as an even older header had it (before transport/token and the two fields
 * added last): the shorter struct the library used to read past. */
typedef struct older_codex_options_t {
    ABI0_COMMON_FIELDS
} older_codex_options_t;

#define OLD_HEADER_MESSAGE "not a codex_options_t from codex_options_new: built against an older header?"

static void check_last_error(codex_status_t want, const char *needle) {
    const char *msg = codex_last_error_message();
    CHECK_STATUS(codex_last_error_status(), want);
    CHECK(msg != NULL);
    if (strstr(msg, needle) == NULL) FAIL("last error `%s` does not contain `%s`", msg, needle);
}

static void abi_version(void) {
    CHECK(codex_abi_version() == CODEX_ABI_VERSION);
    CHECK(CODEX_ABI_VERSION == CODEX_ABI_VERSION_MAJOR * 1000 + CODEX_ABI_VERSION_MINOR);
    CHECK(CODEX_ABI_VERSION_MAJOR == 1);
    CHECK(codex_abi_version() / 1000 == CODEX_ABI_VERSION_MAJOR);
    CHECK((long)(codex_abi_version() % 1000) >= (long)CODEX_ABI_VERSION_MINOR);
    printf("  ABI version %u (header %d)\n", (unsigned)codex_abi_version(), CODEX_ABI_VERSION);
}

/* A program built against the ABI 0 header: `codex_options_t o = {0}; o.codex_bin = ...;
 * codex_client_new(&o, &c)`. */
static void old_struct_is_refused(void) {
    const char *args[] = {"--flag"};
    old_codex_options_t *old = calloc(1, sizeof *old); /* exact size: any read past it is caught */
    older_codex_options_t *older = calloc(1, sizeof *older);
    old_codex_options_t copy;
    codex_client_t *c = (codex_client_t *)&c;
    CHECK(old != NULL && older != NULL);
    old->codex_bin = "/nonexistent/codex";
    old->args = args;
    old->args_len = 1;
    old->delivery = CODEX_DELIVERY_POLL;
    old->default_timeout_ms = 1000;
    old->transport = "stdio";
    memcpy(&copy, old, sizeof copy);

    CHECK_STATUS(codex_client_new((const codex_options_t *)old, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(c == NULL);
    check_last_error(CODEX_STATUS_INVALID_ARGUMENT, OLD_HEADER_MESSAGE);
    printf("  old struct: %s\n", codex_last_error_message());
    CHECK(memcmp(&copy, old, sizeof copy) == 0); /* untouched */

    /* the shorter struct of an even older header, and an all-zero one: the same answer */
    older->codex_bin = "/nonexistent/codex";
    older->delivery = CODEX_DELIVERY_CALLBACKS;
    c = (codex_client_t *)&c;
    CHECK_STATUS(codex_client_new((const codex_options_t *)older, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(c == NULL);
    check_last_error(CODEX_STATUS_INVALID_ARGUMENT, OLD_HEADER_MESSAGE);
    {
        old_codex_options_t zero;
        memset(&zero, 0, sizeof zero);
        c = (codex_client_t *)&c;
        CHECK_STATUS(codex_client_new((const codex_options_t *)&zero, &c), CODEX_STATUS_INVALID_ARGUMENT);
        CHECK(c == NULL);
        check_last_error(CODEX_STATUS_INVALID_ARGUMENT, OLD_HEADER_MESSAGE);
    }

    /* setters and free given the old struct: refused, nothing written or freed */
    CHECK_STATUS(codex_options_set_delivery((codex_options_t *)old, CODEX_DELIVERY_CALLBACKS),
                 CODEX_STATUS_INVALID_ARGUMENT);
    check_last_error(CODEX_STATUS_INVALID_ARGUMENT, "older header");
    codex_options_free((codex_options_t *)old); /* not ours: ignored, reported */
    check_last_error(CODEX_STATUS_INVALID_ARGUMENT, "ignored");
    CHECK(memcmp(&copy, old, sizeof copy) == 0);
    free(old);
    free(older);
}

/* One setter call that must be refused with INVALID_ARGUMENT and a message containing
 * `needle`. */
#define REFUSED(call, needle)                                                                  \
    do {                                                                                       \
        CHECK_STATUS(call, CODEX_STATUS_INVALID_ARGUMENT);                                     \
        check_last_error(CODEX_STATUS_INVALID_ARGUMENT, needle);                               \
    } while (0)

/* Every setter on a NULL and on a freed options object. */
static void every_setter_refuses_a_dead_object(codex_options_t *o, const char *needle) {
    REFUSED(codex_options_set_codex_bin(o, "/bin/true"), needle);
    REFUSED(codex_options_add_arg(o, "--x"), needle);
    REFUSED(codex_options_add_config_override(o, "a=1"), needle);
    REFUSED(codex_options_add_env(o, "A=1"), needle);
    REFUSED(codex_options_set_clear_env(o, true), needle);
    REFUSED(codex_options_set_cwd(o, "/tmp"), needle);
    REFUSED(codex_options_set_codex_home(o, "/tmp"), needle);
    REFUSED(codex_options_set_client_info(o, "n", "t", "v"), needle);
    REFUSED(codex_options_set_experimental_api(o, true), needle);
    REFUSED(codex_options_add_opt_out_notification_method(o, "a/b"), needle);
    REFUSED(codex_options_set_default_timeout_ms(o, 1000), needle);
    REFUSED(codex_options_set_connect_timeout_ms(o, 1000), needle);
    REFUSED(codex_options_set_delivery(o, CODEX_DELIVERY_POLL), needle);
    REFUSED(codex_options_set_event_queue_capacity(o, 16), needle);
    REFUSED(codex_options_set_read_ahead_bytes(o, 1024), needle);
    REFUSED(codex_options_set_max_line_bytes(o, 1024), needle);
    REFUSED(codex_options_set_transport(o, "exec", NULL), needle);
}

static void setters_refuse_bad_arguments(void) {
    codex_options_t *o = new_options(), *dead = new_options();
    codex_client_t *c = (codex_client_t *)&c;

    CHECK(o != dead);
    every_setter_refuses_a_dead_object(NULL, "options is NULL");
    codex_options_free(dead);
    every_setter_refuses_a_dead_object(dead, OLD_HEADER_MESSAGE);
    {
        /* handles are never reused: a new object never revives a freed handle */
        codex_options_t *fresh = new_options();
        CHECK(fresh != dead && fresh != o);
        REFUSED(codex_options_set_clear_env(dead, true), "already freed");
        codex_options_free(fresh);
    }
    CHECK_STATUS(codex_client_new(dead, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(c == NULL);
    check_last_error(CODEX_STATUS_INVALID_ARGUMENT, "already freed");
    codex_options_free(dead); /* double free: ignored, reported */
    check_last_error(CODEX_STATUS_INVALID_ARGUMENT, "ignored");
    codex_options_free(NULL); /* NULL: a no-op */

    /* transport: an unknown spec (the message names it and the accepted values) */
    REFUSED(codex_options_set_transport(o, "gopher://x", NULL), "gopher://x");
    REFUSED(codex_options_set_transport(o, "gopher://x", NULL), "ws://");
    REFUSED(codex_options_set_transport(o, "stdio2", NULL), "unknown transport");
    /* a token with a transport that is not ws:// / wss:// (the token is never in the message) */
    REFUSED(codex_options_set_transport(o, "exec", "sekret-4242"), "token");
    CHECK(strstr(codex_last_error_message(), "sekret-4242") == NULL);
    REFUSED(codex_options_set_transport(o, NULL, "sekret-4242"), "token"); /* default stdio */
    REFUSED(codex_options_set_transport(o, "unix", "sekret-4242"), "token");
    REFUSED(codex_options_set_transport(o, "mcp", "sekret-4242"), "token");
    REFUSED(codex_options_set_transport(o, "\xff", NULL), "UTF-8");
    CHECK_OK(codex_options_set_transport(o, "ws://127.0.0.1:9/", "sekret-4242"));
    CHECK_OK(codex_options_set_transport(o, NULL, NULL));

    /* key=value and NAME=value */
    REFUSED(codex_options_add_config_override(o, "no_equals_sign"), "no_equals_sign");
    REFUSED(codex_options_add_config_override(o, "=value"), "NAME=value");
    REFUSED(codex_options_add_config_override(o, NULL), "NULL");
    REFUSED(codex_options_add_env(o, "NO_EQUALS_SIGN"), "NAME=value");
    REFUSED(codex_options_add_env(o, "=x"), "NAME=value");
    REFUSED(codex_options_add_env(o, "A=\xff\xfe"), "UTF-8");
    REFUSED(codex_options_add_env(o, NULL), "NULL");
    CHECK_OK(codex_options_add_config_override(o, "a.b=\"x=y\""));
    CHECK_OK(codex_options_add_env(o, "EMPTY="));

    /* strings */
    REFUSED(codex_options_add_arg(o, NULL), "NULL");
    REFUSED(codex_options_add_arg(o, "\xc3\x28"), "UTF-8");
    REFUSED(codex_options_set_codex_bin(o, "\xff"), "UTF-8");
    REFUSED(codex_options_set_cwd(o, "\xff"), "UTF-8");
    REFUSED(codex_options_set_codex_home(o, "\xff"), "UTF-8");
    REFUSED(codex_options_set_client_info(o, "ok", "\xff", NULL), "UTF-8");
    REFUSED(codex_options_add_opt_out_notification_method(o, NULL), "NULL");

    /* numbers */
    REFUSED(codex_options_set_delivery(o, 7), "unknown delivery");
    REFUSED(codex_options_set_default_timeout_ms(o, CODEX_OPTIONS_MAX_TIMEOUT_MS + 1), "seconds from 0 to");
    REFUSED(codex_options_set_connect_timeout_ms(o, UINT64_MAX), "seconds from 0 to");
    CHECK(strstr(codex_last_error_message(), "connect_timeout") != NULL); /* names the option */
    CHECK_OK(codex_options_set_default_timeout_ms(o, CODEX_OPTIONS_MAX_TIMEOUT_MS));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 0)); /* 0: the default again */

    /* every value accepted, and the refusals changed nothing: a client can be made */
    CHECK_OK(codex_options_set_codex_bin(o, NULL));
    CHECK_OK(codex_options_set_cwd(o, NULL));
    CHECK_OK(codex_options_set_codex_home(o, NULL));
    CHECK_OK(codex_options_set_client_info(o, NULL, NULL, NULL));
    CHECK_OK(codex_options_set_clear_env(o, false));
    CHECK_OK(codex_options_set_experimental_api(o, false));
    CHECK_OK(codex_options_set_event_queue_capacity(o, 0));
    CHECK_OK(codex_options_set_read_ahead_bytes(o, 0));
    CHECK_OK(codex_options_set_max_line_bytes(o, 0));
    CHECK_OK(codex_options_set_delivery(o, CODEX_DELIVERY_POLL));
    CHECK(codex_last_error_status() == CODEX_STATUS_OK && *codex_last_error_message() == '\0');
    c = NULL;
    CHECK_OK(codex_client_new(o, &c));
    CHECK(c != NULL);
    CHECK(codex_client_event_fd(c) >= 0); /* the poll delivery was kept */
    codex_client_free(c);
    codex_options_free(o);
}

/* Strings are copied by the setters; the object may be freed right after codex_client_new. */
static void options_are_copied(void) {
    char bin[1024], mode[64], *s = NULL;
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    double t0;
    snprintf(bin, sizeof bin, "%s", env_or_die("FAKE_APP_SERVER"));
    snprintf(mode, sizeof mode, "FAKE_MODE=hang");
    CHECK_OK(codex_options_set_codex_bin(o, bin));
    CHECK_OK(codex_options_add_env(o, mode));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 300));
    CHECK_OK(codex_options_set_delivery(o, CODEX_DELIVERY_POLL));
    /* overwrite the program's strings: the object holds its own copies */
    memset(bin, 'x', sizeof bin - 1);
    bin[sizeof bin - 1] = '\0';
    snprintf(mode, sizeof mode, "FAKE_MODE=die");
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL)); /* the fake app-server was found: bin was copied */
    t0 = now_s();
    /* FAKE_MODE=hang reached the server and the 300 ms default timeout applies */
    CHECK_STATUS(codex_client_call(c, "test/hang", "{}", 0, &s), CODEX_STATUS_TIMEOUT);
    CHECK(s == NULL);
    CHECK(now_s() - t0 >= 0.29 && now_s() - t0 < 5.0);
    CHECK(codex_client_is_connected(c));
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
}

int main(void) {
    double t0 = now_s();
    abi_version();
    old_struct_is_refused();
    setters_refuse_bad_arguments();
    options_are_copied();
    printf("test_abi: ok (%.1f s)\n", now_s() - t0);
    return 0;
}
