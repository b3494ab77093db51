"""SMART tagged text (Cranfield's cran.all.1400 and cran.qry) read into records, the one reading
shared by cranfield_xapian.py and cranfield_jsonl.py. Standard library only."""
import re


def read_smart(path):
    """Records of a SMART tagged file: a list of (number, {field letter: text}).

    A field marker that repeats inside a record continues that field (docs 576 and 578 have two
    .W fields, doc 240 a stray .A and .B inside its abstract): the same reading as
    cranfield_eval.cpp, and the one that reproduces the README's peer figures exactly."""
    with open(path, encoding="latin-1") as f:
        text = f.read().replace("\r", "")
    records = []
    for chunk in re.split(r"^\.I[ \t]+", text, flags=re.M)[1:]:
        lines = chunk.split("\n")
        fields, current = {}, None
        for line in lines[1:]:
            m = re.match(r"^\.([A-Z])\s*$", line)
            if m:
                current = m.group(1)
                fields.setdefault(current, [])
            elif current is not None:
                fields[current].append(line)
        records.append((int(lines[0].strip()), {k: "\n".join(v) for k, v in fields.items()}))
    return records
