"""A Python client for the HTTP/JSON API of a vasana node (standard library only).

    import vasana
    client = vasana.Client("http://127.0.0.1:8080", token="...")  # or $VASANA_URL, $VASANA_TOKEN
    written = client.remember("notes", "the staging database runs on port 5433")
    for hit in client.recall("staging database port", ["notes"]).hits:
        print(hit.id, hit.score, hit.text)
"""

from .client import DEFAULT_TIMEOUT, Client
from .errors import (
    BadInputError,
    ClientTimeoutError,
    ConflictError,
    ForbiddenError,
    MethodNotAllowedError,
    NoRouteError,
    NotFoundError,
    NotReplicatedError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProtocolError,
    RequestTimeoutError,
    ServerError,
    TooManyConnectionsError,
    TooManyFailuresError,
    TransportError,
    UnauthorizedError,
    UnavailableError,
    VasanaError,
)
from .models import (
    Analogy,
    AnalogyCandidate,
    AnalogyTriplet,
    Candidate,
    Claim,
    Conflict,
    Contradiction,
    CorrectionHit,
    Evidence,
    Fact,
    Health,
    HistoryEntry,
    HttpCounters,
    Memory,
    MemoryPage,
    FactEntry,
    FactPage,
    NodeStatus,
    RealmCount,
    RecallHit,
    RecallResult,
    Remembered,
    Written,
)

__version__ = "0.1.0"

__all__ = [
    "Client",
    "DEFAULT_TIMEOUT",
    "__version__",
    # errors
    "VasanaError",
    "BadInputError",
    "UnauthorizedError",
    "PermissionDeniedError",
    "ForbiddenError",
    "NotFoundError",
    "NoRouteError",
    "MethodNotAllowedError",
    "RequestTimeoutError",
    "ConflictError",
    "PayloadTooLargeError",
    "TooManyFailuresError",
    "ProtocolError",
    "UnavailableError",
    "TooManyConnectionsError",
    "ServerError",
    "TransportError",
    "ClientTimeoutError",
    "NotReplicatedError",
    # answers
    "Analogy",
    "AnalogyCandidate",
    "AnalogyTriplet",
    "Candidate",
    "Claim",
    "Conflict",
    "Contradiction",
    "CorrectionHit",
    "Evidence",
    "Fact",
    "Health",
    "HistoryEntry",
    "HttpCounters",
    "Memory",
    "MemoryPage",
    "FactEntry",
    "FactPage",
    "NodeStatus",
    "RealmCount",
    "RecallHit",
    "RecallResult",
    "Remembered",
    "Written",
]
