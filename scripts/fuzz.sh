#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (AddressSanitizer + coverage) and runs each for a bounded time on seeds
# generated from the fixtures. Fails on any crash, sanitizer report or timeout (leak detection is off: the Swift
# runtime's metadata caches and the fuzzers' own caches live until exit and would be reported).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET…]
#   FUZZ_SCRATCH   build directory (default .build-fuzz, ignored by git)
#   FUZZ_FIXTURES  fixtures for the seeds (default ../shared/fixtures; the seeds are generated, never committed)
#   FUZZ_JOBS      parallel fuzzing processes per target (libFuzzer -fork; default 1)
#   FUZZ_NO_BUILD  1: run the binaries already in FUZZ_SCRATCH (a long run keeps fuzzing the code it was built from)
# Prints one line per target: executions, coverage (edges), features, corpus size; artifacts of a crash are kept
# in $FUZZ_SCRATCH/artifacts.
. "$(dirname "$0")/lib.sh"

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(FuzzXMLScanner FuzzExportParser FuzzDNSMessage FuzzUnitsAndDates FuzzExportRequest FuzzHealthAutoExport
           FuzzZipDirectory FuzzIngestService FuzzWriteService)
fi
scratch=${FUZZ_SCRATCH:-.build-fuzz}
fixtures=${FUZZ_FIXTURES:-../shared/fixtures}
jobs=${FUZZ_JOBS:-1}

swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
runtime=$(ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
if [ -z "$runtime" ]; then
  echo "fuzz.sh: libclang_rt.fuzzer_no_main not found in the Swift toolchain" >&2
  exit 1
fi

# `-sanitize=fuzzer` links libFuzzer's own main, which clashes with the entry point SwiftPM gives executables; so
# compile with the same instrumentation and link libFuzzer without its main (each target calls LLVMFuzzerRunDriver).
flags=(-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
       -Xlinker "$runtime" -Xlinker -lstdc++)
mkdir -p "$scratch"
[ "${FUZZ_NO_BUILD:-0}" = 1 ] || echo "fuzz.sh: building ${targets[*]} in $scratch"
# Every target at once when all are asked for: one build plan instead of one per target (the same binaries).
build_units=("${targets[@]}")
if [ $# -eq 0 ]; then build_units=(all); fi
for target in "${build_units[@]}"; do
  [ "${FUZZ_NO_BUILD:-0}" = 1 ] && break
  log="$scratch/build-$target.log"
  product=(--product "$target")
  [ "$target" = all ] && product=()
  # A failed build is shown with its errors, and tried once more (an interrupted incremental build of the
  # instrumented package has been seen to stop without a diagnostic).
  if ! swift build --package-path Fuzz --scratch-path "$scratch" "${product[@]}" "${flags[@]}" >"$log" 2>&1; then
    echo "fuzz.sh: building $target failed; the errors, then one more try:" >&2
    grep -E "error|warning: .*fail" "$log" | grep -v "Cannot export local symbol" | head -20 >&2 || tail -20 "$log" >&2
    swift build --package-path Fuzz --scratch-path "$scratch" "${product[@]}" "${flags[@]}" >"$log" 2>&1 \
      || { tail -40 "$log" >&2; exit 1; }
  fi
  grep -v "Cannot export local symbol" "$log" | tail -1
done
if [ "${FUZZ_NO_BUILD:-0}" = 1 ] && [ -d "$scratch/debug" ]; then
  # The binaries as built (no SwiftPM call: another build may hold the scratch directory's lock meanwhile).
  bin="$scratch/debug"
else
  bin=$(swift build --package-path Fuzz --scratch-path "$scratch" --show-bin-path "${flags[@]}")
fi

# Seeds are per invocation and the summary (timestamped) is appended to, so several runs of different targets can
# share one build.
seeds="$scratch/seeds.$$"
rm -rf "$seeds"
trap 'rm -rf "$seeds"' EXIT
python3 scripts/fuzz_seeds.py "$fixtures" "$seeds" >/dev/null

status=0
summary="$scratch/fuzz-summary.txt"
for target in "${targets[@]}"; do
  corpus="$scratch/corpus/$target"
  artifacts="$scratch/artifacts"
  mkdir -p "$corpus" "$artifacts"
  log="$scratch/$target.log"
  extra=()
  case "$target" in
    FuzzExportParser) extra=(-max_len=65536 -rss_limit_mb=4096) ;;
    FuzzXMLScanner) extra=(-max_len=65536) ;;
    FuzzZipDirectory) extra=(-max_len=262144) ;;
    *) extra=(-max_len=4096) ;;
  esac
  if [ "$jobs" -gt 1 ]; then extra+=(-fork="$jobs"); fi
  set +e
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "$bin/$target" "$corpus" "$seeds/$target" \
    -max_total_time="$seconds" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$target-" "${extra[@]}" > "$log" 2>&1
  code=$?
  set -e
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -1 || true)
  runs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{s+=$2} END {print s+0}')
  cov=$(echo "$done_line" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
  ft=$(echo "$done_line" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')
  corp=$(echo "$done_line" | sed -nE 's/.*corp: ([0-9]+).*/\1/p')
  line="$target: ${seconds}s, executions ${runs}, coverage ${cov:-?} edges, features ${ft:-?}, corpus ${corp:-?}, exit $code"
  echo "$(date -u +%FT%TZ) $line" >> "$summary"
  echo "$line"
  if [ $code -ne 0 ]; then
    status=1
    grep -E "ERROR|SUMMARY|Fatal error|deadly signal|==ERROR" "$log" | head -20 >&2 || true
    ls "$artifacts" | grep "^$target-" | head -5 >&2 || true
  fi
done
exit $status
