#!/usr/bin/env python3
"""Fits the host tuner's constants (coll/tuner/tuner_tables_host.cc) to
bench/tune/sweep.sh tables, with the step and side counts of
coll/tuner/host_model.h.

  bench/tune/fit_sweep.py -n RANKS FUNC=TABLE [FUNC=TABLE ...] [--small 32,128] [--tree-small 128,512]
  bench/tune/fit_sweep.py -n 2 allreduce=ar.txt allgather=ag.txt bcast=bc.txt

FUNC is a gpurun-bench collective name (allreduce, allgather, reducescatter,
bcast, reduce); a TABLE may be given twice for one FUNC (the minimum per cell
is kept). Prints, per (function, algorithm, protocol), the side bandwidth from
the two largest sizes, then per protocol a least-squares fit of
t = base_plus_work + hops * hop (+ extra_work for the tree's second work) over
the small sizes (ring and oneshot: --small; tree: --tree-small), with each
point's residual. Standard library only.
"""
import argparse
import sys

FUNCS = {"allreduce", "allgather", "reducescatter", "bcast", "reduce"}


def binary_tree_parent(n, rank):
    """Parent of `rank` in tree 0 (double_binary_tree.h BinaryTreeLinks)."""
    if rank == 0:
        return -1
    bit = 1
    while bit < n and (bit & rank) == 0:
        bit <<= 1
    up = (rank ^ bit) | (bit << 1)
    return up if up < n else rank ^ bit


def tree_depth(n, tree):
    """Deepest rank-to-root path of tree 0 or 1 (1: mirrored or shifted)."""
    def base(r):
        if tree == 0:
            return r
        return (r - 1) % n if n % 2 == 1 else n - 1 - r
    depth = 0
    for r in range(n):
        d, x = 0, base(r)
        while binary_tree_parent(n, x) >= 0:
            x = binary_tree_parent(n, x)
            d += 1
        depth = max(depth, d)
    return depth


def ring_hops_sides(func, n):
    if func == "allreduce":
        return 2 * (n - 1), 4 * (n - 1) / n
    if func in ("allgather", "reducescatter"):
        return n - 1, 2 * (n - 1) / n
    return n - 1, 1 if n == 2 else 2


def hops_sides(func, algo, n):
    """Hops on the critical path and sides per byte (host_model.h)."""
    if algo == "ring":
        return ring_hops_sides(func, n)
    if algo == "oneshot":
        return n - 1, 2 * (n - 1)
    return 2 * (tree_depth(n, 0) + tree_depth(n, 1)), 2 * tree_sides(n)


def tree_sides(n):
    """Mean over the two trees of the busiest rank's children + parent."""
    if n <= 1:
        return 0
    return 1 if n == 2 else 2 if n == 3 else 3


def load(path):
    table, header = {}, None
    for line in open(path):
        fields = line.split()
        if not fields or line.startswith("#"):
            continue
        if fields[0] == "bytes":
            header = fields[1:]
        elif fields[0].isdigit() and header:
            table[int(fields[0])] = dict(zip(header, map(float, fields[1:])))
    return table


def lstsq(rows, y):
    k = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(k)] + [sum(r[i] * v for r, v in zip(rows, y))]
         for i in range(k)]
    for i in range(k):
        pivot = m[i][i]
        if abs(pivot) < 1e-12:
            return None
        m[i] = [v / pivot for v in m[i]]
        for j in range(k):
            if j != i:
                m[j] = [a - m[j][i] * b for a, b in zip(m[j], m[i])]
    return [m[i][k] for i in range(k)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, required=True, help="ranks of the sweeps")
    parser.add_argument("tables", nargs="+", help="FUNC=TABLE")
    parser.add_argument("--small", default="32,128", help="ring sizes for the latency fit")
    parser.add_argument("--tree-small", default="128,512", help="tree sizes for the latency fit")
    args = parser.parse_args()
    n = args.n
    data = {}
    for item in args.tables:
        func, _, path = item.partition("=")
        if func not in FUNCS or not path:
            sys.exit("fit_sweep.py: '%s' is not FUNC=TABLE with FUNC one of %s" % (item, ", ".join(sorted(FUNCS))))
        table = load(path)
        merged = data.setdefault(func, {})
        for size, cells in table.items():
            for key, t in cells.items():
                row = merged.setdefault(size, {})
                row[key] = min(row.get(key, t), t)

    bw = {}
    for func, table in sorted(data.items()):
        sizes = sorted(table)
        lo, hi = sizes[-2], sizes[-1]
        for key in table[hi]:
            sides = hops_sides(func, key.split("/")[0], n)[1]
            bw[func, key] = sides * (hi - lo) / ((table[hi][key] - table[lo][key]) * 1e3)
            print("%-14s %-13s side bandwidth %6.2f GB/s (%d-%d B)" % (func, key, bw[func, key], lo, hi))

    ring_small = [int(s) for s in args.small.split(",")]
    tree_small = [int(s) for s in args.tree_small.split(",")]
    for proto in ("ll", "ll128", "simple"):
        rows, y, labels = [], [], []
        for func, table in sorted(data.items()):
            for algo in ("ring", "tree", "oneshot"):
                key = algo + "/" + proto
                if key not in table[max(table)]:
                    continue
                for size in tree_small if algo == "tree" else ring_small:
                    if key not in table.get(size, {}):
                        continue
                    hops, sides = hops_sides(func, algo, n)
                    rows.append([1, hops, 1 if algo == "tree" else 0])
                    y.append(table[size][key] - size * sides / (bw[func, key] * 1e3))
                    labels.append("%s %s %d" % (func, key, size))
        if not any(r[2] for r in rows):
            rows = [r[:2] for r in rows]
        solution = lstsq(rows, y) if rows else None
        if solution is None:
            print("%s: not enough points to fit" % proto)
            continue
        names = ["base+work", "hop", "extra work"][: len(solution)]
        print("%s: %s" % (proto, ", ".join("%s %.3f us" % (a, b) for a, b in zip(names, solution))))
        for row, value, label in zip(rows, y, labels):
            print("    %-32s residual %+.3f us" % (label, value - sum(a * b for a, b in zip(row, solution))))


if __name__ == "__main__":
    main()
