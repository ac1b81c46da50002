"""check: is the report made and internally consistent? Sums, N, inodes
in core, variants and keys, and report.md against results.json; never a
figure against a target."""

import json
import os
import sys

from .base import (
    CASES, CLOCKS, DISTRO_REFERENCE, EVM_COST_CASES, EVM_COST_REFERENCE, FILE_BLOB_REFERENCE,
    LOCK_FIELDS, MT_MODES,
    MT_REFERENCE, PLOTS, POLICIES, POLICY_CMDLINE, REFERENCE, SCHEMA, die, fit_line, mt_repeats,
    read_text, stats,
)
from .collect import blob_split
from .render import render_md


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
        if v not in V and v not in T and v not in res.get("distro_stack", {}) \
                and v not in res.get("file_blob", {}):
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
                if not check_hot_case(p, f"{v}: {clock} {case}", case, h, want_reps, bad):
                    continue
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
    check_file_blob(res, bad)


def check_hot_case(p, where, case, h, want_reps, bad):
    """One open+close case of one boot: its repeats, passes and statistics.
    False if it has the wrong number of repeats (nothing else is checked)."""
    xs = h["ns_per_open_close"]
    if len(xs) != want_reps:
        bad(f"{where}: {len(xs)} repeats, not {want_reps}")
        return False
    if min(xs) <= 0:
        bad(f"{where}: a time is not positive")
    if h["files_per_pass"] != [min(p["hot_files"], p["measured_files"]) if case.startswith("measured")
                               else p["hot_files"]]:
        bad(f"{where}: {h['files_per_pass']} files per pass")
    if any(len(ps) != p["passes"] or min(ps) != x for ps, x in zip(h["passes"], xs)):
        bad(f"{where}: a repeat is not the fastest of its {p['passes']} passes")
    st = stats(xs)
    if any(not close(st[k], h[k]) for k in ("median", "min", "max")):
        bad(f"{where}: median, min or max do not follow from the repeats")
    return True


def check_file_blob(res, bad):
    """The guests with Landlock: every case counted, the ratios from the medians,
    and the same kernel release as the other variants."""
    B, p = res.get("file_blob"), res["parameters"]
    if not B:
        return
    if FILE_BLOB_REFERENCE not in B:
        bad(f"file_blob: no {FILE_BLOB_REFERENCE}, the reference")
        return
    versions = {r["release"].split("-")[0] for r in res["variants"].values()}
    for v, r in B.items():
        if r["release"].split("-")[0] not in versions:
            bad(f"{v}: kernel {r['release']}, not the other variants' {sorted(versions)}")
        if r["guest_release"] != r["release"]:
            bad(f"{v}: the guest ran {r['guest_release']}, the build is {r['release']}")
        if r["boot"]["qemu_args"].split()[:1] != ["-icount"]:
            bad(f"{v}: booted without -icount ({r['boot']['qemu_args']!r})")
        for case in CASES:
            h = r["hot_path"][case]
            if not check_hot_case(p, f"{v}: {case}", case, h, p["icount_repeats"], bad):
                continue
            ref = B[FILE_BLOB_REFERENCE]["hot_path"][case]
            if not close(r["instructions_ratio_vs_vanilla"][case], ref["median"] / h["median"]):
                bad(f"{v}: {case}: the ratio to {FILE_BLOB_REFERENCE} does not follow from the medians")


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
    if not per:
        return
    st = stats(per)
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
        if set(r["policies"]) != set(D[DISTRO_REFERENCE]["policies"]):
            bad(f"{v}: booted with {sorted(r['policies'])}, its reference with "
                f"{sorted(D[DISTRO_REFERENCE]['policies'])}")
            continue
        for pol in [q for q in POLICIES if q in r["policies"]]:
            x = r["policies"][pol]
            where = f"{v} ({pol})"
            if x["guest_release"] != r["release"]:
                bad(f"{where}: the guest ran {x['guest_release']}, the build is {r['release']}")
            want_cmd = POLICY_CMDLINE[pol]
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
            # EVM initialised with its HMAC key (1) in the EVM boot, with no
            # key (0) in the others, wherever it is built (reports made
            # before EVM's boot did not record it).
            want_evm = ("1" if pol == "evm" else "0") if r["ima"] == "y" else "none"
            if x.get("evm_initialised", want_evm) != want_evm:
                bad(f"{where}: EVM reads {x['evm_initialised']!r}, expected {want_evm!r}")
            if pol == "evm":
                # Every file root read was labelled by IMA and EVM (fix mode).
                want_lab = p["measured_files"] if r["ima"] == "y" else 0
                if x.get("evm_labelled_files") != want_lab:
                    bad(f"{where}: {x.get('evm_labelled_files')} of the files read carry an HMAC, "
                        f"expected {want_lab}: EVM verified fewer than it was asked to")
                ver = x.get("verified")
                if not ver:
                    bad(f"{where}: no files read again for EVM to verify")
                else:
                    sum_check(bad, f"{where}: verified", ver)
                    if ver["files_read"] != p["measured_files"]:
                        bad(f"{where}: root read {ver['files_read']} files again, not {p['measured_files']}")
                    if ver["measurements_added"] != 0:
                        bad(f"{where}: appraise_tcb measured {ver['measurements_added']} files")
                    if ver["incore_inodes"] < 0.95 * p["measured_files"]:
                        bad(f"{where}: only {ver['incore_inodes']} inodes came back into core to be verified")
                    if not close(x["overhead_bytes_per_inode"]["verified"],
                                 (ver["slab_bytes"] - ref["verified"]["slab_bytes"]) / ver["files_read"]):
                        bad(f"{where}: the overhead per verified file is not {v} − {DISTRO_REFERENCE}")
            if not close(x["overhead_bytes_per_inode"]["unmeasured"],
                         (pts[-1]["slab_bytes"] - ref["unmeasured"]["points"][-1]["slab_bytes"]) / nmax):
                bad(f"{where}: the overhead per unmeasured inode is not {v} − {DISTRO_REFERENCE}")
        check_evm_cost(p, D, v, r, bad)
        blob = r["lsm_inode_blob"]
        active = r["policies"]["none"]["active_lsms"]
        if any(x["active_lsms"] != active for x in r["policies"].values()):
            bad(f"{v}: its boots ran different LSMs")
        for n, _ in blob["parts"]:
            if not n.startswith("(") and n not in active:
                bad(f"{v}: the blob counts {n}, which is not active")
        if blob != blob_split(r["lsm_shares_requested"], active):
            bad(f"{v}: the blob's layout does not follow from the LSMs' shares")
        obj = r["policies"]["none"]["object_sizes"].get("lsm_inode_cache", {}).get("object_size")
        if blob["total"] and obj != blob["total"]:
            bad(f"{v}: the LSMs' shares add up to {blob['total']} B, lsm_inode_cache objects "
                f"are {obj} B: a byte of the blob is unaccounted for")


def check_evm_cost(p, D, v, r, bad):
    """The instruction-counted boot with EVM's key: every variant with EVM
    has one, each case its repeats of whole passes, the ratio its medians'."""
    if "evm" not in r["policies"]:
        return  # a report made before the EVM boots
    if ("evm_cost" in r) != (r["ima"] == "y"):
        bad(f"{v}: {'an' if 'evm_cost' in r else 'no'} instruction-counted boot with EVM's key")
        return
    if "evm_cost" not in r:
        return
    c = r["evm_cost"]
    if c["evm_initialised"] != "1":
        bad(f"{v}: EVM reads {c['evm_initialised']!r} in its instruction-counted boot, expected '1'")
    files = {"existing-rdonly": min(p["hot_files"], p["measured_files"]), "create": p.get("created_files")}
    for case in EVM_COST_CASES:
        x = c[case]
        if len(x["ns_per_op"]) != p["icount_repeats"]:
            bad(f"{v}: {case}: {len(x['ns_per_op'])} repeats, not {p['icount_repeats']}")
        for run in x["passes"]:
            if len(run) != p["passes"]:
                bad(f"{v}: {case}: a repeat of {len(run)} passes, not {p['passes']}")
        if x["files_per_pass"] != [files[case]]:
            bad(f"{v}: {case}: passes of {x['files_per_pass']} files, not {files[case]}")
        if any(ns <= 0 for run in x["passes"] for ns in run):
            bad(f"{v}: {case}: a pass took no time")
        if [min(run) for run in x["passes"]] != x["ns_per_op"]:
            bad(f"{v}: {case}: a repeat's figure is not its fastest pass")
        if any(not close(x[k], stats(x["ns_per_op"])[k]) for k in ("median", "min", "max")):
            bad(f"{v}: {case}: median, min or max do not follow from the repeats")
        ref = D.get(EVM_COST_REFERENCE, {}).get("evm_cost")
        if ref and not close(x["instructions_ratio_vs_vanilla"], ref[case]["median"] / x["median"]):
            bad(f"{v}: {case}: the ratio to {EVM_COST_REFERENCE} does not follow from the medians")


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
