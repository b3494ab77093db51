"""Xapian BM25 peer runs over a collection in the to_jsonl.py layout (realms/*.jsonl,
queries.jsonl), the setup of the peer figures in shared/eval/README.md: Xapian 1.4 (Debian's
python3-xapian, /usr/bin/python3), one in-memory index per realm, each document's text indexed
by TermGenerator (English Snowball stemmer, STEM_SOME, no stop list), each query parsed by
QueryParser (same stemmer, default operator OR, FLAG_DEFAULT: hyphenated words and quoted text
become phrases, no stop list), the top DEPTH documents per query."""
import json
import os

import xapian

DEPTH = 100

# (run name, weighting scheme factory): BM25Weight() is Xapian's default (k1=1, k2=0, k3=1,
# b=0.5, min_normlen=0.5); the second is the common k1=1.2, b=0.75.
RUNS = [
    ("xapian-default", lambda: xapian.BM25Weight()),
    ("xapian-k1.2-b0.75", lambda: xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5)),
]


def version():
    return xapian.version_string()


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def build_index(docs):
    """An in-memory index of [{"ref", "text"}], one Xapian document per line in file order,
    its data the ref."""
    db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("english"))
    tg.set_stemming_strategy(xapian.TermGenerator.STEM_SOME)
    for d in docs:
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(d["text"])
        doc.set_data(d["ref"])
        db.add_document(doc)
    return db


def search(db, weight, text, depth=DEPTH):
    """[(ref, weight)] of the top depth documents for the query text."""
    qp = xapian.QueryParser()
    qp.set_stemmer(xapian.Stem("english"))
    qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    qp.set_default_op(xapian.Query.OP_OR)
    qp.set_database(db)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(weight)
    enquire.set_query(qp.parse_query(text, xapian.QueryParser.FLAG_DEFAULT))
    return [(m.document.get_data().decode("utf-8"), m.weight) for m in enquire.get_mset(0, depth)]


def runs(data_dir, queries):
    """{run name: {qid: [(ref, score)]}} for queries [{"id", "realm", "query"}], each query
    searched in its realm's index (data_dir/realms/REALM.jsonl)."""
    out = {name: {} for name, _ in RUNS}
    by_realm = {}
    for q in queries:
        by_realm.setdefault(q["realm"], []).append(q)
    for realm, qs in by_realm.items():
        db = build_index(read_jsonl(os.path.join(data_dir, "realms", realm + ".jsonl")))
        for name, weight in RUNS:
            for q in qs:
                out[name][q["id"]] = search(db, weight(), q["query"])
    return out
