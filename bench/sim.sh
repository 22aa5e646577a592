#!/usr/bin/env bash
# The simulated scheduler comparison (`ordo sim`): every scheduler at 1 to 256
# virtual threads, SSSP on the road-like graph and on R-MAT, plus MQ's queue
# count at 64 threads, and the time in cycles of five of them. The simulator is
# deterministic, so these are measures, not timings: the sweep may run on a
# busy machine, and a rerun gives the same numbers (the fields `sim_time_s`,
# `timestamp`, `peak_rss_bytes` aside), except the timed runs, whose costs are
# measured on this machine first (run those on an idle one).
#
#   bench/sim.sh [ORDO] [OUT_DIR]       # default target/release/ordo results/sim
#   target/release/ordo plot OUT_DIR    # sim-work/-rank/-invisible/-speedup figures, plots/sim.md
#
# Sizes keep the whole sweep near 20 minutes on one core of this machine; a
# run whose work increase passes MAX_WORK (default 50) is stopped and recorded
# as failed (lifo on road graphs), so no configuration runs away.
set -uo pipefail
ORDO=${1:-target/release/ordo}
OUT=${2:-results/sim}
ROAD=${ROAD:-road:n=100000,seed=1}
RMAT=${RMAT:-rmat:scale=18,seed=1}
ROAD_LARGE=${ROAD_LARGE:-road:n=1000000,seed=1}
VTHREADS=${VTHREADS:-1,4,16,64,256}
MAX_WORK=${MAX_WORK:-50}
SCHEDULERS=(strict fifo lifo obim obim:delta=14 pmod mq smq smq-skiplist reld spraylist auto auto:mode=async)

mkdir -p "$OUT"
RUNS="$OUT/runs.jsonl"
if [ -s "$RUNS" ]; then
  echo "$RUNS exists: remove it or choose another OUT_DIR" >&2
  exit 1
fi
failed=0
run() {
  echo "ordo sim $*" >&2
  nice -n 10 "$ORDO" sim "$@" --json --max-work-increase "$MAX_WORK" >> "$RUNS" || failed=$((failed + 1))
}
start=$(date +%s)
for input in "$ROAD" "$RMAT"; do
  for sched in "${SCHEDULERS[@]}"; do
    run sssp --gen "$input" --sched "$sched" --vthreads "$VTHREADS"
  done
  # MQ's rank against its queue count C·T at a fixed thread count.
  for c in 1 2 8; do
    run sssp --gen "$input" --sched "mq:c=$c" --vthreads 64
  done
done
# The input size: relaxation costs less work when the frontier is wider.
for sched in strict obim:delta=14 mq smq reld auto auto:mode=async; do
  run sssp --gen "$ROAD_LARGE" --sched "$sched" --vthreads 64
done
# The interleaving policy: the SMQ paper's analysis allows unfair schedulers.
for policy in random skewed:gamma=0.5; do
  for sched in mq smq; do
    run sssp --gen "$ROAD" --sched "$sched" --vthreads 64,256 --policy "$policy"
  done
done
# Time in cycles (policy `timed`, the sim-speedup figures): each operation at
# what it costs on this machine, measured first on real one-thread runs, so
# these records depend on the machine and on its load while they measure.
for sched in auto auto:mode=async mq smq obim:delta=14; do
  run sssp --gen "$ROAD" --sched "$sched" --vthreads "$VTHREADS" --costs measured
done
echo "$(wc -l < "$RUNS") records in $RUNS, $failed invocations with failures, $(( $(date +%s) - start )) s" >&2
