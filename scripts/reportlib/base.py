"""The report's shared pieces: its constants (the cases, clocks, caches,
references and the 2010 figures), reading the guest's files, statistics,
and the Markdown helpers that every section uses."""

import json
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


# Kmallocs too large for a slab cache (more than two pages: an rhashtable's
# bucket array, for one) come whole from the page allocator; the report
# counts them as this one more cache.
LARGE_KMALLOC = "(kmalloc of whole pages)"


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


MT_MODES = ["rdonly", "rdwr"]


# The reference of the two-CPU throughput table: vanilla with two CPUs.
MT_REFERENCE = "vanilla-smp"


# One class line of /proc/lock_stat: "name: con-bounces contentions
# waittime-min -max -total -avg acq-bounces acquisitions holdtime-..."
# (kernel/locking/lockdep_proc.c; rwlocks get a "-R" and a "-W" line).
LOCK_STAT_LINE = re.compile(r"^\s*(\S.*?):\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s")


LOCK_FIELDS = ["con_bounces", "contentions", "acq_bounces", "acquisitions"]


IMA_LOCK_NAME = re.compile(r"(?<![a-z])(ima|iint)(?=[_>\-\[]|$)")
# The lock class of every rhashtable's bucket locks (lib/rhashtable.c names
# one for all tables): IMA's iint table takes it to insert and erase.
TABLE_LOCK = "rhashtable_bucket"


def class_per_1000_opens(two_cpu_variant, prefix, modes):
    """Acquisitions and acq-bounces of the lock classes named PREFIX... per
    1,000 opens, over every repeat of MODES of one CONFIG_LOCK_STAT variant."""
    reps = [r for m in modes for r in two_cpu_variant["modes"][m]["lock_stat"]["repeats"]]
    opens = sum(r["opens"] for r in reps)
    return {k: 1000 * sum(c.get(k, 0) for r in reps for n, c in r["classes"].items()
                          if n.startswith(prefix)) / opens
            for k in ("acquisitions", "acq_bounces")}


def mt_repeats(params):
    """Two-CPU repeats per variant: each round's boot runs an equal share."""
    rounds = params.get("smp_rounds", 1)
    return rounds * -(-params["repeats"] // rounds)


# The distribution-stack boots. evm: EVM given an HMAC key, IMA appraising
# in fix mode under appraise_tcb, so the files root reads are labelled, then
# read again from the disk and verified. Reports made before it have none.
POLICIES = ["none", "tcb", "evm"]


POLICY_TEXT = {"none": "no IMA policy (a distribution's default boot)", "tcb": "`ima_policy=tcb`",
               "evm": "EVM's HMAC key, `ima_policy=appraise_tcb` (fix mode)"}
POLICY_CMDLINE = {"none": "none", "tcb": "ima_policy=tcb", "evm": "ima_policy=appraise_tcb"}


# The guests with Landlock (file_blob): booted once, instruction-counted,
# into raw/VARIANT/blob-icount; their reference is vanilla with Landlock.
FILE_BLOB_CLOCK = "blob-icount"
FILE_BLOB_REFERENCE = "vanilla-landlock"
FILE_BLOB_VARIANTS = ["vanilla-landlock", "lookup-landlock", "fixed-landlock"]


DISTRO_REFERENCE = "noima-distro"
# With EVM's key (the distribution stack's instruction-counted boot): root
# opens and closes labelled files, and creates new ones; against vanilla's.
EVM_COST_CASES = ["existing-rdonly", "create"]
EVM_COST_TEXT = {"existing-rdonly": "open+close of a labelled file (O_RDONLY, root)",
                 "create": "creating a file (open O_CREAT, close: labelled)"}
EVM_COST_REFERENCE = "vanilla-distro"


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


def shares(by_cache, floor=4.0):
    """'cache X B' for the caches that carry at least floor bytes, largest first."""
    big = sorted(((x, n) for n, x in by_cache.items() if x >= floor), reverse=True)
    return ", ".join(f"`{n}` {f1(x)} B" for x, n in big) or "no cache above 4 B"
