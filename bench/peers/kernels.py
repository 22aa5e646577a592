#!/usr/bin/env python3
"""ordo's kernels side by side with GAPBS and GBBS on the same graphs.

Commands (see bench/peers/README.md):
  prepare  write every input of the plan once for every system: NAME.ordo (ordo), NAME.sg
           (GAPBS's converter), NAME.adj / NAME.wadj (GBBS's snap_converter), all from one
           edge list that ordo writes, so that every system reads the same vertices and
           edges; directed inputs also get a symmetrized copy NAME.sym.*
  check    run each kernel once per system and compare the results: BFS levels (reached,
           sum, maximum), CC partitions (count, largest, sum of each vertex's smallest
           component member), PageRank vectors (L1 of the normalized vectors), triangle
           counts, betweenness scores of one source, spanning-forest weight and edges
  duel     per kernel, input, thread count and peer: N pairs of processes, ordo's default
           and the peer one right after the other in a random order, each process doing
           the same number of timed runs; records each system's own timer and the
           process's peak RSS
  table    markdown from the duel: medians (min-max), the median of the pair ratios,
           peak RSS and its ratio

ordo runs `ordo run APP` with the app's default strategy (no strategy flag), so that
whatever kernel the app picks by default is what is compared.
"""

import argparse
import contextlib
import fcntl
import json
import math
import os
import random
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import REPO, checked, die  # noqa: E402

SYSTEMS = ("ordo", "gapbs", "gbbs")

# What each kind of kernel runs on every system. `graph`: which copy of an input the
# system reads: "input" (the input as planned, directed or symmetric) or "sym" (its
# symmetrized copy, the same file for a symmetric input); `weighted` for GBBS's MSF.
KINDS = {
    "bfs": {"gapbs": "bfs", "gbbs": "BFS", "graph": {}},
    "cc": {"gapbs": "cc", "gbbs": "connectit_unite_rem_cas_kout", "graph": {"gbbs": "sym"}},
    "pr": {"gapbs": "pr", "gbbs": "PageRank", "graph": {}},
    "tc": {"gapbs": "tc", "gbbs": "Triangle", "graph": {"ordo": "sym", "gapbs": "sym", "gbbs": "sym"}},
    "bc": {"gapbs": "bc", "gbbs": "SSBetweennessCentrality", "graph": {}},
    "mst": {"gapbs": None, "gbbs": "MinimumSpanningForest", "graph": {"ordo": "sym", "gbbs": "sym"}},
}
# Keys of the exact checksums; the others (pr, bc) compare vectors within a bound.
EXACT = {
    "bfs": ("reached", "sum", "max"),
    "cc": ("components", "largest", "label_sum"),
    "tc": ("triangles",),
    "mst": ("edges", "weight"),
}
# What ordo's --json reports of the same checksums (a run without --out).
ORDO_METRICS = {
    "bfs": {"reached": "reached", "sum": "sum_dist", "max": "max_dist"},
    "cc": {"components": "components", "largest": "largest_component"},
    "tc": {"triangles": "triangles"},
    "mst": {"edges": "mst_edges", "weight": "mst_weight"},
}


# ---------------------------------------------------------------------------------------
# Plan


def load_plan(path):
    path = Path(path)
    try:
        plan = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        die(f"{path}: {e}")
    settings = {
        "threads": [1, 2],
        "pairs": 5,
        "runs": 3,
        "seed": 1,
        "timeout_s": 900,
        "pr_l1_bound": 1e-4,
        "bc_bound": 1e-5,
        **plan.get("settings", {}),
    }
    inputs = plan.get("input", [])
    names = set()
    for i in inputs:
        if "name" not in i:
            die(f"{path}: an [[input]] without `name`")
        if i["name"] in names:
            die(f"{path}: input {i['name']} twice")
        names.add(i["name"])
        if sum(k in i for k in ("gen", "graph", "gapbs")) != 1:
            die(f"{path}: input {i['name']}: exactly one of `gen`, `graph` and `gapbs`")
        if "graph" in i:
            g = Path(i["graph"])
            i["graph"] = str(g if g.is_absolute() else (path.parent / g).resolve())
        i.setdefault("symmetric", "gapbs" in i or not i.get("directed", False))
    kernels = plan.get("kernel", [])
    for k in kernels:
        if "name" not in k:
            die(f"{path}: a [[kernel]] without `name`")
        k.setdefault("kind", k["name"])
        if k["kind"] not in KINDS:
            die(f"{path}: kernel {k['name']}: kind must be one of {', '.join(KINDS)}")
        k.setdefault("app", k["kind"])
        default_peers = [s for s in ("gapbs", "gbbs") if KINDS[k["kind"]][s]]
        k.setdefault("peers", default_peers)
        for p in k["peers"]:
            if p not in default_peers:
                die(f"{path}: kernel {k['name']}: no peer `{p}` for {k['kind']} (have {', '.join(default_peers)})")
        for s in SYSTEMS:
            k.setdefault(s, [])
            k.setdefault(f"check_{s}", k[s])
    return settings, inputs, kernels


def fill(args, values):
    """The plan's argument templates with {source}, {n}, {m}, {tolerance_over_n}, ..."""
    try:
        return [str(a).format(**values) for a in args]
    except (KeyError, IndexError, ValueError) as e:
        die(f"argument template {args}: {e!r}")


def template_values(meta, kernel, inp):
    """{source}, {n}, {m}, and every number of the kernel's and the input's table (the
    input's win), each also as {NAME_over_n} (divided by n)."""
    values = {"source": meta["source"], "n": meta["n"], "m": meta["m"]}
    for table in (kernel, inp):
        for key, v in table.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                values[key] = v
                values[f"{key}_over_n"] = f"{v / meta['n']:.6g}"
    return values


# ---------------------------------------------------------------------------------------
# Tools and files


class Tools:
    def __init__(self, args):
        self.peers = Path(args.peers or os.environ.get("ORDO_PEERS_DIR") or REPO.parent / "peers").resolve()
        if self.peers == REPO or REPO in self.peers.parents:
            die(f"the peer directory {self.peers} is inside the repository (peer builds and inputs stay out of "
                "it): set ORDO_PEERS_DIR or --peers")
        self.ordo = Path(args.ordo or REPO / "target/release/ordo")
        self.inputs = self.peers / "inputs" / "kernels"
        self.gapbs = self.peers / "src/gapbs"
        self.gbbs = self.peers / "gbbs/build"

    def need(self, path):
        if not Path(path).exists():
            die(f"{path} is missing (build: bench/peers/build.sh and bench/peers/gbbs/build.sh; "
                "ordo: cargo build --release)")
        return str(path)

    def base(self, inp, copy="input"):
        """The path stem of an input's copy: NAME (as planned) or NAME.sym (symmetrized;
        NAME itself when the input is symmetric)."""
        if copy == "sym" and not inp["symmetric"]:
            return self.inputs / f"{inp['name']}.sym"
        return self.inputs / inp["name"]

    def meta(self, inp):
        """What prepare found of an input (n, m, ...), None before prepare; the source is
        the plan's where it names one (it may have changed since prepare)."""
        path = self.inputs / f"{inp['name']}.meta.json"
        if not path.exists():
            return None
        meta = json.loads(path.read_text())
        meta["source"] = inp.get("source", meta["source"])
        return meta


def with_ext(path, ext):
    """PATH.ordo -> PATH.ext (the stem keeps any dots of the input's name)."""
    return Path(str(path).removesuffix(".ordo") + ext)


def nice(cmd):
    return ["nice", "-n", "19", *cmd]


# ---------------------------------------------------------------------------------------
# prepare


def max_vertex_and_first_source(edges_path):
    """Scans ordo's edge list (`u v w` lines, `#` comments): the largest vertex id that
    has an edge and the smallest vertex with an out-edge (awk: tens of millions of lines)."""
    out = checked(["awk", "!/^#/ { if ($1 > hi) hi = $1; if ($2 > hi) hi = $2; "
                   "if (first == \"\" || $1 < first) first = $1 } "
                   "END { print (hi == \"\" ? -1 : hi), (first == \"\" ? \"-\" : first) }", str(edges_path)])
    hi, first = out.split()
    return int(hi), None if first == "-" else int(first)


def write_pairs(edges_path, pairs_path, weighted):
    """ordo's edge list without comments, as `u v` (or `u v w`) lines for the peers'
    converters."""
    cols = "1,2,3" if weighted else "1,2"
    with open(pairs_path, "w") as out:
        grep = subprocess.Popen(["grep", "-v", "^#", str(edges_path)], stdout=subprocess.PIPE)
        subprocess.run(["cut", "-f", cols], stdin=grep.stdout, stdout=out, check=True)
        grep.stdout.close()
        if grep.wait() not in (0, 1):
            die(f"grep {edges_path} failed")


def ordo_info(tools, path):
    out = checked([tools.need(tools.ordo), "info", str(path), "--json"])
    return json.loads(out)


def make_ordo_input(tools, inp, dest):
    """NAME.ordo as the plan says (generated, converted, or from GAPBS's generator)."""
    ordo = tools.need(tools.ordo)
    tmp = with_ext(dest, ".tmp.ordo")
    if "gen" in inp:
        if inp.get("simplify") or "weights" in inp:
            checked(nice([ordo, "gen", inp["gen"], "-o", str(tmp)]))
            src = tmp
        else:
            checked(nice([ordo, "gen", inp["gen"], "-o", str(dest)]))
            return
    elif "gapbs" in inp:
        # GAPBS's own generator; its converter writes the graph it builds (symmetric and
        # simple, both directions of every edge) as an edge list.
        el = with_ext(dest, ".gapbs.el")
        checked(nice([tools.need(tools.gapbs / "converter"), *shlex.split(inp["gapbs"]), "-e", str(el)]))
        src = el
    else:
        if not Path(inp["graph"]).exists():
            return
        src = Path(inp["graph"])
    cmd = [ordo, "convert", str(src), str(dest)]
    if "weights" in inp:
        cmd += ["--weights", inp["weights"]]
    if inp.get("symmetrize"):
        cmd.append("--symmetrize")
    if inp.get("simplify"):
        cmd.append("--simplify")
    checked(nice(cmd))
    for p in (tmp, with_ext(dest, ".gapbs.el")):
        p.unlink(missing_ok=True)


def peer_files(tools, stem, symmetric, weighted_too):
    """GAPBS's .sg and GBBS's .adj (and, for the spanning forest, the weighted .wadj) of
    STEM.ordo, each made by the peer's own converter from the edge list ordo writes."""
    ordo = tools.need(tools.ordo)
    edges = Path(f"{stem}.edges")
    sg, adj, wadj = Path(f"{stem}.sg"), Path(f"{stem}.adj"), Path(f"{stem}.wadj")
    needed = [p for p in (sg, adj) + ((wadj,) if weighted_too else ()) if not p.exists()]
    if not needed:
        return
    if not edges.exists():
        checked(nice([ordo, "convert", f"{stem}.ordo", str(edges), "--to", "edges"]))
    el = Path(f"{stem}.el")
    if not sg.exists() or not adj.exists():
        write_pairs(edges, el, weighted=False)
    if not sg.exists():
        cmd = [tools.need(tools.gapbs / "converter"), "-f", str(el), "-b", str(sg)]
        if symmetric:
            cmd.insert(3, "-s")
        checked(nice(cmd))
    if not adj.exists():
        cmd = [tools.need(tools.gbbs / "snap_converter"), "-i", str(el), "-o", str(adj)]
        if symmetric:
            cmd.insert(1, "-s")
        checked(nice(cmd))
    if weighted_too and not wadj.exists():
        wel = Path(f"{stem}.wel")
        write_pairs(edges, wel, weighted=True)
        checked(nice([tools.need(tools.gbbs / "snap_converter"), "-s", "-w", "-i", str(wel), "-o", str(wadj)]))
        wel.unlink()
    el.unlink(missing_ok=True)
    edges.unlink(missing_ok=True)


def gbbs_header(path):
    """n and m of a GBBS adjacency graph file (its first three lines)."""
    with open(path) as f:
        head = [f.readline().strip() for _ in range(3)]
    return int(head[1]), int(head[2])


def prepare(tools, inputs):
    tools.inputs.mkdir(parents=True, exist_ok=True)
    ordo = tools.need(tools.ordo)
    for inp in inputs:
        base = tools.base(inp)
        o = Path(f"{base}.ordo")
        meta_path = tools.inputs / f"{inp['name']}.meta.json"
        if not o.exists():
            make_ordo_input(tools, inp, o)
            if not o.exists():
                print(f"{inp['name']}: {inp.get('graph')} is absent, skipped")
                continue
            meta_path.unlink(missing_ok=True)
        if not meta_path.exists():
            # The peers' graph builders number vertices 0..(largest id with an edge):
            # vertices past the last one with an edge would exist for ordo only. Such an
            # input is rewritten from its own edge list, so that every system has the
            # same n (isolated vertices elsewhere stay isolated vertices for everyone).
            edges = Path(f"{base}.edges")
            checked(nice([ordo, "convert", str(o), str(edges), "--to", "edges"]))
            info = ordo_info(tools, o)
            if info["self_loops"] or info["parallel_edges"]:
                die(f"{o}: {info['self_loops']} self loops, {info['parallel_edges']} parallel edges; the peers' "
                    "builders drop them: set `simplify = true` for this input")
            if info["symmetric"] != inp["symmetric"]:
                die(f"{o}: the graph is {'' if info['symmetric'] else 'not '}symmetric, the plan says "
                    f"`directed = {str(not inp['symmetric']).lower()}`")
            hi, first = max_vertex_and_first_source(edges)
            if hi + 1 < info["n"]:
                bare = Path(f"{base}.bare.el")
                write_pairs(edges, bare, weighted=info.get("weighted", True))
                tmp = Path(f"{base}.tmp.ordo")
                checked(nice([ordo, "convert", str(bare), str(tmp), "--format", "edges"]))
                tmp.replace(o)
                bare.unlink()
                print(f"{inp['name']}: dropped {info['n'] - hi - 1} isolated vertices past the last edge")
                checked(nice([ordo, "convert", str(o), str(edges), "--to", "edges"]))
                info = ordo_info(tools, o)
            source = inp.get("source", first if first is not None else 0)
            meta = {"n": info["n"], "m": info["m"], "symmetric": inp["symmetric"], "source": source}
            if not inp["symmetric"]:
                sym = Path(f"{tools.base(inp, 'sym')}.ordo")
                checked(nice([ordo, "convert", str(o), str(sym), "--symmetrize"]))
                meta["sym_m"] = ordo_info(tools, sym)["m"]
            meta_path.write_text(json.dumps(meta, indent=1))
        meta = json.loads(meta_path.read_text())
        peer_files(tools, tools.base(inp), inp["symmetric"], weighted_too=inp["symmetric"])
        if not inp["symmetric"]:
            peer_files(tools, tools.base(inp, "sym"), True, weighted_too=True)
        # Every system must read the same number of vertices and arcs.
        for stem, m in ((tools.base(inp), meta["m"]),) + (
                ((tools.base(inp, "sym"), meta["sym_m"]),) if not inp["symmetric"] else ()):
            n_adj, m_adj = gbbs_header(f"{stem}.adj")
            if (n_adj, m_adj) != (meta["n"], m):
                die(f"{stem}.adj: GBBS's converter made n = {n_adj}, m = {m_adj}; ordo has "
                    f"n = {meta['n']}, m = {m} (self loops or parallel edges? set `simplify = true`)")
        print(f"{inp['name']}: n = {meta['n']}, m = {meta['m']}"
              + ("" if inp["symmetric"] else f" (symmetrized: {meta['sym_m']})")
              + f", source {meta['source']}")


# ---------------------------------------------------------------------------------------
# Running one process


GNU_TIME = Path("/usr/bin/time")


def run_process(cmd, env=None, timeout=None):
    """Runs cmd to completion: (returncode or None on timeout, stdout, stderr, peak RSS
    in bytes). The peak RSS is the kernel's ru_maxrss of the process: its resident pages
    at their highest, anonymous memory and the file pages it touched (ordo's mapped
    graph). A child forked from this script starts with the script's own resident set
    (ru_maxrss keeps the larger of the two), so where GNU time is installed it starts the
    command and reports the command's ru_maxrss (its own set is a megabyte); else it is
    os.wait4's, at least this script's size."""
    full_env = dict(os.environ, **(env or {}))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("w+", prefix="ordo-rss-") as rss_file:
        wrapped = [str(GNU_TIME), "-f", "%M", "-o", rss_file.name, *cmd] if GNU_TIME.exists() else cmd
        p = subprocess.Popen(wrapped, env=full_env, stdout=out, stderr=err, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            if timer:
                timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        rss = usage.ru_maxrss * 1024
        if wrapped is not cmd:
            lines = Path(rss_file.name).read_text().split()
            rss = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else None
        out.seek(0)
        err.seek(0)
        rc = None if timed_out.is_set() else p.returncode
        return rc, out.read(), err.read(), rss


CHECKSUM = re.compile(r"^ordo-checksum (.*)$", re.M)


def parse_checksum_line(text):
    """The last `ordo-checksum key=value ...` line of a peer's output, as a dict of
    numbers (ints where they are ints)."""
    lines = CHECKSUM.findall(text)
    if not lines:
        return None
    out = {}
    for item in lines[-1].split():
        key, _, value = item.partition("=")
        try:
            out[key] = int(value)
        except ValueError:
            out[key] = float(value)
    return out


def parse_gapbs(kind, text):
    """Times (`Trial Time`) and checksum of a GAPBS run with `-a`."""
    times = [float(x) for x in re.findall(r"^Trial Time:\s+([\d.eE+-]+)", text, re.M)]
    if kind == "tc":
        m = re.findall(r"^(\d+) triangles$", text, re.M)
        checksum = {"triangles": int(m[-1])} if m else None
    else:
        checksum = parse_checksum_line(text)
    return times, checksum


def parse_connectit(text):
    """ConnectIt's mains run each variant of their family `-r` times: the times of each
    variant ({name: [s, ...]}, `### t =` lines before the variant's result block) and
    every checksum printed (one per timed run)."""
    variants, pending = {}, []
    for line in text.splitlines():
        m = re.match(r"^### t = ([\d.eE+-]+)$", line)
        if m:
            pending.append(float(m.group(1)))
            continue
        m = re.match(r'^\s*"test_name" : "(.*)",$', line)
        if m:
            variants[m.group(1)] = pending
            pending = []
    checksums = []
    for line in CHECKSUM.findall(text):
        checksums.append(parse_checksum_line("ordo-checksum " + line))
    return variants, checksums


def parse_gbbs(kind, text, variant=None):
    """Times (`### Running Time`, or ConnectIt's per-variant times) and checksum of a GBBS
    run. ConnectIt: the plan's `variant`, or else the variant with the lowest median in
    this process (the best of ConnectIt's family); its checksums must all agree."""
    extra = {}
    if kind == "cc":
        variants, checksums = parse_connectit(text)
        if not variants:
            return [], None, extra
        if variant is None:
            variant = min(variants, key=lambda v: statistics.median(variants[v]) if variants[v] else math.inf)
        times = variants.get(variant, [])
        extra = {"variant": variant, "variants_s": variants}
        distinct = {json.dumps(c, sort_keys=True) for c in checksums}
        checksum = checksums[-1] if len(distinct) == 1 else None
        if len(distinct) > 1:
            extra["error"] = f"ConnectIt's variants disagree: {sorted(distinct)}"
        return times, checksum, extra
    times = [float(x) for x in re.findall(r"^### Running Time: ([\d.eE+-]+)", text, re.M)]
    if kind == "tc":
        m = re.findall(r"^### Num triangles = (\d+)", text, re.M)
        checksum = {"triangles": int(m[-1])} if m else None
    else:
        checksum = parse_checksum_line(text)
    return times, checksum, extra


def ordo_partial_checksum(kind, report):
    """What ordo's --json says of the exact checksum (some keys may be missing)."""
    names = ORDO_METRICS.get(kind, {})
    return {k: report[v] for k, v in names.items() if v in report and report[v] is not None}


class Missing(Exception):
    """A binary or input file that is not there."""


def exists(path):
    if not Path(path).exists():
        raise Missing(f"{path} is missing")
    return str(path)


def graph_size(tools, kernel, inp, meta, system):
    """n and the arcs of the copy of the input that `system` reads for `kernel`."""
    copy = KINDS[kernel["kind"]]["graph"].get(system, "input")
    sym = copy == "sym" and not inp["symmetric"]
    return meta["n"], meta["sym_m"] if sym else meta["m"], inp["symmetric"] or copy == "sym"


def size_error(system, text, n, m, symmetric):
    """Whether the peer's own report of the graph it loaded (GAPBS: `Graph has N nodes
    and M (un)directed edges`, GBBS: `### n:` / `### m:`) disagrees with ordo's."""
    if system == "gapbs":
        got = re.search(r"^Graph has (\d+) nodes and (\d+) (un)?directed edges", text, re.M)
        want = (n, m // 2 if symmetric else m)
    else:
        gn, gm = re.search(r"^### n: (\d+)$", text, re.M), re.search(r"^### m: (\d+)$", text, re.M)
        got = (gn, gm) if gn and gm else None
        want = (n, m)
        if got is not None:
            got = (int(gn.group(1)), int(gm.group(1)))
            return None if got == want else f"GBBS loaded n = {got[0]}, m = {got[1]}, ordo has {want}"
        return None
    if got is None:
        return None
    got = (int(got.group(1)), int(got.group(2)))
    return None if got == want else f"GAPBS loaded n = {got[0]}, {got[1]} edges, ordo has {want}"


def command(tools, kernel, inp, meta, system, threads, runs, check=False, dump=None):
    """The command line and environment of one process of `kernel` on `inp`."""
    kind = kernel["kind"]
    copy = KINDS[kind]["graph"].get(system, "input")
    stem = tools.base(inp, copy)
    symmetric = inp["symmetric"] or copy == "sym"
    args = fill(kernel[f"check_{system}" if check else system], template_values(meta, kernel, inp))
    if system == "ordo":
        cmd = [exists(tools.ordo), "run", kernel["app"], "--graph", exists(f"{stem}.ordo"),
               "--threads", str(threads), "--repeat", str(runs), "--json", *args]
        if dump:
            cmd += ["--out", str(dump)]
        if check:
            cmd.append("--verify")
        return cmd, {}
    if system == "gapbs":
        cmd = [exists(tools.gapbs / KINDS[kind]["gapbs"]), "-f", exists(f"{stem}.sg"), "-n", str(runs),
               "-a", *args]
        env = {"OMP_NUM_THREADS": str(threads)}
        if dump:
            env["ORDO_DUMP"] = str(dump)
        return cmd, env
    binary = exists(tools.gbbs / KINDS[kind]["gbbs"])
    graph = exists(f"{stem}.wadj" if kind == "mst" else f"{stem}.adj")
    cmd = [binary] + (["-s"] if symmetric else [])
    cmd += ["-r", str(runs)] if kind == "cc" else ["-rounds", str(runs)]
    cmd += args
    if dump:
        cmd += ["-ordo_dump", str(dump)]
    return cmd + [graph], {"PARLAY_NUM_THREADS": str(threads)}


def run_kernel(tools, kernel, inp, meta, system, threads, runs, timeout, check=False, dump=None):
    """One process. Returns a record: cmd, times_s, checksum, peak_rss_bytes, or error."""
    try:
        cmd, env = command(tools, kernel, inp, meta, system, threads, runs, check, dump)
    except Missing as e:
        return {"error": f"{e} (build: bench/peers/build.sh, bench/peers/gbbs/build.sh; prepare)"}
    started = time.time()
    rc, out, err, rss = run_process(cmd, env, timeout)
    rec = {"cmd": shlex.join(cmd), "env": env, "started": started, "peak_rss_bytes": rss}
    if rc is None:
        rec["error"] = f"timeout after {timeout:.0f} s"
        return rec
    if rc != 0:
        rec["error"] = f"exit {rc}: {(err or out).strip()[-500:]}"
        return rec
    kind = kernel["kind"]
    if system == "ordo":
        try:
            report = json.loads(out)
        except json.JSONDecodeError:
            rec["error"] = f"not JSON:\n{out[-500:]}"
            return rec
        rec["times_s"] = report.get("times_s") or [report["time_s"]]
        rec["checksum"] = ordo_partial_checksum(kind, report)
        rec["report"] = {k: v for k, v in report.items()
                         if not isinstance(v, (dict, list)) or k in ("times_s",)}
    elif system == "gapbs":
        rec["times_s"], rec["checksum"] = parse_gapbs(kind, out)
    else:
        rec["times_s"], rec["checksum"], extra = parse_gbbs(kind, out, kernel.get("gbbs_variant"))
        rec.update(extra)
    if system != "ordo" and "error" not in rec:
        wrong_size = size_error(system, out, *graph_size(tools, kernel, inp, meta, system))
        if wrong_size:
            rec["error"] = wrong_size
    if "error" not in rec and (len(rec["times_s"]) != runs or (system != "ordo" and rec["checksum"] is None)):
        rec["error"] = f"unexpected output ({len(rec['times_s'])} times for {runs} runs):\n{out[-800:]}"
    return rec


# ---------------------------------------------------------------------------------------
# Results written by ordo's --out, and the comparisons of check


def read_vertex_values(path, n):
    """`vertex value` lines (ordo's --out of bfs, cc, pr, bc): a list of n values, None
    for `inf` and for vertices not listed."""
    values = [None] * n
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2 or parts[0].startswith("#"):
                continue
            values[int(parts[0])] = None if parts[1] == "inf" else float(parts[1])
    return values


def read_scores(path, n=None):
    """One score per line (the peers' dumps), or `vertex score` lines (ordo's --out)."""
    out = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            out.append(float(parts[-1]))
    if n is not None and len(out) != n:
        die(f"{path}: {len(out)} scores for {n} vertices")
    return out


def bfs_checksum(levels):
    """reached / sum / max of the levels (None = unreached)."""
    reached = [int(x) for x in levels if x is not None]
    return {"reached": len(reached), "sum": sum(reached), "max": max(reached, default=0)}


def cc_checksum(labels):
    """components / largest / label_sum of a partition given as one label per vertex:
    label_sum is the sum over vertices of the smallest vertex of their component, which
    does not depend on the labels chosen."""
    smallest, size = {}, {}
    for v, label in enumerate(labels):
        smallest.setdefault(label, v)
        size[label] = size.get(label, 0) + 1
    return {
        "components": len(size),
        "largest": max(size.values(), default=0),
        "label_sum": sum(smallest[label] for label in labels),
    }


def mst_checksum(path):
    """edges / weight of ordo's --out of mst (`u v w` lines)."""
    edges = weight = 0
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and not parts[0].startswith("#"):
                edges += 1
                weight += int(parts[2])
    return {"edges": edges, "weight": weight}


def normalized_l1(a, b):
    """L1 distance of two PageRank vectors, each scaled to sum 1. Systems differ in what
    they do with dangling vertices (GBBS spreads their mass over every vertex, GAPBS
    drops it) and in the scale (ordo's residual kernel sums to about n); with a uniform
    teleport, all of them converge to multiples of the same vector."""
    sa, sb = sum(a), sum(b)
    if len(a) != len(b) or sa <= 0 or sb <= 0:
        return math.inf
    return sum(abs(x / sa - y / sb) for x, y in zip(a, b))


def bc_distance(a, b, source):
    """Largest difference of two single-source dependency vectors, each divided by its
    largest value over the vertices other than the source. The source's own entry is
    left out (GAPBS and GBBS count it, Brandes does not); unreached vertices count 0
    (GBBS leaves NaN there)."""
    def scaled(x):
        y = [0.0 if (v == source or xv is None or math.isnan(xv)) else xv for v, xv in enumerate(x)]
        top = max(y, default=0.0)
        return [v / top for v in y] if top > 0 else y
    if len(a) != len(b):
        return math.inf
    return max((abs(x - y) for x, y in zip(scaled(a), scaled(b))), default=0.0)


def reference_path(tools, inp, kernel):
    return tools.inputs / f"{inp['name']}.{kernel['name']}.check.json"


def check(tools, settings, inputs, kernels, systems):
    """Each kernel once per system; ordo runs with --verify (its own sequential
    reference) and --out, the peers compare with ordo's result (PageRank: the L1
    distance of the normalized vectors at most `pr_l1_bound`; betweenness: one source,
    the scaled scores within `bc_bound`). The exact checksums are stored for the duel."""
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ordo-kernels-") as tmp:
        tmp = Path(tmp)
        for inp in inputs:
            meta = tools.meta(inp)
            if meta is None:
                print(f"{inp['name']}: not prepared, skipped")
                continue
            for kernel in kernels:
                kind = kernel["kind"]
                label = f"{inp['name']} {kernel['name']}"
                results = {}
                for system in systems:
                    if system != "ordo" and system not in kernel["peers"]:
                        continue
                    if system == "ordo" and kernel.get("check_ordo") is False:
                        continue
                    dump = tmp / f"{system}.out" if (system == "ordo" or kind in ("pr", "bc")) else None
                    rec = run_kernel(tools, kernel, inp, meta, system, 2, 1, settings["timeout_s"], True, dump)
                    if "error" in rec:
                        print(f"{label}: {system} FAILED: {rec['error'][:300]}")
                        failures += 1
                        continue
                    results[system] = result_of(kind, system, rec, dump, meta)
                bad = compare(label, kind, results, meta, settings)
                failures += bad
                if kind in EXACT and results and not bad:
                    # The duel checks every run against this: ordo's result (verified
                    # against its sequential reference), or the peers' when ordo has none.
                    first = next(iter(results))
                    reference_path(tools, inp, kernel).write_text(
                        json.dumps({"checksum": results[first], "from": first}))
    if failures:
        die(f"{failures} comparisons failed")


def result_of(kind, system, rec, dump, meta):
    """The comparable result of one check run: an exact checksum, or a vector."""
    n = meta["n"]
    if kind in EXACT:
        if system != "ordo":
            return {k: rec["checksum"].get(k) for k in EXACT[kind]}
        if kind == "bfs":
            return bfs_checksum(read_vertex_values(dump, n))
        if kind == "cc":
            return cc_checksum(read_vertex_values(dump, n))
        if kind == "tc":
            return {"triangles": rec["report"]["triangles"]}
        return mst_checksum(dump)
    return read_scores(dump, n)


def compare(label, kind, results, meta, settings):
    """Prints one line per system against the first (ordo, else the first peer);
    returns the number of disagreements."""
    if not results:
        return 0
    systems = list(results)
    ref_system = systems[0]
    ref = results[ref_system]
    bad = 0
    if kind in EXACT:
        print(f"{label}: {ref_system} {ref}")
        for s in systems[1:]:
            same = results[s] == ref
            bad += not same
            print(f"  {s:<6} {'same' if same else 'DIFFERENT: ' + str(results[s])}")
    elif kind == "pr":
        print(f"{label}: {ref_system} sum {sum(ref):.6g}, top vertex {max(range(len(ref)), key=ref.__getitem__)}")
        for s in systems[1:]:
            d = normalized_l1(ref, results[s])
            ok = d <= settings["pr_l1_bound"]
            bad += not ok
            print(f"  {s:<6} L1 of the normalized vectors {d:.3g} "
                  f"({'within' if ok else 'OVER'} {settings['pr_l1_bound']:g})")
    else:
        print(f"{label}: {ref_system}, source {meta['source']}")
        for s in systems[1:]:
            d = bc_distance(ref, results[s], meta["source"])
            ok = d <= settings["bc_bound"]
            bad += not ok
            print(f"  {s:<6} largest difference of the scaled scores {d:.3g} "
                  f"({'within' if ok else 'OVER'} {settings['bc_bound']:g})")
    return bad


# ---------------------------------------------------------------------------------------
# duel and table


@contextlib.contextmanager
def held(lock_path):
    """An exclusive flock on lock_path (none when lock_path is None) while the block runs."""
    if lock_path is None:
        yield
        return
    with open(lock_path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def duel(tools, settings, inputs, kernels, systems, out, pairs, thread_counts, lock=None):
    """For every kernel, input, thread count and peer, `pairs` pairs of processes: ordo's
    default and the peer, one right after the other in a random order (seeded), each
    doing `runs` timed runs; with `lock`, each pair holds an flock on that file (a
    benchmark lock shared with others on the machine). Every process goes to
    OUT/duel.jsonl; a run whose exact checksum differs from the one `check` stored is
    recorded as an error."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(settings["seed"])
    session = time.time()  # pairs are numbered per session
    cells = []
    for kernel in kernels:
        for inp in inputs:
            if tools.meta(inp) is None:
                print(f"{inp['name']}: not prepared, skipped")
                continue
            for threads in thread_counts or settings["threads"]:
                cells += [(kernel, inp, threads, peer) for peer in kernel["peers"] if peer in systems]
    with open(out / "duel.jsonl", "a") as log:
        for kernel, inp, threads, peer in cells:
            meta = tools.meta(inp)
            ref_path = reference_path(tools, inp, kernel)
            ref = json.loads(ref_path.read_text())["checksum"] if ref_path.exists() else None
            for k in range(pairs):
                order = ["ordo", peer]
                rng.shuffle(order)
                with held(lock):
                    recs = [run_kernel(tools, kernel, inp, meta, system, threads, settings["runs"],
                                       settings["timeout_s"]) for system in order]
                for system, rec in zip(order, recs):
                    judge(rec, ref)
                    rec.update(kernel=kernel["name"], input=inp["name"], threads=threads, system=system,
                               peer=peer, pair=k, session=session)
                    log.write(json.dumps(rec) + "\n")
                    log.flush()
                    status = (f"{rec['median_s'] * 1e3:10.2f} ms {(rec['peak_rss_bytes'] or 0) / 2**20:8.1f} MiB"
                              if "median_s" in rec else "ERROR " + rec["error"][:100])
                    print(f"  {kernel['name']:<5} {inp['name']:<10} T={threads} {system:<5} "
                          f"(vs {peer}, pair {k + 1}/{pairs}) {status}", flush=True)


def judge(rec, ref):
    """Marks a duel process as an error when its exact checksum differs from check's
    (the keys both have), else adds the median of its timed runs."""
    if "error" in rec:
        return
    wrong = {key: v for key, v in (rec.get("checksum") or {}).items() if ref and key in ref and ref[key] != v}
    if wrong:
        rec["error"] = f"checksum {wrong} differs from check's {ref}"
    else:
        rec["median_s"] = statistics.median(rec["times_s"])


def pair_up(recs):
    """The duel's processes of one cell (kernel, input, threads, peer) as pairs: the ordo
    process and the peer process of the same pair number and session, both successful."""
    by_pair = {}
    for r in recs:
        by_pair.setdefault((r.get("session", 0), r["pair"]), {})[r["system"]] = r
    pairs = []
    for key in sorted(by_pair):
        two = by_pair[key]
        o = two.get("ordo")
        p = next((r for s, r in two.items() if s != "ordo"), None)
        if o and p and "median_s" in o and "median_s" in p:
            pairs.append((o, p))
    return pairs


def cell_summary(pairs):
    """Medians (min-max) of both systems' process medians, the median (min-max) of the
    ratios ordo / peer of the pairs, the median peak RSS of both and its ratio."""
    if not pairs:
        return None
    o_t = [o["median_s"] for o, _ in pairs]
    p_t = [p["median_s"] for _, p in pairs]
    ratios = [o["median_s"] / p["median_s"] for o, p in pairs]
    o_rss = statistics.median([o["peak_rss_bytes"] for o, _ in pairs if o.get("peak_rss_bytes")] or [math.nan])
    p_rss = statistics.median([p["peak_rss_bytes"] for _, p in pairs if p.get("peak_rss_bytes")] or [math.nan])
    return {
        "pairs": len(pairs),
        "ordo_median_s": statistics.median(o_t), "ordo_min_s": min(o_t), "ordo_max_s": max(o_t),
        "peer_median_s": statistics.median(p_t), "peer_min_s": min(p_t), "peer_max_s": max(p_t),
        "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
        "ordo_wins": sum(1 for r in ratios if r < 1.0),
        "ordo_rss_bytes": o_rss, "peer_rss_bytes": p_rss,
        "rss_ratio": o_rss / p_rss,
    }


def ordo_ran(pairs):
    """What ordo's default ran in a cell's processes: its `kernel` metric where the app
    reports one, else its scheduler or loop spec; several values joined by `/`."""
    names = []
    for o, _ in pairs:
        report = o.get("report", {})
        name = report.get("kernel") or report.get("scheduler") or "?"
        if name not in names:
            names.append(name)
    return " / ".join(names)


def ms(x):
    return f"{x * 1e3:.3g}" if x < 0.1 else f"{x * 1e3:.0f}"


def table(out):
    path = out / "duel.jsonl"
    if not path.exists():
        die(f"{path}: no duel yet")
    recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cells = {}
    for r in recs:
        cells.setdefault((r["kernel"], r["input"], r["threads"], r["peer"]), []).append(r)
    lines = [
        "| kernel | input | threads | peer | ordo ms | peer ms | ordo / peer (pairs) | ordo faster "
        "| ordo MiB | peer MiB | RSS ratio | ordo ran |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    errors = [r for r in recs if "error" in r]
    order = sorted(cells, key=lambda c: (c[0], c[1], c[2], c[3]))
    for cell in order:
        pairs = pair_up(cells[cell])
        s = cell_summary(pairs)
        kernel, inp, threads, peer = cell
        if s is None:
            lines.append(f"| {kernel} | {inp} | {threads} | {peer} | - | - | no successful pair | | | | | |")
            continue
        lines.append(
            f"| {kernel} | {inp} | {threads} | {peer} "
            f"| {ms(s['ordo_median_s'])} ({ms(s['ordo_min_s'])}-{ms(s['ordo_max_s'])}) "
            f"| {ms(s['peer_median_s'])} ({ms(s['peer_min_s'])}-{ms(s['peer_max_s'])}) "
            f"| {s['ratio_median']:.2f} ({s['ratio_min']:.2f}-{s['ratio_max']:.2f}) "
            f"| {s['ordo_wins']} of {s['pairs']} "
            f"| {s['ordo_rss_bytes'] / 2**20:.0f} | {s['peer_rss_bytes'] / 2**20:.0f} | {s['rss_ratio']:.2f} "
            f"| `{ordo_ran(pairs)}` |")
    lines += ["", "Times: each system's own timer, the median of a process's timed runs; per cell the median "
              "(min-max) over processes. Ratios: ordo / peer of processes run one right after the other, "
              "their median (min-max). MiB: median peak RSS (ru_maxrss) of the processes."]
    if errors:
        lines += ["", f"{len(errors)} processes failed (see duel.jsonl `error`)."]
    text = "\n".join(lines) + "\n"
    (out / "kernels.md").write_text(text)
    print(text)


# ---------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["prepare", "check", "duel", "table"])
    ap.add_argument("--plan", default=str(Path(__file__).with_name("kernels.toml")))
    ap.add_argument("--out", default="results/kernels")
    ap.add_argument("--peers", help="peer build directory (default $ORDO_PEERS_DIR or ../peers)")
    ap.add_argument("--ordo", help="ordo binary (default target/release/ordo)")
    ap.add_argument("--only", help="comma-separated input names")
    ap.add_argument("--kernels", help="comma-separated kernel names of the plan")
    ap.add_argument("--systems", help="comma-separated peers to run (default: gapbs,gbbs)")
    ap.add_argument("--threads", help="duel: comma-separated thread counts (default: the plan's)")
    ap.add_argument("--pairs", type=int, help="duel: pairs of processes per cell (default: the plan's)")
    ap.add_argument("--lock", help="duel: hold an flock on this file during each pair (e.g. a benchmark lock)")
    args = ap.parse_args()
    settings, inputs, kernels = load_plan(args.plan)
    if args.only:
        names = args.only.split(",")
        unknown = set(names) - {i["name"] for i in inputs}
        if unknown:
            die(f"--only: no input {', '.join(sorted(unknown))} in the plan")
        inputs = [i for i in inputs if i["name"] in names]
    if args.kernels:
        names = args.kernels.split(",")
        unknown = set(names) - {k["name"] for k in kernels}
        if unknown:
            die(f"--kernels: no kernel {', '.join(sorted(unknown))} in the plan")
        kernels = [k for k in kernels if k["name"] in names]
    peers = args.systems.split(",") if args.systems else ["gapbs", "gbbs"]
    if set(peers) - {"gapbs", "gbbs"}:
        die(f"--systems {args.systems}: expected gapbs and/or gbbs")
    systems = ["ordo", *peers]
    tools = Tools(args)
    out = Path(args.out)
    if args.command == "prepare":
        prepare(tools, inputs)
    elif args.command == "check":
        check(tools, settings, inputs, kernels, systems)
    elif args.command == "duel":
        pairs = args.pairs if args.pairs is not None else settings["pairs"]
        if pairs < 1:
            die("--pairs must be at least 1")
        try:
            threads = [int(t) for t in args.threads.split(",")] if args.threads else None
        except ValueError:
            die(f"--threads {args.threads}: expected comma-separated thread counts")
        duel(tools, settings, inputs, kernels, systems, out, pairs, threads, args.lock)
        table(out)
    else:
        table(out)


if __name__ == "__main__":
    main()
