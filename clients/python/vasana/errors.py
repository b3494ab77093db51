"""Exceptions raised by the vasana client.

Every error answer of the server is a JSON object ``{"error": CODE, "message": TEXT}``. The
client raises the subclass of :class:`VasanaError` mapped from ``CODE`` (or, for a code this
client does not know, from the HTTP status), carrying the code, the status and the message.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class VasanaError(Exception):
    """An error answer of the server, or a request that got no answer.

    Attributes:
        error: the API's error code (``"bad_input"``, ``"permission_denied"``, ...); ``""`` when
            the answer had none (e.g. a proxy's page), ``"transport"``/``"timeout"`` when no
            answer came.
        status: the HTTP status (0 when no answer came).
        message: the server's message (it names the field that is wrong).
        body: the whole JSON body of the answer (a dict; empty when there was none).
        headers: the answer's headers (lower-case names), when there was an answer.
    """

    def __init__(
        self,
        message: str,
        *,
        error: str = "",
        status: int = 0,
        body: Optional[Dict[str, Any]] = None,
        headers: Optional[Dict[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.error = error
        self.status = status
        self.message = message
        self.body = dict(body or {})
        self.headers = dict(headers or {})

    def __str__(self) -> str:
        where = f"{self.status} {self.error}".strip() if self.status else self.error
        return f"{where}: {self.message}" if where else self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(error={self.error!r}, status={self.status!r}, message={self.message!r})"


class BadInputError(VasanaError):
    """400 ``bad_input``: a body that is not JSON, an unknown field, a wrong type or value."""


class UnauthorizedError(VasanaError):
    """401 ``unauthorized``: no valid bearer token."""


class PermissionDeniedError(VasanaError):
    """403 ``permission_denied``: outside the client's grants; nothing was written."""


ForbiddenError = PermissionDeniedError


class NotFoundError(VasanaError):
    """404 ``not_found``: no memory or triplet with that id that the client may know of."""


class NoRouteError(VasanaError):
    """404 ``no_route``: the server has no such route (an older server than this client?)."""


class MethodNotAllowedError(VasanaError):
    """405 ``method_not_allowed``."""


class RequestTimeoutError(VasanaError):
    """408 ``request_timeout``: the server did not get the request's head or body in time."""


class ConflictError(VasanaError):
    """409 ``conflict``: refused by what the store holds (a ref with other content, a review
    decision already made, a memory erased already, ...)."""


class PayloadTooLargeError(VasanaError):
    """413 ``payload_too_large``: the body is over the server's ``http.max_body_bytes``."""


class TooManyFailuresError(VasanaError):
    """429 ``too_many_failures``: too many failed logins from this address.

    ``retry_after`` is the server's ``Retry-After`` in seconds (None when absent)."""

    @property
    def retry_after(self) -> Optional[int]:
        value = self.headers.get("retry-after", "")
        return int(value) if value.strip().isdigit() else None


class ProtocolError(VasanaError):
    """A request that breaks HTTP/1.1's rules as the server reads them (``bad_request``,
    ``uri_too_long``, ``headers_too_large``, ``expectation_failed``, ``not_implemented``,
    ``http_version_not_supported``)."""


class UnavailableError(VasanaError):
    """503 ``unavailable``: the node is read-only or did not answer in time (the outcome of a
    write is then unknown)."""


class TooManyConnectionsError(UnavailableError):
    """503 ``too_many_connections``: over the server's connection limits."""


class ServerError(VasanaError):
    """500 ``internal`` / ``io_failure``: the node failed."""


class TransportError(VasanaError):
    """No answer: the connection could not be made or broke (``error`` is ``"transport"``)."""


class ClientTimeoutError(TransportError):
    """No answer within the client's timeout (``error`` is ``"timeout"``). For a write the
    outcome is unknown: read it back before repeating it."""


class NotReplicatedError(VasanaError):
    """202 ``not_replicated``, raised only by a client made with ``strict_replication=True``.

    The write WAS made and is durable on the node; it replicates when the peers return, so do
    not repeat it. ``result`` is the write's result (its ``id`` and ``seqno``, ``replicated``
    False)."""

    def __init__(self, message: str, *, result: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.result = result


ERRORS_BY_CODE = {
    "bad_input": BadInputError,
    "unauthorized": UnauthorizedError,
    "permission_denied": PermissionDeniedError,
    "not_found": NotFoundError,
    "no_route": NoRouteError,
    "method_not_allowed": MethodNotAllowedError,
    "request_timeout": RequestTimeoutError,
    "conflict": ConflictError,
    "payload_too_large": PayloadTooLargeError,
    "too_many_failures": TooManyFailuresError,
    "bad_request": ProtocolError,
    "uri_too_long": ProtocolError,
    "headers_too_large": ProtocolError,
    "expectation_failed": ProtocolError,
    "not_implemented": ProtocolError,
    "http_version_not_supported": ProtocolError,
    "unavailable": UnavailableError,
    "too_many_connections": TooManyConnectionsError,
    "internal": ServerError,
    "io_failure": ServerError,
    "protocol_mismatch": ServerError,
}

# For an error code this client does not know (a newer server), or an answer without one.
ERRORS_BY_STATUS = {
    400: BadInputError,
    401: UnauthorizedError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    408: RequestTimeoutError,
    409: ConflictError,
    413: PayloadTooLargeError,
    414: ProtocolError,
    417: ProtocolError,
    429: TooManyFailuresError,
    431: ProtocolError,
    501: ProtocolError,
    503: UnavailableError,
    505: ProtocolError,
}


def error_for(
    status: int, body: Optional[Dict[str, Any]], headers: Optional[Dict[str, str]] = None, text: str = ""
) -> VasanaError:
    """The exception for an error answer: by its ``error`` code, else by its HTTP status."""
    body = body if isinstance(body, dict) else {}
    code = body.get("error") if isinstance(body.get("error"), str) else ""
    message = body.get("message") if isinstance(body.get("message"), str) else ""
    if not message:
        message = text.strip()[:300] or f"HTTP {status}"
    cls = ERRORS_BY_CODE.get(code) or ERRORS_BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else VasanaError
    return cls(message, error=code, status=status, body=body, headers=headers)
