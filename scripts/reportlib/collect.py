"""collect: the guest runs under DIR/raw/ -> DIR/results.json (bytes per
inode and per measured file, open+close and eviction timings, the two-CPU
and distribution-stack boots)."""

import json
import os
import statistics
import sys

from .base import (
    ANCHORS_2010, CASES, CLOCKS, DISTRO_REFERENCE, EVM_COST_CASES, EVM_COST_REFERENCE,
    FILE_BLOB_CLOCK, FILE_BLOB_REFERENCE, IMA_LOCK_NAME,
    KEY_CACHES, LARGE_KMALLOC, LOCK_FIELDS, LOCK_STAT_LINE, MT_MODES, MT_REFERENCE, POLICIES,
    REFERENCE, SCHEMA, TABLE_LOCK, die, first_int, fit_line, read_json, read_slabinfo, read_text, slab_delta, stats,
)


def read_passes(path):
    """openbench's "pass I COUNT NANOSECONDS" lines, one list of (count, ns)
    per repeat: a repeat is one openbench run of back-to-back passes ("pass
    1" starts it), and counts its fastest, since whatever else the host does
    only ever adds time."""
    repeats = []
    for line in read_text(path).splitlines():
        _, i, k, ns = line.split()
        if i == "1":
            repeats.append([])
        repeats[-1].append((int(k), int(ns)))
    return repeats


def hot_path(d):
    """The open+close cases of one boot: a repeat counts its fastest pass."""
    res = {}
    for case in CASES:
        passes = read_passes(os.path.join(d, "hot", case))
        per_open = [min(ns / k for k, ns in r) for r in passes]
        res[case] = dict(
            ns_per_open_close=per_open, passes=[[ns / k for k, ns in r] for r in passes],
            files_per_pass=sorted({k for r in passes for k, _ in r}), **stats(per_open))
    return res


def collect_file_blob(raw, v):
    """A guest with Landlock: its instruction-counted open+close cases."""
    d = os.path.join(raw, v, FILE_BLOB_CLOCK)
    meta = read_json(os.path.join(raw, v, "variant.json"))
    return {"release": meta["release"], "guest_release": read_text(os.path.join(d, "release")).strip(),
            "config_sha256": meta["config_sha256"], "ima": meta["ima"], "series_head": meta["head"],
            "boot": read_json(os.path.join(d, "boot.json")), "hot_path": hot_path(d)}


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
    res["hot_path"] = {clock: hot_path(d) for clock, d in (("wall", wall), ("icount", icount))}
    # 6. Eviction, instruction-counted only (reports made before it have
    #    none); a repeat counts its fastest drop, as on the hot path.
    path = os.path.join(icount, "evict")
    if os.path.exists(path):
        runs = read_passes(path)
        if not runs or min(k for r in runs for k, _ in r) <= 0:
            die(f"{path}: a drop_caches evicted no inodes")
        per = [min(ns / k for k, ns in r) for r in runs]
        res["eviction"] = dict(runs=[[{"evicted": k, "ns": ns} for k, ns in r] for r in runs],
                               ns_per_inode=per, **stats(per))
    return res


def meminfo_slab_bytes(path):
    for line in read_text(path).splitlines():
        key, _, value = line.partition(":")
        if key == "Slab":
            return int(value.split()[0]) * 1024
    die(f"{path}: no Slab line")


def add_large_kmallocs(caches, totals, before, after):
    """Add the whole-page kmallocs between snapshots BEFORE and AFTER (paths
    without extension) to a slabinfo delta, as one more cache: /proc/meminfo's
    Slab counts their pages with the caches', /proc/slabinfo does not."""
    if not all(os.path.exists(f + ".meminfo") for f in (before, after)):
        return
    d = (meminfo_slab_bytes(after + ".meminfo") - meminfo_slab_bytes(before + ".meminfo")
         - totals["slab_bytes"])
    if d:
        caches[LARGE_KMALLOC] = {"objects": 0, "obj_bytes": d, "slab_bytes": d, "objsize": 0}
        totals["slab_bytes"] += d
        totals["obj_bytes"] += d


def files_read(wall, step, count):
    """What reading a set of files added: the snaps STEP-before and
    STEP-after, and the number of files openbench read (file COUNT)."""
    b, a = os.path.join(wall, "snap", f"{step}-before"), os.path.join(wall, "snap", f"{step}-after")
    caches, totals = slab_delta(read_slabinfo(b + ".slabinfo"), read_slabinfo(a + ".slabinfo"))
    add_large_kmallocs(caches, totals, b, a)
    files = first_int(os.path.join(wall, count))
    return {
        "files_read": files,
        "measurements_added": first_int(a + ".measurements") - first_int(b + ".measurements"),
        "incore_inodes": first_int(a + ".inode-nr") - first_int(b + ".inode-nr"),
        "caches": caches, "slab_bytes": totals["slab_bytes"],
        "obj_bytes": totals["obj_bytes"],
        "bytes_per_file": totals["slab_bytes"] / files if files else None,
    }


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
        add_large_kmallocs(caches, totals, snap(wall, "sweep-0"), snap(wall, f"sweep-{n}"))
        points.append({
            "n": n, "files_statted": total,
            "incore_inodes": first_int(snap(wall, f"sweep-{n}.inode-nr")) - nr0,
            "caches": caches, "slab_bytes": totals["slab_bytes"],
            "obj_bytes": totals["obj_bytes"],
            "bytes_per_inode": totals["slab_bytes"] / n,
        })
    res["unmeasured"] = {"points": points}
    # 2. Measured files; 2b. the same files verified by EVM (when asked).
    res["measured"] = files_read(wall, "meas", "meas-read")
    if os.path.exists(snap(wall, "verify-after.slabinfo")):
        res["verified"] = files_read(wall, "verify", "verify-read")
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


def is_ima_lock(name):
    """IMA's lock classes: named after ima_* or an iint (ima_iint_lock,
    &iint->mutex), not every class with "ima" inside ("primary"); and the
    bucket locks of its hash table, a class shared with every rhashtable."""
    return bool(IMA_LOCK_NAME.search(name.lower())) or name.startswith(TABLE_LOCK)


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
            got = read_passes(os.path.join(d, "mt", f"measured-{mode}"))  # -j: opens per pass
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
        if pol == "evm" and not os.path.isdir(d):
            continue  # a report made before the EVM boot
        r = collect_memory(d, params)
        r["evm_initialised"] = read_text(os.path.join(d, "evm")).strip() if os.path.exists(
            os.path.join(d, "evm")) else "none"
        if os.path.exists(os.path.join(d, "evm-labelled")):
            r["evm_labelled_files"] = first_int(os.path.join(d, "evm-labelled"))
        r["guest_release"] = read_text(os.path.join(d, "release")).strip()
        r["boot"] = read_json(os.path.join(d, "boot.json"))
        r["active_lsms"] = [x for x in read_text(os.path.join(d, "lsm")).strip().split(",") if x]
        r["ima_policy_cmdline"] = read_text(os.path.join(d, "ima-policy")).strip()
        res["policies"][pol] = r
    # With EVM's key, instruction-counted: each repeat counts its fastest pass.
    d = os.path.join(base, "evm-icount")
    if os.path.isdir(d):
        res["evm_cost"] = {"boot": read_json(os.path.join(d, "boot.json")),
                           "evm_initialised": read_text(os.path.join(d, "evm")).strip()}
        for case in EVM_COST_CASES:
            passes = read_passes(os.path.join(d, "evmcost", case))
            per_op = [min(ns / k for k, ns in r) for r in passes]
            res["evm_cost"][case] = dict(
                ns_per_op=per_op, passes=[[ns / k for k, ns in r] for r in passes],
                files_per_pass=sorted({k for r in passes for k, _ in r}), **stats(per_op))
    shares = read_lsm_shares(os.path.join(base, "lsm-shares"))
    res["lsm_shares_requested"] = shares
    res["lsm_inode_blob"] = blob_split(shares, res["policies"]["none"]["active_lsms"])
    return res


def collect(out):
    raw = os.path.join(out, "raw")
    params = read_json(os.path.join(raw, "parameters.json"))
    smp = [v for v in params["variants"] if os.path.isdir(os.path.join(raw, v, "smp-1"))]
    distro = [v for v in params["variants"] if os.path.isdir(os.path.join(raw, v, "policy-none"))]
    blob = [v for v in params["variants"] if os.path.isdir(os.path.join(raw, v, FILE_BLOB_CLOCK))]
    variants = {v: collect_variant(raw, v, params) for v in params["variants"]
                if v not in smp and v not in distro and v not in blob}
    file_blob = {v: collect_file_blob(raw, v) for v in blob}
    if file_blob and FILE_BLOB_REFERENCE not in file_blob:
        die(f"the variants with Landlock need their reference {FILE_BLOB_REFERENCE}")
    ref_hot = file_blob.get(FILE_BLOB_REFERENCE, {}).get("hot_path")
    for r in file_blob.values():
        r["instructions_ratio_vs_vanilla"] = {
            c: ref_hot[c]["median"] / r["hot_path"][c]["median"] for c in CASES}
    two_cpus = {v: collect_two_cpus(raw, v, params) for v in smp}
    distro_stack = {v: collect_distro(raw, v, params) for v in distro}
    if distro_stack and DISTRO_REFERENCE not in distro_stack:
        die(f"the distribution-stack variants need their reference {DISTRO_REFERENCE}")
    nmax_d = params["sweep"][-1]
    for v, r in distro_stack.items():
        for pol, x in r["policies"].items():
            if pol not in distro_stack[DISTRO_REFERENCE]["policies"]:
                die(f"{v} was booted with policy {pol}, its reference {DISTRO_REFERENCE} was not")
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
            if "verified" in x:
                x["overhead_bytes_per_inode"]["verified"] = (
                    x["verified"]["slab_bytes"] - ref_x["verified"]["slab_bytes"]) / x["verified"]["files_read"]
                x["overhead_by_cache"]["verified"] = per_cache_overhead(
                    x["verified"]["caches"], ref_x["verified"]["caches"], x["verified"]["files_read"])
    ref_cost = distro_stack.get(EVM_COST_REFERENCE, {}).get("evm_cost")
    for r in distro_stack.values():
        if ref_cost and "evm_cost" in r:
            for case in EVM_COST_CASES:
                c = r["evm_cost"][case]
                c["instructions_ratio_vs_vanilla"] = ref_cost[case]["median"] / c["median"]
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
            "bytes": "slab memory: growth of num_slabs x pages x 4096 in /proc/slabinfo, plus "
            "the kmallocs of whole pages (growth of /proc/meminfo's Slab beyond it)",
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
            "variants with Debian's LSM stack, each booted with no IMA policy, with "
            "ima_policy=tcb, and (policy evm) with EVM given an HMAC key under "
            "ima_policy=appraise_tcb in fix mode: the files root reads are labelled (measured), "
            "then read again from the disk, their inodes evicted first, and verified by EVM "
            "(verified); overhead_bytes_per_inode is the variant minus noima-distro (IMA=n, "
            "EVM=n) booted the same way; lsm_inode_blob lays out each active LSM's lbs_inode "
            "(read from the vmlinux by scripts/lsm-shares.sh) as the kernel does")
    if file_blob:
        results["file_blob"] = file_blob
        results["definitions"]["file_blob"] = (
            "variants with Landlock, whose file blob IMA's share rides on, booted once on "
            "instruction-counted time (QEMU -icount): the open+close cases, each repeat its "
            "fastest pass; instructions_ratio_vs_vanilla is vanilla-landlock's median over "
            "the variant's (above 1: fewer instructions)")
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
