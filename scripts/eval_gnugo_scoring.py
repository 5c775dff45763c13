#!/usr/bin/env python3
"""Score verdict (and GNU Go) on GNU Go's finished-game scoring tests.

GNU Go's regression suite (regression/score.tst and score2.tst in its
source tree) holds 60 games, most of them lopsided games of GNU Go against
weak players, with the score a strong player gives each (`final_score`,
Japanese rules, komi from the record). The records' own RE values are not
that score. This script copies each stored game into a temporary folder
with RE set to the test's expected score (and RU[Japanese] where the
record has no RU), then runs `verdict eval results` on the folder, which
counts the games whose settled dead stones give that score, with GNU Go
side by side when --gnugo is given.

    python3 scripts/eval_gnugo_scoring.py GNUGO_SRC/regression \
        [--verdict target/release/verdict] [--gnugo /usr/games/gnugo]

Tests whose expected line is marked known-failing (`#? [...]*`) are kept:
the expected score is still the strong player's. Test 1 is commented out
in score.tst ("Unfinished") and is kept too. The games are not part of
this repository (they are GNU Go's); nothing is written outside a
temporary folder.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def tests(regression):
    """(number, sgf path, expected result) of every scoring test."""
    out = []
    for name in ("score.tst", "score2.tst"):
        path = os.path.join(regression, name)
        if not os.path.exists(path):
            sys.exit(f"{path} not found: give GNU Go's regression folder")
        sgf = None
        for line in open(path, encoding="utf-8", errors="replace"):
            line = line.strip().lstrip("#").strip()
            m = re.match(r"loadsgf\s+(\S+)", line)
            if m:
                sgf = os.path.join(regression, m.group(1))
                continue
            m = re.match(r"(\d+)\s+final_score", line)
            if m:
                number = int(m.group(1))
                continue
            m = re.match(r"\?\s*\[([BW])\\?\+([0-9.]+)\]", line)
            if m and sgf:
                out.append((number, sgf, f"{m.group(1)}+{m.group(2)}"))
                sgf = None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("regression", help="GNU Go's regression folder (holds score.tst)")
    ap.add_argument("--verdict", default="target/release/verdict")
    ap.add_argument("--gnugo", help="also run this GNU Go binary on the same games")
    ap.add_argument("--show-misses", type=int, default=20)
    args = ap.parse_args()

    found = tests(args.regression)
    missing = [(n, p) for n, p, _ in found if not os.path.exists(p)]
    with tempfile.TemporaryDirectory() as folder:
        for number, path, expected in found:
            if not os.path.exists(path):
                continue
            text = open(path, encoding="utf-8", errors="replace").read()
            text = re.sub(r"RE\[[^\]]*\]", "", text)
            extra = f"RE[{expected}]" + ("" if "RU[" in text else "RU[Japanese]")
            at = text.index(";") + 1
            name = f"{number:02d}-{os.path.basename(path)}"
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text[:at] + extra + text[at:])
        cmd = [args.verdict, "eval", "results", folder, "--show-misses", str(args.show_misses)]
        if args.gnugo:
            cmd += ["--gnugo", "--gnugo-bin", args.gnugo]
        print(f"{len(found) - len(missing)} of {len(found)} tests have their game here", file=sys.stderr)
        for n, p in missing:
            print(f"  test {n}: {p} not found", file=sys.stderr)
        sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
