#!/usr/bin/env python3
"""One scorer for every Cranfield run: nDCG@10 (graded and binary), R@10, R@100, MRR@10.

usage: cranfield_metrics.py QRELS RUN [RUN ...] [--ratio RUN_A RUN_B]

Definitions follow trec_eval 9 (ndcg_cut.10, recall.10, recall.100; MRR@10 is recip_rank
cut at rank 10):
- Judgements: `qid docid code`; gain = 5 - code (code 1 -> 4 ... code 4 -> 1); code -1 (the
  paper the query was written from) has gain 0 and is not relevant. Relevant = gain >= 1.
- A run is TREC format `qid Q0 docid rank score tag`. As trec_eval does, the rank column is
  ignored: documents are ordered by score descending, ties by docid string descending.
- DCG@10 = sum over ranks i = 1..10 of gain_i / log2(i + 1). The ideal DCG@10 comes from all
  judged relevant documents of the query sorted by gain, cut at 10. nDCG binary uses gain 1
  for every relevant document.
- R@k = relevant documents in the top k / all relevant documents of the query.
- MRR@10 = 1 / rank of the first relevant document if it is in the top 10, else 0.
- Queries: those with at least one relevant judgement (trec_eval skips queries without
  judgements). A judged query missing from a run scores 0 on every metric (trec_eval -c), so
  a run cannot gain by returning nothing. Averages are means over the judged queries.
"""
import math
import sys
from collections import defaultdict

CUT = 10


def read_qrels(path):
    gains = defaultdict(dict)  # qid -> docid -> gain
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            qid, docid, code = parts[0], parts[1], int(parts[2])
            gains[qid][docid] = max(0, 5 - code) if code > 0 else 0
    return {q: g for q, g in gains.items() if any(v > 0 for v in g.values())}


def read_run(path):
    rows = defaultdict(list)  # qid -> [(score, docid)]
    tag = None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            qid, docid, score = parts[0], parts[2], float(parts[4])
            tag = tag or (parts[5] if len(parts) > 5 else None)
            rows[qid].append((score, docid))
    ranked = {}
    for qid, docs in rows.items():
        docs.sort(key=lambda sd: sd[1], reverse=True)  # docid descending ...
        docs.sort(key=lambda sd: sd[0], reverse=True)  # ... within score descending (stable)
        ranked[qid] = [d for _, d in docs]
    return tag or path, ranked


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg(ranking, judged, binary):
    def gain(d):
        g = judged.get(d, 0)
        return (1 if g > 0 else 0) if binary else g

    ideal = sorted((gain(d) for d in judged), reverse=True)[:CUT]
    best = dcg(ideal)
    return dcg([gain(d) for d in ranking[:CUT]]) / best if best > 0 else 0.0


def recall(ranking, judged, k):
    relevant = sum(1 for g in judged.values() if g > 0)
    return sum(1 for d in ranking[:k] if judged.get(d, 0) > 0) / relevant


def mrr(ranking, judged):
    for i, d in enumerate(ranking[:CUT]):
        if judged.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


METRICS = [
    ("nDCG@10 (graded)", lambda r, j: ndcg(r, j, binary=False)),
    ("nDCG@10 (binary)", lambda r, j: ndcg(r, j, binary=True)),
    ("R@10", lambda r, j: recall(r, j, 10)),
    ("R@100", lambda r, j: recall(r, j, 100)),
    ("MRR@10", mrr),
]


def evaluate(qrels, ranked):
    sums = [0.0] * len(METRICS)
    for qid, judged in qrels.items():
        ranking = ranked.get(qid, [])
        for i, (_, fn) in enumerate(METRICS):
            sums[i] += fn(ranking, judged)
    return [s / len(qrels) for s in sums]


def main(argv):
    ratio = None
    if "--ratio" in argv:
        i = argv.index("--ratio")
        ratio = argv[i + 1:i + 3]
        argv = argv[:i] + argv[i + 3:]
        if len(ratio) != 2:
            sys.exit(__doc__)
    if len(argv) < 2:
        sys.exit(__doc__)
    qrels = read_qrels(argv[0])
    results = {}
    missing = {}
    for path in argv[1:]:
        tag, ranked = read_run(path)
        results[tag] = evaluate(qrels, ranked)
        missing[tag] = sum(1 for q in qrels if q not in ranked)

    width = max(len("run"), *(len(t) for t in results))
    cols = [max(len(name), 6) for name, _ in METRICS]
    print(f"Cranfield: {len(qrels)} judged queries")
    print(f"| {'run':<{width}} | " + " | ".join(f"{name:<{c}}" for (name, _), c in zip(METRICS, cols)) + " |")
    print(f"|{'-' * (width + 2)}|" + "|".join("-" * (c + 2) for c in cols) + "|")
    for tag, values in results.items():
        cells = " | ".join(f"{v:<{c}.4f}" for c, v in zip(cols, values))
        print(f"| {tag:<{width}} | {cells} |")
    for tag, n in missing.items():
        if n:
            print(f"warning: {tag} has no results for {n} judged queries (scored 0)")
    if ratio:
        a, b = ratio
        if a not in results or b not in results:
            sys.exit(f"--ratio: unknown run {a if a not in results else b}")
        r = results[a][0] / results[b][0]
        print(f"nDCG@10 (graded) {a} / {b} = {r:.4f} ({'at least' if r >= 1 else 'BELOW'} {b})")


if __name__ == "__main__":
    main(sys.argv[1:])
