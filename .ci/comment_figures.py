#!/usr/bin/env python3
"""Fails when a Rust comment quotes a measured time or speed ratio.

Measured figures go stale with the next machine and hide the invariant a reader needs; they
belong in docs/ (the results page and the dated design notes). This looks at every `//`
comment (doc comments included) of the Rust sources and reports each line that states a
measured duration or ratio (the patterns below). Design constants (a timeout of 1 ms, a
factor of 1024×) are whole numbers and do not match; a decimal constant is written in words.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIRS = ["crates", "python/src"]

# A measured duration: a decimal figure with a unit (`1.5 ms`, `0.6 ns`, `0.126 s`), or a
# figure after a word of measuring (`took 40 µs`, `measured 12 ms`).
DURATION = re.compile(
    r"(?<![\w.])\d+\.\d+\s?(?:ms|µs|us|ns|s)\b"
    r"|\b(?:took|takes|measured|ran in|runs in|costs?)\s+(?:about\s+)?\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s)\b"
)
# A measured ratio: a decimal factor (`1.04×`, `0.98–1.00x`) or `N× faster` / `N times slower`.
RATIO = re.compile(
    r"(?<![\w.])\d+\.\d+\s?[×x](?!\w)"
    r"|\d+(?:\.\d+)?\s?(?:×|x|times) (?:faster|slower|the time|as long)"
)


def comment_of(line: str):
    """The comment part of a Rust line (after `//` outside a string), or None."""
    in_str = False
    i = 0
    while i < len(line) - 1:
        c = line[i]
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            in_str = not in_str
        elif not in_str and c == "/" and line[i + 1] == "/":
            return line[i + 2:]
        i += 1
    return None


def main() -> int:
    found = []
    for d in DIRS:
        for path in sorted((ROOT / d).rglob("*.rs")):
            if "target" in path.parts:
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                comment = comment_of(line)
                if comment is None:
                    continue
                if DURATION.search(comment) or RATIO.search(comment):
                    found.append(f"{path.relative_to(ROOT)}:{no}: {comment.strip()}")
    for f in found:
        print(f)
    if found:
        print(f"error: {len(found)} comment lines quote a measured time or ratio; "
              "state the invariant or reason and move the figure to docs/ (docs/design/)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
