"""Fits the verdict's calibrated relevance (replica/verdict.hpp) on lane_dump output or on the
verdict rows ops/eval.sh writes.

usage: verdict_logistic.py [--band B] [--keyword-only] (NAME=DUMP | VERDICT.tsv) ...

Each DUMP is `lane_dump DIR --without` output for one collection (DIR in the to_jsonl.py
layout, with qrels.tsv). A judged query against its realm is answerable (label 1), the same
query against its realm without its relevant documents is not (label 0). Each VERDICT.tsv is
verdict_fit.py's format with the evidence columns (build/eval/verdict.tsv, and the
agent-memory questions' build/eval/runs/agent-memory/verdict.tsv): its rows are labelled as
written, by collection. The features are what
the engine reads: the keyword lane's best share (capped at 1.5) and the semantic lane's best
cosine (at least 0). The model is logistic regression, each collection weighing the same
(every row weighs 1 / the rows of its collection), fitted by gradient descent. It prints the
coefficients fitted on every collection, and per collection the accuracy at 0.5 and the
expected calibration error (10 equal-width bins) of the model fitted on the other collections
(leave one collection out) and of the model fitted on all; then, for the model fitted on all
and the verdict's band (KNOWN at or above 0.5 + B, UNKNOWN below 0.5 - B, UNSURE between;
--band, default 0.15), the share of queries decided and the accuracy of those decided.
--keyword-only fits the model the engine uses when the semantic lane did not run (a query
without a vector where no text is embedded): the semantic feature is left out (0 everywhere).
"""
import json
import math
import sys
from collections import defaultdict


def features(row):
    keyword = row["lanes"].get("keyword", [])
    semantic = row["lanes"].get("semantic", [])
    return [min(1.5, keyword[0][1]) if keyword else 0.0, max(0.0, semantic[0][1]) if semantic else 0.0]


def read_rows(name, dump):
    rows = []
    with open(dump) as f:
        for line in f:
            d = json.loads(line)
            rows.append((name, 1 if d["set"] == "with" else 0, features(d)))
    return rows


def read_tsv(path):
    """verdict_fit.py rows with evidence: (collection, label, [keyword, semantic])."""
    rows = []
    with open(path) as f:
        next(f, None)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 7:
                rows.append((parts[0], 1 if parts[2] == "1" else 0, [min(1.5, float(parts[5])), max(0.0, float(parts[6]))]))
    return rows


def fit(rows, steps=2000, rate=1.0):
    per = defaultdict(int)
    for name, _, _ in rows:
        per[name] += 1
    w = [0.0, 0.0, 0.0]
    for _ in range(steps):
        grad = [0.0, 0.0, 0.0]
        total = 0.0
        for name, y, x in rows:
            xx = x + [1.0]
            a = 1.0 / per[name]
            p = 1.0 / (1.0 + math.exp(-sum(u * v for u, v in zip(w, xx))))
            for i in range(3):
                grad[i] += a * (p - y) * xx[i]
            total += a
        w = [u - rate * g / total for u, g in zip(w, grad)]
    return w


def prob(w, x):
    return 1.0 / (1.0 + math.exp(-(w[0] * x[0] + w[1] * x[1] + w[2])))


def accuracy(rows, w):
    return sum((prob(w, x) >= 0.5) == bool(y) for _, y, x in rows) / len(rows)


def ece(rows, w, bins=10):
    by_bin = defaultdict(list)
    for _, y, x in rows:
        p = prob(w, x)
        by_bin[min(bins - 1, int(p * bins))].append((p, y))
    return sum(len(b) / len(rows) * abs(sum(p for p, _ in b) / len(b) - sum(y for _, y in b) / len(b))
               for b in by_bin.values())


def main(argv):
    band = 0.15
    keyword_only = False
    while argv and argv[0] in ("--band", "--keyword-only"):
        if argv[0] == "--keyword-only":
            keyword_only = True
            argv = argv[1:]
        elif len(argv) >= 2:
            band = float(argv[1])
            argv = argv[2:]
        else:
            break
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    rows = []
    for arg in argv:
        if "=" in arg:
            name, dump = arg.split("=", 1)
            rows += read_rows(name, dump)
        else:
            rows += read_tsv(arg)
    if keyword_only:
        rows = [(name, y, [x[0], 0.0]) for name, y, x in rows]
    names = sorted({r[0] for r in rows})
    everything = fit(rows)
    print("fitted on every collection: keyword %.3f, semantic %.3f, intercept %.3f" % tuple(everything))
    print("| collection | queries | held-out accuracy | held-out ECE | accuracy (fit on all) | ECE (fit on all) |")
    print("|---|---|---|---|---|---|")
    for name in names:
        test = [r for r in rows if r[0] == name]
        train = [r for r in rows if r[0] != name]
        w = fit(train) if train else everything
        print("| %s | %d | %.3f | %.3f | %.3f | %.3f |" % (name, len(test), accuracy(test, w), ece(test, w),
                                                           accuracy(test, everything), ece(test, everything)))
    print()
    print("fitted on every collection, band %.2f:" % band)
    print("| collection | queries | decided | accuracy of decided |")
    print("|---|---|---|---|")
    for name in names + ["all"]:
        test = [r for r in rows if name == "all" or r[0] == name]
        decided = [(prob(everything, x) >= 0.5, y) for _, y, x in test
                   if prob(everything, x) >= 0.5 + band or prob(everything, x) < 0.5 - band]
        right = sum(1 for k, y in decided if k == bool(y))
        print("| %s | %d | %.3f (%d) | %s |" % (name, len(test), len(decided) / len(test), len(decided),
                                               "%.3f (%d/%d)" % (right / len(decided), right, len(decided)) if decided else "n/a"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
