#!/usr/bin/python3
"""The verdict (KNOWN, UNKNOWN or UNSURE) scored against answerable and unanswerable queries
(ops/eval.sh writes them to build/eval/verdict.tsv), and a threshold on top_relevance fitted
across collections.

usage: verdict_fit.py VERDICT_TSV [--threshold X]

VERDICT_TSV: a header line, then `collection<TAB>qid<TAB>answerable (1|0)<TAB>top_relevance
<TAB>verdict (KNOWN|UNKNOWN|UNSURE)<TAB>keyword<TAB>semantic` rows (the last two, the verdict's
evidence, may be absent). Prints, per collection and over all rows: the
verdict's accuracy (KNOWN on answerable, UNKNOWN on unanswerable; UNSURE is never right), the
share of queries it decided (not UNSURE) and its accuracy on those, its rate of KNOWN on
answerable and of UNKNOWN on unanswerable, the expected calibration error of top_relevance read as the
probability that the query is answerable (10 equal-width bins over [0, 1], values outside
clamped), with --threshold X the accuracy of "KNOWN when top_relevance >= X", and the
threshold chosen by leave-one-collection-out cross-validation (fitted on the other
collections, tested on the held-out one). Standard library only.
"""
import sys
from collections import OrderedDict

BINS = 10


def read_rows(path):
    """[(collection, qid, answerable bool, top_relevance float, verdict str, keyword float,
    semantic float)]; the evidence is 0 in a file written without it."""
    rows = []
    with open(path) as f:
        next(f, None)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) in (5, 7):
                ev = (float(parts[5]), float(parts[6])) if len(parts) == 7 else (0.0, 0.0)
                rows.append((parts[0], parts[1], parts[2] == "1", float(parts[3]), parts[4]) + ev)
    return rows


def write_rows(path, rows):
    """rows as read_rows gives them; the evidence columns are the recall's (verdict_logistic.py
    fits on them)."""
    with open(path, "w") as f:
        f.write("collection\tqid\tanswerable\ttop_relevance\tverdict\tkeyword\tsemantic\n")
        for c, q, a, p, v, kw, sem in rows:
            f.write(f"{c}\t{q}\t{1 if a else 0}\t{p:.9g}\t{v}\t{kw:.9g}\t{sem:.9g}\n")


def verdict_scores(rows):
    """{accuracy, decided, accuracy_decided, known_on_answerable, unknown_on_unanswerable,
    n_answerable, n_unanswerable, ece} of rows. decided: the share not UNSURE."""
    ans = [r for r in rows if r[2]]
    unans = [r for r in rows if not r[2]]
    decided = [r for r in rows if r[4] in ("KNOWN", "UNKNOWN")]
    correct = sum(1 for r in decided if (r[4] == "KNOWN") == r[2])
    return {
        "accuracy": correct / len(rows) if rows else None,
        "decided": len(decided) / len(rows) if rows else None,
        "accuracy_decided": correct / len(decided) if decided else None,
        "known_on_answerable": sum(1 for r in ans if r[4] == "KNOWN") / len(ans) if ans else None,
        "unknown_on_unanswerable": sum(1 for r in unans if r[4] == "UNKNOWN") / len(unans) if unans else None,
        "n_answerable": len(ans),
        "n_unanswerable": len(unans),
        "ece": ece([(r[3], r[2]) for r in rows]),
    }


def ece(pairs, bins=BINS):
    """Expected calibration error of [(probability, outcome bool)]: sum over equal-width bins of
    (bin size / n) * |mean probability - fraction of true outcomes| (probabilities clamped
    to [0, 1]; 1.0 falls in the last bin)."""
    if not pairs:
        return None
    groups = [[] for _ in range(bins)]
    for p, y in pairs:
        p = min(1.0, max(0.0, p))
        groups[min(int(p * bins), bins - 1)].append((p, y))
    total = 0.0
    for g in groups:
        if g:
            total += len(g) / len(pairs) * abs(sum(p for p, _ in g) / len(g) - sum(1 for _, y in g if y) / len(g))
    return total


def accuracy_at(rows, threshold):
    """Accuracy of "KNOWN when top_relevance >= threshold"."""
    if not rows:
        return None
    return sum(1 for r in rows if (r[3] >= threshold) == r[2]) / len(rows)


def best_threshold(rows):
    """The threshold with the highest accuracy on rows: candidates are the midpoints between
    successive distinct top_relevance values, and one below the lowest and above the highest;
    of equally accurate ones the lowest."""
    values = sorted(set(r[3] for r in rows))
    if not values:
        return None
    candidates = [values[0] - 1e-6] + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[-1] + 1e-6]
    return max(candidates, key=lambda t: (accuracy_at(rows, t), -t))


def by_collection(rows):
    out = OrderedDict()
    for r in rows:
        out.setdefault(r[0], []).append(r)
    return out


def cross_validate(rows):
    """{held-out collection: (threshold fitted on the others, its accuracy on the held-out)},
    for every collection when there are at least two."""
    groups = by_collection(rows)
    if len(groups) < 2:
        return {}
    out = OrderedDict()
    for held, test in groups.items():
        train = [r for r in rows if r[0] != held]
        t = best_threshold(train)
        out[held] = (t, accuracy_at(test, t))
    return out


def fmt(v, spec=".4f"):
    return "-" if v is None else format(v, spec)


def report(rows, threshold=None, out=sys.stdout):
    """Prints the verdict table (per collection and all), and the threshold analysis."""
    groups = by_collection(rows)
    cv = cross_validate(rows)
    head = ["collection", "answerable", "unanswerable", "accuracy", "decided", "acc. of decided", "KNOWN on ans.",
            "UNKNOWN on unans.", "ECE"]
    if threshold is not None:
        head.append(f"acc. at {threshold:g}")
    if cv:
        head += ["LOCO threshold", "LOCO acc."]
    lines = []
    for name, rs in list(groups.items()) + [("all", rows)]:
        s = verdict_scores(rs)
        cells = [name, str(s["n_answerable"]), str(s["n_unanswerable"]), fmt(s["accuracy"]), fmt(s["decided"]),
                 fmt(s["accuracy_decided"]), fmt(s["known_on_answerable"]), fmt(s["unknown_on_unanswerable"]),
                 fmt(s["ece"])]
        if threshold is not None:
            cells.append(fmt(accuracy_at(rs, threshold)))
        if cv:
            if name in cv:
                cells += [fmt(cv[name][0]), fmt(cv[name][1])]
            else:  # "all": the pooled held-out accuracy and the threshold fitted on every row
                held = [r for held_name, rs2 in groups.items() for r in rs2]
                pooled = sum(cv[n][1] * len(groups[n]) for n in cv) / len(held)
                cells += [fmt(best_threshold(rows)) + " (fit on all)", fmt(pooled)]
        lines.append(cells)
    print("| " + " | ".join(head) + " |", file=out)
    print("|" + "|".join("---" for _ in head) + "|", file=out)
    for cells in lines:
        print("| " + " | ".join(cells) + " |", file=out)


def main(argv):
    threshold = None
    if "--threshold" in argv:
        i = argv.index("--threshold")
        try:
            threshold = float(argv[i + 1])
        except (IndexError, ValueError):
            sys.stderr.write("verdict_fit: --threshold takes a number\n")
            sys.exit(2)
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        sys.exit(2)
    rows = read_rows(argv[0])
    if not rows:
        sys.stderr.write(f"verdict_fit: no rows in {argv[0]}\n")
        sys.exit(2)
    report(rows, threshold)


if __name__ == "__main__":
    main(sys.argv[1:])
