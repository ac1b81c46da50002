#!/usr/bin/python3
"""Slab cost per in-core inode, from the guest "slab" test of each variant.

Reads build/runs/<variant>-slab/out/ (slabinfo before and after, the file
count), computes for every slab cache the growth in object bytes
(active_objs x objsize) and in slab memory (num_slabs x pages x 4096), per
in-core inode, and the IMA overhead = a variant's total minus noima's.
Writes a markdown table and JSON. Hand-written because no Debian tool turns
two /proc/slabinfo snapshots into per-object deltas (slabtop only shows one).

Usage: scripts/slab.py --out DIR RUN_DIR...
"""
import argparse
import json
import os
import sys

PAGE = 4096


def read_slabinfo(path):
    caches = {}
    with open(path) as f:
        for line in f:
            if line.startswith(("slabinfo", "#")):
                continue
            head, _, rest = line.partition(":")
            name, active, num, objsize, _perslab, pages = head.split()[:6]
            slabdata = rest.split("slabdata")[1].split()
            caches[name] = {
                "objects": int(active),
                "obj_bytes": int(active) * int(objsize),
                "slab_bytes": int(slabdata[1]) * int(pages) * PAGE,
                "objsize": int(objsize),
            }
    return caches


def analyse(run):
    out = os.path.join(run, "out")
    with open(os.path.join(run, "result.json")) as f:
        meta = json.load(f)
    before = read_slabinfo(os.path.join(out, "slabinfo-before"))
    after = read_slabinfo(os.path.join(out, "slabinfo-after"))
    with open(os.path.join(out, "files")) as f:
        files = int(f.read().split()[0])
    nr = []
    for when in ("before", "after"):
        with open(os.path.join(out, "inode-nr-" + when)) as f:
            nr.append(int(f.read().split()[0]))
    incore = nr[1] - nr[0]
    if files <= 0 or incore <= 0:
        sys.exit(f"error: {run}: no inodes came into core ({files} files, "
                 f"in-core delta {incore})")
    caches = {}
    for name in sorted(set(before) | set(after)):
        b = before.get(name, {"objects": 0, "obj_bytes": 0, "slab_bytes": 0})
        a = after.get(name, b)
        d = {k: a[k] - b[k] for k in ("objects", "obj_bytes", "slab_bytes")}
        d["objsize"] = a.get("objsize", 0)
        caches[name] = d
    return {
        "variant": meta["variant"],
        "release": meta.get("release", ""),
        "files": files,
        "incore_inodes": incore,
        "caches": caches,
        "obj_bytes_per_inode": sum(c["obj_bytes"] for c in caches.values()) / files,
        "slab_bytes_per_inode": sum(c["slab_bytes"] for c in caches.values()) / files,
    }


def check(results, files):
    """What must hold for the figures to mean anything; not targets."""
    problems = []
    for r in results:
        v = r["variant"]
        if files and r["files"] != files:
            problems.append(f"{v}: the guest saw {r['files']} files, not {files}")
        if r["incore_inodes"] < 0.95 * r["files"]:
            problems.append(f"{v}: only {r['incore_inodes']} inodes came into core "
                            f"for {r['files']} files")
        total = sum(c["slab_bytes"] for c in r["caches"].values()) / r["files"]
        if abs(total - r["slab_bytes_per_inode"]) > 1e-6:
            problems.append(f"{v}: per-cache figures do not add up to the total")
    if "noima" not in [r["variant"] for r in results]:
        problems.append("no noima run: IMA overhead has no reference")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--files", type=int,
                    help="the N every run must have seen (a consistency check)")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    results = [analyse(r) for r in args.runs]
    problems = check(results, args.files)
    ref = next((r for r in results if r["variant"] == "noima"), None)
    for r in results:
        if ref:
            r["ima_overhead_obj_bytes_per_inode"] = (
                r["obj_bytes_per_inode"] - ref["obj_bytes_per_inode"])
            r["ima_overhead_slab_bytes_per_inode"] = (
                r["slab_bytes_per_inode"] - ref["slab_bytes_per_inode"])
    # The caches worth a row: any that grew by a byte per inode somewhere.
    names = sorted({n for r in results for n, c in r["caches"].items()
                    if abs(c["slab_bytes"]) / r["files"] >= 1.0})
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "slab.json"), "w") as f:
        json.dump({"variants": results, "reference": ref and "noima"}, f,
                  indent=2, sort_keys=True)
    cols = [r["variant"] for r in results]
    lines = [
        "Slab growth per in-core inode (bytes), N = "
        + ", ".join(f"{r['files']} ({r['variant']})" for r in results),
        "",
        "| cache (object size) | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for n in names:
        size = max(r["caches"].get(n, {}).get("objsize", 0) for r in results)
        cells = [f"{r['caches'].get(n, {}).get('slab_bytes', 0) / r['files']:.1f}"
                 for r in results]
        lines.append(f"| {n} ({size} B) | " + " | ".join(cells) + " |")
    lines.append("| **total slab** | " + " | ".join(
        f"**{r['slab_bytes_per_inode']:.1f}**" for r in results) + " |")
    lines.append("| total objects | " + " | ".join(
        f"{r['obj_bytes_per_inode']:.1f}" for r in results) + " |")
    if ref:
        lines.append("| **IMA overhead** (slab − noima) | " + " | ".join(
            f"**{r['ima_overhead_slab_bytes_per_inode']:.1f}**" for r in results) + " |")
        lines.append("| IMA overhead (objects − noima) | " + " | ".join(
            f"{r['ima_overhead_obj_bytes_per_inode']:.1f}" for r in results) + " |")
    with open(os.path.join(args.out, "slab.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    for p in problems:
        print("error: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
