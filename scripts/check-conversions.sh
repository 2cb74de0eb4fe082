#!/usr/bin/env bash
# CI's second tier: the ingest, import and wire targets must not gain a bare integer conversion (`Int(x)`, `Int64(x)`,
# `Int32(x)`, `UInt(x)`, `UInt64(x)`, `UInt32(x)`): of a Double, it traps when x is huge, NaN or infinite, and these
# targets read what clients send. The labelled forms (`clamping:`, `exactly:`, `truncatingIfNeeded:`, `bitPattern:`)
# never trap and are not listed. Every other such line must be in scripts/conversions.allowlist, reviewed (a
# conversion of a string, of byte arithmetic, of an Int to Int64, …): one entry a line, `path<TAB>trimmed line`, so
# that moving a line keeps its entry.
#
#   scripts/check-conversions.sh            fails on every line not in the allowlist
#   scripts/check-conversions.sh --list     prints every such line in the allowlist's format (to review, then add)
. "$(dirname "$0")/lib.sh"

targets=(Sources/HealthAutoExport Sources/HealthImport Sources/HealthXML Sources/PairedAPI Sources/HealthMCP
         Sources/GatewayNode Sources/HealthService Sources/HealthAccess Sources/HealthHTTP Sources/HealthSupport)
allowlist=scripts/conversions.allowlist
# A call of an integer type's initializer whose first argument is not one of the non-trapping labels; comments aside.
pattern='(?<![A-Za-z0-9_.])U?Int(64|32)?\((?!\s*(clamping|exactly|truncatingIfNeeded|bitPattern):)'

found() {
  grep -rnP --include='*.swift' "$pattern" "${targets[@]}" \
    | grep -vP '^[^:]+:[0-9]+:\s*//' \
    | awk '{ i = index($0, ":"); path = substr($0, 1, i - 1); rest = substr($0, i + 1)
             j = index(rest, ":"); line = substr(rest, 1, j - 1); text = substr(rest, j + 1)
             gsub(/^[ \t]+|[ \t]+$/, "", text); print path "\t" line "\t" text }'
}

if [ "${1:-}" = "--list" ]; then
  found | awk -F'\t' '{ print $1 "\t" $3 }' | sort -u
  exit 0
fi

[ -f "$allowlist" ] || { echo "check-conversions: $allowlist is missing" >&2; exit 1; }
new=$(found | awk -F'\t' -v list="$allowlist" '
  BEGIN { while ((getline entry < list) > 0) if (entry !~ /^#/ && entry != "") allowed[entry] = 1 }
  !(($1 "\t" $3) in allowed) { print $1 ":" $2 ": " $3 }')
if [ -n "$new" ]; then
  echo "check-conversions: integer conversions not in $allowlist:" >&2
  printf '%s\n' "$new" | sed 's/^/  /' >&2
  cat >&2 <<'MSG'
A bare Int(x)/Int64(x)/… of a Double traps when x is huge, NaN or infinite, and these targets read what clients send.
Use Double's checked helpers (HealthModel, Double+Checked.swift): checkedInt64() / checkedInt() (nil when it does not
fit) or clampedInt64() / clampedInt(); or a labelled form (Int(exactly:), Int(clamping:) for integers). If the value
is not a Double from input (a string, byte arithmetic, an Int widened), add the line after review:
  scripts/check-conversions.sh --list   prints every line in the allowlist's format.
MSG
  exit 1
fi
echo "check-conversions: $(found | wc -l) integer conversions, all reviewed in $allowlist"
