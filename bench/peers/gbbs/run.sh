#!/usr/bin/env bash
# Runs GBBS's ConnectIt spanning forest on the same graphs as ordo's
# spanning-forest benchmarks and prints one CSV line per (input, algorithm
# variant, threads): median / min / max seconds over the rounds and MEPS with
# ordo's edge count (undirected edges = arcs of the symmetric graph / 2).
#
#   bench/peers/gbbs/run.sh ORDO_BIN [INPUT...]
#
# INPUT is a generator spec (`torus:w=2000,h=2000`) or a graph file
# (`../shared/data/road/FLA.edges.gz`); the default list is the XWS Table 1
# analogue at 4M vertices plus FLA. Each input is written (`ordo gen`, then
# `ordo convert --symmetrize`) as a SNAP edge list (the same symmetric simple
# graph ordo's spanning forest runs on), converted by GBBS's snap_converter,
# and cached in $WORK (default ../peers/gbbs-inputs). Environment: PEERS
# (where build.sh put gbbs; default ../peers), THREADS (default "1 2"),
# ROUNDS (default 5), ALGOS (default: the spanning-forest binaries build.sh made).
set -euo pipefail

ORDO=${1:?usage: run.sh ORDO_BIN [INPUT...]}
shift
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PEERS=${PEERS:-$ROOT/../peers}
WORK=${WORK:-$PEERS/gbbs-inputs}
THREADS=${THREADS:-"1 2"}
ROUNDS=${ROUNDS:-5}
BUILD=$PEERS/gbbs/build
# The spanning-forest binaries of build.sh (the others are kernels.py's).
ALGOS=${ALGOS:-$(cd "$BUILD" && ls unite_rem_cas_kout unite_rem_cas_nosample unite_kout 2>/dev/null)}
INPUTS=("$@")
if [ ${#INPUTS[@]} -eq 0 ]; then
  INPUTS=(torus:w=2000,h=2000 random:n=4000000,m=16000000 kgraph:n=4000000,k=4 "$ROOT/../shared/data/road/FLA.edges.gz")
fi
mkdir -p "$WORK"

echo "input,algorithm,variant,threads,n,edges,median_s,min_s,max_s,meps"
for input in "${INPUTS[@]}"; do
  name=$(basename "$input" | tr ':=,/' '____')
  adj=$WORK/$name.adj
  if [ ! -f "$adj" ]; then
    snap=$WORK/$name.snap
    src=$input
    if [ ! -f "$input" ]; then
      if [[ "$input" != *:* ]]; then
        echo "skipping $input: not a file nor a generator spec" >&2
        continue
      fi
      src=$WORK/$name.ordo
      "$ORDO" gen "$input" -o "$src" >&2
    fi
    "$ORDO" convert "$src" "$snap" --to snap --symmetrize >&2
    [ "$src" = "$input" ] || rm -f "$src"
    # GBBS's reader takes `u v` pairs: drop ordo's comment lines and weights.
    grep -v '^#' "$snap" | cut -f1,2 > "$snap.pairs"
    "$BUILD/snap_converter" -i "$snap.pairs" -o "$adj" >&2
    rm -f "$snap" "$snap.pairs"
  fi
  n=$(sed -n 2p "$adj")
  edges=$(( $(sed -n 3p "$adj") / 2 ))
  for algo in $ALGOS; do
    for t in $THREADS; do
      PARLAY_NUM_THREADS=$t "$BUILD/$algo" -s -r "$ROUNDS" "$adj" 2>/dev/null |
        awk -v input="$input" -v algo="$algo" -v t="$t" -v n="$n" -v e="$edges" '
          /"test_name"/ { match($0, /: "[^"]*"/); name = substr($0, RSTART + 3, RLENGTH - 4); gsub(/; /, "/", name) }
          /"medt"/ { gsub(/,/, "", $3); med = $3 }
          /"mint"/ { gsub(/,/, "", $3); min = $3 }
          /"maxt"/ { max = $3;
                     printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%.2f\n", input, algo, name, t, n, e, med, min, max, e / med / 1e6 }'
    done
  done
done
