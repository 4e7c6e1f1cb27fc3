// Compile-only check: codexclient.h and codexclient.hpp are valid C++17 under
// -Wall -Wextra -Werror -pedantic, and the C header's declarations have C linkage.
#include "codexclient.h"
#include "codexclient.hpp"

#include <type_traits>

static_assert(std::is_same<decltype(&codex_client_event_fd), int (*)(const codex_client_t *)>::value,
              "codex_client_event_fd(client) returns the fd");
static_assert(CODEX_STATUS_PANIC == 13, "stable status numbers");

extern "C" int header_check_cpp(void);
extern "C" int header_check_cpp(void) {
    codex_options_t o{};
    codex::Options opts;
    opts.poll = true;
    return o.delivery == CODEX_DELIVERY_CALLBACKS && opts.poll ? 0 : 1;
}
