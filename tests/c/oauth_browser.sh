#!/usr/bin/env bash
# The headless "browser" of the OAuth example in scripts/test-c.sh ($BROWSER of
# examples/c/mcp_oauth.c): asks the OAuth fixture's browse endpoint ($OAUTH_BROWSE) to sign in
# as alice at the authorization URL $1, then follows the redirect it answers to the example's
# loopback listener, as a browser would. Bounded: 30 s per request.
set -euo pipefail
redirect=$(curl -sS --max-time 30 --get --data-urlencode "url=$1" "$OAUTH_BROWSE")
curl -sS --max-time 30 -o /dev/null "$redirect"
