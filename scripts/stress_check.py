#!/usr/bin/python3
"""Judge what a guest "stress" run handed back (qemu/guest/stress.sh).

  stress_check.py run RUN_DIR    every check below; RUN_DIR/stress-check.json
  stress_check.py splats LOG     only the console scan of one log file

Checks, each "pass", "fail" or "skip" with the reason:
  splats      no kernel report in the console: lockdep, RCU, KASAN, list
              and object debugging, slab corruption, WARN, BUG, oops
  stress      every stress phase ran to its end, nothing failed unexpectedly
  counters    no inode freed with open counts (the free-time check's report)
  kmemleak    no leak whose allocation backtrace goes through IMA
  escapes     every content root read in the plain phase is in the IMA log
              for its path; on the racy set, a violation entry for the
              path (open-writers, ToMToU) also accounts for it, and what
              was read through a read-write descriptor is not judged
  failslab    iint allocations did fail, file access went on, and no more
              contents went unmeasured than allocations failed
The PCR 10 replay is qemu/verify.sh's job (scripts/stress.sh runs both).
Exit: 0 all checks passed or were skipped, 1 a check failed, 2 bad usage.
"""
import json
import os
import re
import sys

# A report the kernel prints when something is wrong. Kept in one place:
# the selftest feeds qemu/test_data/console-splat.log through it.
SPLAT = re.compile(
    r"WARNING:|BUG:|BUG [\w.-]+ \(|Oops|general protection fault|"
    r"possible circular locking|possible recursive locking|"
    r"inconsistent lock state|suspicious RCU usage|"
    r"KASAN:|unreferenced object|ODEBUG:|list_(add|del) corruption|"
    r"detected stall|blocked for more than|scheduling while atomic|"
    r"sleeping function called from invalid context|Kernel panic")
IMA_FRAME = re.compile(r"\b(ima_|integrity_)\w*")


def splats(log):
    """The lines of LOG that report a problem, each with what follows it."""
    try:
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit(f"error: cannot read the console log: {e}")
    found = []
    for i, line in enumerate(lines):
        if SPLAT.search(line):
            found.append("\n".join(lines[i:i + 12]))
    return found


def read(path, default=None):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return default


def counts(out, phase):
    text = read(os.path.join(out, phase + ".counts"))
    if text is None:
        return None
    c = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            c[parts[0]] = int(parts[1])
    return c


def measurement_log(out):
    """(set of (path, digest) measured, set of paths with a violation)."""
    measured, violated = set(), set()
    text = read(os.path.join(out, "ascii_runtime_measurements"), "")
    for line in text.splitlines():
        f = line.split(" ", 4)
        if len(f) < 5:
            continue
        digest = f[3].split(":", 1)[-1]
        if set(f[1]) == {"0"}:
            violated.add(f[4])
        else:
            measured.add((f[4], digest))
    return measured, violated


def contents(out, phase):
    """[(kind, path, sha256)] of every distinct content read in PHASE."""
    index = read(os.path.join(out, phase + ".index"))
    sums = read(os.path.join(out, phase + ".sha256"))
    if index is None or sums is None:
        return None
    digest = {}
    for line in sums.splitlines():
        d, _, name = line.partition("  ")
        digest[name.strip()] = d
    rows = []
    for line in index.splitlines():
        name, kind, path = line.split(" ", 2)
        rows.append((kind, path, digest.get(name)))
    return rows


def escape_count(rows, measured, violated):
    """Measured, covered by a violation, escaped (with examples).

    Only the racy set may be excused by a violation: the stress never lets
    a reader of the locked set or an execution overlap a writer of the same
    file (and forks from a process holding no file), so IMA has no reason
    to log one there, and what was read must be measured as it was.
    """
    n_meas = n_viol = n_unjudged = 0
    escaped = []
    for kind, path, d in rows:
        if d and (path, d) in measured:
            n_meas += 1
        elif kind == "racy_rdwr":
            # Read through a read-write descriptor while other writers may
            # change the file: IMA documents no violation for that.
            n_unjudged += 1
        elif kind == "racy" and path in violated:
            n_viol += 1
        else:
            escaped.append(f"{kind} {path} sha256:{d}")
    return n_meas, n_viol, n_unjudged, escaped


def run(rundir):
    out = os.path.join(rundir, "out")
    res = {}

    def verdict(name, status, detail, **figures):
        res[name] = dict(status=status, detail=detail, **figures)

    found = splats(os.path.join(rundir, "console.log"))
    verdict("splats", "fail" if found else "pass",
            f"{len(found)} kernel report(s) in the console" if found
            else "no kernel report in the console", reports=found[:5])

    phases = ["stress"]
    injected = (read(os.path.join(out, "failslab.injected"), "") or "").strip()
    if injected and injected != "skipped":
        phases.append("failslab")
    bad = []
    ops = {}
    for p in phases:
        c = counts(out, p)
        status = (read(os.path.join(out, p + ".status"), "") or "").strip()
        if c is None or "total" not in c:
            bad.append(f"{p}: no operation counts (the stress did not finish)")
            continue
        ops[p] = c
        if status != "0" or c.get("unexpected", 0):
            bad.append(f"{p}: exit {status}, {c.get('unexpected', 0)} unexpected failures"
                       " (see out/guest.log)")
    verdict("stress", "fail" if bad else "pass",
            "; ".join(bad) or ", ".join(f"{p}: {c['total']} operations in {c['seconds']}s"
                                        for p, c in ops.items()), ops=ops)

    reports = (read(os.path.join(out, "open_count_reports"), "") or "").strip()
    if reports in ("", "none"):
        verdict("counters", "skip", "this kernel has no free-time open-count check")
    else:
        verdict("counters", "pass" if reports == "0" else "fail",
                f"open-count reports in dmesg: {reports}", open_count_reports=reports)

    leak = read(os.path.join(out, "kmemleak.txt"))
    if leak is None:
        verdict("kmemleak", "skip", "no kmemleak in this kernel")
    else:
        objs = leak.split("unreferenced object")[1:]
        # Judge the allocation backtrace, not the hex dump of the object.
        ima = [o.strip() for o in objs if IMA_FRAME.search(o.partition("backtrace")[2])]
        verdict("kmemleak", "fail" if ima else "pass",
                f"{len(objs)} suspected leak(s), {len(ima)} through IMA",
                suspected=len(objs), ima=len(ima), reports=ima[:3])

    measured, violated = measurement_log(out)
    rows = contents(out, "stress")
    if rows is None or not rows:
        verdict("escapes", "fail", "no recorded contents: the check did not run")
    else:
        n_meas, n_viol, n_unj, esc = escape_count(rows, measured, violated)
        verdict("escapes", "fail" if esc else "pass",
                f"{len(rows)} distinct contents read: {n_meas} measured, {n_viol} on a racy path "
                f"with a violation, {n_unj} unmeasured racy read-write reads (not judged), "
                f"{len(esc)} escaped measurement",
                recorded=len(rows), measured=n_meas, violation=n_viol, unjudged=n_unj,
                escaped=len(esc), examples=esc[:10])

    if "failslab" not in phases:
        verdict("failslab", "skip", "no fault injection in this run" if not injected
                else "this kernel has no failslab")
    else:
        rows = contents(out, "failslab") or []
        n_meas, n_viol, n_unj, esc = escape_count(rows, measured, violated)
        n_inj = int(injected)
        problems = []
        if n_inj == 0:
            problems.append("no iint allocation failed: the fault injection did not work")
        if len(esc) > n_inj:
            problems.append(f"{len(esc)} contents escaped but only {n_inj} allocations failed")
        if not rows:
            problems.append("no recorded contents")
        verdict("failslab", "fail" if problems else "pass",
                "; ".join(problems) or
                f"{n_inj} iint allocations failed; {len(rows)} contents read: {n_meas} "
                f"measured, {n_viol} on a racy path with a violation, {n_unj} racy read-write "
                f"reads not judged, {len(esc)} unmeasured (the access goes on unmeasured, as "
                "mainline and 6.12 do when the iint cannot be allocated under a measure-only policy)",
                injected=n_inj, recorded=len(rows), measured=n_meas, violation=n_viol,
                unjudged=n_unj, unmeasured=len(esc))

    with open(os.path.join(rundir, "stress-check.json"), "w") as f:
        json.dump(res, f, indent=1)
    failed = False
    for name, r in res.items():
        print(f"{r['status'].upper():4} {name}: {r['detail']}")
        for rep in r.get("reports", []):
            print("     | " + rep.replace("\n", "\n     | "))
        for ex in r.get("examples", [])[:5]:
            print(f"     | escaped: {ex}")
        failed |= r["status"] == "fail"
    return 1 if failed else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "splats":
        found = splats(argv[2])
        for s in found:
            print(s + "\n---")
        print(f"{len(found)} kernel report(s) in {argv[2]}")
        return 1 if found else 0
    if len(argv) == 3 and argv[1] == "run":
        if not os.path.isdir(os.path.join(argv[2], "out")):
            print(f"error: {argv[2]}/out does not exist: not a finished guest run",
                  file=sys.stderr)
            return 2
        return run(argv[2])
    print(__doc__.strip().split("\n\n")[1] if len(argv) > 1 and argv[1] == "--help"
          else "usage: stress_check.py run RUN_DIR | splats LOG", file=sys.stderr)
    return 0 if len(argv) > 1 and argv[1] == "--help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
