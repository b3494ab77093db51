#!/usr/bin/env python3
"""One scorer for every run, Cranfield's and the other collections' (ops/eval.sh):
nDCG@10 (graded and binary), R@10, R@100, MRR@10.

usage: cranfield_metrics.py [--gains] [--by-rank] QRELS RUN [RUN ...] [--ratio RUN_A RUN_B]

Definitions follow trec_eval 9 (ndcg_cut.10, recall.10, recall.100; MRR@10 is recip_rank
cut at rank 10):
- Judgements: Cranfield's `qid docid code`; gain = 5 - code (code 1 -> 4 ... code 4 -> 1);
  code -1 (the paper the query was written from) has gain 0 and is not relevant. With
  --gains, `qid<TAB>docid<TAB>gain` lines (the qrels.tsv of shared/eval's to_jsonl.py and of
  cranfield_jsonl.py) give the gain itself. Relevant = gain >= 1.
- A run is TREC format `qid Q0 docid rank score tag`. As trec_eval does, the rank column is
  ignored: documents are ordered by score descending, ties by docid string descending. With
  --by-rank the rank column orders them instead (the engine's own order, ties included): how
  ops/eval.sh scores Xapian and vasana, and how shared/eval/README.md's peer figures were made
  (on LongMemEval turns the two orders differ, as equal turns tie).
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


def read_qrels(path, gains_given=False):
    """qid -> docid -> gain, for the queries with at least one relevant document. The file
    holds Cranfield codes, or the gains themselves when gains_given."""
    gains = defaultdict(dict)  # qid -> docid -> gain
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            qid, docid, value = parts[0], parts[1], int(parts[2])
            if gains_given:
                gains[qid][docid] = max(0, value)
            else:
                gains[qid][docid] = max(0, 5 - value) if value > 0 else 0
    return {q: g for q, g in gains.items() if any(v > 0 for v in g.values())}


def read_run(path, by_rank=False):
    """(tag, qid -> ranked docids) of a TREC run. Ordered as trec_eval orders (score
    descending, ties by docid descending), or with by_rank by the rank column: the engine's
    own order, ties included."""
    rows = defaultdict(list)  # qid -> [(score, docid)] or [(rank, docid)]
    tag = None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            qid, docid, rank, score = parts[0], parts[2], int(parts[3]), float(parts[4])
            tag = tag or (parts[5] if len(parts) > 5 else None)
            rows[qid].append((rank, docid) if by_rank else (score, docid))
    if by_rank:
        return tag or path, {qid: [d for _, d in sorted(docs)] for qid, docs in rows.items()}
    return tag or path, {qid: rank_hits(docs) for qid, docs in rows.items()}


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


def rank_hits(rows):
    """[(score, docid)] of one query -> docids in trec_eval's order: score descending, ties by
    docid string descending."""
    rows = sorted(rows, key=lambda sd: sd[1], reverse=True)  # docid descending ...
    rows.sort(key=lambda sd: sd[0], reverse=True)  # ... within score descending (stable)
    return [d for _, d in rows]


def per_query(qrels, ranked):
    """qid -> [metric values in METRICS order], for every judged query."""
    return {qid: [fn(ranked.get(qid, []), judged) for _, fn in METRICS] for qid, judged in qrels.items()}


def evaluate(qrels, ranked):
    sums = [0.0] * len(METRICS)
    for values in per_query(qrels, ranked).values():
        for i, v in enumerate(values):
            sums[i] += v
    return [s / len(qrels) for s in sums]


def main(argv):
    gains_given = "--gains" in argv
    by_rank = "--by-rank" in argv
    argv = [a for a in argv if a not in ("--gains", "--by-rank")]
    ratio = None
    if "--ratio" in argv:
        i = argv.index("--ratio")
        ratio = argv[i + 1:i + 3]
        argv = argv[:i] + argv[i + 3:]
        if len(ratio) != 2:
            sys.exit(__doc__)
    if len(argv) < 2:
        sys.exit(__doc__)
    qrels = read_qrels(argv[0], gains_given)
    results = {}
    missing = {}
    for path in argv[1:]:
        tag, ranked = read_run(path, by_rank)
        results[tag] = evaluate(qrels, ranked)
        missing[tag] = sum(1 for q in qrels if q not in ranked)

    width = max(len("run"), *(len(t) for t in results))
    cols = [max(len(name), 6) for name, _ in METRICS]
    print(f"{len(qrels)} judged queries")
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
