#!/usr/bin/env bash
# Every arrow declared is an arrow used, and every arrow used is declared: for each target of the root Package.swift,
# lists the target and product dependencies that no source file of the target imports (`import X`,
# `@testable import X`, `@_exported import X`, `import struct X.Y`…), and the modules its files import that it does
# not declare (a module reachable only through another dependency is a vestige waiting to break). The system's own
# modules (Foundation, Glibc, Testing…) are not dependencies. Fails when it finds either.
# Usage: scripts/check-target-imports.sh [Package.swift]
. "$(dirname "$0")/lib.sh"

manifest=${1:-Package.swift}

# Modules of the platform SDKs and the toolchain: imported, never declared.
system_modules=" Foundation FoundationEssentials FoundationNetworking FoundationXML Glibc Musl Darwin ucrt WinSDK Android
  Bionic Dispatch Synchronization Testing XCTest os Security Network CryptoKit Combine Observation RegexBuilder
  CoreFoundation UIKit AppKit SwiftUI HealthKit _Concurrency _StringProcessing "

# Declared without an import, on purpose (" TARGET:DEPENDENCY "), each with its reason. None today: the system
# library CZlibInflate is imported by HealthImport, and GRDB's link product GRDBSQLite by HealthStore's files that call
# sqlite3_*, so every dependency kept for linking is also imported. A product needed for linking alone goes here.
allowed_unused=" "

failures=()

# The targets: one line per target, "kind|name|path|dep dep dep". Comments are dropped, then each .target(…)
# call is read to its closing parenthesis.
targets=$(sed -E 's#//.*$##' "$manifest" | awk '
  function flush() {
    if (block == "") return
    kind = block; sub(/\(.*/, "", kind); sub(/.*\./, "", kind)
    name = block; if (!match(name, /name: *"[^"]+"/)) { block = ""; return }
    name = substr(name, RSTART, RLENGTH); sub(/name: *"/, "", name); sub(/"$/, "", name)
    path = ""
    if (match(block, /path: *"[^"]+"/)) { path = substr(block, RSTART, RLENGTH); sub(/path: *"/, "", path); sub(/"$/, "", path) }
    deps = ""
    if (match(block, /dependencies: *\[/)) {
      rest = substr(block, RSTART + RLENGTH); depth = 1; text = ""
      for (i = 1; i <= length(rest) && depth > 0; i++) {
        c = substr(rest, i, 1)
        if (c == "[") depth++
        if (c == "]") depth--
        if (depth > 0) text = text c
      }
      # .product(name: "X", package: "Y") and .target(name: "X") give X; a bare "X" gives X.
      gsub(/package: *"[^"]*"/, "", text)
      gsub(/(name|condition): */, "", text)
      while (match(text, /"[^"]+"/)) { deps = deps " " substr(text, RSTART + 1, RLENGTH - 2); text = substr(text, RSTART + RLENGTH) }
    }
    print kind "|" name "|" path "|" deps
    block = ""
  }
  /\.(target|executableTarget|testTarget|systemLibrary|macro|plugin)\(/ && !inside {
    inside = 1; depth = 0; block = ""
  }
  inside {
    block = block $0 " "
    n = gsub(/\(/, "(", $0); m = gsub(/\)/, ")", $0); depth += n - m
    if (depth <= 0) { inside = 0; flush() }
  }')

names=" $(cut -d'|' -f2 <<<"$targets" | tr '\n' ' ') "

while IFS='|' read -r kind name path deps; do
  [ -n "$name" ] || continue
  case $kind in systemLibrary|plugin) continue ;; esac
  if [ -z "$path" ]; then
    if [ "$kind" = testTarget ]; then path="Tests/$name"; else path="Sources/$name"; fi
  fi
  [ -d "$path" ] || { failures+=("$name: no source directory $path"); continue; }
  # Every module a Swift file of the target imports, attributes and `import kind X.Y` included.
  imports=" $(find "$path" -name '*.swift' -print0 | xargs -0 grep -hoE \
      '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+((struct|class|enum|func|protocol|typealias|var|let)[[:space:]]+)?[A-Za-z_][A-Za-z0-9_]*' \
      2>/dev/null | sed -E 's/.*import[[:space:]]+((struct|class|enum|func|protocol|typealias|var|let)[[:space:]]+)?//' \
      | sort -u | tr '\n' ' ') "
  for dep in $deps; do
    case "$imports" in *" $dep "*) continue ;; esac
    case "$allowed_unused" in *" $name:$dep "*) continue ;; esac
    failures+=("$name declares $dep but no file of $path imports it")
  done
  for module in $imports; do
    [ "$module" = "$name" ] && continue
    case "$system_modules" in *" $module "*) continue ;; esac
    case " $deps " in *" $module "*) continue ;; esac
    where=$(grep -rlE "^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+((struct|class|enum|func|protocol|typealias|var|let)[[:space:]]+)?$module\b" "$path" --include='*.swift' | head -1)
    failures+=("$name imports $module ($where) without declaring it")
  done
done <<<"$targets"

if [ ${#failures[@]} -gt 0 ]; then
  printf 'target imports: %s\n' "${failures[@]}" >&2
  echo "target imports: ${#failures[@]} problem(s) in $manifest: remove the unused dependencies, declare what is imported." >&2
  exit 1
fi
echo "target imports: every declared dependency of $(wc -w <<<"$names") targets is imported, every import declared"
