#!/usr/bin/python3
"""ctest eval_agent_memory_replay: one realm of shared/eval/agent-memory replayed through the
real binary by agent_memory.py, and its queries run. Checks
  (a) every op of the realm is applied (no refusal, no skipped op);
  (b) the end state, read back with `vasana get` for every ref: forgotten memories deleted,
      superseded ones superseded, every other one active with the text the set says it holds
      now (an update's new text, a correction's text with the wrong phrase replaced);
  (c) every query (45) answered with a verdict and at most 10 hits, each hit's id mapped to
      the ref the node reports for it;
  (d) no forgotten and no superseded memory is returned by any query;
  (e) every metric lies in [0, 1] and counts the README's number of questions, and the realm
      exported (--history --deleted) and imported into a fresh node answers every question as
      the original did.

usage: agent_memory_replay_test.py --binary PATH --eval-data DIR --out DIR [--realm NAME]
"""
import argparse
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agent_memory  # noqa: E402
from vasana_node import Node  # noqa: E402

QUERIES_PER_REALM = 45
ANSWERABLE_PER_REALM = 30
STALE_PER_REALM = 16

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
    p.add_argument("--realm", default="household")
    a = p.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    data = agent_memory.AgentMemorySet(os.path.join(a.eval_data, agent_memory.NAME))
    realm = a.realm
    ops = data.ops[realm]
    queries = data.realm_queries(realm)
    started = time.monotonic()
    with Node(a.binary) as node:
        rep = agent_memory.replay(node, realm, ops)
        results = agent_memory.ask(node, realm, queries, rep.refs_by_id())
        states = {ref: node.cli(["get", i]) for ref, i in rep.ids.items()}
        trip = agent_memory.round_trip(a.binary, node, realm, queries, results)
    print(f"{realm}: {len(ops)} ops and {len(queries)} queries in {time.monotonic() - started:.1f} s")
    agent_memory.write_outputs(a.out, data, {realm: rep}, results)

    # (a) every op applied
    for rec in rep.failed():
        print(f"  line {rec['line']} ({rec['op']} {rec['ref']}): {rec['outcome']}: {rec['error']}")
    check(rep.applied() == len(ops), f"every op applied ({rep.applied()} of {len(ops)})")
    remembered = sum(1 for op in ops if op["op"] in ("remember", "supersede"))
    check(len(set(rep.ids.values())) == len(rep.ids) == remembered, f"{remembered} refs mapped to distinct ids")

    # (b) the end state
    forgotten = {op["ref"] for op in ops if op["op"] == "forget"}
    superseded = {op["replaces"] for op in ops if op["op"] == "supersede"}
    check(rep.forgotten == forgotten and rep.superseded == superseded, "the replay recorded every forget and supersede")
    bad = []
    for ref, view in states.items():
        if ref in forgotten:
            want = "deleted"
        elif ref in superseded:
            want = "superseded"
        else:
            want = "active"
        if view.get("status") != want:
            bad.append(f"{ref}: status {view.get('status')}, expected {want}")
        elif want == "active" and view.get("text") != rep.expected_text[ref]:
            bad.append(f"{ref}: text {view.get('text')!r}, expected {rep.expected_text[ref]!r}")
    for line in bad:
        print("  " + line)
    current = sum(1 for ref in states if ref not in forgotten and ref not in superseded)
    check(not bad, f"every memory's status and current text as the ops leave it ({current} current)")

    # (c) the queries
    check(len(results) == QUERIES_PER_REALM, f"{QUERIES_PER_REALM} queries answered (got {len(results)})")
    inv = agent_memory.check_invariants({realm: rep}, queries, results)
    check(not inv["errors"], f"every query has a verdict {inv['errors'][:3]}")
    check(not inv["over_k"], f"at most {agent_memory.K} hits per query")
    check(not inv["ref_mismatches"], f"every hit's id maps to the ref the node reports {inv['ref_mismatches'][:3]}")
    check(any(r["hits"] for r in results), "queries return hits")

    # (d) forgotten and superseded memories stay out
    check(not inv["forgotten_returned"], f"no forgotten memory returned {inv['forgotten_returned'][:3]}")
    check(not inv["superseded_returned"], f"no superseded memory returned {inv['superseded_returned'][:3]}")

    # (e) the metrics
    m = agent_memory.metrics(queries, results, data.types, data.qrels)
    for name, v in m.items():
        check(v["rate"] is not None and 0.0 <= v["rate"] <= 1.0, f"{name} = {v['rate']} lies in [0, 1]")
    check(m["right_first@1"]["n"] == ANSWERABLE_PER_REALM and m["verdict"]["n"] == QUERIES_PER_REALM
          and m["stale_shown"]["n"] == STALE_PER_REALM,
          f"metrics over {ANSWERABLE_PER_REALM} answerable, {QUERIES_PER_REALM} and {STALE_PER_REALM} stale questions")
    check(m["right_first@1"]["rate"] <= m["top3"]["rate"], "right-first@1 is at most top-3")
    # (e) the realm exported with its history and forgotten memories and imported into a fresh
    # node: every memory, the supersede links and the corrections come back, and the copy gives
    # the same top 5 and the same verdict to every question.
    memories = len(rep.ids)
    links, corrections = len(rep.superseded), sum(1 for op in ops if op["op"] == "correct")
    check(trip["lines"] == memories + links + corrections,
          f"the export holds {memories} memories, {links} supersede and {corrections} correction lines "
          f"(got {trip['lines']} lines)")
    check(trip["n"] == QUERIES_PER_REALM and trip["answered"] == trip["n"],
          f"the copy answers every question ({trip['answered']} of {trip['n']})")
    check(trip["same_top5"] == trip["n"] and trip["same_verdict"] == trip["n"],
          f"the copy gives the same top 5 ({trip['same_top5']} of {trip['n']}) and the same verdict "
          f"({trip['same_verdict']} of {trip['n']})")
    print(agent_memory.report({"metrics": {"realms": {realm: m}, "all": m}}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
