#!/usr/bin/env bash
# Idempotent setup for the TLS tests (core/tests/tls.rs): stunnel4, a real TLS-terminating
# proxy from Debian's packages, in front of `codex app-server --listen ws://...`; and the
# openssl CLI, which the tests use to make their CA and certificates.
set -euo pipefail
log() { printf '[setup-tls] %s\n' "$*" >&2; }
missing=()
command -v stunnel4 >/dev/null 2>&1 || missing+=(stunnel4)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || { log "missing ${missing[*]} and no apt-get: install them"; exit 1; }
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  log "installing ${missing[*]} with apt-get"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >&2
fi
