"""Guards of the calendar: loopback binding, Host checks, CSRF tokens and same-origin writes.

* Bound to loopback by default; :func:`bind_warning` says what is exposed otherwise.
* Every request's ``Host`` must name this machine's loopback (or the configured host), which
  stops DNS-rebinding pages from reading the calendar through a name they control.
* A state-changing request (POST, PUT, PATCH, DELETE) needs the page's CSRF token in the
  ``X-CSRF-Token`` header (or a ``csrf_token`` form field) and an ``Origin`` (or, failing
  that, ``Referer``) whose scheme-less host:port equals the request's ``Host``: a page on
  another site can neither read the token nor forge the origin. (OWASP CSRF Prevention
  Cheat Sheet: "Verifying Origin with standard headers" plus a synchronizer token.)
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import urlsplit

from flask import Request

__all__ = ["LOOPBACK_NAMES", "bind_warning", "host_allowed", "is_loopback", "write_refusal"]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and any address in 127.0.0.0/8 or ``::1``."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def bind_warning(host: str) -> str:
    """A warning to show when the calendar listens beyond loopback ('' when it does not)."""
    if is_loopback(host):
        return ""
    return (f"the calendar listens on {host}, beyond this machine: anyone who can reach it can read your "
            "conversation history. Set [web] host = \"127.0.0.1\" unless you mean it.")


def _hostname(netloc: str) -> str:
    """The host part of ``host[:port]`` or ``[v6]:port``, lower-cased."""
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0].lower()
    return netloc.rsplit(":", 1)[0].lower() if netloc.count(":") == 1 else netloc.lower()


def host_allowed(request_host: str, bound_host: str) -> bool:
    """True when the ``Host`` header names loopback, or the bound host when that is not loopback.

    A wildcard bind (``0.0.0.0``, ``::``) accepts any host: the person chose to expose it.
    """
    name = _hostname(request_host)
    if is_loopback(name):
        return True
    if bound_host in ("0.0.0.0", "::", ""):
        return True
    return name == _hostname(bound_host)


def write_refusal(request: Request, token: str) -> str:
    """Why a state-changing ``request`` must be refused ('' when it may proceed)."""
    if request.method not in UNSAFE_METHODS:
        return ""
    source = request.headers.get("Origin") or request.headers.get("Referer") or ""
    if not source or source == "null":
        return "refused: a change needs an Origin header from this page"
    if urlsplit(source).netloc.lower() != request.host.lower():
        return f"refused: requests from {urlsplit(source).netloc or source!r} may not change this service"
    sent = request.headers.get("X-CSRF-Token", "")
    if not sent and _is_form(request):
        sent = request.form.get("csrf_token", "")
    if not sent or not hmac.compare_digest(sent, token):
        return "refused: missing or wrong CSRF token; reload the page"
    return ""


def _is_form(request: Request) -> bool:
    return request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data")
