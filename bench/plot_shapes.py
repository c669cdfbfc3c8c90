# The shapes benchmark's summary: per (op, shape, dtype), the best of our
# variants (the op's kernel, a split-K one where it was run, tritonc.ops.dot) against the
# best peer (torch, cuBLAS, cuDNN, Triton), as a table and a PNG.
#   python3 bench/plot_shapes.py OUT.png RESULT.json [RESULT.json ...]
# merges the rows of several runs (one device; the title names their commits) into one plot.
import json
import sys


def is_ours(r):
    return r["who"].startswith("tritonc")


def summarize(rows):
    """[((op, shape, dtype), ours / best peer speed, best peer, our variant)]"""
    out = []
    for key in dict.fromkeys((r["op"], r["shape"], r["dtype"]) for r in rows):
        same = [r for r in rows if (r["op"], r["shape"], r["dtype"]) == key and r.get("ms")]
        mine = [r for r in same if is_ours(r)]
        others = [r for r in same if not is_ours(r)]
        if mine and others:
            best = min(others, key=lambda r: r["ms"])
            me = min(mine, key=lambda r: r["ms"])
            out.append((key, best["ms"] / me["ms"], best["who"], me["who"]))
    return out


def summary_text(rows):
    lines = ["== tritonc speed / best peer's (1.0 = as fast)"]
    for (op, shape, dt), ratio, who, me in summarize(rows):
        lines.append(f"{op:14} {shape:30} {dt:5} {ratio:6.2f}  ({me} vs best peer {who})")
    return "\n".join(lines)


def plot(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    s = summarize(rows)
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(s) + 1.5))
    labels = [f"{op} {dt} {shape}" + ("" if me == "tritonc" else f" ({me.split('-', 1)[1]})") + f"  vs {who}"
              for (op, shape, dt), _, who, me in s]
    ratios = [r for _, r, _, _ in s]
    ax.barh(range(len(s)), ratios,
            color=["tab:green" if r >= 0.9 else "tab:orange" if r >= 0.8 else "tab:red" for r in ratios])
    ax.set_yticks(range(len(s)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(1.0, color="k", lw=0.8)
    ax.axvline(0.8, color="gray", lw=0.5, ls="--")
    ax.set_xlabel("tritonc speed / best peer's in the same run (green >= 0.9, orange >= 0.8)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    out, files = sys.argv[1], sys.argv[2:]
    runs = [json.load(open(f)) for f in files]
    rows = [r for run in runs for r in run["rows"]]
    first = runs[0]
    print(summary_text(rows))
    commits = ", ".join(dict.fromkeys(r["versions"]["tritonc"] for r in runs))
    plot(rows, out, f"{first['device']}, {first['date'][:10]}, tritonc {commits}")
