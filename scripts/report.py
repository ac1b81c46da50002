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
"""
import argparse
import json
import os
import re
import statistics
import sys

PAGE = 4096
SCHEMA = "ima-slim-report/1"
CASES = ["unmeasured-rdonly", "unmeasured-rdwr", "measured-rdonly", "measured-rdwr"]
CASE_TEXT = {
    "unmeasured-rdonly": "unmeasured files, O_RDONLY, uid 1000",
    "unmeasured-rdwr": "unmeasured files, O_RDWR, uid 1000",
    "measured-rdonly": "measured files, O_RDONLY, root (iint lookup)",
    "measured-rdwr": "measured files, O_RDWR, root (iint lookup)",
}
CLOCKS = {"wall": "wall clock (QEMU TCG)",
          "icount": "instruction-counted (QEMU -icount shift=0: 1 ns = 1 guest instruction)"}
# Caches whose object sizes explain the totals.
KEY_CACHES = ["ext4_inode_cache", "dentry", "lsm_inode_cache", "ima_iint_cache",
              "radix_tree_node"]
REFERENCE = "noima"
PLOTS = ["overhead_vs_n.png", "where_bytes_go.png", "open_close.png", "total_mb_vs_inodes.png"]

# What the 2010 thread and the merged series said: facts, not measurements.
ANCHORS_2010 = {
    "chinner_slabtop": {
        "radix_tree_node_objects": 2778082, "radix_tree_node_kb": 0.55,
        "iint_cache_objects": 2069791, "iint_kb": 0.12,
        "source": "Dave Chinner's slabtop, linux-kernel, October 2010 "
                  "(IMA built in, not enabled)",
    },
    "kernelorg_incore_inodes": {
        "inodes": 2300000,
        "source": "Dave Chinner's slabtop on kernel.org, linux-kernel, 2010-10-16: "
                  "2.3 M xfs_inode objects in core",
    },
    "paris_factor": {
        "factor": 40,
        "source": "Eric Paris, cover of the 2010 series: memory saved "
                  "'by a factor of at least 40'",
    },
    "series_2_6_37": {
        "bytes_per_inode": 4,
        "source": "The merged 2.6.37 series: an unsigned int i_readcount in "
                  "struct inode, an iint only for inodes the policy measures",
    },
}


def die(msg, code=2):
    print("error: " + msg, file=sys.stderr)
    sys.exit(code)


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")


def read_json(path):
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as e:
        die(f"{path} is not JSON: {e}")


def read_slabinfo(path):
    caches = {}
    for line in read_text(path).splitlines():
        if line.startswith(("slabinfo", "#")) or not line.strip():
            continue
        head, _, rest = line.partition(":")
        name, active, _num, objsize, _perslab, pages = head.split()[:6]
        slabdata = rest.split("slabdata")[1].split()
        caches[name] = {"objects": int(active), "objsize": int(objsize),
                        "obj_bytes": int(active) * int(objsize),
                        "slab_bytes": int(slabdata[1]) * int(pages) * PAGE}
    return caches


def first_int(path):
    return int(read_text(path).split()[0])


def slab_delta(before, after):
    """Growth of every cache between two snapshots; only caches that moved."""
    caches, totals = {}, {"objects": 0, "obj_bytes": 0, "slab_bytes": 0}
    zero = {"objects": 0, "obj_bytes": 0, "slab_bytes": 0, "objsize": 0}
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name, zero), after.get(name, zero)
        d = {k: a[k] - b[k] for k in ("objects", "obj_bytes", "slab_bytes")}
        for k in d:
            totals[k] += d[k]
        if any(d.values()):
            d["objsize"] = a["objsize"] or b["objsize"]
            caches[name] = d
    return caches, totals


def fit_line(xs, ys):
    """Least squares y = slope x + intercept, with R^2 (None if y is flat)."""
    n = len(xs)
    if n < 2:
        return {"slope": None, "intercept": None, "r2": None, "points": n}
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    intercept = my - slope * mx
    syy = sum((y - my) ** 2 for y in ys)
    sse = sum((y - slope * x - intercept) ** 2 for x, y in zip(xs, ys))
    r2 = 1 - sse / syy if syy > 0 else None
    return {"slope": slope, "intercept": intercept, "r2": r2, "points": n}


def stats(values):
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values),
            "spread_pct": 100 * (max(values) - min(values)) / statistics.median(values)}


# ---------------------------------------------------------------- collect

def collect_variant(raw, v, params):
    base = os.path.join(raw, v)
    wall, icount = os.path.join(base, "wall"), os.path.join(base, "icount")
    meta = read_json(os.path.join(base, "variant.json"))
    res = {
        "release": meta["release"],
        "guest_release": read_text(os.path.join(wall, "release")).strip(),
        "config_sha256": meta["config_sha256"],
        "ima": meta["ima"],
        "series_head": meta["head"],
        "boots": {c: read_json(os.path.join(base, c, "boot.json")) for c in CLOCKS},
        "tpm_banks": read_text(os.path.join(wall, "tpm-banks")).split(),
    }
    res.update(collect_memory(wall, params))
    # 3. Hot path, on both clocks.
    res["hot_path"] = {}
    for clock, d in (("wall", wall), ("icount", icount)):
        res["hot_path"][clock] = {}
        for case in CASES:
            # One repeat = one openbench run of back-to-back passes
            # ("pass 1" starts it); its figure is its fastest pass, since
            # whatever else the host does only ever adds time.
            passes, nfiles = [], set()
            for line in read_text(os.path.join(d, "hot", case)).splitlines():
                _, i, k, ns = line.split()
                if i == "1":
                    passes.append([])
                passes[-1].append(int(ns) / int(k))
                nfiles.add(int(k))
            per_open = [min(x) for x in passes]
            res["hot_path"][clock][case] = dict(
                ns_per_open_close=per_open, passes=passes, files_per_pass=sorted(nfiles),
                **stats(per_open))
    # 6. Eviction, instruction-counted only (reports made before it have
    #    none). As on the hot path, a repeat (one openbench run, "pass 1"
    #    starts it) counts its fastest drop.
    path = os.path.join(icount, "evict")
    if os.path.exists(path):
        runs = []
        for line in read_text(path).splitlines():
            _, i, k, ns = line.split()
            if i == "1":
                runs.append([])
            runs[-1].append({"evicted": int(k), "ns": int(ns)})
        if not runs or min(x["evicted"] for r in runs for x in r) <= 0:
            die(f"{path}: a drop_caches evicted no inodes")
        per = [min(x["ns"] / x["evicted"] for x in r) for r in runs]
        res["eviction"] = dict(runs=runs, ns_per_inode=per, **stats(per))
    return res


def collect_memory(wall, params):
    """The memory steps of one boot: the sweep, the measured files, sizes."""
    res = {}
    snap = lambda d, n: os.path.join(d, "snap", n)  # noqa: E731
    # 1. The sweep: cumulative deltas from the quiet start.
    s0 = read_slabinfo(snap(wall, "sweep-0.slabinfo"))
    nr0 = first_int(snap(wall, "sweep-0.inode-nr"))
    statted = [int(x) for x in read_text(os.path.join(wall, "sweep-statted")).split()]
    points, total = [], 0
    for n, k in zip(params["sweep"], statted + [0] * len(params["sweep"])):
        total += k
        caches, totals = slab_delta(s0, read_slabinfo(snap(wall, f"sweep-{n}.slabinfo")))
        points.append({
            "n": n, "files_statted": total,
            "incore_inodes": first_int(snap(wall, f"sweep-{n}.inode-nr")) - nr0,
            "caches": caches, "slab_bytes": totals["slab_bytes"],
            "obj_bytes": totals["obj_bytes"],
            "bytes_per_inode": totals["slab_bytes"] / n,
        })
    res["unmeasured"] = {"points": points}
    # 2. Measured files.
    mb, ma = snap(wall, "meas-before"), snap(wall, "meas-after")
    caches, totals = slab_delta(read_slabinfo(mb + ".slabinfo"), read_slabinfo(ma + ".slabinfo"))
    files = first_int(os.path.join(wall, "meas-read"))
    res["measured"] = {
        "files_read": files,
        "measurements_added": first_int(ma + ".measurements") - first_int(mb + ".measurements"),
        "incore_inodes": first_int(ma + ".inode-nr") - first_int(mb + ".inode-nr"),
        "caches": caches, "slab_bytes": totals["slab_bytes"],
        "obj_bytes": totals["obj_bytes"],
        "bytes_per_file": totals["slab_bytes"] / files if files else None,
    }
    # 4. Object sizes: the struct (object_size) and its slot (slab_size),
    #    from /sys/kernel/slab; slabinfo's objsize is the slot.
    sizes = {}
    end = read_slabinfo(snap(wall, "end.slabinfo"))
    for line in read_text(os.path.join(wall, "object-sizes")).splitlines():
        name, obj, slot = line.split()
        sizes[name] = {"object_size": int(obj), "slot_size": int(slot)}
    for name in KEY_CACHES:
        if name in end:
            sizes.setdefault(name, {"object_size": None, "slot_size": end[name]["objsize"]})
    res["object_sizes"] = sizes
    return res


# ---- two CPUs: the variants booted with -smp 2 (raw/VARIANT/smp/)

MT_MODES = ["rdonly", "rdwr"]
# The reference of the two-CPU throughput table: vanilla with two CPUs.
MT_REFERENCE = "vanilla-smp"
# One class line of /proc/lock_stat: "name: con-bounces contentions
# waittime-min -max -total -avg acq-bounces acquisitions holdtime-..."
# (kernel/locking/lockdep_proc.c; rwlocks get a "-R" and a "-W" line).
LOCK_STAT_LINE = re.compile(r"^\s*(\S.*?):\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s")
LOCK_FIELDS = ["con_bounces", "contentions", "acq_bounces", "acquisitions"]


IMA_LOCK_NAME = re.compile(r"(?<![a-z])(ima|iint)(?=[_>\-\[]|$)")


def is_ima_lock(name):
    """IMA's lock classes: named after ima_* or an iint (ima_iint_lock,
    &iint->mutex), not every class with "ima" inside ("primary")."""
    return bool(IMA_LOCK_NAME.search(name.lower()))


def read_lock_stat(path):
    """{class: {field: count}} of IMA's classes in one /proc/lock_stat copy."""
    text = read_text(path)
    if not text.startswith("lock_stat version"):
        die(f"{path} is not a /proc/lock_stat copy")
    classes = {}
    for line in text.splitlines():
        m = LOCK_STAT_LINE.match(line)
        if m and is_ima_lock(m.group(1)):
            classes[m.group(1)] = dict(zip(LOCK_FIELDS, map(int, m.group(2, 3, 4, 5))))
    return classes


def read_mt_runs(path):
    """openbench -j output: one list of (opens, ns) passes per run."""
    runs = []
    for line in read_text(path).splitlines():
        _, i, k, ns = line.split()
        if i == "1":
            runs.append([])
        runs[-1].append((int(k), int(ns)))
    return runs


def mt_repeats(params):
    """Two-CPU repeats per variant: each round's boot runs an equal share."""
    rounds = params.get("smp_rounds", 1)
    return rounds * -(-params["repeats"] // rounds)


def collect_two_cpus(raw, v, params):
    rounds = [os.path.join(raw, v, f"smp-{r}") for r in range(1, params.get("smp_rounds", 1) + 1)]
    meta = read_json(os.path.join(raw, v, "variant.json"))
    res = {
        "release": meta["release"],
        "guest_release": read_text(os.path.join(rounds[0], "release")).strip(),
        "config_sha256": meta["config_sha256"],
        "ima": meta["ima"],
        "series_head": meta["head"],
        "lock_stat": meta.get("lock_stat") == "y",
        "boots": [read_json(os.path.join(d, "boot.json")) for d in rounds],
        "cpus": first_int(os.path.join(rounds[0], "cpus")),
        "modes": {},
    }
    for mode in MT_MODES:
        # One repeat = one openbench run: an untimed pass on one thread,
        # then `passes` timed passes on every CPU; its figure is its
        # fastest pass, as opens per second. The rounds' repeats are pooled.
        runs, reps = [], []
        for d in rounds:
            got = read_mt_runs(os.path.join(d, "mt", f"measured-{mode}"))
            runs += got
            # Lock statistics: cleared before each openbench run, read after it.
            for r, run in enumerate(got, 1):
                f = os.path.join(d, "mt", f"lock_stat-{mode}-{r}")
                if not os.path.exists(f):
                    continue
                opens = sum(k for k, _ in run) + run[0][0] // res["cpus"]
                classes = read_lock_stat(f)
                reps.append({"opens": opens, "classes": classes,
                             "per_1000_opens": {k: 1000 * sum(c[k] for c in classes.values()) / opens
                                                for k in LOCK_FIELDS}})
        if not runs:
            die(f"{v}: no two-CPU runs of {mode}")
        per_s = [max(k * 1e9 / ns for k, ns in run) for run in runs]
        m = dict(opens_per_s=per_s, passes=[[list(x) for x in run] for run in runs], **stats(per_s))
        if res["lock_stat"]:
            if len(reps) != len(runs):
                die(f"{v}: CONFIG_LOCK_STAT=y but {len(reps)} lock_stat copies for {len(runs)} {mode} runs")
            m["lock_stat"] = {
                "repeats": reps,
                "per_1000_opens_median": {k: statistics.median(r["per_1000_opens"][k] for r in reps)
                                          for k in LOCK_FIELDS},
            }
        res["modes"][mode] = m
    return res


# ---- a distribution's LSM stack: raw/VARIANT/policy-{none,tcb}/

POLICIES = ["none", "tcb"]
POLICY_TEXT = {"none": "no IMA policy (a distribution's default boot)", "tcb": "`ima_policy=tcb`"}
DISTRO_REFERENCE = "noima-distro"


def read_lsm_shares(path):
    """scripts/lsm-shares.sh's output: rcu_head and pointer sizes, then each LSM's request."""
    out = {"lsms": {}}
    for line in read_text(path).splitlines():
        name, n = line.split()
        if name in ("rcu_head", "pointer"):
            out[name] = int(n)
        else:
            out["lsms"][name] = int(n)
    if "rcu_head" not in out or "pointer" not in out or not out["lsms"]:
        die(f"{path}: not the output of scripts/lsm-shares.sh")
    return out


def blob_split(shares, active):
    """Each active LSM's bytes of the inode blob, laid out as the kernel
    does at boot: an rcu_head first when any LSM asks for inode bytes, then
    each share in the order the LSMs initialised, aligned to a pointer."""
    parts, cur = [], 0
    asking = [n for n in active if shares["lsms"].get(n, 0) > 0]
    if asking:
        parts.append(["(rcu_head)", shares["rcu_head"]])
        cur = shares["rcu_head"]
    for n in asking:
        off = -(-cur // shares["pointer"]) * shares["pointer"]
        if off > cur:
            parts.append(["(alignment)", off - cur])
        parts.append([n, shares["lsms"][n]])
        cur = off + shares["lsms"][n]
    return {"parts": parts, "total": cur}


def collect_distro(raw, v, params):
    base = os.path.join(raw, v)
    meta = read_json(os.path.join(base, "variant.json"))
    res = {"release": meta["release"], "config_sha256": meta["config_sha256"], "ima": meta["ima"],
           "series_head": meta["head"], "policies": {}}
    for pol in POLICIES:
        d = os.path.join(base, f"policy-{pol}")
        r = collect_memory(d, params)
        r["guest_release"] = read_text(os.path.join(d, "release")).strip()
        r["boot"] = read_json(os.path.join(d, "boot.json"))
        r["active_lsms"] = [x for x in read_text(os.path.join(d, "lsm")).strip().split(",") if x]
        r["ima_policy_cmdline"] = read_text(os.path.join(d, "ima-policy")).strip()
        res["policies"][pol] = r
    shares = read_lsm_shares(os.path.join(base, "lsm-shares"))
    res["lsm_shares_requested"] = shares
    res["lsm_inode_blob"] = blob_split(shares, res["policies"]["none"]["active_lsms"])
    return res


def collect(out):
    raw = os.path.join(out, "raw")
    params = read_json(os.path.join(raw, "parameters.json"))
    smp = [v for v in params["variants"] if os.path.isdir(os.path.join(raw, v, "smp-1"))]
    distro = [v for v in params["variants"] if os.path.isdir(os.path.join(raw, v, "policy-none"))]
    variants = {v: collect_variant(raw, v, params) for v in params["variants"]
                if v not in smp and v not in distro}
    two_cpus = {v: collect_two_cpus(raw, v, params) for v in smp}
    distro_stack = {v: collect_distro(raw, v, params) for v in distro}
    if distro_stack and DISTRO_REFERENCE not in distro_stack:
        die(f"the distribution-stack variants need their reference {DISTRO_REFERENCE}")
    nmax_d = params["sweep"][-1]
    for v, r in distro_stack.items():
        for pol, x in r["policies"].items():
            ref_x = distro_stack[DISTRO_REFERENCE]["policies"][pol]
            pt, ref_pt = x["unmeasured"]["points"][-1], ref_x["unmeasured"]["points"][-1]
            x["overhead_bytes_per_inode"] = {
                "unmeasured": (pt["slab_bytes"] - ref_pt["slab_bytes"]) / nmax_d,
                "measured": (x["measured"]["slab_bytes"] - ref_x["measured"]["slab_bytes"])
                / x["measured"]["files_read"],
            }
            x["overhead_by_cache"] = {
                "unmeasured": per_cache_overhead(pt["caches"], ref_pt["caches"], nmax_d),
                "measured": per_cache_overhead(x["measured"]["caches"], ref_x["measured"]["caches"],
                                               x["measured"]["files_read"]),
            }
    if two_cpus and MT_REFERENCE in two_cpus:
        ref2 = two_cpus[MT_REFERENCE]["modes"]
        for r in two_cpus.values():
            for mode, m in r["modes"].items():
                m["throughput_vs_vanilla"] = m["median"] / ref2[mode]["median"]
                m["throughput_range_vs_vanilla"] = [m["min"] / ref2[mode]["max"],
                                                    m["max"] / ref2[mode]["min"]]
    ref = variants.get(REFERENCE)
    van = variants.get("vanilla")
    if not ref or not van:
        die("the runs of noima and vanilla are both needed (the references)")
    nmax = params["sweep"][-1]
    for v, r in variants.items():
        # Overhead: the variant's growth minus noima's, for the same N.
        for p, q in zip(r["unmeasured"]["points"], ref["unmeasured"]["points"]):
            p["overhead_bytes"] = p["slab_bytes"] - q["slab_bytes"]
            p["overhead_bytes_per_inode"] = p["overhead_bytes"] / p["n"]
        pts = r["unmeasured"]["points"]
        r["unmeasured"]["fit"] = fit_line([p["n"] for p in pts], [p["overhead_bytes"] for p in pts])
        m, mref = r["measured"], ref["measured"]
        m["overhead_bytes_per_file"] = (m["slab_bytes"] - mref["slab_bytes"]) / m["files_read"]
        r["ima_overhead_bytes_per_inode"] = {
            "unmeasured": pts[-1]["overhead_bytes_per_inode"],
            "measured": m["overhead_bytes_per_file"],
            "n": nmax, "measured_files": m["files_read"],
        }
        # Per cache, the overhead (variant - noima) at the largest N, and
        # per measured file: the stacked bar's segments.
        r["overhead_by_cache"] = {
            "unmeasured": per_cache_overhead(pts[-1]["caches"], ref["unmeasured"]["points"][-1]["caches"], nmax),
            "measured": per_cache_overhead(m["caches"], mref["caches"], m["files_read"]),
        }
        # Speed relative to vanilla: vanilla's time / the variant's time
        # (above 1: faster). The range pairs the extremes of both.
        r["open_close_ratio_vs_vanilla"] = {}
        r["open_close_ratio_range_vs_vanilla"] = {}
        r["open_close_ratio_of_fastest_vs_vanilla"] = {}
        for clock in CLOCKS:
            r["open_close_ratio_vs_vanilla"][clock] = {}
            r["open_close_ratio_range_vs_vanilla"][clock] = {}
            r["open_close_ratio_of_fastest_vs_vanilla"][clock] = {}
            for case in CASES:
                a, b = r["hot_path"][clock][case], van["hot_path"][clock][case]
                r["open_close_ratio_vs_vanilla"][clock][case] = b["median"] / a["median"]
                r["open_close_ratio_of_fastest_vs_vanilla"][clock][case] = b["min"] / a["min"]
                r["open_close_ratio_range_vs_vanilla"][clock][case] = [b["min"] / a["max"], b["max"] / a["min"]]
        if "eviction" in r and "eviction" in van and "eviction" in ref:
            e = r["eviction"]
            e["ratio_vs_vanilla"] = van["eviction"]["median"] / e["median"]
            e["ima_ns_per_inode"] = e["median"] - ref["eviction"]["median"]
    results = {
        "schema": SCHEMA,
        "parameters": params,
        "definitions": {
            "bytes": "slab memory: growth of num_slabs x pages x 4096 in /proc/slabinfo",
            "ima_overhead_bytes_per_inode": "unmeasured: (variant - noima) slab growth over the "
            "sweep's largest N, divided by N; measured: the same for the measured files, "
            "divided by their number",
            "open_close_ratio_vs_vanilla": "per clock and case: vanilla's median time per "
            "open+close divided by the variant's (above 1: faster than vanilla)",
            "open_close_ratio_range_vs_vanilla": "[vanilla min / variant max, vanilla max / "
            "variant min] over the repeats",
            "open_close_ratio_of_fastest_vs_vanilla": "vanilla's fastest repeat divided by the "
            "variant's (noise on the host only adds time, so the fastest is the least disturbed)",
            "eviction": "instruction-counted: with the measured files held open, the first "
            "hot_files files of the sweep statted into core and evicted by "
            "`echo 2 >/proc/sys/vm/drop_caches`, passes times per repeat (runs: one list of "
            "drops per repeat); ns_per_inode per repeat is its fastest drop's time over the "
            "drop in /proc/sys/fs/inode-nr; ratio_vs_vanilla is vanilla's median over the "
            "variant's (above 1: faster); ima_ns_per_inode is the median minus noima's",
        },
        "anchors_2010": ANCHORS_2010,
        "variants": variants,
    }
    if distro_stack:
        results["distro_stack"] = distro_stack
        results["definitions"]["distro_stack"] = (
            "variants with Debian's LSM stack, each booted with no IMA policy and with "
            "ima_policy=tcb; overhead_bytes_per_inode is the variant minus noima-distro (IMA=n, "
            "EVM=n) booted the same way; lsm_inode_blob lays out each active LSM's lbs_inode "
            "(read from the vmlinux by scripts/lsm-shares.sh) as the kernel does")
    if two_cpus:
        results["two_cpus"] = two_cpus
        results["definitions"]["two_cpus"] = (
            "variants booted with -smp 2 (multi-threaded TCG): per mode, measured files "
            "opened+closed by one openbench thread per CPU; opens_per_s per repeat is its "
            "fastest pass; throughput_vs_vanilla is the median over vanilla-smp's median; "
            "lock_stat (CONFIG_LOCK_STAT variants) counts IMA's lock classes over each "
            "openbench run, per 1,000 opens (the untimed single-thread pass included)")
    results["comparison"] = comparison(results)
    path = os.path.join(out, "results.json")
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"report: wrote {path}", file=sys.stderr)


def per_cache_overhead(caches, ref_caches, count):
    names = set(caches) | set(ref_caches)
    return {n: (caches.get(n, {}).get("slab_bytes", 0)
                - ref_caches.get(n, {}).get("slab_bytes", 0)) / count
            for n in sorted(names)}


def comparison(results):
    """The figures the 2010 story is told with, derived from the variants."""
    a = results["anchors_2010"]["chinner_slabtop"]
    per_iint_2010 = (a["radix_tree_node_objects"] * a["radix_tree_node_kb"]
                     + a["iint_cache_objects"] * a["iint_kb"]) * 1024 / a["iint_cache_objects"]
    v = results["variants"]
    c = {"chinner_bytes_per_inode": per_iint_2010,
         "chinner_radix_nodes_per_iint": a["radix_tree_node_objects"] / a["iint_cache_objects"]}
    if "baseline" in v:
        b = v["baseline"]
        pts = b["unmeasured"]["points"]
        radix = pts[-1]["caches"].get("radix_tree_node", {}).get("objects", 0)
        iints = pts[-1]["caches"].get("ima_iint_cache", {}).get("objects", 0)
        c["baseline_radix_nodes_per_iint"] = radix / iints if iints else None
        c["baseline_bytes_per_inode"] = b["ima_overhead_bytes_per_inode"]["unmeasured"]
        for other in ("vanilla", "fixed"):
            if other in v:
                o = v[other]["ima_overhead_bytes_per_inode"]["unmeasured"]
                c[f"baseline_over_{other}_unmeasured"] = (c["baseline_bytes_per_inode"] / o
                                                          if o > 0 else None)
    return c


# ---------------------------------------------------------------- render

def yes(ok):
    """A target's verdict in a table."""
    return "yes" if ok else "**no**"


def f1(x):
    if x is None:
        return "–"
    t = f"{x:.1f}"
    return "0.0" if t == "-0.0" else t


def table(head, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(head) - 1)
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def caches_to_show(entries, count, floor=0.5):
    """The caches that moved by floor bytes per unit in some variant; the
    table adds an 'other caches' row so that its rows add up to the total."""
    return sorted({n for caches in entries.values() for n, c in caches.items()
                   if abs(c["slab_bytes"]) / count >= floor})


def ordered(res):
    """The variants in the order they ran (references first)."""
    return [v for v in res["parameters"]["variants"] if v in res["variants"]]


def kernel_version(res):
    """The measured kernel's version ("7.3.4"), from the variants' releases."""
    return sorted({v["release"].split("-")[0] for v in res["variants"].values()})[0]


def render_md(res):
    p, V = res["parameters"], res["variants"]
    vs = ordered(res)
    nmax = p["sweep"][-1]
    ref = V[REFERENCE]
    L = []
    L.append(f"# IMA memory and cost report: Linux {kernel_version(res)}")
    L.append("")
    rel = sorted({V[v]["release"] for v in vs})
    L.append(f"Generated by `scripts/report.sh` from one run ({p['started']} to {p['finished']}"
             f"{', a reduced smoke run' if p['smoke'] else ''}), kernel {', '.join(rel)}, "
             f"tinyconfig guest under QEMU TCG with {p['guest_mem']} of memory, `slab_nomerge`, "
             f"`ima_policy=tcb`. Sweep N = {', '.join(f'{n:,}' for n in p['sweep'])}; "
             f"{p['measured_files']:,} measured files; open+close over {p['hot_files']:,} files, "
             f"{p['repeats']} repeats on the wall clock and {p['icount_repeats']} instruction-counted, "
             f"each the fastest of {p['passes']} back-to-back passes. "
             "Every figure below is in `results.json`; bytes are slab memory "
             "(slabs × pages × 4096 from `/proc/slabinfo`), IMA overhead is a variant minus "
             f"`{REFERENCE}` ({kernel_version(res)} with `CONFIG_IMA=n`) on the same workload.")
    L.append("")
    # Headline.
    L.append("## Headline")
    L.append("")
    rows = []
    for v in vs:
        r = V[v]
        fit = r["unmeasured"]["fit"]
        ratio = r["open_close_ratio_vs_vanilla"]
        rows.append([f"`{v}`", f1(r["ima_overhead_bytes_per_inode"]["unmeasured"]),
                     f1(fit["slope"]), "–" if fit["r2"] is None else f"{fit['r2']:.4f}",
                     f1(r["ima_overhead_bytes_per_inode"]["measured"]),
                     f"{ratio['wall']['unmeasured-rdonly']:.3f}",
                     f"{ratio['icount']['unmeasured-rdonly']:.3f}",
                     f"{ratio['icount']['measured-rdonly']:.3f}"])
    L += table(["variant", f"IMA B/inode, unmeasured (N={nmax:,})", "fit slope B/inode", "R²",
                "IMA B/measured file", "open+close speed vs vanilla (wall)",
                "same, instructions", "measured files, instructions"], rows)
    L.append("")
    L.append("Speed ratios are vanilla's median time divided by the variant's (above 1: faster), "
             "unmeasured files opened read-only unless the column says otherwise; all cases "
             "and their spread are under *Cost of the hot path*.")
    L.append("")
    L += explain(res)
    # Sweep.
    L.append("## IMA overhead per in-core inode against N (unmeasured: stat only)")
    L.append("")
    rows = []
    for i, n in enumerate(p["sweep"]):
        rows.append([f"{n:,}"] + [f1(V[v]["unmeasured"]["points"][i]["overhead_bytes_per_inode"])
                                  for v in vs]
                    + [f"{ref['unmeasured']['points'][i]['incore_inodes']:,}"])
    L += table(["N"] + [f"`{v}`" for v in vs] + [f"inodes in core (`{REFERENCE}`)"], rows)
    L.append("")
    rows = [[f"`{v}`", f1(V[v]["unmeasured"]["fit"]["slope"]),
             f1(V[v]["unmeasured"]["fit"]["intercept"]),
             "–" if V[v]["unmeasured"]["fit"]["r2"] is None else f"{V[v]['unmeasured']['fit']['r2']:.5f}"]
            for v in vs]
    L.append("Least-squares line of the overhead (bytes) against N:")
    L.append("")
    L += table(["variant", "slope (B/inode)", "intercept (B)", "R²"], rows)
    L.append("")
    # Where the bytes go, unmeasured.
    L.append(f"## Where the bytes go: one unmeasured inode (N = {nmax:,})")
    L.append("")
    L += cache_table(res, lambda v: V[v]["unmeasured"]["points"][-1], nmax, "inode")
    L.append("")
    L.append(f"## Where the bytes go: one measured file ({p['measured_files']:,} files read by root)")
    L.append("")
    L += cache_table(res, lambda v: V[v]["measured"], p["measured_files"], "file")
    L.append("")
    rows = [[f"`{v}`", f"{V[v]['measured']['files_read']:,}", f"{V[v]['measured']['measurements_added']:,}",
             f"{V[v]['measured']['incore_inodes']:,}"] for v in vs]
    L += table(["variant", "files read", "measurements added", "inodes into core"], rows)
    L.append("")
    # Object sizes.
    L.append("## Object sizes")
    L.append("")
    L.append("From the guest's `/sys/kernel/slab/<cache>/object_size` (the structure as the "
             "kernel allocates it) and `slab_size` (its slot, as `/proc/slabinfo`'s objsize "
             "shows it). The guest kernels have no `DEBUG_INFO`, so pahole cannot read them; "
             "the slab caches tell the same sizes. `radix_tree_node` is an xarray node, shared "
             "with the page cache.")
    L.append("")
    rows = []
    for c in KEY_CACHES:
        cells = []
        for v in vs:
            s = V[v]["object_sizes"].get(c)
            cells.append("–" if not s else
                         f"{s['object_size'] if s['object_size'] is not None else '?'} / {s['slot_size']}")
        rows.append([c] + cells)
    L += table(["cache (object / slot, bytes)"] + [f"`{v}`" for v in vs], rows)
    L.append("")
    # Hot path.
    L.append("## Cost of the hot path: open+close")
    L.append("")
    L.append(f"`openbench` (qemu/guest/src/openbench.c) opens and closes {p['hot_files']:,} files "
             "per pass, each relative to its folder's descriptor, after one untimed pass; cases "
             "run interleaved, and a repeat counts its fastest of "
             f"{p['passes']} back-to-back passes (the host's other work only ever adds time). Unmeasured files are the sweep's, opened as uid 1000 (no tcb rule "
             "matches); measured files are the ones root read, so every open finds an iint "
             "(vanilla: the inode blob's pointer; baseline: the radix tree; fixed: the rbtree). "
             "Times are ns per open+close, median [min–max]; the ratio is vanilla's time over "
             "the variant's, with the range from the extremes.")
    L.append("")
    for clock, text in CLOCKS.items():
        L.append(f"### {text}")
        L.append("")
        rows = []
        for case in CASES:
            for v in vs:
                h = V[v]["hot_path"][clock][case]
                rr = V[v]["open_close_ratio_range_vs_vanilla"][clock][case]
                rows.append([CASE_TEXT[case], f"`{v}`",
                             f"{h['median']:.0f} [{h['min']:.0f}–{h['max']:.0f}]",
                             f"{h['spread_pct']:.1f}", len(h["ns_per_open_close"]),
                             f"{V[v]['open_close_ratio_vs_vanilla'][clock][case]:.3f} "
                             f"[{rr[0]:.3f}–{rr[1]:.3f}]",
                             f"{V[v]['open_close_ratio_of_fastest_vs_vanilla'][clock][case]:.3f}"])
        L += table(["case", "variant", "ns per open+close", "spread %", "repeats",
                    "speed vs vanilla (medians) [range]", "fastest vs fastest"], rows,
                   ["---", "---", "---:", "---:", "---:", "---:", "---:"])
        L.append("")
    L += eviction_md(res)
    L += two_cpus_md(res)
    L += distro_md(res)
    L += targets(res)
    L += cost_targets(res)
    # 2010.
    L += history(res)
    L.append("## Runs")
    L.append("")
    rows = [[f"`{v}`", V[v]["guest_release"], f"`{V[v]['config_sha256'][:16]}…`",
             V[v]["boots"]["wall"]["boot_seconds"], V[v]["boots"]["icount"]["boot_seconds"]]
            for v in vs]
    L += table(["variant", "uname -r", "config sha256", "boot s (wall)", "boot s (icount)"], rows,
               ["---", "---", "---", "---:", "---:"])
    L.append("")
    L.append("Plots: `overhead_vs_n.png` (IMA overhead per inode against N), "
             "`where_bytes_go.png` (the overhead by cache), `open_close.png` (open+close times), "
             "`total_mb_vs_inodes.png` (each variant's total IMA slab memory, its least-squares "
             "line extended to kernel.org's 2.3 M in-core inodes of 2010).")
    return "\n".join(L) + "\n"


def eviction_md(res):
    p, V = res["parameters"], res["variants"]
    vs = [v for v in ordered(res) if "eviction" in V[v]]
    if not vs or "eviction" not in V["vanilla"] or "eviction" not in V[REFERENCE]:
        return []
    L = ["## Cost of freeing unmeasured inodes", ""]
    L.append(f"Instruction-counted (`-icount`, one CPU). With the {p['measured_files']:,} measured "
             "files held open, so that their inodes and IMA state stay in core, "
             f"`openbench evict` stats the first {p['hot_files']:,} files of the sweep into core "
             "and times `echo 2 >/proc/sys/vm/drop_caches`, which evicts them (and whatever else "
             f"is unused: the same on every variant); {p['icount_repeats']} repeats, each the "
             f"fastest of {p['passes']} drops. The figure is the write's instructions over the "
             "inodes it freed (the drop in `/proc/sys/fs/inode-nr`), median [min–max] over the "
             "repeats. Work an LSM defers to an RCU callback falls outside the "
             "window: vanilla's IMA does all its freeing there (`inode_free_security_rcu`), "
             "while `baseline` and `fixed` look their tree up in `inode_free_security`, inside it.")
    L.append("")
    rows = []
    for v in vs:
        e = V[v]["eviction"]
        ev = [x["evicted"] for r in e["runs"] for x in r]
        rows.append([f"`{v}`", f"{min(ev):,}–{max(ev):,}",
                     f"{e['median']:.0f} [{e['min']:.0f}–{e['max']:.0f}]",
                     f"{e['ima_ns_per_inode']:+.0f}", f"{e['ratio_vs_vanilla']:.3f}"])
    L += table(["variant", "inodes evicted per drop", "instructions per evicted inode",
                f"IMA's share (variant − `{REFERENCE}`)", "speed vs vanilla"], rows,
               ["---", "---:", "---:", "---:", "---:"])
    L.append("")
    return L


def distro_md(res):
    D = res.get("distro_stack")
    if not D:
        return []
    p = res["parameters"]
    nmax = p["sweep"][-1]
    vs = [v for v in p["variants"] if v in D]
    L = ["## A distribution's LSM stack", ""]
    L.append("The same guest with the LSM, IMA and EVM options of Debian's kernel "
             "(configs/distro.config, distro-ima.config): AppArmor, TOMOYO, Yama, Landlock, "
             "lockdown, IPE and the BPF LSM, IMA with appraisal and the `ima-sig` template, "
             f"EVM. The reference `{DISTRO_REFERENCE}` is that kernel without IMA and EVM. "
             "Each variant booted twice, with no IMA policy (how a distribution boots) and with "
             f"`ima_policy=tcb`; the sweep stat'ed N = {nmax:,} files, then root read "
             f"{p['measured_files']:,} files. Bytes are slab pages, the variant minus "
             f"`{DISTRO_REFERENCE}` booted the same way.")
    L.append("")
    rows = []
    for pol in POLICIES:
        for v in vs:
            x = D[v]["policies"][pol]
            o = x["overhead_bytes_per_inode"]
            rows.append([POLICY_TEXT[pol], f"`{v}`", f1(o["unmeasured"]), f1(o["measured"]),
                         f"{x['measured']['measurements_added']:,}",
                         shares(x["overhead_by_cache"]["unmeasured"])])
    L += table(["boot", "variant", f"IMA+EVM B per unmeasured inode (N={nmax:,})",
                "B per file read", "measurements", "unmeasured: where, per inode"], rows,
               ["---", "---", "---:", "---:", "---:", "---"])
    L.append("")
    L.append("Every inode's LSM blob (`lsm_inode_cache`), byte by byte: each active LSM's "
             "`lbs_inode`, read out of the variant's vmlinux with gdb (scripts/lsm-shares.sh), "
             "laid out as the kernel lays them (an `rcu_head` first, each share aligned to a "
             "pointer), against the object size the guest's `/sys/kernel/slab` reports.")
    L.append("")
    names = []
    for v in vs:
        for n, _ in D[v]["lsm_inode_blob"]["parts"]:
            if n not in names:
                names.append(n)
    rows = [[f"`{n}`" if not n.startswith("(") else n]
            + [str(dict(D[v]["lsm_inode_blob"]["parts"]).get(n, "–")) for v in vs] for n in names]
    rows.append(["**sum**"] + [f"**{D[v]['lsm_inode_blob']['total']}**" for v in vs])
    sizes = [D[v]["policies"]["none"]["object_sizes"].get("lsm_inode_cache", {}) for v in vs]
    rows.append(["`lsm_inode_cache` object / slot (guest)"]
                + [f"{z.get('object_size', '–')} / {z.get('slot_size', '–')}" for z in sizes])
    L += table(["blob bytes"] + [f"`{v}`" for v in vs], rows)
    L.append("")
    ie = {v: sum(b for n, b in D[v]["lsm_inode_blob"]["parts"] if n in ("ima", "evm")) for v in vs}
    if "vanilla-distro" in ie and "fixed-distro" in ie:
        L.append(f"IMA's and EVM's share of every inode's blob: {ie['vanilla-distro']} B on "
                 f"`vanilla-distro`, {ie['fixed-distro']} B on `fixed-distro` "
                 f"({ie['vanilla-distro'] - ie['fixed-distro']} B saved per inode: the series keeps "
                 "IMA's iint in its rbtree, not behind a pointer in the blob). Whether a smaller "
                 "blob saves slab pages depends on the slot it lands in: the table's last row.")
        L.append("")
    return L


def two_cpus_md(res):
    T = res.get("two_cpus")
    if not T:
        return []
    p = res["parameters"]
    vs = [v for v in p["variants"] if v in T]
    L = ["## Two CPUs: measured-file throughput and IMA's locks", ""]
    L.append(f"Each variant here is the same guest with `CONFIG_SMP` (configs/smp.config), booted "
             "with `-smp 2` under multi-threaded TCG, so the two vCPUs run on two host threads "
             f"at once. After root read the {p['measured_files']:,} measured files, `openbench "
             "time -j 2` opens and closes them on one thread per CPU, each thread every file "
             "from its own starting point; O_RDONLY and O_RDWR interleaved, "
             f"{mt_repeats(p)} repeats over {p.get('smp_rounds', 1)} boots per variant, the "
             "variants taking turns, each repeat the fastest of "
             f"{p['passes']} passes. Throughput is "
             f"opens+closes per second of wall clock, median [min–max]; the ratio is over "
             f"`{MT_REFERENCE}`'s median; the `CONFIG_LOCK_STAT` variants run every lock "
             "through lockdep, so they are read for their counts below, never against it. Wall "
             "clock under TCG, on a host whose other work only ever slows a run: read the spread "
             "before the ratio. And TCG models no caches: a cache line that bounces between the "
             "vCPUs costs nothing here, so what the lock-free lookup saves on real hardware shows "
             "in the lock statistics, not in this throughput.")
    L.append("")
    rows = []
    for mode in MT_MODES:
        for v in vs:
            m = T[v]["modes"][mode]
            ratio = m.get("throughput_vs_vanilla")
            rr = m.get("throughput_range_vs_vanilla")
            rows.append([CASE_TEXT[f"measured-{mode}"], f"`{v}`", T[v]["cpus"],
                         f"{m['median']:,.0f} [{m['min']:,.0f}–{m['max']:,.0f}]",
                         f"{m['spread_pct']:.1f}",
                         "– (lockdep)" if T[v]["lock_stat"] else
                         "–" if ratio is None else f"{ratio:.3f} [{rr[0]:.3f}–{rr[1]:.3f}]"])
    L += table(["case", "variant", "CPUs", "opens/s", "spread %", f"vs `{MT_REFERENCE}`"], rows,
               ["---", "---", "---:", "---:", "---:", "---:"])
    L.append("")
    locked = [v for v in vs if all("lock_stat" in T[v]["modes"][m] for m in MT_MODES)]
    if locked:
        L.append("IMA's lock classes in `/proc/lock_stat` (variants with `CONFIG_LOCK_STAT`; the "
                 "statistics are cleared before each openbench run and read after it), per 1,000 "
                 "opens, median over the repeats. *acq-bounces*: acquisitions that found the "
                 "lock's cache line on the other CPU; *contentions*: acquisitions that had to wait. "
                 "Counts, not time: the same on a loaded host.")
        L.append("")
        rows = []
        for mode in MT_MODES:
            for v in locked:
                ls = T[v]["modes"][mode]["lock_stat"]
                med = ls["per_1000_opens_median"]
                names = sorted({n for r in ls["repeats"] for n in r["classes"]})
                rows.append([CASE_TEXT[f"measured-{mode}"], f"`{v}`",
                             f"{med['acquisitions']:.1f}", f"{med['acq_bounces']:.1f}",
                             f"{med['contentions']:.2f}", f"{med['con_bounces']:.2f}",
                             ", ".join(f"`{n}`" for n in names) or "none"])
        L += table(["case", "variant", "acquisitions", "acq-bounces", "contentions",
                    "con-bounces", "classes seen"], rows,
                   ["---", "---", "---:", "---:", "---:", "---:", "---"])
        L.append("")
        L.append("Per class, per 1,000 opens over every repeat of both cases. A class named "
                 "`….seqcount-R` is lockdep's record of a seqcount read (`read_seqcount_begin()`), "
                 "which stores nothing: it is counted, never contended and never bounced.")
        L.append("")
        rows = []
        for v in locked:
            tot, opens = {}, 0
            for mode in MT_MODES:
                for r in T[v]["modes"][mode]["lock_stat"]["repeats"]:
                    opens += r["opens"]
                    for n, c in r["classes"].items():
                        t = tot.setdefault(n, dict.fromkeys(LOCK_FIELDS, 0))
                        for k in LOCK_FIELDS:
                            t[k] += c[k]
            for n in sorted(tot):
                rows.append([f"`{v}`", f"`{n}`"] + [f"{1000 * tot[n][k] / opens:.1f}" for k in
                                                     ("acquisitions", "acq_bounces", "contentions", "con_bounces")])
        L += table(["variant", "class", "acquisitions", "acq-bounces", "contentions", "con-bounces"], rows,
                   ["---", "---", "---:", "---:", "---:", "---:"])
        L.append("")
    return L


def two_cpu_target_rows(res):
    """The two-CPU rows of the cost targets (cost_targets())."""
    T = res.get("two_cpus") or {}
    locked = [v for v in T if all("lock_stat" in T[v]["modes"][m] for m in MT_MODES)]
    rows = []
    if "fixed-smp" in T and MT_REFERENCE in T:
        for mode in MT_MODES:
            m = T["fixed-smp"]["modes"][mode]
            lo, hi = m["throughput_range_vs_vanilla"]
            verdict = yes(m["throughput_vs_vanilla"] >= 0.95)
            if lo < 0.95 <= hi:
                verdict += " (the range straddles it)"
            rows.append([f"fixed-smp ≥ 0.95× {MT_REFERENCE}: {CASE_TEXT['measured-' + mode]}",
                         f"{m['throughput_vs_vanilla']:.3f} [{lo:.3f}–{hi:.3f}]", verdict])
    if "fixed-lockstat" in locked:
        for mode in MT_MODES:
            c = T["fixed-lockstat"]["modes"][mode]["lock_stat"]["per_1000_opens_median"]["contentions"]
            rows.append([f"fixed-lockstat: 0 contentions of IMA's locks per 1,000 opens: "
                         f"{CASE_TEXT['measured-' + mode]}", f"{c:.2f}", yes(c == 0)])
        for mode in MT_MODES:
            b = sum(r["classes"].get(n, {}).get("acq_bounces", 0)
                    for r in T["fixed-lockstat"]["modes"][mode]["lock_stat"]["repeats"]
                    for n in r["classes"] if n.startswith("ima_iint_lock"))
            rows.append([f"fixed-lockstat: lookups bounce no lock line (acq-bounces of `ima_iint_lock`, "
                         f"all repeats): {CASE_TEXT['measured-' + mode]}", f"{b:,}", yes(b == 0)])
    return rows


def cache_table(res, pick, count, unit):
    vs = ordered(res)
    names = caches_to_show({v: pick(v)["caches"] for v in vs}, count)
    rows = []
    for n in names:
        size = max((pick(v)["caches"].get(n, {}).get("objsize", 0) for v in vs))
        rows.append([f"{n} ({size} B)"] + [f1(pick(v)["caches"].get(n, {}).get("slab_bytes", 0) / count)
                                           for v in vs])
    rows.append(["other caches"] + [
        f1((pick(v)["slab_bytes"] - sum(pick(v)["caches"].get(n, {}).get("slab_bytes", 0)
                                        for n in names)) / count) for v in vs])
    rows.append(["**total**"] + [f"**{f1(pick(v)['slab_bytes'] / count)}**" for v in vs])
    ref = pick(REFERENCE)
    rows.append([f"**IMA overhead** (− `{REFERENCE}`)"] + [
        f"**{f1((pick(v)['slab_bytes'] - ref['slab_bytes']) / count)}**" for v in vs])
    return table([f"cache (slot size), bytes per {unit}"] + [f"`{v}`" for v in vs], rows)


def explain(res):
    """A short text generated from the figures."""
    V, c = res["variants"], res["comparison"]
    ov = {v: V[v]["ima_overhead_bytes_per_inode"] for v in V}
    L = ["## What the figures say", ""]
    van = V["vanilla"]["overhead_by_cache"]["unmeasured"]
    top = max(van, key=lambda n: van[n]) if van else None
    L.append(f"- **vanilla** pays {f1(ov['vanilla']['unmeasured'])} B for every in-core inode "
             f"that nothing measures; the largest share is `{top}` ({f1(van.get(top))} B): {kernel_version(res)} "
             "gives every inode an LSM blob (an `rcu_head` and IMA's iint pointer) once any LSM "
             "asks for inode space, and IMA is the only one here. A measured file costs "
             f"{f1(ov['vanilla']['measured'])} B: " + shares(V["vanilla"]["overhead_by_cache"]["measured"])
             + ". Besides the iint, that is the measurement-list entry: the template data, "
             "the hash-table node, and a digest for each of the TPM's "
             f"{len(V['vanilla']['tpm_banks'])} PCR banks ({', '.join(V['vanilla']['tpm_banks'])}) "
             "in one array, which is what lands in the largest `kmalloc` cache.")
    if "baseline" in V:
        b = V["baseline"]["overhead_by_cache"]["unmeasured"]
        L.append(f"- **baseline** (the reconstructed 2.6.36 scheme) pays "
                 f"{f1(ov['baseline']['unmeasured'])} B per inode nothing measures: "
                 f"`ima_iint_cache` {f1(b.get('ima_iint_cache', 0))} B and `radix_tree_node` "
                 f"{f1(b.get('radix_tree_node', 0))} B, "
                 + (f"{c['baseline_radix_nodes_per_iint']:.2f} radix-tree nodes per iint"
                    if c.get("baseline_radix_nodes_per_iint") else "no radix-tree node counted")
                 + ": inode addresses are sparse keys, so nearly every iint gets a node of its own."
                 f" The least-squares slope over N is {f1(V['baseline']['unmeasured']['fit']['slope'])}"
                 " B per inode: the cost grows with every inode in core.")
    if "fixed" in V:
        f = V["fixed"]["overhead_by_cache"]["unmeasured"]
        big = {n: x for n, x in f.items() if abs(x) >= 0.5}
        L.append(f"- **fixed** pays {f1(ov['fixed']['unmeasured'])} B per unmeasured inode "
                 + ("(no cache moved by half a byte per inode against noima: "
                    "what is left is noise, mostly in `radix_tree_node`, which the page cache shares)"
                    if not big else
                    "(" + ", ".join(f"`{n}` {f1(x)} B" for n, x in sorted(big.items())) + ")")
                 + f" and {f1(ov['fixed']['measured'])} B per measured file: an iint is made only "
                 "when a rule asks for one, and no inode blob is needed.")
    if "seed" in V:
        sd = V["seed"]["overhead_by_cache"]["unmeasured"]
        ext = {v: V[v]["object_sizes"].get("ext4_inode_cache", {}).get("object_size")
               for v in (REFERENCE, "seed", "fixed") if v in V}
        L.append(f"- **seed** (the series up to patch 4: the open counters moved into `struct inode` "
                 "as Eric Paris posted them in October 2010, `i_readers`, `i_writers` and "
                 "`i_opencount`, with an iint still for every inode) pays "
                 f"{f1(ov['seed']['unmeasured'])} B per unmeasured inode, "
                 + ", ".join(f"`{n}` {f1(x)} B" for n, x in sorted(sd.items()) if abs(x) >= 0.5)
                 + f", and {f1(ov['seed']['measured'])} B per measured file. The three counters "
                 "are in every inode whatever the policy: ext4's inode object is "
                 + ", ".join(f"{ext[v]} B on `{v}`" for v in ext)
                 + (f" ({ext['seed'] - ext['fixed']:+d} B per inode of seed against fixed, "
                    "which counts with the VFS's own `i_readcount`/`i_writecount` as 2.6.37 did "
                    "at Linus's request)" if ext.get("seed") and ext.get("fixed") else "")
                 + ".")
    ratio = V.get("fixed", {}).get("open_close_ratio_vs_vanilla")
    if ratio:
        rng = V["fixed"]["open_close_ratio_range_vs_vanilla"]["wall"]
        fast = V["fixed"]["open_close_ratio_of_fastest_vs_vanilla"]["wall"]
        blur = [k for k in CASES if rng[k][0] <= 1 <= rng[k][1]]
        worst = max(V[v]["hot_path"]["wall"][k]["spread_pct"] for v in V for k in CASES)
        L.append("- **open+close**, fixed against vanilla, speed ratio of the medians: "
                 + "; ".join(f"{CASE_TEXT[k]}: {ratio['wall'][k]:.3f} on the wall clock "
                             f"(fastest repeats {fast[k]:.3f}), {ratio['icount'][k]:.3f} "
                             "in instructions" for k in CASES) + ". "
                 + (f"On the wall clock the repeats spread by up to {worst:.0f}% (QEMU TCG on a "
                    "shared host), and in " + str(len(blur)) + " of the " + str(len(CASES))
                    + " cases fixed's range overlaps vanilla's: there the wall clock cannot "
                    "tell them apart. " if blur else
                    f"On the wall clock the repeats spread by up to {worst:.0f}%. ")
                 + "The instruction-counted repeats spread by at most "
                 f"{max(V[v]['hot_path']['icount'][k]['spread_pct'] for v in V for k in CASES):.2f}%, "
                 "but they count instructions: they do not weigh cache misses or lock waits.")
    L.append("")
    return L


def shares(by_cache, floor=4.0):
    """'cache X B' for the caches that carry at least floor bytes, largest first."""
    big = sorted(((x, n) for n, x in by_cache.items() if x >= floor), reverse=True)
    return ", ".join(f"`{n}` {f1(x)} B" for x, n in big) or "no cache above 4 B"


# The first targets: what the 2010 fix must show (the hog, the saving, no
# slower open+close), read against the figures (reported, never asserted).
TARGETS = {"baseline_min_bytes": 500, "factor": 40, "speed_min": 0.97}


def targets(res):
    V = res["variants"]
    if not all(v in V for v in ("baseline", "fixed")):
        return []
    ov = {v: V[v]["ima_overhead_bytes_per_inode"]["unmeasured"] for v in V}
    ratio = ov["baseline"] / ov["fixed"] if ov["fixed"] > 0 else None
    rows = [
        [f"baseline overhead ≥ {TARGETS['baseline_min_bytes']} B per inode", f"{f1(ov['baseline'])} B",
         yes(ov["baseline"] >= TARGETS["baseline_min_bytes"])],
        ["fixed ≤ vanilla (per unmeasured inode)", f"{f1(ov['fixed'])} B ≤ {f1(ov['vanilla'])} B",
         yes(ov["fixed"] <= ov["vanilla"])],
        ["fixed as near 0 B as the layout allows", f"{f1(ov['fixed'])} B", "(read it)"],
        [f"baseline / fixed ≥ {TARGETS['factor']}×",
         f"{ratio:.0f}×" if ratio else "unbounded (fixed ≤ noima)",
         yes(ratio is None or ratio >= TARGETS["factor"])],
    ]
    for clock, name in (("icount", "instructions"), ("wall", "wall clock, medians")):
        for k in CASES:
            x = V["fixed"]["open_close_ratio_vs_vanilla"][clock][k]
            lo, hi = V["fixed"]["open_close_ratio_range_vs_vanilla"][clock][k]
            verdict = yes(x >= TARGETS["speed_min"])
            if clock == "wall" and lo < TARGETS["speed_min"] <= hi:
                verdict = "undecided: the range straddles it"
            rows.append([f"open+close on fixed ≥ {TARGETS['speed_min']}× vanilla: {k}, {name}",
                         f"{x:.3f} [{lo:.3f}–{hi:.3f}]", verdict])
    L = ["## Against the first targets: the hog, the saving, open+close", "",
         "Read from the figures above; `make test` never asserts them."]
    L.append("")
    L += table(["target", "measured", "met"], rows, ["---", "---:", "---"])
    L.append("")
    return L


# The cost targets: instructions on one CPU (fixed against vanilla,
# -icount), bytes per measured file, the distribution stack with no policy,
# and two CPUs. Read against the figures, never asserted.
TARGETS_COST = {"speed_measured": 0.99, "speed_unmeasured": 1.00, "measured_extra_bytes": 32,
                "smp_speed": 0.95, "eviction_speed": 0.99}


def cost_targets(res):
    p, V, D = res["parameters"], res["variants"], res.get("distro_stack") or {}
    rows = []
    if "fixed" in V:
        ratio = V["fixed"]["open_close_ratio_vs_vanilla"]["icount"]
        for k in CASES:
            want = TARGETS_COST["speed_unmeasured" if k.startswith("unmeasured") else "speed_measured"]
            rows.append([f"fixed ≥ {want:.2f}× vanilla in instructions: {CASE_TEXT[k]}",
                         f"{ratio[k]:.4f}", yes(round(ratio[k], 2) >= want)])
        fm = V["fixed"]["ima_overhead_bytes_per_inode"]["measured"]
        vm = V["vanilla"]["ima_overhead_bytes_per_inode"]["measured"]
        extra = TARGETS_COST["measured_extra_bytes"]
        rows.append([f"fixed per measured file ≤ vanilla + {extra} B",
                     f"{f1(fm)} B against {f1(vm)} + {extra} B ({fm - vm:+.1f} B)", yes(fm <= vm + extra)])
        ev = V["fixed"].get("eviction")
        if ev and "ratio_vs_vanilla" in ev:
            want = TARGETS_COST["eviction_speed"]
            rows.append([f"evicting unmeasured inodes while {p['measured_files']:,} iints exist: "
                         f"fixed ≥ {want:.2f}× vanilla in instructions",
                         f"{ev['ratio_vs_vanilla']:.4f}", yes(round(ev["ratio_vs_vanilla"], 2) >= want)])
    if "vanilla-distro" in D and "fixed-distro" in D:
        o = {v: D[v]["policies"]["none"]["overhead_bytes_per_inode"]["unmeasured"]
             for v in ("vanilla-distro", "fixed-distro")}
        rows.append(["distribution stack, no policy: fixed's IMA+EVM bytes per unmeasured inode "
                     "below vanilla's", f"{f1(o['fixed-distro'])} B < {f1(o['vanilla-distro'])} B",
                     yes(o["fixed-distro"] < o["vanilla-distro"])])
        for v in ("vanilla-distro", "fixed-distro"):
            blob = D[v]["lsm_inode_blob"]
            obj = D[v]["policies"]["none"]["object_sizes"].get("lsm_inode_cache", {}).get("object_size")
            rows.append([f"`{v}`: every byte of the inode blob accounted for (the LSMs' shares "
                         "against the guest's object)",
                         " + ".join(f"{b}" for _, b in blob["parts"]) + f" = {blob['total']} B; "
                         f"object {obj if obj is not None else '–'} B", yes(blob["total"] == obj)])
    rows += two_cpu_target_rows(res)
    if not rows:
        return []
    L = ["## Against the cost targets: instructions, measured files, distribution stack, two CPUs", "",
         "Read from the figures above; `make test` never asserts them. Instructions are "
         "`-icount` on one CPU, compared at the two decimal places the targets are written in "
         "(the ratio is printed to four); throughput is two CPUs' wall clock, its range beside it."]
    L.append("")
    L += table(["target", "measured", "met"], rows, ["---", "---:", "---"])
    L.append("")
    return L


def history(res):
    V, c, a = res["variants"], res["comparison"], res["anchors_2010"]
    ch = a["chinner_slabtop"]
    L = ["## The 2010 comparison", ""]
    L.append(f"- {ch['source']}: {ch['radix_tree_node_objects']:,} `radix_tree_node` objects "
             f"of {ch['radix_tree_node_kb']} KB and {ch['iint_cache_objects']:,} `iint_cache` "
             f"objects of {ch['iint_kb']} KB: {c['chinner_radix_nodes_per_iint']:.2f} nodes per "
             f"iint, {f1(c['chinner_bytes_per_inode'])} B per in-core inode (the counts times the "
             "object sizes; the project's notes quote about 2.3 GB of radix-tree nodes and "
             "roughly 1.25 KB per inode, more than these counts and sizes multiply to, so the "
             "product is used here).")
    if "baseline" in V:
        L.append(f"- Here, the baseline: {c['baseline_radix_nodes_per_iint']:.2f} nodes per iint and "
                 f"{f1(c['baseline_bytes_per_inode'])} B per inode "
                 f"({100 * c['baseline_bytes_per_inode'] / c['chinner_bytes_per_inode']:.0f}% of the "
                 f"2010 figure, with {kernel_version(res)}'s object sizes). "
                 + ("Within a factor of two of 2010: the hog **reproduced**."
                    if 0.5 <= c["baseline_bytes_per_inode"] / c["chinner_bytes_per_inode"] <= 2
                    else "Not within a factor of two of 2010: the hog did **not** reproduce at that scale."))
    fa = a["paris_factor"]
    if "baseline" in V and "fixed" in V:
        r = c.get("baseline_over_fixed_unmeasured")
        L.append(f"- {fa['source']}. Here, baseline over fixed per unmeasured inode: "
                 + (f"{r:.0f}×" if r else "unbounded (fixed's overhead is not above noima's)")
                 + "; baseline over vanilla: "
                 + (f"{c['baseline_over_vanilla_unmeasured']:.0f}×" if c.get("baseline_over_vanilla_unmeasured") else "–")
                 + ". "
                 + ("At least 40: **reproduced**." if (r is None or r >= fa["factor"]) else
                    "Below 40: **not reproduced**.")
                 + " For measured files both schemes need an iint, so the factor is about the "
                 "inodes no rule measures, which on a real machine are nearly all of them.")
    s = a["series_2_6_37"]
    if "fixed" in V:
        ext = [V[v]["object_sizes"].get("ext4_inode_cache", {}).get("object_size") for v in (REFERENCE, "fixed")]
        L.append(f"- {s['source']}: about {s['bytes_per_inode']} B per inode. In {kernel_version(res)} that "
                 "`i_readcount` is in every `struct inode` under `CONFIG_IMA`: ext4's inode "
                 f"object is {ext[0]} B on `{REFERENCE}` and {ext[1]} B on `fixed` "
                 f"({'no slot grew' if V[REFERENCE]['object_sizes'].get('ext4_inode_cache', {}).get('slot_size') == V['fixed']['object_sizes'].get('ext4_inode_cache', {}).get('slot_size') else 'the slot differs'}), "
                 f"and fixed's IMA overhead is {f1(V['fixed']['ima_overhead_bytes_per_inode']['unmeasured'])} "
                 "B per unmeasured inode.")
    L.append("")
    return L


def plots(res, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    V, p = res["variants"], res["parameters"]
    vs = [v for v in ordered(res) if v != REFERENCE]
    colours = {"vanilla": "tab:blue", "baseline": "tab:red", "seed": "tab:orange", "fixed": "tab:green"}
    # 1. The headline: overhead per inode against N.
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, zoom in zip(axes, (False, True)):
        for v in vs:
            pts = V[v]["unmeasured"]["points"]
            if zoom and v == "baseline":
                continue
            ax.plot([q["n"] for q in pts], [q["overhead_bytes_per_inode"] for q in pts], "o-",
                    label=f"{v} (slope {V[v]['unmeasured']['fit']['slope']:.1f} B/inode)",
                    color=colours.get(v))
        ax.set_xscale("log")
        ax.set_xlabel("in-core inodes N (stat only, nothing measured)")
        ax.set_ylabel("IMA overhead, bytes per inode (− noima)")
        ax.axhline(0, color="grey", lw=0.6)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title("zoom: without baseline" if zoom else "all variants")
    fig.suptitle(f"IMA slab overhead per unmeasured in-core inode, Linux {V['vanilla']['release'].split('-')[0]}")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "overhead_vs_n.png"), dpi=110)
    plt.close(fig)
    # 2. Where the bytes go: stacked per cache, unmeasured and measured.
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    for ax, kind, title in zip(axes, ("unmeasured", "measured"),
                               (f"per unmeasured inode (N = {p['sweep'][-1]:,})",
                                f"per measured file ({p['measured_files']:,} files)")):
        segs = {}
        for v in vs:
            for n, x in V[v]["overhead_by_cache"][kind].items():
                segs.setdefault(n, {})[v] = x
        big = sorted(n for n, d in segs.items() if max(abs(x) for x in d.values()) >= 2.0)
        pos_base = [0.0] * len(vs)
        neg_base = [0.0] * len(vs)
        cmap = plt.get_cmap("tab20")
        for i, n in enumerate(big + ["other"]):
            vals = [(segs[n].get(v, 0) if n != "other" else
                     sum(x for m, d in segs.items() if m not in big for x in [d.get(v, 0)]))
                    for v in vs]
            bottoms = [pb if x >= 0 else nb for x, pb, nb in zip(vals, pos_base, neg_base)]
            ax.bar(vs, vals, bottom=bottoms, label=n, color=cmap(i % 20))
            pos_base = [pb + max(x, 0) for x, pb in zip(vals, pos_base)]
            neg_base = [nb + min(x, 0) for x, nb in zip(vals, neg_base)]
        for j, v in enumerate(vs):
            tot = V[v]["ima_overhead_bytes_per_inode"][kind]
            ax.annotate(f"{f1(tot)} B", (j, max(pos_base[j], 0)), ha="center", va="bottom", fontsize=8)
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_ylim(min(min(neg_base), 0) * 1.15 - 0.02 * max(pos_base), max(pos_base) * 1.12)
        ax.set_ylabel("bytes (− noima)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Where IMA's bytes go, by slab cache")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "where_bytes_go.png"), dpi=110)
    plt.close(fig)
    # 3. Open+close: median and range per case and variant, both clocks.
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    allv = ordered(res)
    width = 0.8 / len(allv)
    for ax, clock in zip(axes, CLOCKS):
        for j, v in enumerate(allv):
            h = [V[v]["hot_path"][clock][k] for k in CASES]
            xs = [i + (j - (len(allv) - 1) / 2) * width for i in range(len(CASES))]
            ax.bar(xs, [x["median"] for x in h], width, label=v, color=colours.get(v, "tab:grey"),
                   yerr=[[x["median"] - x["min"] for x in h], [x["max"] - x["median"] for x in h]],
                   capsize=2)
        ax.set_xticks(range(len(CASES)))
        ax.set_xticklabels([k.replace("-", "\n") for k in CASES], fontsize=8)
        ax.set_ylabel("ns per open+close (median, min–max)")
        ax.set_title(CLOCKS[clock], fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Cost of open+close")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "open_close.png"), dpi=110)
    plt.close(fig)
    # 4. The 2010 picture: total IMA slab memory against in-core inodes, the
    #    measured points and each fit extended to kernel.org's inode count.
    from matplotlib.ticker import FuncFormatter
    big_n = ANCHORS_2010["kernelorg_incore_inodes"]["inodes"]
    fig, ax = plt.subplots(figsize=(8, 4.8))
    lo = min(q["n"] for v in vs for q in V[v]["unmeasured"]["points"])
    xs = [lo * (big_n / lo) ** (i / 60) for i in range(61)]
    for v in vs:
        fit = V[v]["unmeasured"]["fit"]
        mb = lambda n, f=fit: (f["slope"] * n + f["intercept"]) / 2 ** 20  # noqa: E731
        pts = V[v]["unmeasured"]["points"]
        c = colours.get(v, "tab:grey")
        ax.plot([q["n"] for q in pts], [q["overhead_bytes"] / 2 ** 20 for q in pts], "o", color=c)
        at = f"{mb(big_n):,.0f}"
        ax.plot(xs, [mb(n) for n in xs], "-", color=c,
                label=f"{v}: {'0' if at == '-0' else at} MB at {big_n / 1e6:.1f} M inodes")
        ax.plot([big_n], [mb(big_n)], "D", color=c, markersize=7)
    ax.axvline(big_n, color="grey", lw=0.8, ls="--")
    ax.annotate("kernel.org, Oct 2010", (big_n, sum(ax.get_ylim()) / 2), rotation=90, fontsize=8,
                ha="right", va="center", color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("in-core inodes (nothing measured); dots measured, lines the least-squares fit")
    ax.set_ylabel("IMA slab memory, MB (− noima)")
    # A fit near zero can dip a hair below it: never print "-0".
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: f"{0.0 if abs(y) < 1e-9 else y:g}"))
    ax.axhline(0, color="grey", lw=0.6)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"Total IMA slab memory against in-core inodes, Linux {kernel_version(res)}")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "total_mb_vs_inodes.png"), dpi=110)
    plt.close(fig)


def render(out):
    res = read_json(os.path.join(out, "results.json"))
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(render_md(res))
    plots(res, out)
    print(f"report: wrote {os.path.join(out, 'report.md')} and {', '.join(PLOTS)}", file=sys.stderr)


# ---------------------------------------------------------------- check

def close(a, b, tol=1e-6):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def check(out):
    path = os.path.join(out, "results.json")
    if not os.path.exists(path):
        die(f"{path} does not exist: run scripts/report.sh first", 1)
    try:
        res = json.loads(read_text(path))
    except json.JSONDecodeError as e:
        die(f"{path} is not JSON: {e}", 1)
    problems = []
    bad = problems.append
    try:
        check_results(res, problems)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError) as e:
        bad(f"results.json lacks or garbles a field: {type(e).__name__}: {e}")
    if not problems:
        md = os.path.join(out, "report.md")
        if not os.path.exists(md):
            bad("report.md is missing")
        elif read_text(md) != render_md(res):
            bad("report.md is not what results.json says (edited, or rendered from other figures)")
        for png in PLOTS:
            pp = os.path.join(out, png)
            if not os.path.exists(pp):
                bad(f"{png} is missing")
            else:
                with open(pp, "rb") as f:
                    head = f.read(8)
                if head != b"\x89PNG\r\n\x1a\n" or os.path.getsize(pp) < 1024:
                    bad(f"{png} is not a PNG image")
    for p in problems:
        print("error: report: " + p, file=sys.stderr)
    if problems:
        return 1
    print(f"report: {path} is consistent ({len(res['variants'])} variants, "
          f"N = {res['parameters']['sweep']})", file=sys.stderr)
    return 0


def check_results(res, problems):
    """What must hold for the figures to mean anything. Never targets."""
    bad = problems.append
    if res.get("schema") != SCHEMA:
        bad(f"schema is {res.get('schema')!r}, not {SCHEMA!r}")
    p, V = res["parameters"], res["variants"]
    T = res.get("two_cpus", {})
    for v in p["variants"]:
        if v not in V and v not in T and v not in res.get("distro_stack", {}):
            bad(f"variant {v} was asked for but is missing")
    for v in (REFERENCE, "vanilla"):
        if v not in V:
            bad(f"the reference {v} is missing")
    if problems:
        return
    sweep = p["sweep"]
    if not sweep or sweep != sorted(set(sweep)):
        bad(f"the sweep {sweep} does not grow")
    ref = V[REFERENCE]
    for v, r in V.items():
        for key in ("release", "config_sha256"):
            if not r.get(key):
                bad(f"{v}: no {key}")
        if len(r.get("config_sha256", "")) != 64:
            bad(f"{v}: config_sha256 is not a sha256")
        if r["guest_release"] != r["release"]:
            bad(f"{v}: the guest ran {r['guest_release']}, the build is {r['release']}")
        pts = r["unmeasured"]["points"]
        if [q["n"] for q in pts] != sweep:
            bad(f"{v}: the points are N = {[q['n'] for q in pts]}, not {sweep}")
            continue
        for q, qref in zip(pts, ref["unmeasured"]["points"]):
            n = q["n"]
            if q["files_statted"] != n:
                bad(f"{v}: N={n}: the guest stat'ed {q['files_statted']} files")
            if q["incore_inodes"] < 0.95 * n:
                bad(f"{v}: N={n}: only {q['incore_inodes']} inodes came into core")
            sum_check(bad, f"{v}: N={n}", q)
            if not close(q["bytes_per_inode"], q["slab_bytes"] / n):
                bad(f"{v}: N={n}: bytes per inode is not the total over N")
            if not close(q["overhead_bytes"], q["slab_bytes"] - qref["slab_bytes"]):
                bad(f"{v}: N={n}: the overhead is not {v} − {REFERENCE}")
            if not close(q["overhead_bytes_per_inode"], q["overhead_bytes"] / n):
                bad(f"{v}: N={n}: overhead per inode is not the overhead over N")
        fit = fit_line([q["n"] for q in pts], [q["overhead_bytes"] for q in pts])
        for k in ("slope", "intercept", "r2"):
            if fit[k] is None and r["unmeasured"]["fit"][k] is None:
                continue
            if not close(fit[k], r["unmeasured"]["fit"][k], 1e-6) and not (
                    k == "intercept" and abs(fit[k] - r["unmeasured"]["fit"][k]) < 1e-3):
                bad(f"{v}: the fit's {k} does not follow from the points")
        m = r["measured"]
        if m["files_read"] != p["measured_files"]:
            bad(f"{v}: root read {m['files_read']} files, not {p['measured_files']}")
        if m["incore_inodes"] < 0.95 * m["files_read"]:
            bad(f"{v}: only {m['incore_inodes']} of the {m['files_read']} measured files came into core")
        want = m["files_read"] if r["ima"] == "y" else 0
        if m["measurements_added"] != want:
            bad(f"{v}: {m['measurements_added']} measurements were added for "
                f"{m['files_read']} files read (expected {want})")
        sum_check(bad, f"{v}: measured", m)
        if not close(m["overhead_bytes_per_file"], (m["slab_bytes"] - ref["measured"]["slab_bytes"]) / m["files_read"]):
            bad(f"{v}: measured overhead is not ({v} − {REFERENCE}) / files")
        head = r["ima_overhead_bytes_per_inode"]
        if not (close(head["unmeasured"], pts[-1]["overhead_bytes_per_inode"])
                and close(head["measured"], m["overhead_bytes_per_file"])):
            bad(f"{v}: ima_overhead_bytes_per_inode does not match the sweep and the measured step")
        for kind, cnt, part, part_ref in (
                ("unmeasured", sweep[-1], pts[-1], ref["unmeasured"]["points"][-1]),
                ("measured", m["files_read"], m, ref["measured"])):
            s = sum(r["overhead_by_cache"][kind].values())
            if not close(s, (part["slab_bytes"] - part_ref["slab_bytes"]) / cnt, 1e-6):
                bad(f"{v}: the {kind} overhead by cache does not add up to the overhead")
        for clock in CLOCKS:
            want_reps = p["repeats"] if clock == "wall" else p["icount_repeats"]
            for case in CASES:
                h = r["hot_path"][clock][case]
                xs = h["ns_per_open_close"]
                if len(xs) != want_reps:
                    bad(f"{v}: {clock} {case}: {len(xs)} repeats, not {want_reps}")
                    continue
                if min(xs) <= 0:
                    bad(f"{v}: {clock} {case}: a time is not positive")
                if h["files_per_pass"] != [min(p["hot_files"], p["measured_files"]) if case.startswith("measured")
                                           else p["hot_files"]]:
                    bad(f"{v}: {clock} {case}: {h['files_per_pass']} files per pass")
                if any(len(ps) != p["passes"] or min(ps) != x for ps, x in zip(h["passes"], xs)):
                    bad(f"{v}: {clock} {case}: a repeat is not the fastest of its {p['passes']} passes")
                st = stats(xs)
                if any(not close(st[k], h[k]) for k in ("median", "min", "max")):
                    bad(f"{v}: {clock} {case}: median, min or max do not follow from the repeats")
                van = V["vanilla"]["hot_path"][clock][case]
                if not close(r["open_close_ratio_vs_vanilla"][clock][case], van["median"] / h["median"]):
                    bad(f"{v}: {clock} {case}: the ratio to vanilla does not follow from the medians")
                if not close(r["open_close_ratio_of_fastest_vs_vanilla"][clock][case], van["min"] / h["min"]):
                    bad(f"{v}: {clock} {case}: the ratio of the fastest repeats does not follow from them")
                lo, hi = r["open_close_ratio_range_vs_vanilla"][clock][case]
                if not lo <= r["open_close_ratio_vs_vanilla"][clock][case] <= hi:
                    bad(f"{v}: {clock} {case}: the ratio lies outside its range")
        check_eviction(res, v, r, bad)
        if r["ima"] == "y" and "ima_iint_cache" not in r["object_sizes"]:
            bad(f"{v}: no object size for ima_iint_cache")
        if "ext4_inode_cache" not in r["object_sizes"]:
            bad(f"{v}: no object size for ext4_inode_cache")
    check_two_cpus(res, bad)
    check_distro(res, bad)


def check_eviction(res, v, r, bad):
    p, V = res["parameters"], res["variants"]
    have = [w for w in V if "eviction" in V[w]]
    if not have:
        return  # a report made before eviction was measured
    if "eviction" not in r:
        bad(f"{v}: no eviction figures, while {', '.join(have)} have them")
        return
    e = r["eviction"]
    if len(e["runs"]) != p["icount_repeats"]:
        bad(f"{v}: eviction: {len(e['runs'])} repeats, not {p['icount_repeats']}")
    for r in e["runs"]:
        if len(r) != p["passes"]:
            bad(f"{v}: eviction: a repeat has {len(r)} drops, not {p['passes']}")
        for x in r:
            # Every statted file must have gone, or the figure is not per evicted file.
            if x["evicted"] < p["hot_files"]:
                bad(f"{v}: eviction: a drop freed {x['evicted']} inodes, fewer than the "
                    f"{p['hot_files']} statted")
            if x["ns"] <= 0:
                bad(f"{v}: eviction: a time is not positive")
    per = [min(x["ns"] / x["evicted"] for x in r) for r in e["runs"] if r]
    if per != e["ns_per_inode"]:
        bad(f"{v}: eviction: a repeat is not its fastest drop")
    st = stats(per or [1])
    if any(not close(st[k], e[k]) for k in ("median", "min", "max")):
        bad(f"{v}: eviction: median, min or max do not follow from the runs")
    if not close(e["ratio_vs_vanilla"], V["vanilla"]["eviction"]["median"] / e["median"]):
        bad(f"{v}: eviction: the ratio to vanilla does not follow from the medians")
    if not close(e["ima_ns_per_inode"], e["median"] - V[REFERENCE]["eviction"]["median"]):
        bad(f"{v}: eviction: IMA's share does not follow from the medians")


def check_distro(res, bad):
    p, D = res["parameters"], res.get("distro_stack", {})
    if D and DISTRO_REFERENCE not in D:
        bad(f"the distribution stack lacks its reference {DISTRO_REFERENCE}")
        return
    nmax = p["sweep"][-1]
    for v, r in D.items():
        for pol in POLICIES:
            x = r["policies"][pol]
            where = f"{v} ({pol})"
            if x["guest_release"] != r["release"]:
                bad(f"{where}: the guest ran {x['guest_release']}, the build is {r['release']}")
            want_cmd = "ima_policy=tcb" if pol == "tcb" else "none"
            if x["ima_policy_cmdline"] != want_cmd:
                bad(f"{where}: booted with {x['ima_policy_cmdline']!r}, not {want_cmd!r}")
            pts = x["unmeasured"]["points"]
            if [q["n"] for q in pts] != p["sweep"]:
                bad(f"{where}: the points are N = {[q['n'] for q in pts]}, not {p['sweep']}")
                continue
            for q in pts:
                if q["incore_inodes"] < 0.95 * q["n"]:
                    bad(f"{where}: N={q['n']}: only {q['incore_inodes']} inodes came into core")
                sum_check(bad, f"{where}: N={q['n']}", q)
            m = x["measured"]
            sum_check(bad, f"{where}: measured", m)
            if m["files_read"] != p["measured_files"]:
                bad(f"{where}: root read {m['files_read']} files, not {p['measured_files']}")
            want = m["files_read"] if (pol == "tcb" and r["ima"] == "y") else 0
            if m["measurements_added"] != want:
                bad(f"{where}: {m['measurements_added']} measurements added, expected {want}")
            ref = D[DISTRO_REFERENCE]["policies"][pol]
            if not close(x["overhead_bytes_per_inode"]["unmeasured"],
                         (pts[-1]["slab_bytes"] - ref["unmeasured"]["points"][-1]["slab_bytes"]) / nmax):
                bad(f"{where}: the overhead per unmeasured inode is not {v} − {DISTRO_REFERENCE}")
        blob = r["lsm_inode_blob"]
        active = r["policies"]["none"]["active_lsms"]
        if r["policies"]["tcb"]["active_lsms"] != active:
            bad(f"{v}: the two boots ran different LSMs")
        for n, _ in blob["parts"]:
            if not n.startswith("(") and n not in active:
                bad(f"{v}: the blob counts {n}, which is not active")
        if blob != blob_split(r["lsm_shares_requested"], active):
            bad(f"{v}: the blob's layout does not follow from the LSMs' shares")
        obj = r["policies"]["none"]["object_sizes"].get("lsm_inode_cache", {}).get("object_size")
        if blob["total"] and obj != blob["total"]:
            bad(f"{v}: the LSMs' shares add up to {blob['total']} B, lsm_inode_cache objects "
                f"are {obj} B: a byte of the blob is unaccounted for")


def check_two_cpus(res, bad):
    p, T = res["parameters"], res.get("two_cpus", {})
    files = min(p["hot_files"], p["measured_files"])
    for v, r in T.items():
        if r["guest_release"] != r["release"]:
            bad(f"{v}: the guest ran {r['guest_release']}, the build is {r['release']}")
        if r["cpus"] < 2:
            bad(f"{v}: booted for two CPUs, the guest saw {r['cpus']}")
        for mode in MT_MODES:
            m = r["modes"][mode]
            xs = m["opens_per_s"]
            if len(xs) != mt_repeats(p):
                bad(f"{v}: {mode}: {len(xs)} repeats, not {mt_repeats(p)}")
                continue
            for run, x in zip(m["passes"], xs):
                if len(run) != p["passes"] or any(k != files * r["cpus"] or ns <= 0 for k, ns in run):
                    bad(f"{v}: {mode}: a repeat is not {p['passes']} passes of {files} files on each CPU")
                elif not close(x, max(k * 1e9 / ns for k, ns in run)):
                    bad(f"{v}: {mode}: a repeat's throughput is not its fastest pass")
            st = stats(xs)
            if any(not close(st[k], m[k]) for k in ("median", "min", "max")):
                bad(f"{v}: {mode}: median, min or max do not follow from the repeats")
            if MT_REFERENCE in T and not close(m["throughput_vs_vanilla"],
                                               m["median"] / T[MT_REFERENCE]["modes"][mode]["median"]):
                bad(f"{v}: {mode}: the ratio to {MT_REFERENCE} does not follow from the medians")
            if ("lock_stat" in m) != bool(r.get("lock_stat")):
                bad(f"{v}: {mode}: lock statistics {'present' if 'lock_stat' in m else 'missing'}, "
                    f"but the kernel has CONFIG_LOCK_STAT={'y' if r.get('lock_stat') else 'n'}")
            for rep_ in m.get("lock_stat", {}).get("repeats", []):
                for k in LOCK_FIELDS:
                    want = 1000 * sum(c[k] for c in rep_["classes"].values()) / rep_["opens"]
                    if not close(rep_["per_1000_opens"][k], want):
                        bad(f"{v}: {mode}: {k} per 1,000 opens does not follow from the classes")


def sum_check(bad, where, part):
    for k in ("slab_bytes", "obj_bytes"):
        s = sum(c[k] for c in part["caches"].values())
        if s != part[k]:
            bad(f"{where}: the caches' {k} add up to {s}, the total says {part[k]}")


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
