#!/usr/bin/env bash
# Builds GBBS's ConnectIt spanning-forest binaries (Dhulipala, Hong, Shun,
# VLDB 2021) from their public repositories, outside this repository, with
# g++ directly (no bazel needed). Peer code is never committed here.
#
#   bench/peers/gbbs/build.sh [DIR]      # default DIR: ../peers next to the repository
#
# Needs git, g++ (C++17) and network access to github.com. Takes a few
# minutes per binary (nice -n 19). Result: DIR/gbbs/build/<algorithm> for the
# algorithms in ALGOS below.
set -euo pipefail

DIR=${1:-$(cd "$(dirname "$0")/../../.." && pwd)/../peers}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
GBBS_COMMIT=${GBBS_COMMIT:-bd488723}           # ParAlg/gbbs main, checked
PARLAY_COMMIT=352f5367a6b3bd2f0c6f05882cdd02e978e349ea  # the parlaylib GBBS pins (MODULE.bazel)
# ConnectIt spanning forest: union-find (Rem's algorithm with CAS splicing)
# with k-out sampling, the same without sampling, and GBBS's BFS-based forest.
ALGOS=${ALGOS:-"unite_rem_cas_kout unite_rem_cas_nosample unite_kout"}

fetch() { # url dir commit
  if [ ! -d "$2/.git" ]; then git clone -q "$1" "$2"; fi
  git -C "$2" fetch -q origin 2>/dev/null || true
  git -C "$2" checkout -q "$3"
}
fetch "${GBBS_URL:-https://github.com/ParAlg/gbbs.git}" "$DIR/gbbs" "$GBBS_COMMIT"
fetch "${PARLAY_URL:-https://github.com/ParAlg/parlaylib.git}" "$DIR/parlaylib" "$PARLAY_COMMIT"

cd "$DIR/gbbs"
# The spanning-forest mains are no longer built by GBBS's bazel files and
# lag behind two API changes; patch the checkout (not committed anywhere):
# option names are now plain functions, and parlay builds sequences from a
# function with from_function.
git checkout -q -- benchmarks/SpanningForest
perl -0pi -e 's/(uf|jayanti|liu_tarjan)_options_to_string<([^>]*)>\(\)/$1_options_to_string($2)/gs' \
  benchmarks/SpanningForest/Framework/mains/uf_utils.h
sed -i 's/sequence<parent>(n, \[&\](size_t i) { return i; })/sequence<parent>::from_function(n, [\&](size_t i) { return i; })/' \
  benchmarks/SpanningForest/Framework/kout_sampling.h benchmarks/SpanningForest/Framework/sampling.h

CXXFLAGS="-std=c++17 -O3 -DNDEBUG -march=native -mcx16 -DGBBSLONG -DAMORTIZEDPD -DUSEMALLOC -I. -I$DIR/parlaylib/include"
LIBSRC="gbbs/graph_io.cc gbbs/io.cc gbbs/encodings/byte.cc gbbs/encodings/byte_pd.cc gbbs/encodings/byte_pd_amortized.cc
  gbbs/helpers/parse_command_line.cc gbbs/helpers/directed_edge.cc gbbs/helpers/undirected_edge.cc
  benchmarks/Connectivity/connectit.cc"
mkdir -p build/lib
OBJS=""
for src in $LIBSRC; do
  obj=build/lib/$(echo "$src" | tr / _).o
  [ -f "$obj" ] || nice -n 19 g++ $CXXFLAGS -c "$src" -o "$obj"
  OBJS="$OBJS $obj"
done
for algo in $ALGOS; do
  echo "building $algo"
  nice -n 19 g++ $CXXFLAGS "benchmarks/SpanningForest/Framework/mains/$algo.cc" $OBJS -o "build/$algo" -pthread
done
# The edge-list -> GBBS adjacency-graph converter.
nice -n 19 g++ $CXXFLAGS utils/snap_converter.cc $OBJS -o build/snap_converter -pthread
echo "built: $(ls build | grep -v lib | tr '\n' ' ')"
