"""Tests of bench/corunner.py against a stand-in for `ordo run` (no build needed)."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "corunner.py"

FAKE_ORDO = """#!/bin/sh
# Stands in for `ordo run APP ... --threads T --repeat R --json`: the time is 0.01 * T,
# and 0.04 more when a co-runner's process is alive (the test names them).
t=1
while [ $# -gt 0 ]; do
  if [ "$1" = "--threads" ]; then t=$2; fi
  shift
done
exec python3 - "$t" <<'PY'
import glob, json, sys
def busy(path):
    try:
        return b"while True: pass" in open(path, "rb").read()
    except OSError:
        return False
e = any(busy(p) for p in glob.glob("/proc/[0-9]*/cmdline"))
x = 0.01 * int(sys.argv[1]) + 0.04 * e
print(json.dumps({"time_s": x, "times_s": [x, x]}))
PY
"""


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def run(tmp: Path, plan: str, *args: str) -> subprocess.CompletedProcess:
    ordo = write(tmp, "ordo", FAKE_ORDO)
    ordo.chmod(0o755)
    plan_path = write(tmp, "plan.toml", plan)
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--plan", str(plan_path), "--ordo", str(ordo), "--out", str(tmp / "out"),
         "--pairs", "2", "--repeat", "2", *args],
        capture_output=True, text=True, timeout=120)


PLAN = """
[[input]]
name = "g"
gen = "road:n=100"
[[config]]
name = "a"
app = "sssp"
[[config]]
name = "ref"
app = "sssp"
args = ["--sched", "obim"]
reference = true
"""


def test_table_reports_slowdown_against_idle_and_reference(tmp_path):
    out = run(tmp_path, PLAN, "--threads", "2")
    assert out.returncode == 0, out.stderr
    rows = [r for r in (tmp_path / "out" / "corunner.md").read_text().splitlines() if r.startswith("| g |")]
    assert len(rows) == 2
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    # idle 0.02, loaded 0.06 (the stand-in sees the co-runner), own one-thread idle 0.01
    assert cells[:4] == ["g", "a", "2", "1"]
    assert cells[4].startswith("0.0200") and cells[5].startswith("0.0600")
    assert cells[6] == "3.00" and cells[7] == "6.00" and cells[8] == "1.00"
    log = [json.loads(line) for line in (tmp_path / "out" / "corunner.jsonl").read_text().splitlines()]
    assert {(r["threads"], r["corunners"]) for r in log} == {(1, 0), (2, 0), (2, 1)}


def test_a_plan_without_configs_is_one_error_line(tmp_path):
    out = run(tmp_path, '[[input]]\nname = "g"\ngen = "road:n=100"\n')
    assert out.returncode == 1
    assert out.stderr.strip().count("\n") == 0 and "no [[config]] table" in out.stderr


def test_a_failing_run_names_its_command(tmp_path):
    bad = write(tmp_path, "bad", "#!/bin/sh\necho 'error: the graph file is missing' >&2\nexit 2\n")
    bad.chmod(0o755)
    plan_path = write(tmp_path, "plan.toml", PLAN)
    out = subprocess.run([sys.executable, str(SCRIPT), "--plan", str(plan_path), "--ordo", str(bad),
                          "--out", str(tmp_path / "out"), "--pairs", "1"], capture_output=True, text=True)
    assert out.returncode == 1
    assert "exited with 2: error: the graph file is missing" in out.stderr
