#!/usr/bin/env bash
# Build the documentation site into $OUT (default: $CARGO_TARGET_DIR/site): rustdoc of the
# core with every warning an error (doc tests run by `cargo test`), the option table generated
# from the core (`codex-client options`), mkdocs-material + mkdocstrings (Python API from the
# package and its stubs) with --strict, then a check that every link of the built pages
# resolves. Tools from PyPI into a cached venv. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
TARGET="${CARGO_TARGET_DIR:-$CACHE/target}"
OUT="${OUT:-$TARGET/site}"
TOOLS="mkdocs-material==9.8.1 mkdocstrings==1.0.8 mkdocstrings-python==2.0.11"
log() { printf '[docs] %s\n' "$*" >&2; }

venv="$CACHE/docs/venv"
if [ "$(cat "$venv/.tools" 2>/dev/null)" != "$TOOLS" ]; then
  log "installing $TOOLS into $venv (PyPI)"
  rm -rf "$venv" && mkdir -p "$(dirname "$venv")" && python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install -q --disable-pip-version-check $TOOLS >&2
  echo "$TOOLS" > "$venv/.tools"
fi

log "rustdoc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR="$TARGET" cargo doc --quiet --no-deps -p codex-client

src="$TARGET/site-src"
rm -rf "$src" && mkdir -p "$src"
cp -r docs/. "$src/"
cp -r "$TARGET/doc" "$src/rust"
log "option table from the core"
# The workspace build of scripts/setup.sh (`cargo run -p codex-client` would resolve other
# features for shared dependencies and compile them and the core again).
CARGO_TARGET_DIR="$TARGET" cargo build --quiet --workspace --all-targets
"$TARGET/debug/codex-client" options > "$src/options.table.md"
{
  echo "# Options"
  echo
  echo "Every client option, the same from Rust (\`OptionsBuilder::set\`), C (\`codex_options_set\`)"
  echo "and Python (a keyword argument). Values are JSON; \`null\` / \`None\` restores the default."
  echo "Generated from the core's option table by \`codex-client options\`: each row's default,"
  echo "range, unit, what 0 means and the clients it applies to (an option given to another client"
  echo "is refused, naming both: \`core/tests/options_table.rs\`). Rust's typed \`ClientOptions\`"
  echo "setters, C, C++ and Python agree with it (\`rust_setters_agree_with_the_table\`,"
  echo "\`ffi-c/tests/unit/options.rs\`, \`tests/c/test_options_table.c\`, \`tests/c/test_options_table_cpp.cpp\`,"
  echo "\`tests/python/test_options.py\`); the C++ \`codex::Options\` members are generated from it"
  echo "(\`scripts/gen-cpp-options.sh\`)."
  echo
  cat "$src/options.table.md"
} > "$src/options.md"
rm "$src/options.table.md"

log "mkdocs build --strict"
sed -e "s#^docs_dir: docs#docs_dir: $src#" -e "s#paths: \[python\]#paths: [$ROOT/python]#" mkdocs.yml > "$TARGET/mkdocs.yml"
(cd "$ROOT" && NO_MKDOCS_2_WARNING=1 "$venv/bin/mkdocs" build --strict --quiet -f "$TARGET/mkdocs.yml" -d "$OUT")

log "link check"
"$venv/bin/python" - "$OUT" <<'PY'
import html.parser, os, sys, urllib.parse
site = sys.argv[1]
bad, pages = [], 0
class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.links = []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v:
                self.links.append(v)
for dirpath, _, files in os.walk(site):
    if os.path.relpath(dirpath, site).split(os.sep)[0] == "rust":
        continue  # rustdoc checks its own links (-D warnings covers broken intra-doc links)
    for f in files:
        if not f.endswith(".html"):
            continue
        pages += 1
        path = os.path.join(dirpath, f)
        p = Links(); p.feed(open(path, encoding="utf-8").read())
        for link in p.links:
            u = urllib.parse.urlparse(link)
            if u.scheme or link.startswith(("#", "//", "mailto:", "data:")):
                continue
            base = site if u.path.startswith("/") else dirpath
            target = os.path.normpath(os.path.join(base, urllib.parse.unquote(u.path).lstrip("/")))
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not os.path.exists(target):
                bad.append(f"{os.path.relpath(path, site)} -> {link}")
if bad:
    print("broken links:\n  " + "\n  ".join(bad)); sys.exit(1)
print(f"docs: {pages} pages, every link resolves")
PY
log "site: $OUT/index.html"
