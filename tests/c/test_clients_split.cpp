// Neither C++ client carries the other protocol's methods (issue 42): codex::Client has no MCP
// request and codex::McpClient no Codex method, under any spelling, deprecated or not (the
// deprecated MCP spellings codex::Client had were removed before 0.2.0 shipped).
// - At compile time: a detection idiom per name (has_<name><T>: whether T has a member of that
//   name at all, public or not, whatever its signature or overloads). Each MCP name is a member
//   of codex::McpClient and of no codex::Client; each Codex name a member of codex::Client and
//   of no codex::McpClient. A name the lists get wrong fails the static_asserts.
// - At run time: the lists are the classes' whole public API, read from the headers (the
//   `using detail::McpConnection::<name>;` lines of codex::McpClient; the public members of
//   codex::Client), so a method added to either client without being added here fails.
#include "test_require.hpp"

#include <cstdio>
#include <fstream>
#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>

#include "codexclient.hpp"

// The MCP requests: codex::McpClient's public API over the connection's.
#define MCP_NAMES(X)                                                                          \
    X(mcp_method) X(mcp_params) X(mcp_call) X(mcp_request) X(list_tools) X(call_tool)         \
    X(list_resources) X(list_resource_templates) X(read_resource) X(subscribe_resource)       \
    X(unsubscribe_resource) X(list_prompts) X(get_prompt) X(complete) X(set_logging_level)   \
    X(ping) X(listen) X(mcp_prior) X(mcp_skills_list) X(mcp_skill_load)

// The Codex methods: codex::Client's public API over the connection's.
#define CODEX_NAMES(X)                                                                        \
    X(server_version) X(supports) X(respond_ref_decision) X(thread_start) X(turn_start)       \
    X(turn_start_with_skills) X(turn_run) X(login_api_key) X(login_chatgpt)                  \
    X(login_device_code) X(logout) X(rate_limits) X(helper) X(turn_interrupt) X(turn_steer)  \
    X(add_skill_source) X(remove_skill_source)

// has_<name><T>: T has a member named <name>. Derived has <name> from T and from Fallback, so
// &Derived::<name> is ambiguous (a substitution failure: true) exactly when T has one.
#define DETECT(name)                                                                          \
    struct fallback_##name {                                                                  \
        int name;                                                                             \
    };                                                                                        \
    template <class T> struct derived_##name : T, fallback_##name {};                         \
    template <class T, class = void> struct has_##name : std::true_type {};                   \
    template <class T>                                                                        \
    struct has_##name<T, std::void_t<decltype(&derived_##name<T>::name)>> : std::false_type {};

namespace {
MCP_NAMES(DETECT)
CODEX_NAMES(DETECT)
} // namespace

#define MCP_ONLY(name)                                                                        \
    static_assert(has_##name<codex::McpClient>::value, "codex::McpClient has " #name);        \
    static_assert(!has_##name<codex::Client>::value, "codex::Client has no " #name);           \
    static_assert(!has_##name<codex::Connection>::value, "the connection has no " #name);
#define CODEX_ONLY(name)                                                                      \
    static_assert(has_##name<codex::Client>::value, "codex::Client has " #name);              \
    static_assert(!has_##name<codex::McpClient>::value, "codex::McpClient has no " #name);     \
    static_assert(!has_##name<codex::Connection>::value, "the connection has no " #name);
MCP_NAMES(MCP_ONLY)
CODEX_NAMES(CODEX_ONLY)

// The idiom itself finds members of any access: McpConnection's protected requests.
static_assert(has_list_tools<codex::detail::McpConnection>::value, "protected members are found");

namespace {

#define NAME_STRING(name) #name,
const std::set<std::string> kMcp = {MCP_NAMES(NAME_STRING)};
const std::set<std::string> kCodex = {CODEX_NAMES(NAME_STRING)};

std::string root() {
    std::string f = __FILE__;
    std::string::size_type at = f.rfind("tests/c/");
    return at == std::string::npos ? std::string() : f.substr(0, at);
}

std::string slurp(const std::string &path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s (run from the repository's root)\n", path.c_str());
        std::exit(1);
    }
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The text of `cls`'s public part: from its head to its first "private:" / "protected:" line.
std::string public_part(const std::string &text, const std::string &head) {
    std::string::size_type a = text.find(head);
    REQUIRE(a != std::string::npos);
    std::string::size_type b = text.find("\nprivate:", a), c = text.find("\nprotected:", a);
    std::string::size_type e = std::min(b, c);
    std::string::size_type end = text.find("\n};", a);
    REQUIRE(end != std::string::npos);
    return text.substr(a, std::min(e, end) - a);
}

// The names of the `using detail::McpConnection::NAME;` lines of `text`.
std::set<std::string> usings(const std::string &text) {
    static const std::string head = "using detail::McpConnection::";
    std::set<std::string> names;
    for (std::string::size_type i = text.find(head); i != std::string::npos; i = text.find(head, i + 1)) {
        std::string::size_type a = i + head.size(), b = text.find(';', a);
        if (b != std::string::npos) names.insert(text.substr(a, b - a));
    }
    return names;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The member functions declared at the class's indentation (four spaces) in `text`: a line
// "    [static ]TYPE... NAME(" whose part before `(` is words of [A-Za-z0-9_:<>,] with `&` or
// `*` before a word, the first starting with a letter or `_`, and at least two words.
std::set<std::string> declared_functions(const std::string &text) {
    std::set<std::string> names;
    std::string::size_type start = 0;
    while (start < text.size()) {
        std::string::size_type end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        if (line.compare(0, 4, "    ") != 0 || line.size() < 5) continue;
        std::string rest = line.substr(4);
        char first = rest[0];
        if (!(std::isalpha(static_cast<unsigned char>(first)) || first == '_')) continue;
        std::string::size_type paren = rest.find('(');
        if (paren == std::string::npos || paren == 0) continue;
        std::string prefix = rest.substr(0, paren);
        bool ok = prefix.find(' ') != std::string::npos;
        for (char c : prefix)
            if (!(ident_char(c) || c == ':' || c == '<' || c == '>' || c == ',' || c == ' ' || c == '&' || c == '*'))
                ok = false;
        if (!ok) continue;
        std::string::size_type n = prefix.size();
        while (n > 0 && ident_char(prefix[n - 1])) --n;
        if (n == prefix.size() || n == 0) continue;
        char before = prefix[n - 1];
        if (before != ' ' && before != '&' && before != '*') continue;
        if ((before == '&' || before == '*') && (n < 2 || prefix[n - 2] != ' ')) continue;
        names.insert(prefix.substr(n));
    }
    return names;
}

void require_same(const char *what, const std::set<std::string> &header, const std::set<std::string> &listed) {
    bool ok = true;
    for (const std::string &n : header)
        if (!listed.count(n)) {
            std::fprintf(stderr, "%s: %s is in the header but not in this test's list\n", what, n.c_str());
            ok = false;
        }
    for (const std::string &n : listed)
        if (!header.count(n)) {
            std::fprintf(stderr, "%s: %s is in this test's list but not in the header\n", what, n.c_str());
            ok = false;
        }
    REQUIRE(ok);
}

} // namespace

int main() {
    const std::string dir = root() + "include/";
    // codex::McpClient: the MCP requests it makes public.
    std::string mcp = public_part(slurp(dir + "codexclient_mcp.hpp"), "class McpClient : public detail::McpConnection {");
    require_same("codex::McpClient", usings(mcp), kMcp);
    // codex::Client: the member functions it declares (at the class's indentation; the
    // constructor is not one).
    std::string codex = public_part(slurp(dir + "codexclient_codex.hpp"), "class Client : public Connection {");
    std::set<std::string> declared = declared_functions(codex);
    declared.erase("Client");
    require_same("codex::Client", declared, kCodex);
    std::printf("test_clients_split: %zu MCP names not on codex::Client, %zu Codex names not on codex::McpClient"
                " (nor on the connection); the lists are the headers' public APIs\n",
                kMcp.size(), kCodex.size());
    std::printf("test_clients_split: ok\n");
    return 0;
}
