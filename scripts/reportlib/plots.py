"""The report's PNG plots (matplotlib, Debian's python3-matplotlib)."""

import os

from .base import ANCHORS_2010, CASES, CLOCKS, REFERENCE, f1, kernel_version, ordered


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
