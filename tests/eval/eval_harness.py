#!/usr/bin/python3
"""Recall quality of the real `vasana` binary on every collection of shared/eval, side by side
with Xapian BM25 in the same run, scored by one scorer (cranfield_metrics.py); and the
KNOWN/UNKNOWN verdict on answerable and unanswerable queries. The agent-memory collection is
replayed op by op through the CLI and scored by agent_memory.py (its own metrics block; no
Xapian). Entry point: ops/eval.sh; docs/eval.md explains the method, the options and the table.

Runs under Debian's /usr/bin/python3 (python3-xapian); otherwise the standard library only.
"""
import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agent_memory  # noqa: E402
import cranfield_jsonl  # noqa: E402
import cranfield_metrics  # noqa: E402
import verdict_fit  # noqa: E402
from vasana_node import Node, NodeError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))

# name -> (converter: the collection's to_jsonl.py under the eval data directory with its
# arguments, or "cranfield" for cranfield_jsonl.py, or "agent-memory" for agent_memory.py's
# replay; graded gains)
COLLECTIONS = {
    "cranfield": ("cranfield", [], True),
    "med": ("med/to_jsonl.py", [], False),
    "cacm": ("cacm/to_jsonl.py", [], False),
    "lme-turn": ("longmemeval/to_jsonl.py", [], False),
    "lme-session": ("longmemeval/to_jsonl.py", ["--level", "session"], False),
    agent_memory.NAME: (agent_memory.NAME, [], False),
}

# Every lane the binary registers (replica/lane_registry.cpp), each run alone; "fused" names
# none, so the node runs its default set and fuses them. The lanes alone, the lane sets and
# "vasana-fused-every-lane" run on a second node with every lane on (EVERY_LANE: the HDC lane is
# off by default).
LANES = ["keyword", "semantic", "hdc", "graph", "temporal", "correction"]
EVERY_LANE = {"builtin_embedding": True, "hdc_lane": True}
# Lane sets a client may name, each run as `"lanes": [...]` and named "vasana-a+b": their fusion
# is compared with the best of the lanes they name (the table's "nDCG / best lane"). The last is
# the default set without the semantic and HDC lanes.
LANE_SETS = [["keyword", "temporal"], ["keyword", "semantic"], ["keyword", "hdc"],
             ["keyword", "graph", "temporal", "correction"]]
KIND = "insight"  # every imported memory: the default kind, kind prior 1.0
DEPTH = 100  # hits per query in a quality run
VERDICT_LIMIT = 10  # hits per query in a verdict run
DEFAULT_VERDICT_SAMPLE = 20
IMPORT_PARALLEL = 2  # `vasana import` processes at once

# shared/eval/README.md's Xapian peer figures: (run, [nDCG@10, R@10, R@100, MRR@10]); Cranfield's
# nDCG@10 is the graded one (the README's binary nDCG@10 is checked too, as "nDCG@10 binary").
PEER = {
    "cranfield": {"xapian-default": [0.3321, 0.3633, 0.7103, 0.5026], "xapian-k1.2-b0.75": [0.3472, 0.3769, 0.7232, 0.5205]},
    "med": {"xapian-default": [0.6813, 0.3081, 0.7823, 0.8958], "xapian-k1.2-b0.75": [0.6937, 0.3164, 0.7908, 0.9139]},
    "cacm": {"xapian-default": [0.4797, 0.3460, 0.6635, 0.7329], "xapian-k1.2-b0.75": [0.4960, 0.3577, 0.6867, 0.7447]},
    "lme-turn": {"xapian-default": [0.5987, 0.7546, 0.9398, 0.5799], "xapian-k1.2-b0.75": [0.6553, 0.8102, 0.9491, 0.6599]},
    "lme-session": {"xapian-default": [0.9097, 0.9574, 1.0000, 0.9130], "xapian-k1.2-b0.75": [0.9125, 0.9574, 1.0000, 0.9167]},
}
PEER_BINARY_NDCG = {"cranfield": {"xapian-default": 0.3487, "xapian-k1.2-b0.75": 0.3636}}
METRIC_NAMES = ["nDCG@10", "R@10", "R@100", "MRR@10"]
STRONG_XAPIAN = "xapian-k1.2-b0.75"


def log(msg):
    print(f"eval: {msg}", file=sys.stderr, flush=True)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------------------------
# Data


class Collection:
    def __init__(self, name, data_dir, graded):
        self.name = name
        self.dir = data_dir
        self.graded = graded
        self.queries = read_jsonl(os.path.join(data_dir, "queries.jsonl"))
        self.qrels = cranfield_metrics.read_qrels(os.path.join(data_dir, "qrels.tsv"), gains_given=True)
        self.queries = [q for q in self.queries if q["id"] in self.qrels]
        self.realms = sorted({q["realm"] for q in self.queries})

    def docs(self, realm):
        return read_jsonl(os.path.join(self.dir, "realms", realm + ".jsonl"))


def convert(name, eval_data, out):
    script, args, graded = COLLECTIONS[name]
    data_dir = os.path.join(out, "data", name)
    os.makedirs(data_dir, exist_ok=True)
    if script == "cranfield":
        realms, queries, qrels = cranfield_jsonl.load(os.path.join(eval_data, "cranfield"))
        cranfield_jsonl.write(data_dir, realms, queries, qrels)
    else:
        path = os.path.join(eval_data, script)
        if not os.path.exists(path):
            raise SystemExit(f"eval: {path} is missing (--eval-data names shared/eval)")
        subprocess.run([sys.executable, path, data_dir] + args, check=True, stdout=subprocess.DEVNULL)
    return Collection(name, data_dir, graded)


# ---------------------------------------------------------------------------------------------
# Scoring


def score(coll, ranked):
    """[nDCG@10, R@10, R@100, MRR@10] means over the collection's judged queries; nDCG graded
    for graded collections, binary otherwise (the same where every gain is 1)."""
    v = cranfield_metrics.evaluate(coll.qrels, ranked)
    return [v[0] if coll.graded else v[1], v[2], v[3], v[4]], v[1]


def write_run(path, tag, run):
    """TREC run: qid Q0 ref rank score tag, in the engine's order."""
    with open(path, "w") as f:
        for qid, hits in run.items():
            for rank, (ref, s) in enumerate(hits, start=1):
                f.write(f"{qid} Q0 {ref} {rank} {s:.9g} {tag}\n")


def ranked_of(run):
    """qid -> refs in the engine's order (how the README's peer figures were made)."""
    return {qid: [ref for ref, _ in hits] for qid, hits in run.items()}


# ---------------------------------------------------------------------------------------------
# vasana


def import_file(coll, realm, docs, out):
    """The realm's documents as `vasana import` lines: ref, text (documents with empty text
    left out: import refuses them), kind KIND."""
    path = os.path.join(out, "import", coll.name, realm + ".jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_jsonl(path, [{"ref": d["ref"], "text": d["text"], "kind": KIND} for d in docs if d["text"]])
    return path


def count_lines(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.strip())


def import_collection(node, coll, out, timing):
    """Imports the collection's realms into node."""
    jobs = [(realm, import_file(coll, realm, coll.docs(realm), out)) for realm in coll.realms]
    n = sum(count_lines(p) for _, p in jobs)
    log(f"{coll.name}: importing {n} memories into {len(jobs)} realm(s)")
    t = time.monotonic()
    node.import_many(jobs, IMPORT_PARALLEL, progress=progress_printer(coll.name, "realms imported", len(jobs)))
    timing["import_seconds"] = time.monotonic() - t
    timing["memories"] = n
    log(f"{coll.name}: imported {n} memories in {timing['import_seconds']:.1f} s "
        f"({n / max(timing['import_seconds'], 1e-9):.0f}/s)")


def run_names(every_lane):
    """The runs of the default node (fused) or of the node with every lane on."""
    if not every_lane:
        return ["vasana-fused"]
    return ["vasana-fused-every-lane"] + ["vasana-" + "+".join(s) for s in [[lane] for lane in LANES] + LANE_SETS]


def vasana_runs(node, coll, out, timing, every_lane=False):
    """Imports the collection's realms into node and runs every query as run_names() says.
    Returns {run name: {qid: [(ref, score)]}} and {run name: [error messages]}."""
    import_collection(node, coll, out, timing)
    names = run_names(every_lane)
    lines, slots = [], []
    for q in coll.queries:
        for name in names:
            obj = {"query": q["query"], "realms": [q["realm"]], "limit": DEPTH}
            if not name.startswith("vasana-fused"):
                obj["lanes"] = name[len("vasana-"):].split("+")
            lines.append(obj)
            slots.append((name, q["id"]))
    log(f"{coll.name}: recall {len(lines)} queries ({len(coll.queries)} x {len(names)} runs, limit {DEPTH})")
    t = time.monotonic()
    batch = "vasana-queries" + ("-every-lane" if every_lane else "") + ".jsonl"
    answers = node.recall_batch(lines, os.path.join(out, "runs", coll.name, batch), DEPTH)
    timing["recall_seconds"] = time.monotonic() - t
    timing["recall_queries"] = len(lines)
    log(f"{coll.name}: {len(lines)} recalls in {timing['recall_seconds']:.1f} s")
    runs = {name: {} for name in names}
    errors = {name: [] for name in names}
    for (name, qid), a in zip(slots, answers):
        if "error" in a:
            errors[name].append(a["error"])
            continue
        runs[name][qid] = [(h["ref"], h["score"]) for h in a.get("hits", [])]
    return runs, errors


def progress_printer(name, what, total):
    step = max(1, total // 10)

    def progress(done, _total):
        if done == total or done % step == 0:
            log(f"{name}: {done}/{total} {what}")

    return progress


def verdict_sample(coll, n):
    """At most n judged queries, the first by sha256 of the query id (deterministic)."""
    qs = sorted(coll.queries, key=lambda q: hashlib.sha256(q["id"].encode()).hexdigest())
    return qs if n is None or n >= len(qs) else qs[:n]


def verdict_runs(node, coll, sample, out, timing):
    """Answerable: each sampled query against its realm. Unanswerable: the same query against
    `<realm>-without-<qid>`, the realm's documents less the query's relevant ones. Fused recall,
    limit VERDICT_LIMIT. Returns verdict.tsv rows."""
    jobs = []
    for q in sample:
        relevant = {ref for ref, g in coll.qrels[q["id"]].items() if g > 0}
        docs = [d for d in coll.docs(q["realm"]) if d["ref"] not in relevant]
        jobs.append((f"{q['realm']}-without-{q['id']}", import_file(coll, f"{q['realm']}-without-{q['id']}", docs, out)))
    n = sum(count_lines(p) for _, p in jobs)
    log(f"{coll.name}: verdict: importing {len(jobs)} realms without the relevant documents ({n} memories)")
    t = time.monotonic()
    node.import_many(jobs, IMPORT_PARALLEL, progress=progress_printer(coll.name, "verdict realms imported", len(jobs)))
    timing["verdict_import_seconds"] = time.monotonic() - t
    timing["verdict_memories"] = n
    log(f"{coll.name}: verdict: imported {n} memories in {timing['verdict_import_seconds']:.1f} s "
        f"({n / max(timing['verdict_import_seconds'], 1e-9):.0f}/s)")
    lines = []
    for q in sample:
        lines.append({"query": q["query"], "realms": [q["realm"]], "limit": VERDICT_LIMIT})
        lines.append({"query": q["query"], "realms": [f"{q['realm']}-without-{q['id']}"], "limit": VERDICT_LIMIT})
    t = time.monotonic()
    answers = node.recall_batch(lines, os.path.join(out, "runs", coll.name, "verdict-queries.jsonl"), VERDICT_LIMIT)
    timing["verdict_recall_seconds"] = time.monotonic() - t
    rows = []
    for i, q in enumerate(sample):
        for a, answerable in ((answers[2 * i], True), (answers[2 * i + 1], False)):
            if "error" in a:
                raise NodeError(f"{coll.name}: verdict query {q['id']} refused: {a['error']}")
            ev = a.get("evidence", {})
            rows.append((coll.name, q["id"], answerable, float(a["top_relevance"]), a["verdict"],
                         float(ev.get("keyword", 0)), float(ev.get("semantic", 0))))
    return rows


# ---------------------------------------------------------------------------------------------
# Table


def peer_check(coll, xruns, binary_ndcg):
    """Whether Xapian's figures equal the README's to 4 decimals; the differences if not."""
    out = {"match": True, "differences": []}
    for run, expected in PEER[coll.name].items():
        got = [round(v, 4) for v in xruns[run]]
        for name, e, g in zip(METRIC_NAMES, expected, got):
            if abs(e - g) > 5e-5:
                out["match"] = False
                out["differences"].append(f"{run} {name}: README {e:.4f}, here {g:.4f}")
        if coll.name in PEER_BINARY_NDCG:
            e, g = PEER_BINARY_NDCG[coll.name][run], round(binary_ndcg[run], 4)
            if abs(e - g) > 5e-5:
                out["match"] = False
                out["differences"].append(f"{run} nDCG@10 binary: README {e:.4f}, here {g:.4f}")
    return out


def ratio(a, b):
    return a / b if b else None


def table(summary):
    head = ["collection", "run", "nDCG@10", "R@10", "R@100", "MRR@10", "hits/q", "nDCG / best lane",
            "nDCG / Xapian k1.2", "verdict acc. (KNOWN ans. / UNKNOWN unans.)", "ECE"]
    rows = []
    for name, c in summary["collections"].items():
        runs = c["runs"]
        best_lane = c["best_lane"]
        best = runs[best_lane]["nDCG@10"] if best_lane else None
        xap = runs[STRONG_XAPIAN]["nDCG@10"] if STRONG_XAPIAN in runs else None
        for run, r in runs.items():
            label = run
            if r.get("errors"):
                label += f" (refused: {r['errors']})"
            elif run.startswith("vasana-") and r["hits_per_query"] == 0:
                label += " (no hits for any query)"
            if c.get("depth"):
                label += f" (top {c['depth']})"
            # A figure the collection's run does not give (None) reads "n/a".
            cells = [name + (" (graded)" if c["graded"] else ""), label] + [
                "n/a" if r[m] is None else f"{r[m]:.4f}" for m in METRIC_NAMES]
            cells.append(f"{r['hits_per_query']:.1f}")
            vasana = run.startswith("vasana-")
            # A lane set is held to the best of the lanes it names.
            named = ["vasana-" + lane for lane in run[len("vasana-"):].split("+")] if "+" in run else []
            if named and all(n in runs for n in named):
                cells.append(fmt(ratio(r["nDCG@10"], max(runs[n]["nDCG@10"] for n in named))))
            else:
                cells.append(("n/a" if best is None else fmt(ratio(r["nDCG@10"], best))) if vasana else "")
            cells.append("n/a" if xap is None else fmt(ratio(r["nDCG@10"], xap)))
            v = c.get("verdict")
            if run == "vasana-fused" and v:
                n = (f"{v['n_answerable']}" if v["n_answerable"] == v["n_unanswerable"]
                     else f"{v['n_answerable']} + {v['n_unanswerable']}")
                cells.append(f"{v['accuracy']:.3f} ({v['known_on_answerable']:.3f} / {v['unknown_on_unanswerable']:.3f}),"
                             f" {n} q, {v['decided']:.2f} decided")
                cells.append(f"{v['ece']:.3f}")
            else:
                cells += ["", ""]
            rows.append(cells)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def fmt(v):
    return "-" if v is None else f"{v:.3f}"


# ---------------------------------------------------------------------------------------------
# agent-memory


def agent_memory_entry(binary, eval_data, out):
    """agent_memory.py's replay of every realm, each on its own node, as a summary entry: the
    fused row's figures over the answerable queries (nDCG@10, R@10, MRR@10 from qrels.tsv;
    R@100 does not apply at 10 hits a query), the verdict over every query (answerable and
    unanswerable as the set labels them), and the set's own metrics under "agent_memory".
    Returns the entry and the verdict rows (verdict_fit.py's, kept apart from the other
    collections' verdict sets)."""
    run_dir = os.path.join(out, "runs", agent_memory.NAME)
    log(f"{agent_memory.NAME}: replaying every realm's ops through the CLI, then its queries (limit {agent_memory.K})")
    am, results = agent_memory.evaluate(binary, eval_data, run_dir, log=log)
    m = am["metrics"]["all"]
    fused = {"nDCG@10": m["nDCG@10"]["rate"], "R@10": m["R@10"]["rate"], "R@100": None, "MRR@10": m["MRR@10"]["rate"],
             "hits_per_query": sum(len(r["hits"]) for r in results) / len(results) if results else 0.0,
             "queries_with_hits": sum(1 for r in results if r["hits"])}
    errors = am["invariants"]["errors"]
    if errors:
        fused["errors"] = f"{len(errors)} queries, e.g. {errors[0]}"
    rows = agent_memory.verdict_rows(results)
    entry = {"graded": False, "queries": am["queries"], "realms": len(am["realms"]), "depth": agent_memory.K,
             "runs": {"vasana-fused": fused}, "best_lane": None, "fused_over_best_lane": None,
             "fused_over_xapian": None, "verdict": verdict_fit.verdict_scores(rows),
             "agent_memory": am, "seconds": am["seconds"]}
    failed = sum(len(r["failed"]) for r in am["realms"].values())
    log(f"{agent_memory.NAME}: done in {am['seconds']:.1f} s; "
        + (f"{failed} ops not applied (see the block below)" if failed else "every op applied"))
    return entry, rows


def agent_memory_report(entry, threshold=None):
    """The set's metrics block, the verdict's accuracy at threshold when given, then what went
    wrong in the replay or the run, if anything."""
    am = entry["agent_memory"]
    lines = [f"agent-memory (each realm replayed op by op on its own node; fused recall, limit {entry['depth']}; "
             "counts in parentheses):", agent_memory.report(am)]
    if threshold is not None:
        lines.append(f"verdict accuracy of KNOWN when top_relevance >= {threshold:g}: "
                     + fmt(entry.get("verdict_at_threshold")))
    for realm, r in am["realms"].items():
        lines.append(f"{realm}: {r['applied']} of {r['ops']} ops applied, {r['queries']} queries; replay "
                     f"{r['timing']['replay_seconds']:.1f} s, recall {r['timing']['recall_seconds']:.1f} s")
        for rec in r["failed"]:
            lines.append(f"  op line {rec['line']} ({rec['op']} {rec['ref']}) {rec['outcome']}: {rec['error']}")
    labels = {"errors": "queries without an answer", "forgotten_returned": "forgotten memories returned",
              "superseded_returned": "superseded memories returned", "ref_mismatches": "hits whose ref disagrees",
              "over_k": "queries with too many hits"}
    for key, what in labels.items():
        found = am["invariants"][key]
        if found:
            lines.append(f"{what}: {len(found)}, e.g. " + "; ".join(found[:3]))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ops/eval.sh", description=__doc__.split("\n\n")[0])
    p.add_argument("--collections", default=",".join(COLLECTIONS),
                   help="comma-separated, of " + ", ".join(COLLECTIONS) + " (default: all)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "eval"), help="output directory (default build/eval)")
    p.add_argument("--binary", default=os.path.join(ROOT, "build", "cli", "vasana"), help="the vasana binary")
    p.add_argument("--eval-data", default=os.environ.get("VASANA_EVAL_DATA", os.path.join(ROOT, "..", "shared", "eval")),
                   help="shared/eval (default $VASANA_EVAL_DATA, else ../shared/eval)")
    p.add_argument("--verdict-sample", type=int, default=DEFAULT_VERDICT_SAMPLE,
                   help=f"at most N queries per collection in the verdict sets (default {DEFAULT_VERDICT_SAMPLE}; 0: all)")
    p.add_argument("--skip-verdict", action="store_true", help="no verdict sets")
    p.add_argument("--threshold", type=float, help="also print the verdict's accuracy for KNOWN when top_relevance >= X")
    a = p.parse_args(argv)
    names = [n for n in a.collections.split(",") if n]
    unknown = [n for n in names if n not in COLLECTIONS]
    if unknown or not names:
        p.error(f"--collections: unknown {', '.join(unknown) or '(none given)'}; collections are {', '.join(COLLECTIONS)}")
    a.collections = names
    if a.verdict_sample < 0:
        p.error("--verdict-sample must be 0 (all queries) or more")
    if not os.path.isfile(a.binary) or not os.access(a.binary, os.X_OK):
        p.error(f"--binary: {a.binary} is not an executable file")
    if not os.path.isdir(a.eval_data):
        p.error(f"--eval-data: {a.eval_data} is not a directory")
    return a


def main(argv):
    a = parse_args(argv)
    xapian_version = None
    if any(n != agent_memory.NAME for n in a.collections):
        import xapian_runs  # python3-xapian: imported here so --help works without it
        xapian_version = xapian_runs.version()

    started = time.monotonic()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    version = subprocess.run([a.binary, "version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    summary = {"vasana": version, "binary": os.path.abspath(a.binary), "xapian": xapian_version,
               "eval_data": os.path.abspath(a.eval_data), "kind": KIND, "depth": DEPTH, "lanes": LANES, "lane_sets": LANE_SETS,
               "verdict_sample": None if a.skip_verdict else (a.verdict_sample or "all"), "collections": {}}
    verdict_rows = []
    log(f"{version}; Xapian {xapian_version or '(not needed)'}; collections {', '.join(a.collections)}")
    for name in a.collections:
        if name == agent_memory.NAME:
            entry, rows = agent_memory_entry(a.binary, a.eval_data, out)
            if a.threshold is not None:
                entry["verdict_at_threshold"] = verdict_fit.accuracy_at(rows, a.threshold)
            summary["collections"][name] = entry
            continue
        t0 = time.monotonic()
        coll = convert(name, a.eval_data, out)
        os.makedirs(os.path.join(out, "runs", name), exist_ok=True)
        log(f"{name}: {len(coll.queries)} judged queries, {len(coll.realms)} realm(s)")
        timing = {}
        t = time.monotonic()
        xruns = xapian_runs.runs(coll.dir, coll.queries)
        timing["xapian_seconds"] = time.monotonic() - t
        with Node(a.binary) as node:
            vruns, errors = vasana_runs(node, coll, out, timing)
            if not a.skip_verdict:
                sample = verdict_sample(coll, a.verdict_sample or None)
                rows = verdict_runs(node, coll, sample, out, timing)
                verdict_rows += rows
        with Node(a.binary, recall=EVERY_LANE) as node:
            timing["every_lane"] = {}
            every_runs, every_errors = vasana_runs(node, coll, out, timing["every_lane"], every_lane=True)
            vruns.update(every_runs)
            errors.update(every_errors)
        entry = {"graded": coll.graded, "queries": len(coll.queries), "realms": len(coll.realms), "runs": {}}
        binary_ndcg = {}
        xscores = {}
        for run, hits in list(xruns.items()) + list(vruns.items()):
            write_run(os.path.join(out, "runs", name, run + ".run"), run, hits)
            values, binary_ndcg[run] = score(coll, ranked_of(hits))
            xscores[run] = values
            n_hits = sum(len(h) for h in hits.values())
            entry["runs"][run] = dict(zip(METRIC_NAMES, values))
            entry["runs"][run]["hits_per_query"] = n_hits / len(coll.queries)
            entry["runs"][run]["queries_with_hits"] = sum(1 for h in hits.values() if h)
            if errors.get(run):
                entry["runs"][run]["errors"] = f"{len(errors[run])} queries, e.g. {errors[run][0]}"
        lanes = ["vasana-" + lane for lane in LANES if "vasana-" + lane in entry["runs"]]
        entry["best_lane"] = max(lanes, key=lambda r: entry["runs"][r]["nDCG@10"]) if lanes else None
        fused = entry["runs"]["vasana-fused"]["nDCG@10"]
        entry["fused_over_best_lane"] = ratio(fused, entry["runs"][entry["best_lane"]]["nDCG@10"])
        entry["fused_over_xapian"] = ratio(fused, entry["runs"][STRONG_XAPIAN]["nDCG@10"])
        entry["peer_check"] = peer_check(coll, xscores, binary_ndcg)
        if not a.skip_verdict:
            entry["verdict"] = verdict_fit.verdict_scores([r for r in verdict_rows if r[0] == name])
            entry["verdict"]["queries"] = sorted({r[1] for r in verdict_rows if r[0] == name})
        entry["timing"] = timing
        entry["seconds"] = time.monotonic() - t0
        summary["collections"][name] = entry
        check = entry["peer_check"]
        log(f"{name}: done in {entry['seconds']:.1f} s; Xapian reproduces shared/eval/README.md: "
            + ("yes" if check["match"] else "NO (" + "; ".join(check["differences"]) + ")"))

    summary["seconds"] = time.monotonic() - started
    if verdict_rows:
        verdict_fit.write_rows(os.path.join(out, "verdict.tsv"), verdict_rows)
        cv = verdict_fit.cross_validate(verdict_rows)
        summary["verdict_all"] = verdict_fit.verdict_scores(verdict_rows)
        summary["verdict_loco"] = {k: {"threshold": t, "accuracy": acc} for k, (t, acc) in cv.items()}
        summary["verdict_threshold_all"] = verdict_fit.best_threshold(verdict_rows)
        if a.threshold is not None:
            summary["verdict_at_threshold"] = {
                "threshold": a.threshold,
                **{n: verdict_fit.accuracy_at([r for r in verdict_rows if r[0] == n], a.threshold)
                   for n in a.collections if n != agent_memory.NAME},
                "all": verdict_fit.accuracy_at(verdict_rows, a.threshold)}
    text = table(summary)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text + "\n")
    head = f"{version}, Xapian {summary['xapian'] or 'not run'}"
    if any(n != agent_memory.NAME for n in a.collections):
        head += (f"; nDCG@10 graded on Cranfield, binary elsewhere; top {DEPTH}; verdict sets: "
                 + ("skipped" if a.skip_verdict else f"at most {a.verdict_sample or 'all'} queries per collection"))
    if agent_memory.NAME in a.collections:
        head += f"; {agent_memory.NAME}: top {agent_memory.K}, verdict on its own queries"
    print(head)
    print(text)
    for name, c in summary["collections"].items():
        if "peer_check" not in c:
            continue
        check = c["peer_check"]
        print(f"{name}: Xapian " + ("reproduces shared/eval/README.md to 4 decimals" if check["match"]
                                    else "DIFFERS from shared/eval/README.md: " + "; ".join(check["differences"])))
    if verdict_rows:
        print()
        print("Verdict (fused recall, limit 10): answerable = the query against its realm; unanswerable = "
              "against its realm without the query's relevant documents")
        verdict_fit.report(verdict_rows, a.threshold)
    if agent_memory.NAME in summary["collections"]:
        print()
        print(agent_memory_report(summary["collections"][agent_memory.NAME], a.threshold))
    print(f"\nwall time {summary['seconds']:.0f} s; runs, summary.json, table.md"
          + (", verdict.tsv" if verdict_rows else "") + f" in {out}")
    return 0


def _terminated(signum, _frame):
    raise KeyboardInterrupt  # unwinds through `with Node`, which stops the node


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminated)
    try:
        sys.exit(main(sys.argv[1:]))
    except NodeError as e:
        log(f"failed: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
