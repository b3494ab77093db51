#!/usr/bin/python3
"""The agent-memory collection (shared/eval/agent-memory, its README.md defines the data and
the metrics) replayed through the real `vasana` binary and scored.

For each realm a fresh node (vasana_node.Node) gets the realm's ops in file order, each as the
CLI command a user would type:

  remember   vasana remember --realm REALM --ref REF --kind KIND [--valid-from DATE] -- TEXT
  update     vasana update ID --text TEXT
  forget     vasana forget ID
  correct    vasana correct --realm REALM --wrong W --right X --source ID
  supersede  vasana remember --realm REALM --ref REF --supersedes OLD_ID -- TEXT

(the supersede op carries no kind, so the memory gets the CLI's default kind). Each ref maps to
the id its remember returned; an update or correction keeps the mapping, a supersede adds one.
An op the node refuses is recorded with the refusal, and an op on a ref that was never stored
is recorded as skipped; neither stops the replay. Then every query of the realm goes to that
node only, `vasana recall --realm REALM --limit 10 --json -- QUERY`, and each hit's id maps back
to its ref through the replay's mapping.

Metrics (per realm and over all realms):
  right_first@1  answerable: hit 1's ref is expected and its text holds no stale phrase
  top3           answerable: an expected ref among hits 1 to 3
  MRR@10, nDCG@10  answerable, from qrels.tsv (binary gains, cranfield_metrics.py)
  stale_shown    questions with stale refs or phrases: some hit has a stale ref, or a text holding
                 a stale phrase (case-insensitive substring); split into `changed` and `forgotten`
  verdict        KNOWN expected on answerable, UNKNOWN on unanswerable (UNSURE is neither right
                 nor wrong); accuracy on all, on each class, on the `near_miss` and `forgotten`
                 subsets (query_types.tsv); the share UNSURE and the share wrong

usage: agent_memory.py --binary PATH [--eval-data DIR] [--out DIR] [--realms a,b] [--round-trip]

--round-trip: after its queries each realm is exported (`vasana export --history --deleted
--no-ids`), imported into a fresh node (`vasana import`) and asked the same questions there; it
prints how many get the same top 5 and the same verdict.
Standard library only.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cranfield_metrics  # noqa: E402
import verdict_fit  # noqa: E402
from vasana_node import IMPORT_TIMEOUT, CommandError, Node, NodeError  # noqa: E402

NAME = "agent-memory"
K = 10  # hits per query
KNOWN = "KNOWN"


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class AgentMemorySet:
    """The collection's files: ops per realm (file order), queries, qrels, tags per query."""

    def __init__(self, data_dir):
        self.dir = data_dir
        realm_dir = os.path.join(data_dir, "realms")
        suffix = ".ops.jsonl"
        self.ops = {f[:-len(suffix)]: read_jsonl(os.path.join(realm_dir, f))
                    for f in sorted(os.listdir(realm_dir)) if f.endswith(suffix)}
        self.queries = read_jsonl(os.path.join(data_dir, "queries.jsonl"))
        self.qrels = cranfield_metrics.read_qrels(os.path.join(data_dir, "qrels.tsv"), gains_given=True)
        self.types = read_types(os.path.join(data_dir, "query_types.tsv"))
        self.realms = list(self.ops)

    def realm_queries(self, realm):
        return [q for q in self.queries if q["realm"] == realm]


def read_types(path):
    """query_types.tsv (a header line, then `qid<TAB>tag,tag`) -> {qid: set of tags}."""
    types = {}
    with open(path, encoding="utf-8") as f:
        next(f, None)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[0]:
                types[parts[0]] = {t for t in parts[1].split(",") if t}
    return types


# ---------------------------------------------------------------------------------------------
# Replay


class Replay:
    """The outcome of one realm's ops: ref -> id, the refs forgotten and superseded, and one
    record per op (the op, the command's arguments, the id it acted on, or its refusal)."""

    def __init__(self, realm):
        self.realm = realm
        self.ids = {}  # ref -> memory id
        self.forgotten = set()  # refs
        self.superseded = set()  # refs
        self.expected_text = {}  # ref -> the text the set says the memory holds now
        self.records = []

    def refs_by_id(self):
        return {i: ref for ref, i in self.ids.items()}

    def applied(self):
        return sum(1 for r in self.records if r["outcome"] == "applied")

    def failed(self):
        return [r for r in self.records if r["outcome"] != "applied"]

    def candidates(self):
        """Conflict candidates as remember answered them: {"supersedes": how many supersedes,
        "named": how many of them had the memory they replace among their candidates,
        "remembers": plain remembers, "with_any": how many of those had any candidate}."""
        sup = [r for r in self.records if r["outcome"] == "applied" and r["op"] == "supersede"]
        plain = [r for r in self.records if r["outcome"] == "applied" and r["op"] == "remember"]
        return {"supersedes": len(sup), "named": sum(1 for r in sup if r["replaced_id"] in r["candidates"]),
                "remembers": len(plain), "with_any": sum(1 for r in plain if r["candidates"])}


def op_command(realm, op, ids):
    """The CLI arguments (command first, without --data and --json) that express op, given the
    ref -> id mapping so far; None and the missing ref when op names a ref not stored."""
    kind = op["op"]
    if kind == "remember":
        args = ["remember", "--realm", realm, "--ref", op["ref"], "--kind", op["kind"]]
        if op.get("valid_from"):
            args += ["--valid-from", op["valid_from"]]
        return args + ["--", op["text"]], None
    if kind == "supersede":
        if op["replaces"] not in ids:
            return None, op["replaces"]
        return ["remember", "--realm", realm, "--ref", op["ref"], "--supersedes", ids[op["replaces"]], "--", op["text"]], None
    ref = op["source_ref"] if kind == "correct" else op["ref"]
    if ref not in ids:
        return None, ref
    if kind == "update":
        return ["update", ids[ref], "--text=" + op["text"]], None
    if kind == "forget":
        return ["forget", ids[ref]], None
    if kind == "correct":
        return ["correct", "--realm", realm, "--wrong=" + op["wrong"], "--right=" + op["right"], "--source", ids[ref]], None
    raise ValueError(f"unknown op {kind!r}")


def replay(node, realm, ops):
    """Applies ops in file order through node.cli; returns a Replay."""
    rep = Replay(realm)
    for n, op in enumerate(ops, start=1):
        args, missing = op_command(realm, op, rep.ids)
        rec = {"line": n, "op": op["op"], "ref": op.get("ref", op.get("source_ref"))}
        if args is None:
            rec.update(outcome="skipped", error=f"ref {missing} was not stored")
            rep.records.append(rec)
            continue
        rec["args"] = args
        try:
            answer = node.cli(args)
        except CommandError as e:
            rec.update(outcome="refused", exit_code=e.returncode, error=e.stderr)
            rep.records.append(rec)
            continue
        rec["outcome"] = "applied"
        kind = op["op"]
        if kind in ("remember", "supersede"):
            rep.ids[op["ref"]] = answer["id"]
            rep.expected_text[op["ref"]] = op["text"]
            rec["id"] = answer["id"]
            rec["status"] = answer.get("status")
            rec["candidates"] = [c["id"] for c in answer.get("candidates", [])]
            if kind == "supersede":
                rep.superseded.add(op["replaces"])
                rec["replaced_id"] = rep.ids[op["replaces"]]
        elif kind == "update":
            rep.expected_text[op["ref"]] = op["text"]
            rec["id"] = rep.ids[op["ref"]]
        elif kind == "forget":
            rep.forgotten.add(op["ref"])
            rec["id"] = rep.ids[op["ref"]]
        elif kind == "correct":
            src = op["source_ref"]
            rep.expected_text[src] = rep.expected_text.get(src, "").replace(op["wrong"], op["right"], 1)
            rec["id"] = rep.ids[src]
            rec["correction"] = answer.get("id")
        rep.records.append(rec)
    return rep


def ask(node, realm, queries, refs_by_id, k=K):
    """Each query against realm on node: {"qid", "realm", "answerable", "verdict",
    "top_relevance", "hits": [{"id", "ref", "store_ref", "text"}], "corrections"} (with "error",
    no verdict and no hits when the CLI refused it)."""
    results = []
    for q in queries:
        try:
            a = node.cli(["recall", "--realm", realm, "--limit", str(k), "--", q["query"]])
        except CommandError as e:
            results.append({"qid": q["id"], "realm": realm, "answerable": q["answerable"], "error": e.stderr,
                            "verdict": None, "top_relevance": None, "hits": []})
            continue
        hits = [{"id": h["id"], "ref": refs_by_id.get(h["id"]), "store_ref": h.get("ref", ""), "text": h.get("text", "")}
                for h in a.get("hits", [])]
        results.append({"qid": q["id"], "realm": realm, "answerable": q["answerable"], "verdict": a.get("verdict"),
                        "top_relevance": a.get("top_relevance"), "evidence": a.get("evidence", {}), "hits": hits,
                        "corrections": a.get("corrections", [])})
    return results


# ---------------------------------------------------------------------------------------------
# Metrics: each takes a query of queries.jsonl and its result ({"verdict", "hits": [{"ref",
# "text"}]}).


def _holds_phrase(text, phrases):
    t = (text or "").casefold()
    return any(p.casefold() in t for p in phrases)


def right_first(q, result):
    """Hit 1's ref is in expect_refs and hit 1's text holds none of stale_phrases."""
    hits = result["hits"]
    return bool(hits) and hits[0]["ref"] in q["expect_refs"] and not _holds_phrase(hits[0]["text"], q["stale_phrases"])


def top3(q, result):
    return any(h["ref"] in q["expect_refs"] for h in result["hits"][:3])


def has_stale_info(q):
    return bool(q["stale_refs"] or q["stale_phrases"])


def stale_shown(q, result):
    """Some hit has a ref in stale_refs or a text holding a stale phrase (case-insensitive)."""
    return any(h["ref"] in q["stale_refs"] or _holds_phrase(h["text"], q["stale_phrases"]) for h in result["hits"])


def verdict_right(q, result):
    """KNOWN on an answerable question, UNKNOWN on an unanswerable one (UNSURE is never right)."""
    return result["verdict"] == (KNOWN if q["answerable"] else "UNKNOWN")


def verdict_wrong(q, result):
    """KNOWN on an unanswerable question, UNKNOWN on an answerable one (UNSURE is never wrong)."""
    return result["verdict"] == ("UNKNOWN" if q["answerable"] else KNOWN)


def _rate(flags):
    flags = list(flags)
    return {"rate": sum(flags) / len(flags) if flags else None, "count": sum(flags), "n": len(flags)}


def metrics(queries, results, types, qrels):
    """The README's metrics over queries (results in the same order): {name: {"rate", "count",
    "n"}} for the counted ones, MRR@10 and nDCG@10 as {"rate", "n"}."""
    pairs = list(zip(queries, results))
    answerable = [(q, r) for q, r in pairs if q["answerable"]]
    unanswerable = [(q, r) for q, r in pairs if not q["answerable"]]
    stale = [(q, r) for q, r in pairs if has_stale_info(q)]
    tags = lambda q: types.get(q["id"], set())  # noqa: E731
    ranked = [(q, [h["ref"] for h in r["hits"]]) for q, r in answerable]
    judged = [(qrels.get(q["id"], {}), refs) for q, refs in ranked]
    mrr = [cranfield_metrics.mrr(refs, j) if j else 0.0 for j, refs in judged]
    ndcg = [cranfield_metrics.ndcg(refs, j, binary=True) if j else 0.0 for j, refs in judged]
    return {
        "right_first@1": _rate(right_first(q, r) for q, r in answerable),
        "top3": _rate(top3(q, r) for q, r in answerable),
        "MRR@10": {"rate": sum(mrr) / len(mrr) if mrr else None, "n": len(mrr)},
        "nDCG@10": {"rate": sum(ndcg) / len(ndcg) if ndcg else None, "n": len(ndcg)},
        "R@10": _rate(any(j.get(ref, 0) > 0 for ref in refs[:10]) for j, refs in judged),
        "stale_shown": _rate(stale_shown(q, r) for q, r in stale),
        "stale_shown_changed": _rate(stale_shown(q, r) for q, r in stale if "changed" in tags(q)),
        "stale_shown_forgotten": _rate(stale_shown(q, r) for q, r in stale if "forgotten" in tags(q)),
        "verdict": _rate(verdict_right(q, r) for q, r in pairs),
        "verdict_unsure": _rate(not verdict_right(q, r) and not verdict_wrong(q, r) for q, r in pairs),
        "verdict_wrong": _rate(verdict_wrong(q, r) for q, r in pairs),
        "verdict_answerable": _rate(verdict_right(q, r) for q, r in answerable),
        "verdict_unanswerable": _rate(verdict_right(q, r) for q, r in unanswerable),
        "verdict_near_miss": _rate(verdict_right(q, r) for q, r in pairs if "near_miss" in tags(q)),
        "verdict_forgotten": _rate(verdict_right(q, r) for q, r in pairs if "forgotten" in tags(q)),
    }


# The block's columns: (metric key, heading).
COLUMNS = [
    ("right_first@1", "right first@1"), ("top3", "top-3"), ("MRR@10", "MRR@10"), ("nDCG@10", "nDCG@10"),
    ("stale_shown", "stale shown"), ("stale_shown_changed", "stale: changed"),
    ("stale_shown_forgotten", "stale: forgotten"), ("verdict", "verdict acc."),
    ("verdict_unsure", "verdict UNSURE"), ("verdict_wrong", "verdict wrong"),
    ("verdict_answerable", "verdict ans."), ("verdict_unanswerable", "verdict unans."),
    ("verdict_near_miss", "verdict near miss"), ("verdict_forgotten", "verdict forgotten"),
]


def _cell(m):
    if m["rate"] is None:
        return "n/a"
    if "count" in m:
        return f"{m['rate']:.3f} ({m['count']}/{m['n']})"
    return f"{m['rate']:.4f}"


def report(entry):
    """The metrics block (markdown table, a row per realm and `all`) of an evaluate() entry."""
    rows = list(entry["metrics"]["realms"].items()) + [("all", entry["metrics"]["all"])]
    head = ["realm"] + [h for _, h in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for name, m in rows:
        lines.append("| " + " | ".join([name] + [_cell(m[key]) for key, _ in COLUMNS]) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# One realm, and the collection


def round_trip(binary, node, realm, queries, results):
    """`vasana export` of the realm from node, `vasana import` of the file into a fresh node, and
    the queries asked there: how many get the same top 5 (by ref: every memory of the set has
    one) and the same verdict. {"answered", "same_top5", "same_verdict", "n", "lines"}."""
    path = os.path.join(node.dir, "export.jsonl")
    r = node._run(["export", "--data", node.data, "--realm", realm, "--history", "--deleted", "--no-ids", "--out", path],
                  timeout=IMPORT_TIMEOUT)
    if r.returncode != 0:
        raise NodeError(f"{NAME}: {realm}: export ended with {r.returncode}: {r.stderr.strip()}")
    with Node(binary) as copy:
        r = copy._run(["import", "--data", copy.data, "--realm", realm, path], timeout=IMPORT_TIMEOUT)
        if r.returncode != 0:
            raise NodeError(f"{NAME}: {realm}: import of the export ended with {r.returncode}: {r.stderr.strip()}")
        again = ask(copy, realm, queries, {})
    top5 = lambda res: [h["store_ref"] for h in res["hits"][:5]]  # noqa: E731
    with open(path, encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    return {"answered": sum(1 for b in again if not b.get("error") and b["verdict"] is not None),
            "same_top5": sum(1 for a, b in zip(results, again) if top5(a) == top5(b)),
            "same_verdict": sum(1 for a, b in zip(results, again) if a["verdict"] == b["verdict"]),
            "n": len(results), "lines": lines}


def run_realm(binary, data, realm, log=None, check_round_trip=False, recall=None):
    """A fresh node (recall: its [recall] configuration keys, as Node takes them), the realm's
    ops, its queries (and with check_round_trip, round_trip()). Returns (Replay, results,
    timing)."""
    timing = {}
    with Node(binary, recall=recall) as node:
        t = time.monotonic()
        rep = replay(node, realm, data.ops[realm])
        timing["replay_seconds"] = time.monotonic() - t
        t = time.monotonic()
        results = ask(node, realm, data.realm_queries(realm), rep.refs_by_id())
        timing["recall_seconds"] = time.monotonic() - t
        if check_round_trip:
            timing["round_trip"] = round_trip(binary, node, realm, data.realm_queries(realm), results)
    if log:
        log(f"{NAME}: {realm}: {rep.applied()}/{len(data.ops[realm])} ops applied in {timing['replay_seconds']:.1f} s, "
            f"{len(results)} recalls in {timing['recall_seconds']:.1f} s")
    return rep, results, timing


def write_outputs(out_dir, data, replays, results):
    """Per-op replay records, every hit of every query (hits.jsonl), one line per query
    (queries.tsv: qid, realm, answerable, verdict, top_relevance, right_first, top3,
    stale_shown, refs in order), a TREC run (vasana-fused.run) and the verdict rows in
    verdict_fit.py's format (verdict.tsv)."""
    os.makedirs(out_dir, exist_ok=True)
    for realm, rep in replays.items():
        with open(os.path.join(out_dir, realm + ".replay.jsonl"), "w", encoding="utf-8") as f:
            for rec in rep.records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    by_id = {q["id"]: q for q in data.queries}
    with open(os.path.join(out_dir, "hits.jsonl"), "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(out_dir, "queries.tsv"), "w", encoding="utf-8") as f:
        f.write("qid\trealm\tanswerable\tverdict\ttop_relevance\tright_first\ttop3\tstale_shown\trefs\n")
        for r in results:
            q = by_id[r["qid"]]
            flag = lambda ok: "1" if ok else "0"  # noqa: E731
            rf = flag(right_first(q, r)) if q["answerable"] else "-"
            t3 = flag(top3(q, r)) if q["answerable"] else "-"
            st = flag(stale_shown(q, r)) if has_stale_info(q) else "-"
            refs = ",".join(h["ref"] or ("?" + h["id"]) for h in r["hits"])  # "?ID": an id the replay did not map
            tr = "-" if r["top_relevance"] is None else f"{r['top_relevance']:.9g}"
            f.write(f"{r['qid']}\t{q['realm']}\t{flag(q['answerable'])}\t{r['verdict'] or 'ERROR'}\t{tr}\t{rf}\t{t3}\t{st}\t{refs}\n")
    with open(os.path.join(out_dir, "vasana-fused.run"), "w") as f:
        for r in results:
            for rank, h in enumerate(r["hits"], start=1):
                f.write(f"{r['qid']} Q0 {h['ref'] or h['id']} {rank} {K + 1 - rank} vasana-fused\n")
    verdict_fit.write_rows(os.path.join(out_dir, "verdict.tsv"), verdict_rows(results))


def verdict_rows(results):
    """verdict_fit.py's rows (collection, qid, answerable, top_relevance, verdict) of the
    queries that got a verdict."""
    return [(NAME, r["qid"], bool(r["answerable"]), float(r["top_relevance"]), r["verdict"],
             float(r.get("evidence", {}).get("keyword", 0)), float(r.get("evidence", {}).get("semantic", 0)))
            for r in results if r["verdict"] is not None]


def evaluate(binary, eval_data, out_dir, realms=None, log=None, check_round_trip=False, recall=None):
    """Replays each realm (all by default) on its own node, runs its queries and writes the
    outputs to out_dir. Returns (entry, results): the summary entry (ops and queries per realm,
    the refusals, the metrics per realm and over all, the invariants checked on the run:
    forgotten or superseded memories returned, hits whose ref disagrees; timings) and every
    query's result in queries.jsonl order."""
    t0 = time.monotonic()
    data = AgentMemorySet(os.path.join(eval_data, NAME))
    realms = realms or data.realms
    unknown = [r for r in realms if r not in data.ops]
    if unknown:
        raise ValueError(f"{NAME}: no realm {', '.join(unknown)} (realms: {', '.join(data.realms)})")
    replays, results, timing = {}, [], {}
    for realm in realms:
        rep, res, timing[realm] = run_realm(binary, data, realm, log, check_round_trip, recall)
        replays[realm] = rep
        results += res
    queries = [q for realm in realms for q in data.realm_queries(realm)]
    write_outputs(out_dir, data, replays, results)
    per_realm = {}
    for realm in realms:
        pairs = [(q, r) for q, r in zip(queries, results) if q["realm"] == realm]
        per_realm[realm] = metrics([q for q, _ in pairs], [r for _, r in pairs], data.types, data.qrels)
    invariants = check_invariants(replays, queries, results)
    return {
        "realms": {realm: {"ops": len(data.ops[realm]), "applied": replays[realm].applied(),
                           "failed": replays[realm].failed(), "candidates": replays[realm].candidates(),
                           "queries": len(data.realm_queries(realm)), "timing": timing[realm]} for realm in realms},
        "queries": len(queries),
        "k": K,
        "metrics": {"realms": per_realm, "all": metrics(queries, results, data.types, data.qrels)},
        "invariants": invariants,
        "seconds": time.monotonic() - t0,
    }, results


def check_invariants(replays, queries, results):
    """What must hold whatever the ranking: every query answered, at most K hits, no forgotten or
    superseded memory returned, every hit's ref (the node's) equal to the replay's mapping."""
    out = {"errors": [], "forgotten_returned": [], "superseded_returned": [], "ref_mismatches": [], "over_k": []}
    for q, r in zip(queries, results):
        if r.get("error") or r["verdict"] not in ("KNOWN", "UNKNOWN", "UNSURE"):
            out["errors"].append(f"{q['id']}: {r.get('error') or 'no verdict'}")
        if len(r["hits"]) > K:
            out["over_k"].append(q["id"])
        rep = replays[q["realm"]]
        for h in r["hits"]:
            if h["ref"] in rep.forgotten:
                out["forgotten_returned"].append(f"{q['id']}: {h['ref']} ({h['id']})")
            if h["ref"] in rep.superseded:
                out["superseded_returned"].append(f"{q['id']}: {h['ref']} ({h['id']})")
            if h["ref"] is None or h["ref"] != h["store_ref"]:
                out["ref_mismatches"].append(f"{q['id']}: {h['id']} mapped to {h['ref']}, node says {h['store_ref']!r}")
    return out


def main(argv):
    root = os.path.dirname(os.path.dirname(HERE))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", default=os.path.join(root, "build", "cli", "vasana"))
    p.add_argument("--eval-data", default=os.environ.get("VASANA_EVAL_DATA", os.path.join(root, "..", "shared", "eval")))
    p.add_argument("--out", default=os.path.join(root, "build", "eval", "runs", NAME))
    p.add_argument("--realms", default="", help="comma-separated (default: every realm)")
    p.add_argument("--round-trip", action="store_true",
                   help="also export each realm, import it into a fresh node and compare the answers")
    p.add_argument("--every-lane", action="store_true",
                   help="nodes run every lane: the built-in embedder and the HDC lane on ([recall] builtin_embedding, "
                        "hdc_lane)")
    a = p.parse_args(argv)
    recall = {"builtin_embedding": True, "hdc_lane": True} if a.every_lane else None
    entry, _ = evaluate(a.binary, a.eval_data, a.out, [r for r in a.realms.split(",") if r] or None,
                        log=lambda m: print(f"eval: {m}", file=sys.stderr, flush=True), check_round_trip=a.round_trip,
                        recall=recall)
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(entry, f, indent=1)
    print(report(entry))
    for realm, info in entry["realms"].items():
        c = info["candidates"]
        print(f"{realm}: conflict candidates: the replaced memory named by {c['named']} of {c['supersedes']} "
              f"supersedes; {c['with_any']} of {c['remembers']} plain remembers answered with any")
        rt = info["timing"].get("round_trip")
        if rt:
            print(f"{realm}: export ({rt['lines']} lines) imported into a fresh node: the same top 5 for "
                  f"{rt['same_top5']} of {rt['n']} questions, the same verdict for {rt['same_verdict']}")
        for rec in info["failed"]:
            print(f"{realm} line {rec['line']} ({rec['op']} {rec['ref']}): {rec['outcome']}: {rec['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
