#!/usr/bin/python3
"""The memory and cost report, from the guest runs of scripts/report.sh.

  report.py collect DIR   DIR/raw/ (the runs' results) -> DIR/results.json
  report.py render DIR    DIR/results.json -> DIR/report.md and DIR/*.png
  report.py check DIR     is the report made and internally consistent?

`collect` turns /proc/slabinfo snapshots into bytes per in-core inode for
every cache that grew, IMA's overhead (a variant minus noima, same N), a
least-squares line of overhead against N, the cost of a measured file and
the open+close timings. `render` writes only what results.json holds, so
`make report` can redo it without booting. `check` verifies sums, N, inodes
in core, variants and keys, and that report.md is what results.json says;
it never compares a figure with a target. Exit: 0 ok, 1 inconsistent,
2 missing or unreadable input.

The code is in scripts/reportlib/, one module a seam: base (constants,
reading, statistics, Markdown helpers), collect, render, targets, plots
and check.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reportlib.check import check  # noqa: E402
from reportlib.collect import collect  # noqa: E402
from reportlib.render import render  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("verb", choices=["collect", "render", "check"])
    ap.add_argument("dir", help="the report folder (build/report)")
    a = ap.parse_args()
    if a.verb == "collect":
        collect(a.dir)
    elif a.verb == "render":
        render(a.dir)
    else:
        return check(a.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
