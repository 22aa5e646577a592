#!/usr/bin/env bash
# Builds the SSSP codes ordo is compared with, from their public repositories,
# into a directory outside this repository (never committed):
#
#   GAPBS         sbeamer/gapbs            b5e3e19   sssp bfs cc pr tc bc, converter
#   Wasp          DIPSA-QUB/wasp           7dc65fb   sssp-int32, converter-int32 (needs libtbb-dev, libnuma-dev)
#   ρ-stepping    ucrparlay/Parallel-SSSP  a160e5e   sssp (parlaylib submodule 9e60787)
#
# Each gets one small local patch from bench/peers/patches/ that prints a checksum of
# its result after its own timer (`ordo-checksum key=value ...`): for SSSP the distances
# (reached / sum / max); GAPBS's other kernels with `-a`: bfs the levels of its parent tree
# (reached / sum / max), cc the partition (components / largest / label_sum, the sum over
# vertices of the smallest id in their component), pr and bc the scores (sum / top vertex /
# its score; with ORDO_DUMP=FILE every score to FILE); tc prints its count unpatched.
# Parallel-SSSP's patch also runs one fixed source (ORDO_SOURCE) for ORDO_ROUNDS rounds
# instead of 10 random ones. GBBS is built by bench/peers/gbbs/build.sh.
#
# Usage: bench/peers/build.sh            (idempotent: re-running only rebuilds)
# Environment:
#   ORDO_PEERS_DIR   where to build (default: a `peers` directory next to the repository)
#   GAPBS_URL WASP_URL PSSP_URL PARLAYLIB_URL   clone from elsewhere (e.g. a local mirror)
#   JOBS             parallel make jobs (default 2)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
peers=${ORDO_PEERS_DIR:-$(dirname "$repo")/peers}
jobs=${JOBS:-2}
GAPBS_URL=${GAPBS_URL:-https://github.com/sbeamer/gapbs.git}
WASP_URL=${WASP_URL:-https://github.com/DIPSA-QUB/wasp.git}
PSSP_URL=${PSSP_URL:-https://github.com/ucrparlay/Parallel-SSSP.git}
PARLAYLIB_URL=${PARLAYLIB_URL:-https://github.com/cmuparlay/parlaylib.git}

mkdir -p "$peers/src"
echo "building peers in $peers"

# clone_at DIR URL COMMIT PATCH: a checkout of COMMIT with PATCH applied once.
clone_at() {
  local dir=$1 url=$2 commit=$3 patch=$4
  if [[ ! -d "$dir/.git" ]]; then
    git clone -q "$url" "$dir"
  fi
  if ! git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    git -C "$dir" fetch -q origin
  fi
  if [[ "$(git -C "$dir" rev-parse HEAD)" != "$(git -C "$dir" rev-parse "$commit^{commit}")" ]]; then
    git -C "$dir" checkout -q -f "$commit"
  fi
  if git -C "$dir" apply --reverse --check "$patch" 2>/dev/null; then
    : # already applied
  else
    git -C "$dir" checkout -q -- .   # an older version of the patch, or none
    git -C "$dir" apply "$patch"
  fi
}

# GAPBS: Makefile build of the kernels and the converter.
clone_at "$peers/src/gapbs" "$GAPBS_URL" b5e3e19 "$here/patches/gapbs.patch"
make -C "$peers/src/gapbs" -j"$jobs" sssp bfs cc pr tc bc converter >/dev/null
echo "gapbs:   $peers/src/gapbs/{sssp,bfs,cc,pr,tc,bc}, converter"

# Wasp: CMake Release build of the int32-weight targets.
clone_at "$peers/src/wasp" "$WASP_URL" 7dc65fb "$here/patches/wasp.patch"
cmake -S "$peers/src/wasp" -B "$peers/src/wasp/build" -DCMAKE_BUILD_TYPE=Release -DCOMPILE_UTILS=ON >/dev/null
cmake --build "$peers/src/wasp/build" --target sssp-int32 converter-int32 -j"$jobs" >/dev/null
wasp_bin=$(find "$peers/src/wasp/build" -name sssp-int32 -type f -perm -u+x | head -1)
wasp_conv=$(find "$peers/src/wasp/build" -name converter-int32 -type f -perm -u+x | head -1)
ln -sf "$wasp_bin" "$peers/src/wasp/sssp-int32"
ln -sf "$wasp_conv" "$peers/src/wasp/converter-int32"
echo "wasp:    $peers/src/wasp/sssp-int32, converter-int32"

# Parallel-SSSP (ρ-stepping, Δ*-stepping) with its parlaylib submodule.
clone_at "$peers/src/Parallel-SSSP" "$PSSP_URL" a160e5e "$here/patches/parallel-sssp.patch"
git -C "$peers/src/Parallel-SSSP" config submodule.parlaylib.url "$PARLAYLIB_URL"
git -C "$peers/src/Parallel-SSSP" -c protocol.file.allow=always submodule update --init -q
make -C "$peers/src/Parallel-SSSP" sssp >/dev/null
echo "rho:     $peers/src/Parallel-SSSP/sssp"
