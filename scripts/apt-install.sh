#!/usr/bin/env bash
# Install Debian packages with apt-get (sudo when not root), for the setup scripts.
#   scripts/apt-install.sh TAG PACKAGE...     (TAG prefixes the log lines)
set -euo pipefail
tag="$1"; shift
[ $# -gt 0 ] || exit 0
command -v apt-get >/dev/null 2>&1 || { printf '[%s] missing %s and no apt-get: install them\n' "$tag" "$*" >&2; exit 1; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
printf '[%s] installing %s with apt-get\n' "$tag" "$*" >&2
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >&2
