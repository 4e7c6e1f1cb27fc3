# The Codex CLI versions this library supports: the single source of truth, sourced by the
# scripts (gen-protocol.sh, check-generated.sh, update-codex.sh, the test scripts) and read by
# tools/protocol-gen/gen.py (through gen-protocol.sh).
# CODEX_WINDOW: every vendored version (schema/codex-<v>/), ascending; the generated protocol
#   is valid across all of them (docs/compat.md says how the window moves).
# CODEX_DEFAULT: the version the full real-Codex tests, the demo and the docs use (the newest).
# CODEX_SMOKE: the other versions the smoke set runs on (the window's oldest and the previous
#   default).
# scripts/update-codex.sh VERSION rewrites this file; keep its three assignments one per line.
CODEX_DEFAULT="0.171.0"
CODEX_WINDOW="0.163.0 0.164.0 0.165.0 0.166.0 0.167.2 0.168.0 0.169.0 0.171.0"
CODEX_SMOKE="0.163.0 0.169.0"
