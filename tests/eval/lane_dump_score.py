#!/usr/bin/env python3
"""nDCG@10 of each lane and of fusion in a lane_dump output, over the queries judged in DIR.

usage: lane_dump_score.py DIR DUMP [--graded]
DIR is the collection lane_dump read (its qrels.tsv); DUMP its output. --graded scores with the
judgements' gains (Cranfield), otherwise binary. Only the "with" set of each query is scored.
Prints one line: lane=nDCG for every lane and fused, and the number of queries scored."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cranfield_metrics  # noqa: E402


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2 or any(a not in ("--graded",) for a in argv if a.startswith("--")):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    data, dump = args
    graded = "--graded" in argv
    qrels = {}
    with open(os.path.join(data, "qrels.tsv")) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3:
                qrels.setdefault(p[0], {})[p[1]] = float(p[2])
    sums, n = {}, 0
    with open(dump) as f:
        for line in f:
            d = json.loads(line)
            judged = qrels.get(d["q"], {})
            if d["set"] != "with" or not any(g > 0 for g in judged.values()):
                continue
            n += 1
            for name, hits in list(d["lanes"].items()) + [("fused", d["fused"])]:
                ranking = [h[0] for h in hits]
                sums[name] = sums.get(name, 0.0) + cranfield_metrics.ndcg(ranking, judged, binary=not graded)
    if n == 0:
        print("lane_dump_score: no judged query in the dump", file=sys.stderr)
        return 1
    print(" ".join(f"{k}={v / n:.4f}" for k, v in sorted(sums.items())), f"queries={n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
