"""Typed answers of the vasana HTTP API.

Each dataclass has the fields the API documents; ``raw`` holds the whole JSON object as the
server sent it, so a field added by a newer server is still readable (``result.raw["new"]``).
Times are kept as the server gives them: ``"2026-11-30T12:00:00.000Z"`` or ``"open"``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Type, TypeVar, Union

T = TypeVar("T")

_MISSING = dataclasses.MISSING


def _build(cls: Type[T], data: Any, **convert: Callable[[Any], Any]) -> T:
    """An instance of dataclass ``cls`` from a JSON object: each field from the key of its name
    (passed through ``convert[name]`` when given), its default when absent; ``raw`` the object."""
    if not isinstance(data, dict):
        data = {}
    kwargs: Dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name == "raw":
            continue
        if f.name in data:
            value = data[f.name]
            kwargs[f.name] = convert[f.name](value) if f.name in convert else value
        elif f.default is _MISSING and f.default_factory is _MISSING:  # type: ignore[misc]
            kwargs[f.name] = convert[f.name](None) if f.name in convert else None
    return cls(raw=dict(data), **kwargs)  # type: ignore[call-arg]


def _list_of(cls: Type[T]) -> Callable[[Any], List[T]]:
    return lambda items: [cls.from_json(x) for x in (items if isinstance(items, list) else [])]  # type: ignore[attr-defined]


def _raw() -> Any:
    return field(default_factory=dict, repr=False, compare=False)


@dataclass
class Fact:
    """A fact to write with a memory (``remember(..., facts=[...])``, ``update(..., facts=[...])``).
    Times as for every time argument: epoch ms, a string, a ``datetime`` or a ``date``."""

    subject: str
    predicate: str
    object: str
    valid_from: Optional[Union[int, str, Any]] = None
    valid_to: Optional[Union[int, str, Any]] = None


@dataclass
class Health:
    """``GET /healthz``."""

    ok: bool = False
    instance: str = ""
    writable: bool = False
    read_only_reason: str = ""
    last_seqno: int = 0
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Health":
        return _build(cls, data)


@dataclass
class HttpCounters:
    """The HTTP server's counters in ``GET /v1/status`` (since the server started)."""

    requests: int = 0
    unauthorized: int = 0
    throttled: int = 0
    client_errors: int = 0
    server_errors: int = 0
    connections_refused: int = 0
    timeouts: int = 0
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "HttpCounters":
        return _build(cls, data)


@dataclass
class NodeStatus:
    """``GET /v1/status``: the node's status (as ``vasana status --json``) and the HTTP
    counters. The many other fields of the node's status are in ``raw``."""

    instance: str = ""
    memories: int = 0
    writers: List[Dict[str, Any]] = field(default_factory=list)
    peers: List[Dict[str, Any]] = field(default_factory=list)
    problems: List[Any] = field(default_factory=list)
    http: HttpCounters = field(default_factory=HttpCounters)
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "NodeStatus":
        return _build(cls, data, http=HttpCounters.from_json)


@dataclass
class RealmCount:
    """One realm of ``GET /v1/realms``: its name and how many memories it holds that were not
    forgotten."""

    realm: str = ""
    memories: int = 0
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "RealmCount":
        return _build(cls, data)


@dataclass
class Written:
    """The answer of a write (update, status, pin, review, fact, retract, correction, forget,
    erase): the op's ``id`` (``<writer>-<seqno>``), ``seqno`` and ``effective_ts``.

    ``replicated`` is False when the server answered 202 ``not_replicated``: the write was made
    and is durable on the node, but not yet synced by as many peers as its ``sync.ack`` asks; it
    replicates when they return (do not repeat it). ``message`` then says so, and
    ``effective_ts`` is None (a 202 answer does not carry it)."""

    id: str = ""
    seqno: int = 0
    effective_ts: Optional[int] = None
    replicated: bool = True
    message: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Written":
        return _build(cls, data)


@dataclass
class Candidate:
    """An existing memory the new one may repeat or contradict."""

    id: str = ""
    reason: str = ""
    text: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Candidate":
        return _build(cls, data)


@dataclass
class Remembered:
    """``POST /v1/remember``: the new memory's ``id``, and what the node did with it.

    ``status`` is ``"proposed"`` when the memory is held for review. ``replicated`` is False for
    a 202 ``not_replicated`` answer: the memory WAS written (``id`` names it) but is not yet on
    as many peers as ``sync.ack`` asks; such an answer carries only ``id`` and ``seqno``, so
    ``effective_ts`` is None and ``status``/``existed``/``updated``/``candidates`` are left at
    their defaults (read the memory back with ``get_memory`` when they matter)."""

    id: str = ""
    seqno: int = 0
    effective_ts: Optional[int] = None
    existed: bool = False
    updated: bool = False
    status: str = ""
    flagged_by: str = ""
    candidates: List[Candidate] = field(default_factory=list)
    candidates_skipped: bool = False
    replicated: bool = True
    message: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Remembered":
        return _build(cls, data, candidates=_list_of(Candidate))


@dataclass
class Evidence:
    """What ``top_relevance`` was computed from: the keyword lane's best share of the query's
    weight and the semantic lane's best cosine."""

    keyword: float = 0.0
    semantic: float = 0.0
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Evidence":
        return _build(cls, data)


@dataclass
class RecallHit:
    """One ranked memory of a recall. ``explain`` is the scoring detail when the recall asked
    for it (``explain=True``), else None."""

    id: str = ""
    ref: str = ""
    score: float = 0.0
    realm: str = ""
    kind: str = ""
    status: str = ""
    text: str = ""
    recorded_at: str = ""
    tags: List[str] = field(default_factory=list)
    valid_from: str = "open"
    valid_to: str = "open"
    future: bool = False
    explain: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "RecallHit":
        return _build(cls, data)


@dataclass
class CorrectionHit:
    """A correction recall shows ahead of its hits."""

    id: str = ""
    realm: str = ""
    wrong: str = ""
    right: str = ""
    note: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "CorrectionHit":
        return _build(cls, data)


@dataclass
class RecallResult:
    """``POST /v1/recall``. ``verdict`` is ``KNOWN``, ``UNKNOWN`` or ``UNSURE``; ``notes`` says
    what the node could not do for the query (empty when it did everything)."""

    verdict: str = ""
    top_relevance: float = 0.0
    evidence: Evidence = field(default_factory=Evidence)
    lanes: List[str] = field(default_factory=list)
    corrections: List[CorrectionHit] = field(default_factory=list)
    hits: List[RecallHit] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "RecallResult":
        return _build(
            cls,
            data,
            evidence=Evidence.from_json,
            corrections=_list_of(CorrectionHit),
            hits=_list_of(RecallHit),
        )

    @property
    def ids(self) -> List[str]:
        """The hits' ids, best first."""
        return [h.id for h in self.hits]


@dataclass
class Memory:
    """``GET /v1/memories/{id}`` (and each memory of a list): every field of one memory.

    ``status`` is the one status it has now: ``"deleted"`` once forgotten, ``"erased"`` once
    erased, ``"rejected"`` once a reviewer rejected it, ``"approved"`` for a proposed memory a
    reviewer approved, else its set status (``"active"``, ``"verified"``, ``"proposed"``, ...)."""

    id: str = ""
    realm: str = ""
    kind: str = ""
    text: str = ""
    tags: List[str] = field(default_factory=list)
    ref: str = ""
    status: str = ""
    status_reason: str = ""
    replaced_by: str = ""
    epistemic: str = ""
    confidence: float = 1.0
    pinned: bool = False
    valid_from: str = "open"
    valid_to: str = "open"
    recorded_at: str = ""
    updated_at: str = ""
    deleted: bool = False
    reviewed: bool = False
    review_decision: str = ""
    source_session: str = ""
    source_tool: str = ""
    claim_status: str = ""
    erased: bool = False
    erased_by: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Memory":
        return _build(cls, data)


@dataclass
class MemoryPage:
    """One page of ``GET /v1/memories``: ``next`` is the ``after`` of the next page, ``""`` at
    the end."""

    memories: List[Memory] = field(default_factory=list)
    next: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "MemoryPage":
        return _build(cls, data, memories=_list_of(Memory))


@dataclass
class FactEntry:
    """A realm's live triplet (``type`` ``"fact"``: subject, predicate, object, valid time) or
    correction (``type`` ``"correction"``: wrong, right, note) from ``GET /v1/facts``;
    ``source_memory`` is ``""`` when none."""

    id: str = ""
    type: str = ""
    subject: str = ""
    predicate: str = ""
    object: str = ""
    valid_from: str = ""
    valid_to: str = ""
    wrong: str = ""
    right: str = ""
    note: str = ""
    source_memory: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "FactEntry":
        return _build(cls, data)


@dataclass
class FactPage:
    """One page of ``GET /v1/facts``: it may hold fewer than ``limit`` entries (even none) while
    ``next`` is set; ``next`` is ``""`` once there is no more."""

    facts: List[FactEntry] = field(default_factory=list)
    next: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "FactPage":
        return _build(cls, data, facts=_list_of(FactEntry))


@dataclass
class HistoryEntry:
    """One op of ``GET /v1/memories/{id}/history``. ``fields`` is what the op wrote (for an
    update: its ``text``, ``tags``, ``based_on``, ...). ``lost_to``/``lost_to_op`` name the op it
    lost to when it lost (``""`` otherwise)."""

    op: str = ""
    id: str = ""
    writer: str = ""
    seqno: int = 0
    effective_ts: int = 0
    recorded_at: str = ""
    chain_verified: bool = False
    fields: Optional[Dict[str, Any]] = None
    lost_to: str = ""
    lost_to_op: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "HistoryEntry":
        return _build(cls, data)


@dataclass
class AnalogyTriplet:
    """A live triplet supporting an analogy candidate."""

    id: str = ""
    realm: str = ""
    subject: str = ""
    predicate: str = ""
    object: str = ""
    valid_from: str = "open"
    valid_to: str = "open"
    source_memory: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "AnalogyTriplet":
        return _build(cls, data)


@dataclass
class AnalogyCandidate:
    """A candidate ``d`` of "a is to b as c is to d", with the predicates and triplets behind it."""

    d: str = ""
    predicates: List[str] = field(default_factory=list)
    support: List[AnalogyTriplet] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "AnalogyCandidate":
        return _build(cls, data, support=_list_of(AnalogyTriplet))


@dataclass
class Analogy:
    """``POST /v1/analogy``: the candidates, or ``abstained`` with a ``reason``."""

    abstained: bool = False
    reason: str = ""
    candidates: List[AnalogyCandidate] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Analogy":
        return _build(cls, data, candidates=_list_of(AnalogyCandidate))


@dataclass
class Claim:
    """One side of a contradiction: a triplet, its object and its source memory."""

    triplet: str = ""
    object: str = ""
    source_memory: str = ""
    valid_from: str = "open"
    valid_to: str = "open"
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Claim":
        return _build(cls, data)


@dataclass
class Contradiction:
    """An open contradiction of a functional claim (``GET /v1/contradictions``)."""

    realm: str = ""
    subject: str = ""
    predicate: str = ""
    claims: List[Claim] = field(default_factory=list)
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Contradiction":
        return _build(cls, data, claims=_list_of(Claim))


@dataclass
class Conflict:
    """An update or review decision that lost to a concurrent op (``GET /v1/conflicts``)."""

    realm: str = ""
    memory: str = ""
    lost: str = ""
    lost_op: str = ""
    lost_effective_ts: int = 0
    lost_at: str = ""
    to: str = ""
    to_op: str = ""
    to_effective_ts: int = 0
    to_at: str = ""
    raw: Dict[str, Any] = _raw()

    @classmethod
    def from_json(cls, data: Any) -> "Conflict":
        return _build(cls, data)
