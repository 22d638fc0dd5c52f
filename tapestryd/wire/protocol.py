"""The socket protocol: JSON lines, versioned (standard library only).

Request: ``{"v": 1, "id": <any>, "op": "search", "args": {...}}``, one JSON object on one
line. Response: ``{"v": 1, "id": <same>, "ok": true, "result": ...}`` or
``{"v": 1, "id": <same>, "ok": false, "error": {"code": "...", "message": "..."}}``.

Error codes: ``bad_json``, ``bad_request``, ``too_large``, ``unknown_op``,
``unsupported_version``, ``user_error``, ``busy`` (too many clients), ``rate_limited`` (too
many requests on one connection), ``forbidden`` (a peer of another uid), ``shutting_down``,
``internal``.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: the fast path of tapestryctl counts milliseconds
    from typing import Any

__all__ = ["MAX_LINE", "VERSION", "ProtocolError", "decode_request", "encode", "error_response", "ok_response"]

VERSION = 1
MAX_LINE = 1 << 20  # bytes; a longer request line is refused with "too_large"


class ProtocolError(Exception):
    """A request that cannot be served; ``code`` is one of the module's error codes."""

    def __init__(self, code: str, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def encode(message: dict[str, Any]) -> bytes:
    """One JSON line (UTF-8, newline-terminated)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str).encode() + b"\n"


def decode_request(line: bytes) -> tuple[Any, str, dict[str, Any]]:
    """``(id, op, args)`` of a request line; raises ProtocolError with a code when invalid."""
    if len(line) > MAX_LINE:
        raise ProtocolError("too_large", f"request is larger than {MAX_LINE} bytes")
    try:  # strict UTF-8 first: json.loads(bytes) lets encoded surrogates (ED A0 80) through
        data = json.loads(line.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError("bad_json", f"request is not JSON: {exc}") from exc
    except RecursionError as exc:
        raise ProtocolError("bad_json", "request is nested too deeply") from exc
    if b"\\u" in line and _holds_lone_surrogate(data):
        raise ProtocolError("bad_json", "request holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text")
    if not isinstance(data, dict):
        raise ProtocolError("bad_request", "request must be a JSON object")
    rid = data.get("id")
    if data.get("v", VERSION) != VERSION:
        raise ProtocolError("unsupported_version", f"protocol version {data.get('v')!r} unsupported; use {VERSION}",
                            rid)
    op, args = data.get("op"), data.get("args", {})
    if not isinstance(op, str) or not isinstance(args, dict):
        raise ProtocolError("bad_request", "request needs a string 'op' and an object 'args'", rid)
    return rid, op, args


def _holds_lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value holds a string (or key) with an unpaired surrogate.

    ``json`` turns ``"\\ud800"`` into a str that cannot be encoded as UTF-8, so it would fail
    wherever it goes next. Only called when the line holds an escape.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode()
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def ok_response(request_id: Any, result: Any) -> dict[str, Any]:
    """A success response."""
    return {"v": VERSION, "id": request_id, "ok": True, "result": result}


def error_response(request_id: Any, code: str, message: str) -> dict[str, Any]:
    """An error response with a code and a readable message."""
    return {"v": VERSION, "id": request_id, "ok": False, "error": {"code": code, "message": message}}
