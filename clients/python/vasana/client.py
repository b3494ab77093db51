"""The vasana HTTP/JSON API client (standard library only)."""

from __future__ import annotations

import datetime as _dt
import http.client
import json
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import errors
from .models import (
    Analogy,
    Conflict,
    Contradiction,
    Fact,
    FactEntry,
    FactPage,
    Health,
    HistoryEntry,
    Memory,
    MemoryPage,
    NodeStatus,
    RealmCount,
    RecallResult,
    Remembered,
    Written,
)

__all__ = ["Client", "DEFAULT_TIMEOUT"]

# Longer than the server's own 30 s wait for the node, so that its 503 arrives first.
DEFAULT_TIMEOUT = 60.0

TimeValue = Union[int, str, _dt.datetime, _dt.date]
Names = Union[str, Sequence[str]]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _names(value: Names, what: str) -> List[str]:
    """A list of names from one name or a sequence of them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"{what} must be a string or a list of strings")


def _time(value: TimeValue, what: str) -> Union[int, str]:
    """A time as the API takes it: epoch milliseconds, or a string like ``2026-11-30`` or
    ``2026-11-30T12:00:00Z``. A ``datetime`` is converted to epoch ms (a naive one is taken as
    UTC), a ``date`` to ``YYYY-MM-DD``."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a time, not a bool")
    if isinstance(value, (int, str)):
        return value
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return (value - _EPOCH) // _dt.timedelta(milliseconds=1)
    if isinstance(value, _dt.date):
        return value.isoformat()
    raise TypeError(f"{what} must be epoch milliseconds (int), a string, a datetime or a date")


def _fact(value: Union[Fact, Mapping[str, Any]], index: int) -> Dict[str, Any]:
    if isinstance(value, Fact):
        out: Dict[str, Any] = {"subject": value.subject, "predicate": value.predicate, "object": value.object}
        if value.valid_from is not None:
            out["valid_from"] = _time(value.valid_from, f"facts[{index}].valid_from")
        if value.valid_to is not None:
            out["valid_to"] = _time(value.valid_to, f"facts[{index}].valid_to")
        return out
    if isinstance(value, Mapping):
        out = dict(value)
        for key in ("valid_from", "valid_to"):
            if out.get(key) is not None:
                out[key] = _time(out[key], f"facts[{index}].{key}")
        return out
    raise TypeError(f"facts[{index}] must be a vasana.Fact or a dict")


def _check_token(token: str) -> str:
    token = token.strip()
    if not token:
        raise ValueError("the token is empty")
    # A token file holds printable ASCII without spaces; anything else can never match, and a
    # control character would break the header.
    if any(not (33 <= ord(c) <= 126) for c in token):
        raise ValueError("the token must be printable ASCII without spaces (as a token file holds)")
    return token


def _check_url(url: str) -> str:
    url = url.strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"the URL must be http://HOST:PORT or https://HOST:PORT (got {url!r})")
    if parts.query or parts.fragment:
        raise ValueError(f"the URL must not have a query or fragment (got {url!r})")
    return url


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one would send the bearer token elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[override]
        return None


class Client:
    """A client of one vasana node's HTTP/JSON API (docs/http-api.md).

    Args:
        url: the server's base URL (``http://127.0.0.1:8080``); default: ``$VASANA_URL``.
        token: the client's bearer token; default: ``$VASANA_TOKEN``.
        timeout: seconds to wait for each request (connect, send, answer).
        ssl_context: for ``https://`` URLs, e.g. ``ssl.create_default_context(cafile="server.crt")``
            for a server with a self-signed certificate; default: the system's trusted CAs.
        proxies: ``None`` uses the environment's proxy settings (urllib's default); ``{}``
            connects directly.
        strict_replication: when True, a write answered 202 ``not_replicated`` raises
            :class:`vasana.NotReplicatedError` (which carries the result and its id) instead of
            returning the result with ``replicated`` False.

    Raises ValueError when no URL or no token is given either way.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        ssl_context: Optional[ssl.SSLContext] = None,
        proxies: Optional[Dict[str, str]] = None,
        strict_replication: bool = False,
    ) -> None:
        if url is None:
            url = os.environ.get("VASANA_URL", "")
            if not url.strip():
                raise ValueError("no server URL: pass url= or set VASANA_URL (e.g. http://127.0.0.1:8080)")
        if token is None:
            token = os.environ.get("VASANA_TOKEN", "")
            if not token.strip():
                raise ValueError("no token: pass token= or set VASANA_TOKEN")
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0):
            raise ValueError("timeout must be a positive number of seconds")
        self.url = _check_url(url)
        self._token = _check_token(token)
        self.timeout = float(timeout)
        self.strict_replication = strict_replication
        handlers: List[urllib.request.BaseHandler] = [_NoRedirect()]
        if proxies is not None:
            handlers.append(urllib.request.ProxyHandler(proxies))
        if ssl_context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=ssl_context))
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self) -> str:
        return f"vasana.Client(url={self.url!r}, timeout={self.timeout!r})"

    # ----------------------------------------------------------------------------------------
    # Transport

    def request(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        params: Optional[Union[Mapping[str, Any], Sequence[Tuple[str, Any]]]] = None,
    ) -> Dict[str, Any]:
        """Sends one request and returns the answer's JSON object as a dict: the way to reach a
        route this client has no method for. A 202 ``not_replicated`` answer is returned (its
        ``"replicated"`` is False); every other error answer raises :class:`vasana.VasanaError`.
        ``path`` starts with ``/`` (``"/v1/realms"``)."""
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"path must start with '/' (got {path!r})")
        return self._send(method.upper(), path, body=body, params=params)[1]

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        params: Optional[Union[Mapping[str, Any], Sequence[Tuple[str, Any]]]] = None,
    ) -> Tuple[int, Dict[str, Any]]:
        url = self.url + path
        if params:
            url += "?" + urllib.parse.urlencode(params, doseq=True)
        headers = {
            "Authorization": "Bearer " + self._token,
            "Accept": "application/json",
            "User-Agent": "vasana-python",
        }
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif method in ("POST", "PUT", "PATCH"):
            data = b""
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                status = resp.status
                text = resp.read()
                answer_headers = {k.lower(): v for k, v in resp.headers.items()}
        except urllib.error.HTTPError as e:
            try:
                text = e.read()
            except (OSError, http.client.HTTPException):
                text = b""
            answer_headers = {k.lower(): v for k, v in (e.headers.items() if e.headers else [])}
            decoded = text.decode("utf-8", "replace")
            raise errors.error_for(e.code, _json_object(decoded), answer_headers, decoded) from None
        except urllib.error.URLError as e:
            raise self._transport_error(method, path, e.reason) from None
        except (OSError, http.client.HTTPException) as e:
            raise self._transport_error(method, path, e) from None
        decoded = text.decode("utf-8", "replace")
        parsed = _json_object(decoded)
        if parsed is None:
            raise errors.VasanaError(
                f"the answer to {method} {path} is not a JSON object: {decoded[:200]!r}",
                error="",
                status=status,
                headers=answer_headers,
            )
        return status, parsed

    def _transport_error(self, method: str, path: str, reason: Any) -> errors.VasanaError:
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            unknown = "; the outcome of the write is unknown" if method != "GET" else ""
            return errors.ClientTimeoutError(
                f"{method} {path}: no answer within {self.timeout:g} s{unknown}", error="timeout"
            )
        return errors.TransportError(f"{method} {path}: {reason}", error="transport")

    def _write(self, cls: Any, status: int, body: Dict[str, Any]) -> Any:
        """A write's result; for a 202 ``not_replicated`` answer with ``replicated`` False."""
        result = cls.from_json(body)
        if status == 202:
            result.replicated = False
            result.message = body.get("message", "") if isinstance(body.get("message"), str) else ""
            if self.strict_replication:
                raise errors.NotReplicatedError(
                    result.message or "the write was made but not replicated in time",
                    error=body.get("error", "not_replicated"),
                    status=status,
                    body=body,
                    result=result,
                )
        return result

    def _post_write(self, path: str, body: Mapping[str, Any], cls: Any = Written) -> Any:
        status, answer = self._send("POST", path, body=body)
        return self._write(cls, status, answer)

    @staticmethod
    def _id_path(memory_id: str, suffix: str = "", base: str = "/v1/memories/") -> str:
        if not isinstance(memory_id, str) or not memory_id:
            raise TypeError("an id must be a non-empty string (like 9f3c2a1b4d5e6f70-42)")
        return base + urllib.parse.quote(memory_id, safe="") + suffix

    # ----------------------------------------------------------------------------------------
    # The node

    def healthz(self) -> Health:
        """``GET /healthz``: the node's writer id, whether it takes writes, its last seqno."""
        return Health.from_json(self._send("GET", "/healthz")[1])

    def status(self) -> NodeStatus:
        """``GET /v1/status``: the node's status and the HTTP server's counters. Needs a client
        that may read every realm (``read = ["*"]``); any other gets PermissionDeniedError."""
        return NodeStatus.from_json(self._send("GET", "/v1/status")[1])

    def openapi(self) -> Dict[str, Any]:
        """``GET /v1/openapi.json``: the node's OpenAPI 3.1 document of this API, as a dict."""
        return self._send("GET", "/v1/openapi.json")[1]

    def realms(self) -> List[RealmCount]:
        """``GET /v1/realms``: the realms the client may read that hold memories, each with how
        many memories it holds that were not forgotten."""
        answer = self._send("GET", "/v1/realms")[1]
        return [RealmCount.from_json(r) for r in answer.get("realms") or []]

    # ----------------------------------------------------------------------------------------
    # Memories

    def remember(
        self,
        realm: str,
        text: str,
        *,
        kind: Optional[str] = None,
        tags: Optional[Names] = None,
        ref: Optional[str] = None,
        valid_from: Optional[TimeValue] = None,
        valid_to: Optional[TimeValue] = None,
        session: Optional[str] = None,
        status: Optional[str] = None,
        epistemic: Optional[str] = None,
        confidence: Optional[float] = None,
        pinned: Optional[bool] = None,
        vector: Optional[Sequence[float]] = None,
        on_existing_ref: Optional[str] = None,
        supersedes: Optional[str] = None,
        facts: Optional[Iterable[Union[Fact, Mapping[str, Any]]]] = None,
        candidates: Optional[bool] = None,
    ) -> Remembered:
        """``POST /v1/remember``: stores one memory. ``status="proposed"`` holds it for review;
        ``on_existing_ref`` is ``"refuse"`` or ``"update"``; ``candidates=False`` answers without
        conflict candidates. Omitted arguments are not sent (the server's defaults apply)."""
        body: Dict[str, Any] = {"realm": realm, "text": text}
        if kind is not None:
            body["kind"] = kind
        if tags is not None:
            body["tags"] = _names(tags, "tags")
        if ref is not None:
            body["ref"] = ref
        if valid_from is not None:
            body["valid_from"] = _time(valid_from, "valid_from")
        if valid_to is not None:
            body["valid_to"] = _time(valid_to, "valid_to")
        if session is not None:
            body["session"] = session
        if status is not None:
            body["status"] = status
        if epistemic is not None:
            body["epistemic"] = epistemic
        if confidence is not None:
            body["confidence"] = confidence
        if pinned is not None:
            body["pinned"] = pinned
        if vector is not None:
            body["vector"] = list(vector)
        if on_existing_ref is not None:
            body["on_existing_ref"] = on_existing_ref
        if supersedes is not None:
            body["supersedes"] = supersedes
        if facts is not None:
            body["facts"] = [_fact(f, i) for i, f in enumerate(facts)]
        if candidates is not None:
            body["candidates"] = candidates
        return self._post_write("/v1/remember", body, Remembered)

    def recall(
        self,
        query: str,
        realms: Names,
        *,
        limit: Optional[int] = None,
        as_of: Optional[TimeValue] = None,
        known_at: Optional[TimeValue] = None,
        since: Optional[TimeValue] = None,
        until: Optional[TimeValue] = None,
        lanes: Optional[Names] = None,
        tags: Optional[Names] = None,
        staged: Optional[bool] = None,
        explain: Optional[bool] = None,
        vector: Optional[Sequence[float]] = None,
    ) -> RecallResult:
        """``POST /v1/recall``: ranked memories of ``realms`` for ``query`` (``limit`` 1..1000,
        the server's default 10). ``staged=True`` shows memories held for review too;
        ``explain=True`` adds each hit's scoring detail."""
        body: Dict[str, Any] = {"query": query, "realms": _names(realms, "realms")}
        if limit is not None:
            body["limit"] = limit
        for key, value in (("as_of", as_of), ("known_at", known_at), ("since", since), ("until", until)):
            if value is not None:
                body[key] = _time(value, key)
        if lanes is not None:
            body["lanes"] = _names(lanes, "lanes")
        if tags is not None:
            body["tags"] = _names(tags, "tags")
        if staged is not None:
            body["staged"] = staged
        if explain is not None:
            body["explain"] = explain
        if vector is not None:
            body["vector"] = list(vector)
        return RecallResult.from_json(self._send("POST", "/v1/recall", body=body)[1])

    def get_memory(self, memory_id: str) -> Memory:
        """``GET /v1/memories/{id}``: every field of one memory (NotFoundError when the client
        may not know of it)."""
        return Memory.from_json(self._send("GET", self._id_path(memory_id))[1])

    def list_memories(
        self,
        realm: str,
        *,
        kind: Optional[Names] = None,
        status: Optional[Names] = None,
        tag: Optional[Names] = None,
        deleted: Optional[bool] = None,
        unreviewed: Optional[bool] = None,
        after: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> MemoryPage:
        """``GET /v1/memories?realm=R``: one page of a realm's memories in id order (``limit``
        1..10000, the server's default 100). Pass the page's ``next`` as ``after`` for the next
        page; ``next`` is ``""`` at the end (or use :meth:`iter_memories`)."""
        params: List[Tuple[str, str]] = [("realm", realm)]
        for key, value in (("kind", kind), ("status", status), ("tag", tag)):
            if value is not None:
                params.extend((key, v) for v in _names(value, key))
        for key, flag in (("deleted", deleted), ("unreviewed", unreviewed)):
            if flag is not None:
                params.append((key, "true" if flag else "false"))
        if after:
            params.append(("after", after))
        if limit is not None:
            params.append(("limit", str(int(limit))))
        return MemoryPage.from_json(self._send("GET", "/v1/memories", params=params)[1])

    def iter_memories(
        self,
        realm: str,
        *,
        kind: Optional[Names] = None,
        status: Optional[Names] = None,
        tag: Optional[Names] = None,
        deleted: Optional[bool] = None,
        unreviewed: Optional[bool] = None,
        page_size: int = 100,
    ) -> Iterator[Memory]:
        """Every memory of ``list_memories`` (same filters), page after page, in id order."""
        after = ""
        while True:
            page = self.list_memories(
                realm, kind=kind, status=status, tag=tag, deleted=deleted, unreviewed=unreviewed,
                after=after or None, limit=page_size,
            )
            yield from page.memories
            if not page.next or page.next == after:
                return
            after = page.next

    def facts(self, realm: str, *, after: Optional[str] = None, limit: Optional[int] = None) -> FactPage:
        """``GET /v1/facts?realm=R``: one page of a realm's live triplets and corrections in id
        order (``limit`` 1..10000, the server's default 1000). A page may hold fewer than ``limit``
        entries while ``next`` is set; pass ``next`` as ``after`` (or use :meth:`iter_facts`)."""
        params: List[Tuple[str, str]] = [("realm", realm)]
        if after:
            params.append(("after", after))
        if limit is not None:
            params.append(("limit", str(int(limit))))
        return FactPage.from_json(self._send("GET", "/v1/facts", params=params)[1])

    def iter_facts(self, realm: str, *, page_size: int = 1000) -> Iterator[FactEntry]:
        """Every live triplet and correction of a realm, page after page, in id order."""
        after = ""
        while True:
            page = self.facts(realm, after=after or None, limit=page_size)
            yield from page.facts
            if not page.next or page.next == after:
                return
            after = page.next

    def update(
        self,
        memory_id: str,
        *,
        text: Optional[str] = None,
        tags: Optional[Names] = None,
        valid_from: Optional[TimeValue] = None,
        valid_to: Optional[TimeValue] = None,
        facts: Optional[Iterable[Union[Fact, Mapping[str, Any]]]] = None,
    ) -> Written:
        """``POST /v1/memories/{id}/update``: a new ``text``, ``tags`` (replaced whole) and/or
        valid time. A new text retracts the facts drawn from the old one; ``facts`` are the new
        text's (``facts`` without ``text`` is refused)."""
        body: Dict[str, Any] = {}
        if text is not None:
            body["text"] = text
        if tags is not None:
            body["tags"] = _names(tags, "tags")
        if valid_from is not None:
            body["valid_from"] = _time(valid_from, "valid_from")
        if valid_to is not None:
            body["valid_to"] = _time(valid_to, "valid_to")
        if facts is not None:
            body["facts"] = [_fact(f, i) for i, f in enumerate(facts)]
        return self._post_write(self._id_path(memory_id, "/update"), body)

    def set_status(
        self, memory_id: str, status: str, *, reason: Optional[str] = None, replaced_by: Optional[str] = None
    ) -> Written:
        """``POST /v1/memories/{id}/status``: ``active``, ``verified``, ``observed``,
        ``proposed``, ``superseded`` (``replaced_by`` may name the memory that replaces it),
        ``contradicted`` or ``archived``, with an optional ``reason``."""
        body: Dict[str, Any] = {"status": status}
        if reason is not None:
            body["reason"] = reason
        if replaced_by is not None:
            body["replaced_by"] = replaced_by
        return self._post_write(self._id_path(memory_id, "/status"), body)

    def pin(self, memory_id: str, pinned: bool = True) -> Written:
        """``POST /v1/memories/{id}/pin``: pins (or, with ``pinned=False``, unpins) a memory."""
        return self._post_write(self._id_path(memory_id, "/pin"), {"pinned": bool(pinned)})

    def history(self, memory_id: str) -> List[HistoryEntry]:
        """``GET /v1/memories/{id}/history``: every op that touched the memory, oldest first."""
        answer = self._send("GET", self._id_path(memory_id, "/history"))[1]
        return [HistoryEntry.from_json(e) for e in answer.get("history") or []]

    def review(
        self, memory_id: str, decision: str, *, reviewer: Optional[str] = None, note: Optional[str] = None
    ) -> Written:
        """``POST /v1/memories/{id}/review``: ``decision`` is ``approve``, ``reject`` or
        ``reopen``; ``reviewer`` defaults to the client's name. Needs the review grant. A second
        approve/reject of a decided memory is ConflictError until a ``reopen``."""
        body: Dict[str, Any] = {"decision": decision}
        if reviewer is not None:
            body["reviewer"] = reviewer
        if note is not None:
            body["note"] = note
        return self._post_write(self._id_path(memory_id, "/review"), body)

    def forget(self, memory_id: str, reason: Optional[str] = None) -> Written:
        """``DELETE /v1/memories/{id}``: forgets a memory (its status becomes ``deleted``);
        ``reason`` is kept with it."""
        params = [("reason", reason)] if reason else None
        status, answer = self._send("DELETE", self._id_path(memory_id), params=params)
        return self._write(Written, status, answer)

    def erase(self, memory_id: str, reason: Optional[str] = None) -> Written:
        """``POST /v1/memories/{id}/erase``: erases a memory for good on every node (only its id,
        realm, creation time, who erased it and why stay). Irreversible. Needs the client's
        ``erase = true`` grant and write on the realm; erasing it again is ConflictError."""
        params = [("reason", reason)] if reason else None
        status, answer = self._send("POST", self._id_path(memory_id, "/erase"), params=params)
        return self._write(Written, status, answer)

    # ----------------------------------------------------------------------------------------
    # Facts, analogies, corrections

    def add_fact(
        self,
        realm: str,
        subject: str,
        predicate: str,
        object: str,
        *,
        valid_from: Optional[TimeValue] = None,
        valid_to: Optional[TimeValue] = None,
        source_memory: Optional[str] = None,
    ) -> Written:
        """``POST /v1/facts``: adds a triplet; the result's ``id`` names it (for
        :meth:`retract_fact`)."""
        body: Dict[str, Any] = {"realm": realm, "subject": subject, "predicate": predicate, "object": object}
        if valid_from is not None:
            body["valid_from"] = _time(valid_from, "valid_from")
        if valid_to is not None:
            body["valid_to"] = _time(valid_to, "valid_to")
        if source_memory is not None:
            body["source_memory"] = source_memory
        return self._post_write("/v1/facts", body)

    def retract_fact(self, fact_id: str) -> Written:
        """``DELETE /v1/facts/{id}``: retracts a triplet."""
        status, answer = self._send("DELETE", self._id_path(fact_id, base="/v1/facts/"))
        return self._write(Written, status, answer)

    def analogy(self, a: str, b: str, c: str, realms: Names, *, as_of: Optional[TimeValue] = None) -> Analogy:
        """``POST /v1/analogy``: a is to b as c is to what, from the realms' live triplets only;
        ``abstained`` with a ``reason`` when a step finds nothing."""
        body: Dict[str, Any] = {"a": a, "b": b, "c": c, "realms": _names(realms, "realms")}
        if as_of is not None:
            body["as_of"] = _time(as_of, "as_of")
        return Analogy.from_json(self._send("POST", "/v1/analogy", body=body)[1])

    def correct(
        self,
        realm: str,
        wrong: str,
        right: str,
        *,
        note: Optional[str] = None,
        source_memory: Optional[str] = None,
    ) -> Written:
        """``POST /v1/corrections``: records that ``wrong`` should read ``right``. With
        ``source_memory`` that memory's text gets ``wrong`` replaced by ``right`` as its next
        version (BadInputError when its text does not hold ``wrong``)."""
        body: Dict[str, Any] = {"realm": realm, "wrong": wrong, "right": right}
        if note is not None:
            body["note"] = note
        if source_memory is not None:
            body["source_memory"] = source_memory
        return self._post_write("/v1/corrections", body)

    # ----------------------------------------------------------------------------------------
    # What needs a look

    def contradictions(self, realms: Names) -> List[Contradiction]:
        """``GET /v1/contradictions?realm=R``: open contradictions of functional claims."""
        params = [("realm", r) for r in _names(realms, "realms")]
        answer = self._send("GET", "/v1/contradictions", params=params)[1]
        return [Contradiction.from_json(c) for c in answer.get("contradictions") or []]

    def conflicts(self, realms: Names) -> List[Conflict]:
        """``GET /v1/conflicts?realm=R``: updates and review decisions that lost to a concurrent
        op on another node."""
        params = [("realm", r) for r in _names(realms, "realms")]
        answer = self._send("GET", "/v1/conflicts", params=params)[1]
        return [Conflict.from_json(c) for c in answer.get("conflicts") or []]


def _json_object(text: str) -> Optional[Dict[str, Any]]:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
