#!/usr/bin/env bash
# Benchmarks the Health Auto Export receiver's use case: a generated ~25 MB payload (a year of hourly aggregated
# metrics plus workouts with timed routes) ingested through HealthService into a fresh SQLite file store, then sent
# again. Prints time, throughput and peak RSS. Release build.
#
#   scripts/ingest-bench.sh            # 25 MB
#   MB=50 scripts/ingest-bench.sh
#
# Target (issue): ≤ 2 s with ≤ 150 MB RSS on a 2-core machine.
. "$(dirname "$0")/lib.sh"
"$(hb_benchmark IngestBench)" --mb "${MB:-25}"
