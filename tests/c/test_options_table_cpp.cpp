// The option table through the C++ Options members (include/codexclient_options.hpp, generated
// from the table): every key of Options::keys_json() (read at run time) is a member, and
// option_count is the table's length; each edge value of option_edges.h that a member can hold
// (the default, unset, and for a key with a range min, max, min-1, max+1 and 0; durations as
// the `<key>_ms` member in milliseconds) makes build() succeed or throw
// codex::Error(CODEX_STATUS_INVALID_ARGUMENT) naming the key as the row says, and the built
// options read back (codex_options_get) the value the row says. Also: an unset member is not
// sent (the built options equal a fresh codex_options_new() for every key).
#include "test_require.hpp"

#include <cmath>
#include <string>
#include <type_traits>

#include "codexclient.hpp"
#include "option_edges.h"

#define REQUIRE_MSG(cond, what)                                                               \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "%s:%d: REQUIRE failed: %s: %s\n", __FILE__, __LINE__, #cond, \
                         std::string(what).c_str());                                          \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

namespace {

std::string read(const codex::OptionsHandle &h, const char *name) {
    char *got = codex_options_get(h.get(), name);
    REQUIRE(got != nullptr);
    return codex::detail::take_string(got);
}

// Give `member` the edge value `e` of row `r`; false when a member of its type cannot hold it
// (a fraction or a negative number in a count, null: the member is then left unset).
template <class M> bool assign(M &member, const char *kind, const edge_row_t &r, const edge_t &e) {
    std::string value = e.value;
    if (value == "null") return true; // unset
    if constexpr (std::is_same<M, std::optional<bool>>::value) {
        if (value != "true" && value != "false") return false;
        member = value == "true";
        return true;
    } else if constexpr (std::is_same<M, std::optional<double>>::value) {
        if (!e.is_number) return false;
        member = e.number * 1000.0; // a duration member is in milliseconds
        return true;
    } else if constexpr (std::is_same<M, std::optional<uint64_t>>::value) {
        if (!e.is_number || e.number < 0 || std::floor(e.number) != e.number) return false;
        member = static_cast<uint64_t>(e.number);
        return true;
    } else if constexpr (std::is_same<M, std::string>::value) {
        if (std::string(kind) == "object") {
            member = value; // JSON text
            return true;
        }
        char buf[EDGE_TEXT];
        if (!js_str(value.c_str(), buf, sizeof buf)) return false;
        member = buf;
        return true;
    } else {
        // Lists: the defaults of the table are [] or null, which an empty list (not sent) is.
        (void)member;
        (void)r;
        return value == "[]";
    }
}

} // namespace

int main() {
    const std::string keys = codex::Options::keys_json();
    REQUIRE(js_len(keys.c_str()) == static_cast<long>(codex::Options::option_count));
    codex::OptionsHandle fresh(codex_options_new());
    int checked = 0, skipped = 0, ranged = 0;
    size_t i = 0;
    for (;; i++) {
        edge_row_t r;
        if (!edge_row(keys.c_str(), i, &r)) break;
        ranged += r.ranged;
        // Every key is a member.
        int found = 0;
        codex::Options probe;
        probe.for_each_option([&](const char *name, auto &, const char *kind) {
            if (std::string(name) == r.name) {
                found++;
                REQUIRE(std::string(kind) == r.kind);
            }
        });
        REQUIRE_MSG(found == 1, r.name);
        // Unset: not sent, so the built options read as a fresh object does.
        REQUIRE_MSG(read(probe.build(), r.name) == read(fresh, r.name), r.name);
        edge_t e[EDGE_MAX];
        int n = edge_values(&r, e);
        for (int j = 0; j < n; j++) {
            codex::Options o;
            bool held = true;
            o.for_each_option([&](const char *name, auto &member, const char *kind) {
                if (std::string(name) == r.name) held = assign(member, kind, r, e[j]);
            });
            if (!held) {
                skipped++;
                continue;
            }
            try {
                codex::OptionsHandle h = o.build();
                REQUIRE_MSG(e[j].ok, (std::string(r.name) + " = " + e[j].value + " taken; the table refuses it").c_str());
                std::string got = read(h, r.name);
                bool same = js_eq(got.c_str(), e[j].effective) || (e[j].off_or_default && js_eq(got.c_str(), "0"));
                if (!same && e[j].is_number && r.ranged) // milliseconds to seconds: the nearest double
                    same = std::fabs(std::strtod(got.c_str(), nullptr) - std::strtod(e[j].effective, nullptr)) < 1e-9;
                REQUIRE_MSG(same, (std::string(r.name) + " = " + e[j].value + " reads " + got + ", the table says " +
                                   e[j].effective).c_str());
            } catch (const codex::Error &err) {
                REQUIRE_MSG(!e[j].ok, (std::string(r.name) + " = " + e[j].value + " refused: " + err.what()).c_str());
                REQUIRE(err.status() == CODEX_STATUS_INVALID_ARGUMENT);
                REQUIRE_MSG(std::string(err.what()).find(r.name) != std::string::npos, err.what());
            }
            checked++;
        }
    }
    REQUIRE(i == codex::Options::option_count && ranged > 10);
    std::printf("test_options_table_cpp: ok (%zu keys, %d with a range, %d values checked, %d not expressible "
                "in a member's type)\n",
                i, ranged, checked, skipped);
    return 0;
}
