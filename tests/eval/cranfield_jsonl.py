#!/usr/bin/python3
"""Cranfield -> the files the other collections' to_jsonl.py write (shared/eval/README.md).

usage: cranfield_jsonl.py CRANFIELD_DIR OUT

Writes
  OUT/realms/cranfield.jsonl  one {"ref", "text"} object per document (1,400), realm "cranfield"
  OUT/queries.jsonl           one {"id", "realm", "query"} object per judged query (225)
  OUT/qrels.tsv               query id <TAB> ref <TAB> gain, no header, gain >= 1 only

ref = the document's .I number; text = its .W abstract (which repeats the title), white space
collapsed. The documents are read as cranfield_xapian.py reads them (read_smart). Docs 471
and 995 have an empty abstract: they are written with text "" (an index holding them counts
them, as cranfield_xapian.py's does); ops/eval.sh leaves them out of vasana's import, which
refuses empty text. Query i in file order is query i of cranqrel, whatever its .I number;
gain = 5 - code; code -1 (the paper the query was written from) is not relevant and is not
written. Standard library only.
"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smart_records import read_smart  # noqa: E402

REALM = "cranfield"


def collapse(text):
    return " ".join(text.split())


def load(cran):
    """({realm: {ref: text}}, [(query id, realm, query text)], {query id: {ref: gain}})."""
    docs = {str(n): collapse(f.get("W", "")) for n, f in read_smart(os.path.join(cran, "cran.all.1400"))}
    qrels = defaultdict(dict)
    with open(os.path.join(cran, "cranqrel")) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and int(parts[2]) > 0:
                qrels[str(int(parts[0]))][str(int(parts[1]))] = 5 - int(parts[2])
    queries = []
    for i, (_, fields) in enumerate(read_smart(os.path.join(cran, "cran.qry")), start=1):
        if str(i) in qrels:
            queries.append((str(i), REALM, collapse(fields.get("W", ""))))
    return {REALM: docs}, queries, dict(qrels)


def write(out, realms, queries, qrels):
    os.makedirs(os.path.join(out, "realms"), exist_ok=True)
    for realm, docs in realms.items():
        with open(os.path.join(out, "realms", realm + ".jsonl"), "w", encoding="utf-8") as f:
            for ref, text in docs.items():
                f.write(json.dumps({"ref": ref, "text": text}, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "queries.jsonl"), "w", encoding="utf-8") as f:
        for qid, realm, text in queries:
            f.write(json.dumps({"id": qid, "realm": realm, "query": text}, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "qrels.tsv"), "w", encoding="utf-8") as f:
        for qid, _, _ in queries:
            for ref, gain in sorted(qrels[qid].items(), key=lambda x: int(x[0])):
                f.write(f"{qid}\t{ref}\t{gain}\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    realms, queries, qrels = load(sys.argv[1])
    write(sys.argv[2], realms, queries, qrels)
    print(f"{sum(len(d) for d in realms.values())} docs, {len(queries)} queries, "
          f"{sum(len(qrels[q]) for q, _, _ in queries)} qrels -> {sys.argv[2]}")


if __name__ == "__main__":
    main()
