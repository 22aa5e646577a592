#!/usr/bin/env bash
# Builds the GBBS programs ordo is compared with (Dhulipala, Blelloch, Shun,
# SPAA 2018; ConnectIt: Dhulipala, Hong, Shun, VLDB 2021) from their public
# repositories, outside this repository, with g++ directly (no bazel needed).
# Peer code is never committed here.
#
#   bench/peers/gbbs/build.sh [DIR]      # default DIR: ../peers next to the repository
#
# Needs git, g++ (C++17) and, for PageRank, Abseil's headers and libraries
# (Debian: libabsl-dev). Takes a few minutes per binary (nice -n 19).
# Environment: GBBS_URL, PARLAY_URL clone from elsewhere (e.g. a local
# mirror); PROGRAMS restricts what is built (names below). Re-running
# rebuilds only what is missing or what the patch or the flags changed.
#
# Result in DIR/gbbs/build/:
#   snap_converter                 edge list -> GBBS adjacency graph
#   BFS                            benchmarks/BFS/NonDeterministicBFS
#   PageRank                       benchmarks/PageRank (power iteration, edgeMapReduce)
#   Triangle                       benchmarks/TriangleCounting/ShunTangwongsan15
#   SSBetweennessCentrality        benchmarks/SSBetweenessCentrality/Brandes (one source)
#   connectit_unite_rem_cas_kout   ConnectIt connectivity: k-out sampling, union-find
#                                  (Rem's algorithm, CAS), FindCompress, SplitAtomicOne and
#                                  HalveAtomicOne (ConnectIt's fastest family)
#   MinimumSpanningForest          benchmarks/MinimumSpanningForest/Boruvka
#   unite_rem_cas_kout unite_rem_cas_nosample unite_kout
#                                  ConnectIt spanning forests (bench/peers/gbbs/run.sh)
#
# One local patch (../patches/gbbs.patch): the programs print a checksum of
# their result after their own timer (`ordo-checksum key=value ...`; PageRank
# and betweenness also dump their scores with `-ordo_dump FILE`), and the
# spanning-forest mains, which GBBS's bazel files no longer build, catch up
# with two API changes (option names are plain functions; parlay sequences
# from a function use from_function).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-$(cd "$here/../../.." && pwd)/../peers}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
GBBS_COMMIT=${GBBS_COMMIT:-bd488723}           # ParAlg/gbbs main, checked
PARLAY_COMMIT=352f5367a6b3bd2f0c6f05882cdd02e978e349ea  # the parlaylib GBBS pins (MODULE.bazel)
PATCH=$here/../patches/gbbs.patch

# name:source, in the order they are built.
ALL="snap_converter:utils/snap_converter.cc
connectit_unite_rem_cas_kout:benchmarks/Connectivity/ConnectIt/mains/unite_rem_cas_kout.cc
MinimumSpanningForest:benchmarks/MinimumSpanningForest/Boruvka/MinimumSpanningForest.cc
Triangle:benchmarks/TriangleCounting/ShunTangwongsan15/Triangle.cc
SSBetweennessCentrality:benchmarks/SSBetweenessCentrality/Brandes/SSBetweennessCentrality.cc
PageRank:benchmarks/PageRank/PageRank.cc
BFS:benchmarks/BFS/NonDeterministicBFS/BFS.cc
unite_rem_cas_kout:benchmarks/SpanningForest/Framework/mains/unite_rem_cas_kout.cc
unite_rem_cas_nosample:benchmarks/SpanningForest/Framework/mains/unite_rem_cas_nosample.cc
unite_kout:benchmarks/SpanningForest/Framework/mains/unite_kout.cc"
PROGRAMS=${PROGRAMS:-$(echo "$ALL" | cut -d: -f1 | tr '\n' ' ')}

fetch() { # url dir commit
  if [ ! -d "$2/.git" ]; then git clone -q "$1" "$2"; fi
  if ! git -C "$2" cat-file -e "$3^{commit}" 2>/dev/null; then git -C "$2" fetch -q origin; fi
  if [ "$(git -C "$2" rev-parse HEAD)" != "$(git -C "$2" rev-parse "$3^{commit}")" ]; then
    git -C "$2" checkout -q -f "$3"
  fi
}
fetch "${GBBS_URL:-https://github.com/ParAlg/gbbs.git}" "$DIR/gbbs" "$GBBS_COMMIT"
fetch "${PARLAY_URL:-https://github.com/ParAlg/parlaylib.git}" "$DIR/parlaylib" "$PARLAY_COMMIT"

cd "$DIR/gbbs"
if ! git apply --reverse --check "$PATCH" 2>/dev/null; then
  git checkout -q -- .          # an older version of the patch, or none
  git apply "$PATCH"
fi

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
# PageRank's headers use Abseil (flat_hash_set, StatusOr) and GBBS's progress reporting.
progress=build/lib/gbbs_helpers_progress_reporting.cc.o
[ -f "$progress" ] || nice -n 19 g++ $CXXFLAGS -c gbbs/helpers/progress_reporting.cc -o "$progress"
ABSL_LIBS="$progress $(pkg-config --libs absl_flat_hash_set absl_statusor absl_status absl_strings)"

for name in $PROGRAMS; do
  src=$(echo "$ALL" | grep "^$name:" | cut -d: -f2)
  if [ -z "$src" ]; then echo "unknown program $name" >&2; exit 2; fi
  # Rebuilt when the patch's changes near its main (two directories up) or the flags
  # change: a stamp of both sits beside the binary.
  stamp=$( (git diff HEAD -- "$(dirname "$(dirname "$src")")"; echo "$CXXFLAGS") | sha1sum | cut -c1-40)
  if [ -x "build/$name" ] && [ "$(cat "build/.$name.stamp" 2>/dev/null)" = "$stamp" ]; then continue; fi
  echo "building $name"
  libs=""
  [ "$name" = PageRank ] && libs=$ABSL_LIBS
  nice -n 19 g++ $CXXFLAGS "$src" $OBJS -o "build/$name.tmp" -pthread $libs
  mv "build/$name.tmp" "build/$name"
  echo "$stamp" > "build/.$name.stamp"
done
echo "built in $DIR/gbbs/build: $(ls build | grep -v -e '^lib$' -e '\.tmp$' | tr '\n' ' ')"
