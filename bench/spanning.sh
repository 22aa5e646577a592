#!/usr/bin/env bash
# Spanning-forest measurements of the XWS work-stealing runtime (ordo-steal):
# the Table 1 analogue (DFS and BFS, S = 1, 2, 4, ..., 2048 and adaptive) and
# the baselines (SIMPLE-style, rayon, sequential), on torus, random and
# k-graphs of 250K-9M vertices and on Florida's roads, at 1 and 2 threads,
# median of REPS (default 5) runs each, interleaved. One JSON line per
# configuration (see crates/ordo-algos/examples/spanning.rs) into OUT.
#
#   bench/spanning.sh OUT.jsonl [SIZES]     # SIZES default "250000 1000000 4000000 9000000"
#
# Run on a quiet machine: about an hour for all sizes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bench/spanning.sh OUT.jsonl [SIZES]}
SIZES=${2:-"250000 1000000 4000000 9000000"}
REPS=${REPS:-5}
THREADS=${THREADS:-1,2}
cargo build --release -p ordo-algos --example spanning
BIN=target/release/examples/spanning
: > "$OUT"
inputs=()
for n in $SIZES; do
  side=$(python3 -c "import math; print(math.isqrt($n))")
  inputs+=("--gen torus:w=$side,h=$side" "--gen random:n=$n,m=$((4 * n))" "--gen kgraph:n=$n,k=4")
done
FLA=../shared/data/road/FLA.edges.gz
if [ -f "$FLA" ]; then inputs+=("--graph $FLA"); else echo "skipping FLA: $FLA not found" >&2; fi
for input in "${inputs[@]}"; do
  # shellcheck disable=SC2086
  "$BIN" $input --table1 --threads "$THREADS" --reps "$REPS" --verify | tee -a "$OUT"
  # shellcheck disable=SC2086
  "$BIN" $input --variant simple-dfs,simple-bfs,rayon-dfs,rayon-bfs,seq-dfs,seq-bfs \
    --batch 128 --threads "$THREADS" --reps "$REPS" --verify | tee -a "$OUT"
done
