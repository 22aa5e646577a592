"""Runs networkx's own tests of the functions ``ordo.nx`` implements with
ordo as the backend under test, and reports per module.

networkx's test mode (``NETWORKX_TEST_BACKEND=ordo``) converts the graphs of
its tests to the backend and calls the backend's implementation wherever
``can_run`` accepts the call; ``NETWORKX_FALLBACK_TO_NX=True`` runs
networkx's own code for everything else (functions ordo does not implement,
and calls it declines). A plugin counts, per implemented function, the calls
that ran on ordo and those declined (with their reasons), so the report
shows that the tests exercised ordo and not only networkx.

    python tests/networkx_suite/run.py [--verbose]

Exits non-zero when a test fails or when an implemented function never ran
on ordo.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

#: networkx's test modules of the functions the backend implements.
MODULES = [
    "networkx.algorithms.shortest_paths",
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tree.tests.test_mst",
    "networkx.algorithms.components.tests.test_connected",
]

HERE = Path(__file__).resolve().parent


def run_module(module: str, counts_file: Path, verbose: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, NETWORKX_TEST_BACKEND="ordo", NETWORKX_FALLBACK_TO_NX="True",
               ORDO_NX_COUNTS=str(counts_file), PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "count_ordo_calls", "-q", "--pyargs", module]
    return subprocess.run(args, env=env, capture_output=not verbose, text=True, cwd=tempfile.gettempdir())


def summary_line(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else "(no output)"


def main() -> int:
    verbose = "--verbose" in sys.argv
    failed = False
    totals = collections.Counter()
    ran = collections.Counter()
    declined = collections.defaultdict(collections.Counter)
    print(f"{'module':70} result")
    with tempfile.TemporaryDirectory() as tmp:
        for module in MODULES:
            counts_file = Path(tmp) / f"{module}.tsv"
            proc = run_module(module, counts_file, verbose)
            line = summary_line(proc.stdout or "") if not verbose else str(proc.returncode)
            print(f"{module:70} {line}")
            for count, what in re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)", line):
                totals[what.rstrip("s") if what.startswith("error") else what] += int(count)
            if proc.returncode != 0:
                failed = True
                if not verbose:
                    print(proc.stdout[-20000:])
                    print(proc.stderr[-5000:])
            if counts_file.exists():
                for line in counts_file.read_text().splitlines():
                    kind, name, reason = line.split("\t")
                    if kind == "ran":
                        ran[name] += 1
                    else:
                        declined[name][reason] += 1
    from ordo.nx import IMPLEMENTATIONS

    print(f"\n{'function':40} {'on ordo':>8} {'declined':>9}")
    for name in sorted(IMPLEMENTATIONS):
        print(f"{name:40} {ran[name]:8} {sum(declined[name].values()):9}")
        if verbose:
            for reason, k in declined[name].most_common():
                print(f"    {k:5}  {reason}")
        if ran[name] == 0:
            print(f"error: networkx's tests never ran {name} on ordo", file=sys.stderr)
            failed = True
    print(f"\nnetworkx: {totals['passed']} passed, {totals['failed'] + totals['error']} failed, {totals['skipped']} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
