#!/usr/bin/python3
"""Xapian BM25 peer runs on Cranfield, written as TREC runs for cranfield_metrics.py.

Runs under Debian's /usr/bin/python3, where python3-xapian installs its module.

Indexes each document's .W abstract (which already repeats the title) with Xapian's
TermGenerator (English Snowball stemmer, no stop list) and parses each query with
QueryParser (English stemmer, STEM_SOME, default operator OR, no stop list): the setup of
the peer figures in shared/eval/README.md. Two runs: BM25Weight() defaults (k1=1, b=0.5)
and BM25Weight(k1=1.2, k2=0, k3=1, b=0.75, min_normlen=0.5).

usage: cranfield_xapian.py CRANFIELD_DIR OUT_DIR
writes OUT_DIR/xapian-bm25-default.run and OUT_DIR/xapian-bm25-k1.2-b0.75.run
"""
import os
import sys

import xapian

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smart_records import read_smart  # noqa: E402

DEPTH = 1000  # documents per query in a run, as trec_eval's usual depth


def build_index(docs):
    db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("english"))
    tg.set_stemming_strategy(xapian.TermGenerator.STEM_SOME)
    for number, fields in docs:
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(fields.get("W", ""))
        db.replace_document(number, doc)  # Xapian docid = Cranfield document number
    return db


def write_run(db, queries, weight, tag, path):
    qp = xapian.QueryParser()
    qp.set_stemmer(xapian.Stem("english"))
    qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    qp.set_default_op(xapian.Query.OP_OR)
    qp.set_database(db)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(weight)
    with open(path, "w") as out:
        for qid, (_, fields) in enumerate(queries, start=1):  # i-th query in the file = qrel query i
            enquire.set_query(qp.parse_query(fields.get("W", "")))
            for rank, m in enumerate(enquire.get_mset(0, DEPTH), start=1):
                out.write(f"{qid} Q0 {m.docid} {rank} {m.weight:.9f} {tag}\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cran, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    docs = read_smart(os.path.join(cran, "cran.all.1400"))
    queries = read_smart(os.path.join(cran, "cran.qry"))
    db = build_index(docs)
    runs = [
        ("xapian-bm25-default", xapian.BM25Weight()),
        ("xapian-bm25-k1.2-b0.75", xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5)),
    ]
    for tag, weight in runs:
        path = os.path.join(out_dir, tag + ".run")
        write_run(db, queries, weight, tag, path)
        print(f"{path}: {len(queries)} queries, {db.get_doccount()} documents")


if __name__ == "__main__":
    main()
