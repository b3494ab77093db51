#!/usr/bin/python3
"""ctest eval_harness_med: ops/eval.sh's harness (eval_harness.py) on MED through the real
binary, with a small verdict sample. Checks
  (a) positive control: Xapian reproduces shared/eval/README.md's MED figures to 4 decimals,
      and so does the run file the harness wrote, read back by the scorer;
  (b) the table has the fused row and a row for every lane, and the summary their figures;
  (c) negative control of the scorer: the same runs against judgements whose refs are moved
      to other documents score near zero;
  (d) the verdict sets: one answerable and one unanswerable row per sampled query.

usage: eval_harness_test.py --binary PATH --eval-data DIR --out DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cranfield_metrics  # noqa: E402
import eval_harness  # noqa: E402

MED_README = {  # shared/eval/README.md, MED: nDCG@10, R@10, R@100, MRR@10
    "xapian-default": [0.6813, 0.3081, 0.7823, 0.8958],
    "xapian-k1.2-b0.75": [0.6937, 0.3164, 0.7908, 0.9139],
}
MED_DOCS = 1033
SAMPLE = 3

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--eval-data", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    r = subprocess.run([sys.executable, os.path.join(HERE, "eval_harness.py"), "--collections", "med", "--out", a.out,
                        "--binary", a.binary, "--eval-data", a.eval_data, "--verdict-sample", str(SAMPLE)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=110)
    print(r.stdout)
    print(r.stderr, file=sys.stderr)
    check(r.returncode == 0, f"the harness exits 0 (got {r.returncode})")
    if r.returncode != 0:
        return 1
    import json
    with open(os.path.join(a.out, "summary.json")) as f:
        summary = json.load(f)
    med = summary["collections"]["med"]

    # (a) positive control
    for run, expected in MED_README.items():
        got = [round(med["runs"][run][m], 4) for m in eval_harness.METRIC_NAMES]
        check(got == expected, f"{run} reproduces the README's MED figures {expected} (got {got})")
    check(med["peer_check"]["match"], "the harness's own peer check says the README is reproduced")
    qrels = cranfield_metrics.read_qrels(os.path.join(a.out, "data", "med", "qrels.tsv"), gains_given=True)
    xrun = os.path.join(a.out, "runs", "med", "xapian-k1.2-b0.75.run")
    _, ranked = cranfield_metrics.read_run(xrun, by_rank=True)
    ndcg = round(cranfield_metrics.evaluate(qrels, ranked)[1], 4)
    check(ndcg == MED_README["xapian-k1.2-b0.75"][0], f"the written Xapian run, read back, scores nDCG@10 {ndcg}")

    # (b) the table's rows
    with open(os.path.join(a.out, "table.md")) as f:
        table = f.read()
    sets = ["vasana-" + "+".join(s) for s in eval_harness.LANE_SETS]
    runs = ["vasana-fused", "vasana-fused-every-lane"] + ["vasana-" + lane for lane in eval_harness.LANES] + sets
    for run in runs + list(MED_README):
        check(f"| med | {run}" in table, f"the table has a row for {run}")
        check(run in med["runs"] and 0 <= med["runs"][run]["nDCG@10"] <= 1, f"the summary has {run}'s figures")
    check(med["runs"]["vasana-keyword"]["hits_per_query"] > 0, "the keyword lane alone returns hits")
    check(med["runs"]["vasana-fused"]["nDCG@10"] > 0.3, "fused recall finds relevant documents")
    # A lane set a query names fuses to within 5% of the best lane it names (the temporal lane,
    # which has nothing to say without a time in the query, does not drag the keyword lane down).
    for lanes in eval_harness.LANE_SETS:
        best = max(med["runs"]["vasana-" + lane]["nDCG@10"] for lane in lanes)
        got = med["runs"]["vasana-" + "+".join(lanes)]["nDCG@10"]
        check(got >= 0.95 * best, f"{'+'.join(lanes)} scores nDCG@10 {got:.4f}, its best lane {best:.4f}")
    check("| med | vasana-fused" in r.stdout, "the table is printed")

    # (c) negative control: every judged ref moved to another document
    shifted = {q: {str((int(ref) + MED_DOCS // 2) % MED_DOCS + 1): g for ref, g in judged.items()}
               for q, judged in qrels.items()}
    for run in ["xapian-k1.2-b0.75", "vasana-fused", "vasana-keyword"]:
        _, ranked = cranfield_metrics.read_run(os.path.join(a.out, "runs", "med", run + ".run"), by_rank=True)
        right = cranfield_metrics.evaluate(qrels, ranked)[1]
        wrong = cranfield_metrics.evaluate(shifted, ranked)[1]
        check(right > 0.3 and wrong < 0.05, f"{run}: nDCG@10 {right:.4f} with the judgements, {wrong:.4f} with shifted refs")

    # (d) verdict rows
    with open(os.path.join(a.out, "verdict.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    check(len(rows) == 2 * SAMPLE, f"verdict.tsv has {2 * SAMPLE} rows (got {len(rows)})")
    check(sorted(r[2] for r in rows) == ["0"] * SAMPLE + ["1"] * SAMPLE, "half answerable, half unanswerable")
    check(all(r[4] in ("KNOWN", "UNKNOWN", "UNSURE") for r in rows), "every row has a verdict")
    v = med["verdict"]
    check(v["n_answerable"] == SAMPLE and 0 <= v["accuracy"] <= 1 and 0 <= v["ece"] <= 1, "the verdict scores are in range")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
