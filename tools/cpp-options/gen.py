#!/usr/bin/env python3
"""Generate include/codexclient_options.hpp (the members of codex::Options) from the core's
option table: the JSON of `codex-client options --json` (codex_client::options::keys_json())
on stdin, the header on stdout. Run by scripts/gen-cpp-options.sh; scripts/test-c.sh fails when
the committed header differs from a fresh generation.

Each row becomes one member whose C++ type follows the row's kind (below). Nothing of a row but
its name, kind, list flag and doc is used: defaults, ranges, units and what 0 means stay the
core's (a member left unset is not sent, so the core applies its own default; a value it
refuses throws from Options::build() with the core's message)."""

import json
import sys

# kind -> (C++ type, member-name suffix, what the member holds)
TYPES = {
    "bool": ("std::optional<bool>", "", "true or false"),
    "policy": ("std::optional<bool>", "", "on (true) or off (false); its settings are their own options"),
    "string": ("std::string", "", "a string (empty: not sent)"),
    "path": ("std::string", "", "a path (empty: not sent)"),
    "word": ("std::string", "", "one of the words of the doc (empty: not sent)"),
    "seconds": ("std::optional<double>", "_ms", "a duration in milliseconds (sent as the option's seconds)"),
    "count": ("std::optional<uint64_t>", "", "a whole number"),
    "strings": ("std::vector<std::string>", "", "strings (empty: not sent)"),
    "pairs": ("std::vector<Entry>", "", "entries, \"NAME=value\" or {NAME, value} (empty: not sent)"),
    "roots": ("std::vector<Entry>", "", "roots, a URI or path, or {URI or path, name} (empty: not sent)"),
    "object": ("std::string", "_json", "a JSON object as text (empty: not sent)"),
}


def comment(text: str, indent: str) -> list:
    """`text` as /// lines of at most 100 columns."""
    words, lines, cur = text.split(), [], ""
    width = 100 - len(indent) - 4
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return [f"{indent}/// {line}".rstrip() for line in lines]


def main() -> None:
    rows = json.load(sys.stdin)
    out = [
        "/*",
        " * codexclient_options.hpp - GENERATED from the core's option table by",
        " * scripts/gen-cpp-options.sh (tools/cpp-options/gen.py over `codex-client options --json`).",
        " * Do not edit: scripts/test-c.sh fails when this file differs from a fresh generation.",
        " *",
        " * Included by codexclient.hpp (which defines codex::Entry first); not a header of its own.",
        " * One member per option of the table: std::nullopt / empty is not sent (the library's",
        " * default applies); a value the library refuses throws from Options::build(), naming the",
        " * option. Defaults, ranges and what 0 means are the table's: each member's doc below is",
        " * the table's doc, and Options::keys_json() has the whole row.",
        " */",
        "#ifndef CODEXCLIENT_OPTIONS_HPP",
        "#define CODEXCLIENT_OPTIONS_HPP",
        "",
        "#ifndef CODEXCLIENT_HPP",
        '#error "include codexclient.hpp, not codexclient_options.hpp"',
        "#endif",
        "",
        "namespace codex {",
        "",
        "/// Every option of the library's table as a C++ member (generated; the base of Options).",
        "struct OptionValues {",
    ]
    names = []
    for r in rows:
        kind = r["kind"]
        if kind not in TYPES:
            sys.exit(f"gen.py: option {r['name']}: unknown kind {kind!r} (add it to TYPES)")
        ctype, suffix, holds = TYPES[kind]
        member = r["name"] + suffix
        names.append((r["name"], member, kind))
        out += comment(f"Option `{r['name']}` ({kind}{', a list' if r['list'] else ''}"
                       f"{', secret' if r['secret'] else ''}; here {holds}): {r['doc']}", "    ")
        out.append(f"    {ctype} {member};")
    out += [
        "",
        "    /// Calls f(\"name\", member, \"kind\") for every option of the table, in its order.",
        "    template <class F> void for_each_option(F &&f) {",
    ]
    out += [f'        f("{n}", {m}, "{k}");' for n, m, k in names]
    out += [
        "    }",
        "    /// Calls f(\"name\", member, \"kind\") for every option of the table, in its order.",
        "    template <class F> void for_each_option(F &&f) const {",
    ]
    out += [f'        f("{n}", {m}, "{k}");' for n, m, k in names]
    out += [
        "    }",
        f"    /// The number of options in the table this header was generated from.",
        f"    static constexpr std::size_t option_count = {len(names)};",
        "};",
        "",
        "} // namespace codex",
        "",
        "#endif",
        "",
    ]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
