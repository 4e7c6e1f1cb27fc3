#!/usr/bin/env bash
# Idempotent setup for the TLS tests (core/tests/tls.rs): stunnel4, a real TLS-terminating
# proxy from Debian's packages, in front of `codex app-server --listen ws://...` (the tests make
# their CA and certificates with rcgen); openssl for inspecting them by hand.
set -euo pipefail
missing=()
command -v stunnel4 >/dev/null 2>&1 || missing+=(stunnel4)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
bash "$(dirname "$0")/apt-install.sh" setup-tls "${missing[@]}"
