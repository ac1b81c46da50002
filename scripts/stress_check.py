#!/usr/bin/python3
"""Judge what a guest "stress" run handed back (qemu/guest/stress.sh).

  stress_check.py run RUN_DIR    every check below; RUN_DIR/stress-check.json
  stress_check.py splats LOG     only the console scan of one log file
  stress_check.py kcsan LOG      only the KCSAN reports of one log file

Checks, each "pass", "fail" or "skip" with the reason:
  splats      no kernel report in the console: lockdep, RCU, KASAN, list
              and object debugging, slab corruption, WARN, BUG, oops
              (KCSAN's reports are judged apart, below)
  kcsan       no KCSAN data race in IMA code: a report whose racing
              functions, or the top frame of either access, are IMA's
              (ima_*, integrity_*) fails; races elsewhere in the kernel
              are counted and listed, not judged (skip: not a KCSAN kernel)
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


# KCSAN's report: "BUG: KCSAN: data-race in A / B", the two accesses with
# their stacks, then a line of "=" (kernel/kcsan/report.c).
KCSAN = re.compile(r"BUG: KCSAN: ")
KCSAN_END = re.compile(r"^(\[[ 0-9.]+\] )?={20,}")
KCSAN_ACCESS = re.compile(r"(read|write|read-write|race at unknown origin)", re.I)


def read_console(log):
    try:
        with open(log, errors="replace") as f:
            return f.read().splitlines()
    except OSError as e:
        sys.exit(f"error: cannot read the console log: {e}")


def kcsan_blocks(lines):
    """(first, last) line numbers of each KCSAN report in the console."""
    blocks, i = [], 0
    while i < len(lines):
        if KCSAN.search(lines[i]):
            j = i + 1
            while j < len(lines) and not KCSAN_END.search(lines[j]):
                j += 1
            blocks.append((i, min(j, len(lines) - 1)))
            i = j
        i += 1
    return blocks


def splats(log):
    """The lines of LOG that report a problem, each with what follows it;
    KCSAN's reports are not among them (see kcsan())."""
    lines = read_console(log)
    inside = {k for a, b in kcsan_blocks(lines) for k in range(a, b + 1)}
    found = []
    for i, line in enumerate(lines):
        if i not in inside and SPLAT.search(line):
            found.append("\n".join(lines[i:i + 12]))
    return found


def kcsan(log):
    """KCSAN's reports in LOG, each {text, in_ima, through_ima}: in IMA when
    the racing functions or the first frame under either access are IMA's;
    through IMA when an IMA frame is anywhere in the report."""
    lines = read_console(log)
    out = []
    for a, b in kcsan_blocks(lines):
        block = lines[a:b + 1]
        tops = [block[0]]
        for k, line in enumerate(block[:-1]):
            if KCSAN_ACCESS.search(line) and " by " in line:
                tops.append(block[k + 1])
        text = "\n".join(block)
        out.append({"text": text, "in_ima": any(IMA_FRAME.search(t) for t in tops),
                    "through_ima": bool(IMA_FRAME.search(text))})
    return out


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

    console = os.path.join(rundir, "console.log")
    found = splats(console)
    verdict("splats", "fail" if found else "pass",
            f"{len(found)} kernel report(s) in the console" if found
            else "no kernel report in the console", reports=found[:5])

    races = kcsan(console)
    # A KCSAN kernel says which mode it was built for ("kcsan: ... mode
    # configured"), and "kcsan: enabled early" only if it watches from boot:
    # built in but not enabled, it reports nothing, and that must not pass.
    text = read_console(console)
    built = any(re.search(r"kcsan: .*mode configured", line) for line in text)
    enabled = any(re.search(r"kcsan: enabled early", line) for line in text)
    if not races and not built and not enabled:
        verdict("kcsan", "skip", "not a KCSAN kernel")
    elif not races and not enabled:
        verdict("kcsan", "fail", "KCSAN is built in but never enabled "
                "(no \"kcsan: enabled early\": CONFIG_KCSAN_EARLY_ENABLE is off)")
    else:
        ima = [r["text"] for r in races if r["in_ima"]]
        through = sum(1 for r in races if r["through_ima"] and not r["in_ima"])
        elsewhere = [r["text"].splitlines()[0] for r in races if not r["through_ima"]]
        verdict("kcsan", "fail" if ima else "pass",
                f"{len(races)} KCSAN report(s): {len(ima)} in IMA code, {through} elsewhere "
                f"with IMA on the stack, {len(elsewhere)} elsewhere",
                total=len(races), in_ima=len(ima), through_ima=through,
                elsewhere=elsewhere[:20], reports=ima[:5])

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
    if len(argv) == 3 and argv[1] == "kcsan":
        races = kcsan(argv[2])
        for r in races:
            where = "in IMA" if r["in_ima"] else "IMA on the stack" if r["through_ima"] else "elsewhere"
            print(f"{where}: {r['text'].splitlines()[0].strip()}")
        n = sum(r["in_ima"] for r in races)
        print(f"{len(races)} KCSAN report(s) in {argv[2]}, {n} in IMA code")
        return 1 if n else 0
    if len(argv) == 3 and argv[1] == "run":
        if not os.path.isdir(os.path.join(argv[2], "out")):
            print(f"error: {argv[2]}/out does not exist: not a finished guest run",
                  file=sys.stderr)
            return 2
        return run(argv[2])
    print(__doc__.strip().split("\n\n")[1] if len(argv) > 1 and argv[1] == "--help"
          else "usage: stress_check.py run RUN_DIR | splats LOG | kcsan LOG", file=sys.stderr)
    return 0 if len(argv) > 1 and argv[1] == "--help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
