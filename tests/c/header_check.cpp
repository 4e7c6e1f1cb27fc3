// Compile-only check: codexclient.h and codexclient.hpp are valid C++17 under
// -Wall -Wextra -Werror -pedantic, and the C header's declarations have C linkage.
#include "codexclient.h"
#include "codexclient.hpp"

#include <type_traits>

static_assert(std::is_same<decltype(&codex_client_event_fd), int (*)(const codex_client_t *)>::value,
              "codex_client_event_fd(client) returns the fd");
static_assert(CODEX_STATUS_PANIC == 13, "stable status numbers");

static_assert(std::is_same<decltype(&codex_options_new), codex_options_t *(*)(void)>::value,
              "options objects are opaque and created by the library");
static_assert(std::is_same<decltype(&codex_options_set_transport),
                           codex_status_t (*)(codex_options_t *, const char *, const char *)>::value,
              "codex_options_set_transport(options, spec, token)");
static_assert(CODEX_ABI_VERSION == CODEX_ABI_VERSION_MAJOR * 1000 + CODEX_ABI_VERSION_MINOR,
              "CODEX_ABI_VERSION encodes major * 1000 + minor");
static_assert(std::is_same<decltype(&codex_options_set_mcp_command),
                           codex_status_t (*)(codex_options_t *, const char *const *, size_t)>::value,
              "codex_options_set_mcp_command(options, argv, argc)");
static_assert(std::is_same<decltype(&codex_client_cancel_request), codex_status_t (*)(codex_client_t *, uint64_t)>::value,
              "codex_client_cancel_request(client, request_id)");
static_assert(CODEX_STATUS_CANCELLED == 15, "CANCELLED appended (ABI 1.1)");

extern "C" int header_check_cpp(void);
extern "C" int header_check_cpp(void) {
    codex::Options opts;
    opts.poll = true;
    opts.mcp_command = {"server", "--stdio"};
    return opts.poll && opts.default_timeout_ms == 0 && opts.headers.empty() ? 0 : 1;
}
