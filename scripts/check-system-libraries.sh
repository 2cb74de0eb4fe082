#!/usr/bin/env bash
# CI's first tier: the packages (Package.swift, Fuzz/, Benchmarks/) may name no system library beyond zlib's and
# SQLite's, the only C headers a fresh machine has. Checks every `.systemLibrary` (its pkg-config name, its apt/brew
# providers, and the `link` lines and #includes of its module map and headers), every `linkedLibrary` and every `-l`
# in unsafe flags. Usage: scripts/check-system-libraries.sh [Package.swift…]
. "$(dirname "$0")/lib.sh"

allowed_links="z sqlite3"
allowed_headers="zlib.h sqlite3.h"
allowed_pkgconfig="zlib sqlite3"
allowed_packages="zlib1g-dev libsqlite3-dev zlib sqlite sqlite3"
manifests=("$@")
[ ${#manifests[@]} -gt 0 ] || manifests=(Package.swift Fuzz/Package.swift Benchmarks/Package.swift)

failures=()
fail() { failures+=("$1"); }
allowed() { local item=$1; shift; for a in $*; do [ "$item" = "$a" ] && return 0; done; return 1; }

for manifest in "${manifests[@]}"; do
  [ -f "$manifest" ] || continue
  dir=$(dirname "$manifest")
  # The manifest without comments, one string per line where it matters.
  text=$(sed -E 's#//.*$##' "$manifest")
  # .systemLibrary(...) blocks: from the call to its closing parenthesis.
  blocks=$(printf '%s\n' "$text" | awk '
    /\.systemLibrary\(/ { inside = 1; depth = 0; block = "" }
    inside { block = block $0 " "; n = gsub(/\(/, "(", $0); m = gsub(/\)/, ")", $0); depth += n - m
             if (depth <= 0) { print block; inside = 0 } }')
  while IFS= read -r block; do
    [ -n "$block" ] || continue
    name=$(sed -nE 's/.*name: *"([^"]+)".*/\1/p' <<<"$block")
    path=$(sed -nE 's/.*path: *"([^"]+)".*/\1/p' <<<"$block")
    pkg=$(sed -nE 's/.*pkgConfig: *"([^"]+)".*/\1/p' <<<"$block")
    if [ -n "$pkg" ] && ! allowed "$pkg" "$allowed_pkgconfig"; then
      fail "$manifest: .systemLibrary \"$name\" names pkg-config \"$pkg\""
    fi
    for package in $(grep -oE '\.(apt|brew|yum)\(\[[^]]*\]' <<<"$block" | grep -oE '"[^"]+"' | tr -d '"'); do
      allowed "$package" "$allowed_packages" || fail "$manifest: .systemLibrary \"$name\" needs the system package \"$package\""
    done
    module_dir="$dir/${path:-Sources/$name}"
    if [ ! -d "$module_dir" ]; then fail "$manifest: .systemLibrary \"$name\": no directory $module_dir"; continue; fi
    for link in $(grep -hoE '^\s*link\s+"[^"]+"' "$module_dir"/*.modulemap 2>/dev/null | grep -oE '"[^"]+"' | tr -d '"'); do
      allowed "$link" "$allowed_links" || fail "$module_dir/module.modulemap: links \"$link\""
    done
    for header in $(grep -hoE '#\s*include\s*<[^>]+>' "$module_dir"/*.h 2>/dev/null | grep -oE '<[^>]+>' | tr -d '<>'); do
      allowed "$header" "$allowed_headers" || fail "$module_dir: includes <$header>"
    done
  done <<<"$blocks"
  for library in $(printf '%s\n' "$text" | grep -oE 'linkedLibrary\( *"[^"]+"' | grep -oE '"[^"]+"' | tr -d '"'); do
    allowed "$library" "$allowed_links" || fail "$manifest: linkerSettings link \"$library\""
  done
  for flag in $(printf '%s\n' "$text" | grep -oE 'unsafeFlags\(\[[^]]*\]' | grep -oE '"-l[^"]+"' | tr -d '"'); do
    allowed "${flag#-l}" "$allowed_links" || fail "$manifest: unsafe flag $flag"
  done
done

if [ ${#failures[@]} -gt 0 ]; then
  echo "check-system-libraries: a fresh machine has only zlib's and SQLite's headers and libraries; the packages name more:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  echo "Use zlib or SQLite, or a Swift package from the mirror, instead of another system library." >&2
  exit 1
fi
echo "check-system-libraries: only zlib and SQLite (${manifests[*]})"
