#!/usr/bin/python3
"""Unit tests of agent_memory.py's metrics and op commands on tiny hand-made inputs, with a
positive and a negative control for each rule of shared/eval/agent-memory/README.md. No binary,
no data: `python3 tests/eval/agent_memory_test.py`."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agent_memory as am  # noqa: E402


def query(qid, answerable=True, expect=None, stale_refs=None, stale_phrases=None):
    return {"id": qid, "realm": "r", "query": "q", "answerable": answerable,
            "expect_refs": list(expect or []), "stale_refs": list(stale_refs or []),
            "stale_phrases": list(stale_phrases or [])}


def result(qid, hits, verdict="KNOWN"):
    """hits: [(ref, text)]."""
    return {"qid": qid, "verdict": verdict, "top_relevance": 0.5,
            "hits": [{"id": f"w-{i}", "ref": ref, "store_ref": ref, "text": text} for i, (ref, text) in enumerate(hits, 1)]}


class RightFirst(unittest.TestCase):
    def test_expected_ref_first_with_current_text(self):
        q = query("q1", expect=["h04"], stale_phrases=["June 14"])
        self.assertTrue(am.right_first(q, result("q1", [("h04", "Theo was born on June 4, 2016.")])))

    def test_stale_phrase_in_hit_one_fails(self):
        q = query("q1", expect=["h04"], stale_phrases=["June 14"])
        self.assertFalse(am.right_first(q, result("q1", [("h04", "Theo was born on June 14, 2016.")])))

    def test_stale_phrase_matches_whatever_the_case(self):
        q = query("q1", expect=["h06"], stale_phrases=["penicillin"])
        self.assertFalse(am.right_first(q, result("q1", [("h06", "Rosa is allergic to PENICILLIN.")])))

    def test_expected_ref_second_fails(self):
        q = query("q1", expect=["h04"])
        self.assertFalse(am.right_first(q, result("q1", [("h03", "a"), ("h04", "b")])))

    def test_no_hits_fails(self):
        self.assertFalse(am.right_first(query("q1", expect=["h04"]), result("q1", [])))


class Top3(unittest.TestCase):
    def test_expected_ref_third_counts(self):
        q = query("q1", expect=["h04"])
        self.assertTrue(am.top3(q, result("q1", [("h01", ""), ("h02", ""), ("h04", "")])))

    def test_expected_ref_fourth_does_not(self):
        q = query("q1", expect=["h04"])
        self.assertFalse(am.top3(q, result("q1", [("h01", ""), ("h02", ""), ("h03", ""), ("h04", "")])))


class StaleShown(unittest.TestCase):
    def test_forgotten_ref_shown_counts(self):
        q = query("q1", answerable=False, stale_refs=["h28"])
        self.assertTrue(am.stale_shown(q, result("q1", [("h10", "x"), ("h28", "the garage code")])))

    def test_stale_phrase_in_a_lower_hit_counts(self):
        q = query("q1", expect=["h09"], stale_phrases=["7:42"])
        hits = [("h09", "pickup at 7:55 am")] + [(f"h{i}", "x") for i in range(20, 28)] + [("h30", "was 7:42, now 7:55")]
        self.assertTrue(am.stale_shown(q, result("q1", hits)))

    def test_clean_hits_do_not_count(self):
        q = query("q1", expect=["h09"], stale_refs=["h24"], stale_phrases=["7:42"])
        self.assertFalse(am.stale_shown(q, result("q1", [("h09", "pickup at 7:55 am"), ("h51", "Dr. Osei")])))

    def test_no_hits_show_nothing(self):
        self.assertFalse(am.stale_shown(query("q1", answerable=False, stale_refs=["h28"]), result("q1", [])))


class Verdict(unittest.TestCase):
    def test_known_on_answerable_and_unknown_on_unanswerable_are_right(self):
        self.assertTrue(am.verdict_right(query("a"), result("a", [], "KNOWN")))
        self.assertTrue(am.verdict_right(query("u", answerable=False), result("u", [], "UNKNOWN")))

    def test_the_opposite_verdicts_are_wrong(self):
        self.assertFalse(am.verdict_right(query("a"), result("a", [], "UNKNOWN")))
        self.assertFalse(am.verdict_right(query("u", answerable=False), result("u", [], "KNOWN")))
        # UNSURE is neither right nor wrong.
        self.assertFalse(am.verdict_right(query("a"), result("a", [], "UNSURE")))
        self.assertFalse(am.verdict_wrong(query("a"), result("a", [], "UNSURE")))
        self.assertTrue(am.verdict_wrong(query("a"), result("a", [], "UNKNOWN")))


class Metrics(unittest.TestCase):
    def setUp(self):
        # a: answerable, changed, right first. b: answerable, changed, stale phrase in hit 1 and
        # the expected ref second. c: answerable, expected ref not returned. d: forgotten,
        # forgotten ref shown, KNOWN. e: near miss, UNKNOWN, nothing stale.
        self.queries = [
            query("a", expect=["h04"], stale_phrases=["June 14"]),
            query("b", expect=["h09"], stale_refs=["h24"], stale_phrases=["7:42"]),
            query("c", expect=["h11"]),
            query("d", answerable=False, stale_refs=["h28"]),
            query("e", answerable=False),
        ]
        self.results = [
            result("a", [("h04", "June 4"), ("h03", "March 22")], "KNOWN"),
            result("b", [("h12", "bus at 7:42"), ("h09", "bus at 7:55")], "UNKNOWN"),
            result("c", [("h01", "x"), ("h02", "y")], "KNOWN"),
            result("d", [("h28", "garage code 4417")], "KNOWN"),
            result("e", [("h23", "kids' dentist")], "UNKNOWN"),
        ]
        self.types = {"a": {"changed", "correct"}, "b": {"changed", "update"}, "c": {"plain"},
                      "d": {"forgotten"}, "e": {"near_miss"}}
        self.qrels = {"a": {"h04": 1}, "b": {"h09": 1}, "c": {"h11": 1}}

    def test_every_figure(self):
        m = am.metrics(self.queries, self.results, self.types, self.qrels)
        self.assertEqual((m["right_first@1"]["count"], m["right_first@1"]["n"]), (1, 3))
        self.assertEqual((m["top3"]["count"], m["top3"]["n"]), (2, 3))
        self.assertAlmostEqual(m["MRR@10"]["rate"], (1 + 0.5 + 0) / 3)
        self.assertAlmostEqual(m["nDCG@10"]["rate"], (1 + 1 / 1.584962500721156 + 0) / 3)
        self.assertEqual((m["stale_shown"]["count"], m["stale_shown"]["n"]), (2, 3))
        self.assertEqual((m["stale_shown_changed"]["count"], m["stale_shown_changed"]["n"]), (1, 2))
        self.assertEqual((m["stale_shown_forgotten"]["count"], m["stale_shown_forgotten"]["n"]), (1, 1))
        self.assertEqual((m["verdict"]["count"], m["verdict"]["n"]), (3, 5))
        self.assertEqual((m["verdict_answerable"]["count"], m["verdict_answerable"]["n"]), (2, 3))
        self.assertEqual((m["verdict_unanswerable"]["count"], m["verdict_unanswerable"]["n"]), (1, 2))
        self.assertEqual((m["verdict_near_miss"]["count"], m["verdict_near_miss"]["n"]), (1, 1))
        self.assertEqual((m["verdict_forgotten"]["count"], m["verdict_forgotten"]["n"]), (0, 1))

    def test_a_perfect_run_scores_one_and_shows_nothing_stale(self):
        perfect = [
            result("a", [("h04", "June 4")], "KNOWN"),
            result("b", [("h09", "bus at 7:55")], "KNOWN"),
            result("c", [("h11", "plate 7KXR 212")], "KNOWN"),
            result("d", [("h10", "the Outback")], "UNKNOWN"),
            result("e", [], "UNKNOWN"),
        ]
        m = am.metrics(self.queries, perfect, self.types, self.qrels)
        for name in ["right_first@1", "top3", "MRR@10", "nDCG@10", "verdict", "verdict_answerable",
                     "verdict_unanswerable", "verdict_near_miss", "verdict_forgotten"]:
            self.assertEqual(m[name]["rate"], 1.0, name)
        self.assertEqual(m["stale_shown"]["rate"], 0.0)

    def test_always_known_scores_the_answerable_share(self):
        known = [dict(r, verdict="KNOWN") for r in self.results]
        m = am.metrics(self.queries, known, self.types, self.qrels)
        self.assertEqual(m["verdict"]["rate"], 3 / 5)
        self.assertEqual(m["verdict_unanswerable"]["rate"], 0.0)

    def test_an_empty_subset_has_no_rate(self):
        m = am.metrics(self.queries[:1], self.results[:1], self.types, self.qrels)
        self.assertIsNone(m["verdict_unanswerable"]["rate"])
        self.assertIn("n/a", am.report({"metrics": {"realms": {"r": m}, "all": m}}))


class OpCommands(unittest.TestCase):
    ids = {"h04": "w-4", "h24": "w-24"}

    def test_remember_carries_ref_kind_and_valid_from_and_guards_the_text(self):
        args, missing = am.op_command("household", {"op": "remember", "ref": "h05", "text": "--odd text", "kind": "episode",
                                                    "valid_from": "2024-09-03"}, self.ids)
        self.assertIsNone(missing)
        self.assertEqual(args, ["remember", "--realm", "household", "--ref", "h05", "--kind", "episode",
                                "--valid-from", "2024-09-03", "--", "--odd text"])

    def test_update_forget_correct_and_supersede_name_the_mapped_ids(self):
        self.assertEqual(am.op_command("r", {"op": "update", "ref": "h04", "text": "new"}, self.ids)[0],
                         ["update", "w-4", "--text=new"])
        self.assertEqual(am.op_command("r", {"op": "forget", "ref": "h24"}, self.ids)[0], ["forget", "w-24"])
        self.assertEqual(am.op_command("r", {"op": "correct", "wrong": "June 14", "right": "June 4", "source_ref": "h04"},
                                       self.ids)[0],
                         ["correct", "--realm", "r", "--wrong=June 14", "--right=June 4", "--source", "w-4"])
        self.assertEqual(am.op_command("r", {"op": "supersede", "ref": "h51", "replaces": "h24", "text": "Dr. Osei"},
                                       self.ids)[0],
                         ["remember", "--realm", "r", "--ref", "h51", "--supersedes", "w-24", "--", "Dr. Osei"])

    def test_an_op_on_an_unstored_ref_names_it(self):
        self.assertEqual(am.op_command("r", {"op": "forget", "ref": "h99"}, self.ids), (None, "h99"))
        self.assertEqual(am.op_command("r", {"op": "supersede", "ref": "h52", "replaces": "h98", "text": "t"}, self.ids),
                         (None, "h98"))


if __name__ == "__main__":
    unittest.main()
