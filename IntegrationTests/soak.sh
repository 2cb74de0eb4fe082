#!/usr/bin/env bash
# Soak: `healthbridge serve` (demo data) under 50 paired HTTPS clients, MCP calls over HTTP and an import repeated
# every few seconds, and `healthbridge node` behind the OpenClaw test gateway (`hb-test-gateway`), for a bounded
# time. Fails on any error, on RSS or open files that keep growing, or on a data read without its audit row. Prints
# the figures.
#
# Usage: IntegrationTests/soak.sh [SECONDS (default 300)] [CLIENTS (default 50)]
#   SOAK_BINARY   a healthbridge binary to use (default: scripts/lib.sh's, $HEALTHBRIDGE_BINARY or built once)
#   SOAK_GATEWAY  an hb-test-gateway binary to use (default: `swift build --product hb-test-gateway`, built once, in
#                 $SWIFT_SCRATCH_PATH when set)
. "$(dirname "$0")/../scripts/lib.sh"
seconds=${1:-300}
clients=${2:-50}
binary=${SOAK_BINARY:-$(hb_binary)}
if [ -n "${SOAK_GATEWAY:-}" ]; then
  gateway=$SOAK_GATEWAY
else
  scratch=()
  if [ -n "${SWIFT_SCRATCH_PATH:-}" ]; then scratch=(--scratch-path "$SWIFT_SCRATCH_PATH"); fi
  swift build "${scratch[@]}" --product hb-test-gateway >&2
  gateway="$(swift build "${scratch[@]}" --show-bin-path)/hb-test-gateway"
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
python3 IntegrationTests/soak.py --binary "$(readlink -f "$binary")" --gateway "$(readlink -f "$gateway")" \
  --home "$home" --seconds "$seconds" --clients "$clients" \
  --fixture "${SOAK_FIXTURE:-../shared/fixtures/realistic-v14-export.xml}"
