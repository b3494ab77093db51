"""Tests of the vasana Python client.

The tests against a real node take the vasana binary from $VASANA_BINARY and are skipped when it
is unset. Each such class starts its own node in a temporary directory (`vasana init`, a config
with [http] on a free loopback port and token clients, `vasana serve`), waits for its "ready"
line, and stops it with SIGTERM (SIGKILL after 10 s) at the end; the directory is removed.

    VASANA_BINARY=build/cli/vasana python3 -m unittest discover -s clients/python/tests -v
"""

from __future__ import annotations

import datetime as dt
import http.server
import json
import os
import random
import re
import shutil
import signal
import socket
import ssl
import string
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from typing import Dict, List, Optional
from unittest import mock

sys.dont_write_bytecode = True  # nothing of the package lands in the source tree as .pyc
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import vasana  # noqa: E402  (the package beside this folder, not an installed one)
from vasana import errors as verrors  # noqa: E402

BINARY = os.environ.get("VASANA_BINARY", "")
SKIP_WHY = (
    "VASANA_BINARY is not set: set it to a vasana binary (e.g. VASANA_BINARY=build/cli/vasana) "
    "to run the tests against a real node"
)
READY_TIMEOUT_S = 20
STOP_TIMEOUT_S = 10


def _token(name: str) -> str:
    return f"tok-{name}-" + "".join(random.choice(string.ascii_letters + string.digits) for _ in range(40))


def _words(n: int) -> List[str]:
    """n made-up words (letters only) no memory of another test holds."""
    return ["".join(random.choice(string.ascii_lowercase) for _ in range(9)) for _ in range(n)]


def _write_secret(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    os.chmod(path, 0o600)


class Node:
    """A `vasana serve` child with HTTP on a free loopback port, in its own folder."""

    def __init__(self, root: str, clients: Dict[str, Dict[str, object]], extra_config: str = "", http_extra: str = ""):
        self.dir = root
        self.data = os.path.join(root, "data")
        self.err_path = os.path.join(root, "serve.err")
        self.tokens: Dict[str, str] = {}
        self.proc: Optional[subprocess.Popen] = None
        self._err = None
        self.url = ""
        binary = os.path.abspath(BINARY)
        if not os.access(binary, os.X_OK):
            raise RuntimeError(f"VASANA_BINARY={BINARY!r} is not an executable file")
        self.binary = binary
        lines = ["[http]", 'listen = "127.0.0.1:0"', http_extra, extra_config]
        for name, grants in clients.items():
            token = _token(name)
            self.tokens[name] = token
            _write_secret(os.path.join(root, f"{name}.token"), token)
            lines.append(f'\n[clients."{name}"]')
            for key, value in grants.items():
                lines.append(f"{key} = {json.dumps(value)}")
            lines.append(f'token_file = "{name}.token"')
        self.config = os.path.join(root, "vasana.toml")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self) -> str:
        init = subprocess.run(
            [self.binary, "init", "--data", self.data],
            cwd=self.dir, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
        )
        if init.returncode != 0:
            raise RuntimeError(f"vasana init failed ({init.returncode}): {init.stderr}")
        self._err = open(self.err_path, "wb")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--data", self.data, "--config", self.config],
            cwd=self.dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err,
        )
        ready = re.compile(r"http on (https?://127\.0\.0\.1:[0-9]+)")
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            text = self.stderr_text()
            m = ready.search(text)
            if m:
                self.url = m.group(1)
                return self.url
            if self.proc.poll() is not None:
                raise RuntimeError(f"vasana serve exited with {self.proc.returncode} before it was ready:\n{text}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"vasana serve was not ready within {READY_TIMEOUT_S} s:\n{text}")
            time.sleep(0.02)

    def stderr_text(self) -> str:
        try:
            with open(self.err_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._err is not None:
            self._err.close()
            self._err = None

    def client(self, name: str, **kwargs) -> vasana.Client:
        kwargs.setdefault("timeout", 15)
        kwargs.setdefault("proxies", {})  # loopback: never through an environment's proxy
        return vasana.Client(self.url, self.tokens[name], **kwargs)


class NodeTestCase(unittest.TestCase):
    """Starts one node for the class (CLIENTS, EXTRA_CONFIG) and stops it after the class."""

    CLIENTS: Dict[str, Dict[str, object]] = {}
    EXTRA_CONFIG = ""
    HTTP_EXTRA = ""
    node: Node

    @classmethod
    def prepare(cls, root: str) -> None:
        """Files the config names, made before the node starts."""

    @classmethod
    def setUpClass(cls) -> None:
        root = tempfile.mkdtemp(prefix="vasana-pyclient-")
        cls.addClassCleanup(shutil.rmtree, root, True)
        cls.prepare(root)
        cls.node = Node(root, cls.CLIENTS, cls.extra_config(root), cls.HTTP_EXTRA)
        cls.addClassCleanup(cls.node.stop)
        cls.node.start()

    @classmethod
    def extra_config(cls, root: str) -> str:
        return cls.EXTRA_CONFIG


@unittest.skipUnless(BINARY, SKIP_WHY)
class HttpApiTest(NodeTestCase):
    CLIENTS = {
        "agent": {"read": ["notes", "pages"], "write": ["notes", "pages"], "review": True, "erase": True},
        "reader": {"read": ["notes"]},
        "outsider": {"read": ["elsewhere"], "write": ["elsewhere"]},
        "dashboard": {"read": ["*"]},
    }
    EXTRA_CONFIG = '\n[write]\nfunctional_predicates = ["lives_in"]\non_conflict = "contradict"\n'

    def setUp(self) -> None:
        self.agent = self.node.client("agent")
        self.reader = self.node.client("reader")
        self.outsider = self.node.client("outsider")

    def test_healthz_with_the_token_and_unauthorized_without_a_known_one(self) -> None:
        h = self.agent.healthz()
        self.assertTrue(h.ok)
        self.assertRegex(h.instance, r"^[0-9a-f]{16}$")
        self.assertTrue(h.writable)
        self.assertIn("last_seqno", h.raw)
        unknown = vasana.Client(self.node.url, _token("nobody"), proxies={}, timeout=15)
        with self.assertRaises(vasana.UnauthorizedError) as cm:
            unknown.healthz()
        e = cm.exception
        self.assertIsInstance(e, vasana.VasanaError)
        self.assertEqual(e.error, "unauthorized")
        self.assertEqual(e.status, 401)
        self.assertTrue(e.headers.get("www-authenticate", "").startswith("Bearer"))
        # An unknown token cannot write either; the known one can, and nothing of the refused write is stored.
        text = "written with an unknown token " + " ".join(_words(2))
        with self.assertRaises(vasana.UnauthorizedError):
            unknown.remember("notes", text)
        self.assertNotIn(text, [m.text for m in self.agent.iter_memories("notes")])

    def test_remember_then_recall_finds_it_and_an_absent_query_does_not(self) -> None:
        a, b = _words(2)
        text = f"the {a} lantern hangs above the {b} harbor"
        m = self.agent.remember("notes", text, tags=["lamps"])
        self.assertRegex(m.id, r"^[0-9a-f]{16}-[0-9]+$")
        self.assertTrue(m.replicated)  # a node with sync.ack "local": no 202
        self.assertEqual(m.status, "active")
        self.assertIsInstance(m.effective_ts, int)
        found = self.agent.recall(f"{a} {b}", ["notes"], explain=True)
        self.assertEqual(found.hits[0].id, m.id)
        self.assertEqual(found.hits[0].text, text)
        self.assertEqual(found.hits[0].tags, ["lamps"])
        self.assertIsNotNone(found.hits[0].explain)
        self.assertIn("keyword", [lane["lane"] for lane in found.hits[0].explain["lanes"]])
        # Negative controls: words no memory holds, and the same words in a realm that lacks it.
        # (The semantic lane ranks the nearest memories whatever their cosine, so an absent query
        # may still list the memory, but never as found by its words, and the verdict says so.)
        absent_words = " ".join(_words(3))
        absent = self.agent.recall(absent_words, "notes", explain=True)
        self.assertNotEqual(absent.verdict, "KNOWN")
        self.assertGreater(found.top_relevance, absent.top_relevance)
        for hit in absent.hits:
            self.assertNotIn("keyword", [lane["lane"] for lane in hit.explain["lanes"]])
        self.assertNotIn(m.id, self.agent.recall(absent_words, "notes", lanes=["keyword"]).ids)
        self.assertIn(m.id, self.agent.recall(f"{a} {b}", "notes", lanes=["keyword"]).ids)
        self.assertNotIn(m.id, self.agent.recall(f"{a} {b}", "pages").ids)

    def test_update_then_get_shows_the_new_text_and_history_the_earlier_one(self) -> None:
        a, b, c = _words(3)
        old = f"the {a} service listens on port 5433"
        new = f"the {a} service listens on port 5434 since {b}"
        m = self.agent.remember("notes", old, tags=["svc"])
        untouched = self.agent.remember("notes", f"the {c} service has never changed")
        self.assertEqual(self.agent.get_memory(m.id).text, old)
        w = self.agent.update(m.id, text=new, tags=["svc", "moved"])
        self.assertTrue(w.replicated)
        self.assertGreater(w.seqno, m.seqno)
        got = self.agent.get_memory(m.id)
        self.assertEqual(got.text, new)
        self.assertNotEqual(got.text, old)
        self.assertEqual(got.tags, ["svc", "moved"])
        history = self.agent.history(m.id)
        self.assertEqual(history[0].op, "put_memory")
        self.assertEqual(history[0].fields["text"], old)
        updates = [h for h in history if h.op == "update_content"]
        self.assertEqual(len(updates), 1)
        self.assertEqual(updates[0].fields["text"], new)
        self.assertEqual(updates[0].id, w.id)
        self.assertTrue(all(h.chain_verified for h in history))
        # Control: a memory nobody updated has no earlier version.
        self.assertEqual([h.op for h in self.agent.history(untouched.id)], ["put_memory"])
        # The new text is what recall finds.
        self.assertIn(m.id, self.agent.recall(f"{a} {b}", "notes").ids)

    def test_forget_then_get_and_recall_no_longer_show_it_active(self) -> None:
        a, b = _words(2)
        m = self.agent.remember("notes", f"the {a} printer on floor {b} jams")
        self.assertEqual(self.agent.get_memory(m.id).status, "active")
        self.assertIn(m.id, self.agent.recall(f"{a} {b}", "notes").ids)
        w = self.agent.forget(m.id, reason="obsolete")
        self.assertTrue(w.replicated)
        got = self.agent.get_memory(m.id)
        self.assertEqual(got.status, "deleted")
        self.assertTrue(got.deleted)
        self.assertNotIn(m.id, self.agent.recall(f"{a} {b}", "notes").ids)
        self.assertNotIn(m.id, [x.id for x in self.agent.iter_memories("notes")])
        self.assertIn(m.id, [x.id for x in self.agent.iter_memories("notes", deleted=True)])
        last = self.agent.history(m.id)[-1]
        self.assertEqual((last.op, last.id, last.fields["reason"]), ("delete_memory", w.id, "obsolete"))
        with self.assertRaises(vasana.NotFoundError) as cm:
            self.agent.forget(m.id)
        self.assertEqual(cm.exception.error, "not_found")

    def test_review_holds_a_proposed_memory_until_approved_and_a_rejected_one_for_good(self) -> None:
        a, b = _words(2)
        p = self.agent.remember("notes", f"deploys freeze on {a} fridays", status="proposed")
        self.assertEqual(p.status, "proposed")
        self.assertIn(p.id, [m.id for m in self.agent.iter_memories("notes", unreviewed=True)])
        self.assertNotIn(p.id, self.agent.recall(f"{a} fridays", "notes").ids)  # held for review
        self.assertIn(p.id, self.agent.recall(f"{a} fridays", "notes", staged=True).ids)  # the query matches it
        with self.assertRaises(vasana.PermissionDeniedError):
            self.reader.review(p.id, "approve")  # no review grant
        self.agent.review(p.id, "approve", note="confirmed")
        got = self.agent.get_memory(p.id)
        self.assertEqual(got.status, "approved")
        self.assertEqual(got.review_decision, "approve")
        self.assertTrue(got.reviewed)
        self.assertIn(p.id, self.agent.recall(f"{a} fridays", "notes").ids)
        self.assertNotIn(p.id, [m.id for m in self.agent.iter_memories("notes", unreviewed=True)])
        with self.assertRaises(vasana.ConflictError) as cm:
            self.agent.review(p.id, "reject")  # the first decision holds
        self.assertEqual((cm.exception.error, cm.exception.status), ("conflict", 409))

        q = self.agent.remember("notes", f"deploys freeze on {b} mondays", status="proposed")
        self.agent.review(q.id, "reject", note="not true")
        self.assertEqual(self.agent.get_memory(q.id).status, "rejected")
        self.assertNotIn(q.id, self.agent.recall(f"{b} mondays", "notes").ids)
        self.assertNotIn(q.id, self.agent.recall(f"{b} mondays", "notes", staged=True).ids)

    def test_list_memories_pages_through_a_realm_in_id_order(self) -> None:
        w = _words(1)[0]
        ids = [self.agent.remember("pages", f"page item {i} of {w}", tags=["paged"]).id for i in range(5)]
        pages = []
        after = None
        for _ in range(10):
            page = self.agent.list_memories("pages", limit=2, after=after)
            pages.append(page)
            if not page.next:
                break
            self.assertEqual(page.next, page.memories[-1].id)
            after = page.next
        self.assertEqual([len(p.memories) for p in pages], [2, 2, 1])
        self.assertEqual(pages[-1].next, "")
        self.assertEqual([m.id for p in pages for m in p.memories], ids)
        self.assertEqual([m.id for m in self.agent.iter_memories("pages", page_size=2)], ids)
        self.assertEqual([m.text for m in self.agent.iter_memories("pages", tag="paged")][0], f"page item 0 of {w}")
        # Negative controls: a tag no memory has lists nothing; another realm lists none of them.
        empty = self.agent.list_memories("pages", tag="no-such-tag")
        self.assertEqual((empty.memories, empty.next), ([], ""))
        self.assertFalse(set(ids) & {m.id for m in self.agent.iter_memories("notes")})
        self.assertIn("pages", {r.realm: r.memories for r in self.agent.realms()})
        self.assertEqual({r.realm: r.memories for r in self.agent.realms()}["pages"], 5)

    def test_grants_refused_with_permission_denied(self) -> None:
        a = _words(1)[0]
        m = self.agent.remember("notes", f"the {a} vault code is in the safe")
        # Positive controls: each client is served inside its grants.
        self.assertIn(m.id, self.reader.recall(a, "notes").ids)
        own = self.outsider.remember("elsewhere", f"the outsider keeps {a} notes here")
        self.assertIn(own.id, self.outsider.recall(a, "elsewhere").ids)
        # Outside them: 403 permission_denied, nothing written.
        with self.assertRaises(vasana.PermissionDeniedError) as cm:
            self.outsider.recall(a, ["notes"])
        e = cm.exception
        self.assertIsInstance(e, vasana.ForbiddenError)
        self.assertIsInstance(e, vasana.VasanaError)
        self.assertEqual((e.error, e.status), ("permission_denied", 403))
        self.assertIn("notes", e.message)
        with self.assertRaises(vasana.PermissionDeniedError):
            self.outsider.list_memories("notes")
        text = f"the reader tries to write {a}"
        with self.assertRaises(vasana.PermissionDeniedError) as cm:
            self.reader.remember("notes", text)
        self.assertEqual(cm.exception.error, "permission_denied")
        self.assertNotIn(text, [x.text for x in self.agent.iter_memories("notes")])
        # An id in a realm the client has no grant on is answered as an id not held.
        with self.assertRaises(vasana.NotFoundError):
            self.outsider.get_memory(m.id)
        self.assertEqual(self.reader.get_memory(m.id).id, m.id)
        # The node's status needs read = ["*"].
        with self.assertRaises(vasana.PermissionDeniedError):
            self.agent.status()
        status = self.node.client("dashboard").status()
        self.assertEqual(status.instance, self.agent.healthz().instance)
        self.assertGreaterEqual(status.memories, 2)
        self.assertGreater(status.http.requests, 0)
        self.assertIn("writers", status.raw)
        # realms names only the realms the client may read.
        self.assertNotIn("notes", [r.realm for r in self.outsider.realms()])
        self.assertIn("elsewhere", [r.realm for r in self.outsider.realms()])

    def test_bad_input_raises_bad_input_error(self) -> None:
        def refused(call, says: str) -> None:
            with self.assertRaises(vasana.BadInputError) as cm:
                call()
            self.assertEqual((cm.exception.error, cm.exception.status), ("bad_input", 400))
            self.assertIn(says, cm.exception.message)

        a = _words(1)[0]
        refused(lambda: self.agent.remember("notes", f"{a} one", kind="nonsense"), "kind")
        ok = self.agent.remember("notes", f"{a} two", kind="wisdom")  # control
        self.assertEqual(self.agent.get_memory(ok.id).kind, "wisdom")
        refused(lambda: self.agent.recall(a, "notes", limit=0), "limit")
        self.assertEqual(len(self.agent.recall(a, "notes", limit=1).hits), 1)  # control
        refused(lambda: self.agent.request("POST", "/v1/remember", {"realm": "notes", "txt": "typo"}), "text")
        refused(lambda: self.agent.get_memory("not-an-id"), "not an id")
        refused(lambda: self.agent.update(ok.id), "give at least one")
        refused(lambda: self.agent.set_status(ok.id, "bogus"), "bogus")
        refused(lambda: self.agent.remember("notes", f"{a} three", valid_from="yesterday-ish"), "valid_from")

    def test_token_from_the_environment(self) -> None:
        a = _words(1)[0]
        env = {"VASANA_TOKEN": self.node.tokens["agent"], "VASANA_URL": self.node.url}
        with mock.patch.dict(os.environ, env):
            c = vasana.Client(proxies={}, timeout=15)
            self.assertEqual(c.url, self.node.url)
            m = c.remember("notes", f"written with the token of the environment {a}")
        self.assertEqual(self.agent.get_memory(m.id).source_tool, "vasana-http")
        # Another token in the environment is another client: outsider may not read notes.
        with mock.patch.dict(os.environ, {"VASANA_TOKEN": self.node.tokens["outsider"]}):
            with self.assertRaises(vasana.PermissionDeniedError):
                vasana.Client(self.node.url, proxies={}, timeout=15).recall(a, "notes")
            # An explicit token wins over the environment's.
            self.assertIn(m.id, vasana.Client(self.node.url, self.node.tokens["agent"], proxies={}).recall(a, "notes").ids)
        with mock.patch.dict(os.environ, {"VASANA_TOKEN": " " + self.node.tokens["reader"] + "\n"}):
            self.assertTrue(vasana.Client(self.node.url, proxies={}).healthz().ok)  # a token file's newline is fine
        with mock.patch.dict(os.environ):
            os.environ.pop("VASANA_TOKEN", None)
            with self.assertRaises(ValueError):
                vasana.Client(self.node.url)

    def test_pin_and_set_status(self) -> None:
        a = _words(1)[0]
        m = self.agent.remember("notes", f"the {a} runbook lives in the wiki")
        self.assertFalse(self.agent.get_memory(m.id).pinned)
        self.agent.pin(m.id)
        self.assertTrue(self.agent.get_memory(m.id).pinned)
        self.agent.pin(m.id, False)
        self.assertFalse(self.agent.get_memory(m.id).pinned)
        self.agent.set_status(m.id, "verified", reason="checked the wiki")
        got = self.agent.get_memory(m.id)
        self.assertEqual((got.status, got.status_reason), ("verified", "checked the wiki"))
        r = self.agent.remember("notes", f"the {a} runbook moved to the repo")
        self.agent.set_status(m.id, "superseded", replaced_by=r.id)
        got = self.agent.get_memory(m.id)
        self.assertEqual((got.status, got.replaced_by), ("superseded", r.id))
        with self.assertRaises(vasana.BadInputError):
            self.agent.set_status(r.id, "archived", replaced_by=m.id)  # replaced_by only with superseded
        self.assertEqual(self.agent.get_memory(r.id).status, "active")

    def test_times_in_and_out(self) -> None:
        a = _words(1)[0]
        m = self.agent.remember(
            "notes", f"the {a} contract runs for a year",
            valid_from=dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), valid_to=dt.date(2021, 1, 2),
        )
        got = self.agent.get_memory(m.id)
        self.assertEqual(got.valid_from, "2020-01-02T03:04:05.000Z")
        self.assertEqual(got.valid_to, "2021-01-02T00:00:00.000Z")
        self.agent.update(m.id, valid_from=1577934245000, valid_to="2022-01-02")
        got = self.agent.get_memory(m.id)
        self.assertEqual((got.valid_from, got.valid_to), ("2020-01-02T03:04:05.000Z", "2022-01-02T00:00:00.000Z"))
        plain = self.agent.get_memory(self.agent.remember("notes", f"the {a} contract has no end").id)
        self.assertEqual((plain.valid_from, plain.valid_to), ("open", "open"))

    def test_facts_and_analogy(self) -> None:
        x, y, p, q = _words(4)
        f1 = self.agent.add_fact("notes", f"{x}-db", "runs_in", f"{p}-west")
        self.agent.add_fact("notes", f"{y}-db", "runs_in", f"{q}-east")
        self.assertRegex(f1.id, r"^[0-9a-f]{16}-[0-9]+$")
        an = self.agent.analogy(f"{x}-db", f"{p}-west", f"{y}-db", "notes")
        self.assertFalse(an.abstained)
        self.assertEqual(len(an.candidates), 1)
        self.assertIn(q, an.candidates[0].d)
        self.assertEqual(an.candidates[0].predicates, ["runs_in"])
        self.assertIn(f1.id, [t.id for t in an.candidates[0].support])
        # Negative control: nothing links the pair.
        none = self.agent.analogy(f"{x}-db", "nowhere", f"{y}-db", "notes")
        self.assertTrue(none.abstained)
        self.assertTrue(none.reason)
        self.assertEqual(none.candidates, [])
        # The realm's facts list it; one page of one names the next page.
        listed = {f.id: f for f in self.agent.iter_facts("notes", page_size=1)}
        self.assertIn(f1.id, listed)
        self.assertEqual((listed[f1.id].type, listed[f1.id].predicate, listed[f1.id].source_memory), ("fact", "runs_in", ""))
        first = self.agent.facts("notes", limit=1)
        self.assertEqual(len(first.facts), 1)
        self.assertEqual(first.next, first.facts[0].id)
        # Retracted, the fact no longer supports the analogy nor is listed; retracting it again is not found.
        self.agent.retract_fact(f1.id)
        self.assertTrue(self.agent.analogy(f"{x}-db", f"{p}-west", f"{y}-db", "notes").abstained)
        self.assertNotIn(f1.id, [f.id for f in self.agent.iter_facts("notes")])
        with self.assertRaises(vasana.NotFoundError):
            self.agent.retract_fact(f1.id)

    def test_corrections(self) -> None:
        a, b = _words(2)
        c = self.agent.correct("notes", f"{a} port 5432", f"{a} port 5434", note="moved")
        shown = self.agent.recall(f"{a} port 5432", "notes")
        self.assertIn(c.id, [x.id for x in shown.corrections])
        self.assertEqual(shown.corrections[0].right, f"{a} port 5434")
        self.assertNotIn(c.id, [x.id for x in self.agent.recall(f"{b} unrelated", "notes").corrections])
        # With a source memory its text gets the next version; a source without the phrase is refused.
        m = self.agent.remember("notes", f"the {b} cache listens on 6379")
        self.agent.correct("notes", "6379", "6380", source_memory=m.id)
        self.assertEqual(self.agent.get_memory(m.id).text, f"the {b} cache listens on 6380")
        with self.assertRaises(vasana.BadInputError):
            self.agent.correct("notes", "no such phrase", "x", source_memory=m.id)
        self.assertEqual(self.agent.get_memory(m.id).text, f"the {b} cache listens on 6380")

    def test_contradictions_and_conflicts(self) -> None:
        who = _words(1)[0]
        first = self.agent.remember("notes", f"{who} lives in paris", facts=[vasana.Fact(who, "lives_in", "paris")])
        before = [c for c in self.agent.contradictions("notes") if c.subject == who]
        self.assertEqual(before, [])  # one claim: no contradiction yet
        second = self.agent.remember("notes", f"{who} lives in rome", facts=[{"subject": who, "predicate": "lives_in", "object": "rome"}])
        self.assertIn(first.id, [c.id for c in second.candidates])
        found = [c for c in self.agent.contradictions(["notes"]) if c.subject == who]
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0].predicate, "lives_in")
        self.assertEqual({c.object for c in found[0].claims}, {"paris", "rome"})
        self.assertEqual({c.source_memory for c in found[0].claims}, {first.id, second.id})
        # One node, no concurrent writers: nothing lost.
        self.assertEqual(self.agent.conflicts("notes"), [])
        with self.assertRaises(vasana.PermissionDeniedError):
            self.outsider.contradictions("notes")

    def test_erase(self) -> None:
        a = _words(1)[0]
        m = self.agent.remember("notes", f"the guest wifi password is {a}")
        with self.assertRaises(vasana.PermissionDeniedError):
            self.reader.erase(m.id)  # no erase grant
        self.assertEqual(self.agent.get_memory(m.id).text, f"the guest wifi password is {a}")
        self.agent.erase(m.id, reason="a password")
        got = self.agent.get_memory(m.id)
        self.assertEqual((got.status, got.text, got.erased, got.erased_by), ("erased", "", True, "agent"))
        self.assertEqual(got.status_reason, "a password")
        self.assertNotIn(m.id, self.agent.recall(a, "notes").ids)
        with self.assertRaises(vasana.ConflictError):
            self.agent.erase(m.id)

    def test_openapi_document_describes_every_route_of_the_client(self) -> None:
        doc = self.agent.openapi()
        self.assertTrue(doc["openapi"].startswith("3."))
        # Every documented route, the client method that calls it: a route added to the server
        # (and so to the document) fails this test until the client has a method for it.
        method_of = {
            ("get", "/healthz"): "healthz", ("get", "/v1/status"): "status", ("get", "/v1/realms"): "realms",
            ("get", "/v1/openapi.json"): "openapi", ("post", "/v1/remember"): "remember", ("post", "/v1/recall"): "recall",
            ("get", "/v1/memories"): "list_memories", ("get", "/v1/memories/{id}"): "get_memory",
            ("delete", "/v1/memories/{id}"): "forget", ("post", "/v1/memories/{id}/erase"): "erase",
            ("get", "/v1/memories/{id}/history"): "history", ("post", "/v1/memories/{id}/update"): "update",
            ("post", "/v1/memories/{id}/status"): "set_status", ("post", "/v1/memories/{id}/pin"): "pin",
            ("post", "/v1/memories/{id}/review"): "review", ("post", "/v1/facts"): "add_fact", ("get", "/v1/facts"): "facts",
            ("delete", "/v1/facts/{id}"): "retract_fact", ("post", "/v1/analogy"): "analogy",
            ("post", "/v1/corrections"): "correct", ("get", "/v1/contradictions"): "contradictions",
            ("get", "/v1/conflicts"): "conflicts",
        }
        documented = {(m, path) for path, ops in doc["paths"].items() for m in ops if m in ("get", "post", "delete", "put", "patch")}
        self.assertEqual(documented, set(method_of))
        for route, name in method_of.items():
            self.assertTrue(callable(getattr(vasana.Client, name, None)), f"no client method {name} for {route}")
        self.assertFalse(callable(getattr(vasana.Client, "no_such_route", None)))  # negative control
        with self.assertRaises(vasana.UnauthorizedError):
            vasana.Client(self.node.url, _token("nobody"), proxies={}).openapi()

    def test_unknown_route_and_method(self) -> None:
        with self.assertRaises(vasana.NoRouteError) as cm:
            self.agent.request("GET", "/v1/no-such-route")
        self.assertEqual((cm.exception.error, cm.exception.status), ("no_route", 404))
        self.assertNotIsInstance(cm.exception, vasana.NotFoundError)
        with self.assertRaises(vasana.MethodNotAllowedError) as cm:
            self.agent.request("PUT", "/v1/remember", {})
        self.assertEqual(cm.exception.headers.get("allow"), "POST")
        self.assertTrue(self.agent.request("GET", "/healthz")["ok"])  # control


@unittest.skipUnless(BINARY, SKIP_WHY)
class NotReplicatedTest(NodeTestCase):
    """A node whose writes must reach a peer that never comes (sync.ack "replicated:1"): every
    write is answered 202 not_replicated, and was made."""

    CLIENTS = {"agent": {"read": ["notes"], "write": ["notes"]}}

    @classmethod
    def prepare(cls, root: str) -> None:
        for name in ("self", "peer"):
            r = subprocess.run(
                [os.path.abspath(BINARY), "keygen", "--out", os.path.join(root, name)],
                cwd=root, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
            )
            if r.returncode != 0:
                raise RuntimeError(f"vasana keygen failed: {r.stderr}")

    @classmethod
    def extra_config(cls, root: str) -> str:
        with open(os.path.join(root, "peer", "node.public")) as f:
            peer_key = re.search(r'^public = (".*")$', f.read(), re.M).group(1)
        return (
            '\n[sync]\ncluster = "pyclient"\nlisten = "tcp://127.0.0.1:0"\nsecret_key_file = "self/node.secret"\n'
            f'allowed_keys = [{peer_key}]\nack = "replicated:1"\nack_timeout_ms = 100\n'
        )

    def test_a_write_answered_202_returns_its_result_with_replicated_false(self) -> None:
        c = self.node.client("agent")
        a = _words(1)[0]
        text = f"the {a} write waits for a peer"
        r = c.remember("notes", text)
        self.assertFalse(r.replicated)
        self.assertRegex(r.id, r"^[0-9a-f]{16}-[0-9]+$")
        self.assertGreaterEqual(r.seqno, 1)
        self.assertIsNone(r.effective_ts)
        self.assertIn("durable on this node", r.message)
        self.assertEqual(r.raw.get("error"), "not_replicated")
        self.assertEqual(c.get_memory(r.id).text, text)  # the write was made
        w = c.update(r.id, text=text + " still")
        self.assertFalse(w.replicated)
        self.assertEqual(c.get_memory(r.id).text, text + " still")
        self.assertFalse(c.forget(r.id).replicated)
        self.assertEqual(c.get_memory(r.id).status, "deleted")
        self.assertNotIn("proposed", r.message)  # stored active
        # A memory held for review says so in the 202's message, its only account of the write.
        held = c.remember("notes", f"the {a} guess of a model", epistemic="model_inferred")
        self.assertFalse(held.replicated)
        self.assertIn("(stored proposed)", held.message)
        self.assertEqual(c.get_memory(held.id).status, "proposed")

    def test_strict_replication_raises_with_the_result(self) -> None:
        strict = self.node.client("agent", strict_replication=True)
        a = _words(1)[0]
        with self.assertRaises(vasana.NotReplicatedError) as cm:
            strict.remember("notes", f"the {a} strict write")
        e = cm.exception
        self.assertEqual((e.error, e.status), ("not_replicated", 202))
        self.assertFalse(e.result.replicated)
        self.assertEqual(strict.get_memory(e.result.id).text, f"the {a} strict write")  # made all the same
        # Reads are never 202.
        self.assertTrue(strict.healthz().ok)


def _openssl() -> Optional[str]:
    return shutil.which("openssl")


@unittest.skipUnless(BINARY, SKIP_WHY)
@unittest.skipUnless(_openssl(), "openssl is not installed: no certificate for the HTTPS test")
class HttpsTest(NodeTestCase):
    CLIENTS = {"agent": {"read": ["notes"], "write": ["notes"]}}
    HTTP_EXTRA = 'tls_cert_file = "server.crt"\ntls_key_file = "server.key"'

    @classmethod
    def prepare(cls, root: str) -> None:
        r = subprocess.run(
            [_openssl(), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", "server.key", "-out", "server.crt"],
            cwd=root, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        )
        if r.returncode != 0:
            raise RuntimeError(f"openssl failed: {r.stderr}")
        os.chmod(os.path.join(root, "server.key"), 0o600)

    def test_https_with_the_servers_certificate_and_refused_without(self) -> None:
        self.assertTrue(self.node.url.startswith("https://"))
        ctx = ssl.create_default_context(cafile=os.path.join(self.node.dir, "server.crt"))
        c = self.node.client("agent", ssl_context=ctx)
        m = c.remember("notes", "sent over TLS")
        self.assertEqual(c.get_memory(m.id).text, "sent over TLS")
        with self.assertRaises(vasana.TransportError) as cm:
            self.node.client("agent").healthz()  # the system's CAs do not trust it
        self.assertIn("certificate", str(cm.exception).lower())


class _Canned(http.server.BaseHTTPRequestHandler):
    """Answers every request with the server's canned (status, headers, body); records them."""

    def do_any(self) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        srv.seen.append((self.command, self.path, dict(self.headers), self.rfile.read(length)))  # type: ignore[attr-defined]
        status, headers, body = srv.answer  # type: ignore[attr-defined]
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = do_any

    def log_message(self, *args) -> None:
        pass


class OfflineTest(unittest.TestCase):
    """What the client does on its own: arguments, error mapping, timeouts, redirects (against
    small stand-in servers on loopback, no node needed)."""

    def serve(self, status: int, body: object, headers: Optional[Dict[str, str]] = None) -> http.server.HTTPServer:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Canned)
        srv.daemon_threads = True
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        srv.answer = (status, {"Content-Type": "application/json", **(headers or {})}, data)  # type: ignore[attr-defined]
        srv.seen = []  # type: ignore[attr-defined]
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        return srv

    def client_of(self, srv: http.server.HTTPServer, **kwargs) -> vasana.Client:
        kwargs.setdefault("proxies", {})
        kwargs.setdefault("timeout", 5)
        return vasana.Client(f"http://127.0.0.1:{srv.server_address[1]}", "t" * 40, **kwargs)

    def test_url_and_token_are_required_and_checked(self) -> None:
        with mock.patch.dict(os.environ):
            os.environ.pop("VASANA_URL", None)
            os.environ.pop("VASANA_TOKEN", None)
            with self.assertRaises(ValueError):
                vasana.Client(token="t" * 40)
            with self.assertRaises(ValueError):
                vasana.Client("http://127.0.0.1:1")
            self.assertEqual(vasana.Client("http://127.0.0.1:1/", "t" * 40).url, "http://127.0.0.1:1")
        for bad in ("ftp://127.0.0.1:1", "127.0.0.1:8080", "http://h:1/?q=1"):
            with self.assertRaises(ValueError):
                vasana.Client(bad, "t" * 40)
        for bad in ("has space " + "t" * 40, "tab\t" + "t" * 40, "crlf\r\nX-Evil: 1" + "t" * 40):
            with self.assertRaises(ValueError):
                vasana.Client("http://127.0.0.1:1", bad)
        with self.assertRaises(ValueError):
            vasana.Client("http://127.0.0.1:1", "t" * 40, timeout=0)
        self.assertNotIn("t" * 40, repr(vasana.Client("http://127.0.0.1:1", "t" * 40)))

    def test_every_documented_error_code_maps_to_its_class(self) -> None:
        documented = {
            (400, "bad_input"): vasana.BadInputError,
            (401, "unauthorized"): vasana.UnauthorizedError,
            (403, "permission_denied"): vasana.PermissionDeniedError,
            (404, "not_found"): vasana.NotFoundError,
            (404, "no_route"): vasana.NoRouteError,
            (405, "method_not_allowed"): vasana.MethodNotAllowedError,
            (408, "request_timeout"): vasana.RequestTimeoutError,
            (409, "conflict"): vasana.ConflictError,
            (413, "payload_too_large"): vasana.PayloadTooLargeError,
            (414, "uri_too_long"): vasana.ProtocolError,
            (431, "headers_too_large"): vasana.ProtocolError,
            (429, "too_many_failures"): vasana.TooManyFailuresError,
            (400, "bad_request"): vasana.ProtocolError,
            (417, "expectation_failed"): vasana.ProtocolError,
            (501, "not_implemented"): vasana.ProtocolError,
            (505, "http_version_not_supported"): vasana.ProtocolError,
            (503, "unavailable"): vasana.UnavailableError,
            (503, "too_many_connections"): vasana.TooManyConnectionsError,
            (500, "internal"): vasana.ServerError,
            (500, "io_failure"): vasana.ServerError,
        }
        for (status, code), cls in documented.items():
            e = verrors.error_for(status, {"error": code, "message": "m"})
            self.assertIs(type(e), cls, code)
            self.assertEqual((e.error, e.status, e.message), (code, status, "m"))
        # A code this client does not know goes by its status; a body that is not JSON too.
        self.assertIs(type(verrors.error_for(404, {"error": "gone_fishing", "message": "m"})), vasana.NotFoundError)
        self.assertIs(type(verrors.error_for(502, None, text="<html>bad gateway</html>")), vasana.ServerError)
        self.assertIs(type(verrors.error_for(418, None)), vasana.VasanaError)
        self.assertIsInstance(verrors.error_for(503, {"error": "too_many_connections"}), vasana.UnavailableError)

    def test_error_answers_raise_with_code_status_message_and_headers(self) -> None:
        srv = self.serve(429, {"error": "too_many_failures", "message": "wait"}, {"Retry-After": "60"})
        with self.assertRaises(vasana.TooManyFailuresError) as cm:
            self.client_of(srv).healthz()
        e = cm.exception
        self.assertEqual((e.error, e.status, e.message, e.retry_after), ("too_many_failures", 429, "wait", 60))
        self.assertEqual(e.body, {"error": "too_many_failures", "message": "wait"})
        method, path, headers, _ = srv.seen[0]
        self.assertEqual((method, path), ("GET", "/healthz"))
        self.assertEqual(headers.get("Authorization"), "Bearer " + "t" * 40)

    def test_a_202_answer_is_a_result_not_an_error(self) -> None:
        body = {"error": "not_replicated", "message": "durable here", "id": "0123456789abcdef-7", "seqno": 7, "replicated": False}
        srv = self.serve(202, body)
        r = self.client_of(srv).remember("notes", "x")
        self.assertEqual((r.id, r.seqno, r.replicated, r.message, r.effective_ts), ("0123456789abcdef-7", 7, False, "durable here", None))
        self.assertEqual(json.loads(srv.seen[0][3]), {"realm": "notes", "text": "x"})  # omitted arguments are not sent
        self.assertFalse(self.client_of(srv).pin("0123456789abcdef-1").replicated)
        with self.assertRaises(vasana.NotReplicatedError) as cm:
            self.client_of(srv, strict_replication=True).remember("notes", "x")
        self.assertEqual(cm.exception.result.id, "0123456789abcdef-7")

    def test_unknown_answer_fields_are_kept_in_raw(self) -> None:
        srv = self.serve(200, {"ok": True, "instance": "0123456789abcdef", "writable": True, "last_seqno": 3, "new_field": [1]})
        h = self.client_of(srv).healthz()
        self.assertEqual((h.ok, h.last_seqno, h.read_only_reason), (True, 3, ""))
        self.assertEqual(h.raw["new_field"], [1])

    def test_ids_are_quoted_into_the_path(self) -> None:
        srv = self.serve(200, {"id": "x"})
        self.client_of(srv).get_memory("../../v1/status?x=1")
        self.assertEqual(srv.seen[0][1], "/v1/memories/..%2F..%2Fv1%2Fstatus%3Fx%3D1")
        self.client_of(srv).list_memories("r", tag=["a", "b,c"], deleted=True, limit=5)
        self.assertEqual(srv.seen[1][1], "/v1/memories?realm=r&tag=a&tag=b%2Cc&deleted=true&limit=5")

    def test_a_redirect_is_not_followed_with_the_token(self) -> None:
        target = self.serve(200, {"ok": True})
        srv = self.serve(302, b"", {"Location": f"http://127.0.0.1:{target.server_address[1]}/healthz"})
        with self.assertRaises(vasana.VasanaError) as cm:
            self.client_of(srv).healthz()
        self.assertEqual(cm.exception.status, 302)
        self.assertEqual(target.seen, [])
        self.assertTrue(self.client_of(target).healthz().ok)  # control: the target itself answers

    def test_the_timeout_bounds_a_request_to_a_silent_server(self) -> None:
        silent = socket.socket()
        self.addCleanup(silent.close)
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # accepted by the kernel, never answered
        c = vasana.Client(f"http://127.0.0.1:{silent.getsockname()[1]}", "t" * 40, timeout=0.3, proxies={})
        start = time.monotonic()
        with self.assertRaises(vasana.ClientTimeoutError) as cm:
            c.remember("notes", "x")
        self.assertLess(time.monotonic() - start, 3)
        self.assertEqual(cm.exception.error, "timeout")
        self.assertIn("unknown", cm.exception.message)  # a write's outcome
        self.assertIsInstance(cm.exception, vasana.TransportError)
        # Control: a server that answers is answered within the same timeout.
        srv = self.serve(200, {"ok": True})
        self.assertTrue(self.client_of(srv, timeout=0.3).healthz().ok)
        # Nobody listening: a transport error, not a timeout.
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        closed.close()
        with self.assertRaises(vasana.TransportError) as cm:
            vasana.Client(f"http://127.0.0.1:{port}", "t" * 40, timeout=2, proxies={}).healthz()
        self.assertEqual(cm.exception.error, "transport")


if __name__ == "__main__":
    unittest.main()
