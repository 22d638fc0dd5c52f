"""Secrets recognised by the name they are assigned to: ``.env`` lines, config keys, CLI flags.

Forms (each a :class:`~tapestryd.privacy.rules.Rule`, the secret in group ``value``):

* ``.env`` / shell: ``[export] NAME=value`` at a line start or after a blank, ``;`` or
  ``&&`` (python-dotenv's syntax: an unquoted ``#`` starts a comment only after a blank);
* quoted values anywhere: ``"api_key": "…"`` (JSON), ``password = '…'`` (TOML, code),
  ``token: "…"`` (YAML);
* unquoted ``name: value`` (YAML, HTTP headers such as ``X-Api-Key: …``) and CLI flags
  ``--password=…`` / ``--token …``, where the value must also look generated.

A name holds a secret when one of its parts (split at ``_ - .`` and camelCase) is a
secret word (password, secret, token, ...) or is ``key`` qualified (``api_key``,
``SECRET_KEY``), and its last part does not say it is something else (``TOKEN_LIMIT``,
``PASSWORD_FILE``, ``AWS_ACCESS_KEY_ID``). Values that are references (``$VAR``,
``${VAR}``, ``%s``), placeholders (``****``, ``xxxx``), booleans, counts or code
(``os.environ["X"]``, ``self.token``) are left alone.
"""

from __future__ import annotations

import re

from tapestryd.privacy.rules import Rule, shannon_entropy

__all__ = ["ASSIGNMENT_RULES", "name_kind"]

_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "pwd", "pass", "pw"})
_SECRET_WORDS = _PASSWORD_WORDS | frozenset({
    "secret", "secrets", "token", "tokens", "apikey", "apikeys", "credential", "credentials", "privatekey",
    "secretkey", "accesskey", "authtoken", "accesstoken", "refreshtoken", "bearer", "sessionkey",
})
_PASSWORD_SUFFIXES = ("password", "passwd", "passphrase")  # PGPASSWORD, DBPASSWORD
_SECRET_SUFFIXES = ("secret", "token", "apikey")
_KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "signing", "sign", "encryption", "encrypt", "master", "client",
    "license", "licence", "service", "account", "app", "auth", "webhook", "session", "deploy", "admin", "root",
    "jwt", "hmac", "aes", "crypto", "shared", "consumer", "subscription", "ingest", "write", "read",
})
_NOT_SECRET_LAST = frozenset({
    "id", "ids", "url", "uri", "urls", "file", "path", "dir", "name", "names", "type", "length", "len", "size",
    "count", "limit", "max", "min", "ttl", "expiry", "expires", "expiration", "timeout", "env", "header",
    "field", "prefix", "format", "kind", "mode", "version", "enabled", "disabled", "policy", "required", "hash",
    "hint", "endpoint", "host", "port", "user", "username", "usage", "budget", "estimate", "estimator",
    "counter", "cache", "prompt", "label", "placeholder", "message", "text", "help", "description", "title",
    "error", "errors", "rotation", "strength", "reset", "regex", "pattern", "validator", "length", "chars",
})
_FALSY = frozenset({"true", "false", "null", "none", "nil", "undefined", "yes", "no", "on", "off", "required",
                    "optional", "string", "str", "bytes", "int", "empty", "redacted"})
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_NAME = r"(?<![A-Za-z0-9_.\-])(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,80})"
_KEYWORDS = ("pass", "pwd", "pw", "secret", "token", "key", "credential", "bearer")
_SIGN = re.compile(r"[:=]")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z]")
_WINDOW = 48  # characters before an assignment sign (or after a flag's dash) a secret word must be in


def _near_sign(text: str) -> bool:
    """A secret word in the few characters before some ``:`` or ``=`` (gate of the assignment rules).

    Scanning signs and looking back is far cheaper than a case-insensitive keyword regex
    over the whole text; prose that merely says "token" runs no assignment rule.
    """
    if ":" not in text and "=" not in text:
        return False
    return any(any(k in text[max(0, m.start() - _WINDOW):m.start()].lower() for k in _KEYWORDS)
               for m in _SIGN.finditer(text))


def _near_flag(text: str) -> bool:
    """A secret word in a command-line flag (``--password``, ``-token``): gate of the flag rule."""
    if "-" not in text:
        return False
    return any(any(k in text[m.start():m.start() + _WINDOW].lower() for k in _KEYWORDS) for m in _FLAG.finditer(text))


def _parts(name: str) -> list[str]:
    return [p.lower() for p in _SPLIT.split(name) if p]


def name_kind(name: str) -> str:
    """``password``, ``credential`` or ``""`` (not a secret's name) for an assignment's name."""
    parts = _parts(name)
    if not parts or parts[-1] in _NOT_SECRET_LAST or "public" in parts or "pub" in parts:
        return ""
    if any(p in _PASSWORD_WORDS or p.endswith(_PASSWORD_SUFFIXES) for p in parts):
        return "password"
    if any(p in _SECRET_WORDS or p.endswith(_SECRET_SUFFIXES) for p in parts):
        return "credential"
    keyed = any(p == "key" and i > 0 and parts[i - 1] in _KEY_QUALIFIERS for i, p in enumerate(parts))
    return "credential" if keyed else ""


def _placeholder(value: str) -> bool:
    v = value.strip()
    return (len(v) < 4 or v.startswith(("$", "%", "{", "<", "[secret:", "***")) or len(set(v.lower())) <= 2
            or v.lower() in _FALSY)


def _code_like(value: str) -> bool:
    return (any(c in value for c in "()[]{}<>") or _DOTTED.fullmatch(value) is not None
            or value.startswith(("/", "./", "~/", "http://", "https://", "file://")))


def _countable(kind: str, value: str) -> bool:
    """A bare number is a count (``MAX_TOKENS=4096``) unless the name says password (a PIN)."""
    return kind != "password" and value.isdigit()


def _generated(value: str) -> bool:
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() and c not in "-_." for c in value)
    return len(value) >= 6 and (has_digit or has_symbol or (len(value) >= 16 and shannon_entropy(value) >= 3.5))


def _accept_env(match: re.Match[str]) -> bool:
    kind, value = name_kind(match["name"]), match["value"]
    if not kind or _placeholder(value) or _countable(kind, value) or _code_like(value):
        return False
    return match["name"].isupper() or not _IDENT.fullmatch(value)


def _accept_quoted(match: re.Match[str]) -> bool:
    kind, value = name_kind(match["name"]), match["value"]
    return bool(kind) and not _placeholder(value) and not _countable(kind, value) and value.count(" ") < 3


def _kind(match: re.Match[str]) -> str:
    return name_kind(match["name"])


def _accept_loose(match: re.Match[str]) -> bool:
    value = match["value"]
    return bool(name_kind(match["name"])) and not _placeholder(value) and not _code_like(value) and _generated(value)


ASSIGNMENT_RULES = (
    Rule("credential", re.compile(
        r"(?<![^\s;&|(])(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_]{0,80})[ \t]*=[ \t]*"
        r"(?P<value>[^\s#\"'=][^\s]{0,1023})"), _KEYWORDS, "value", _accept_env, _kind, _near_sign),
    Rule("credential", re.compile(
        _NAME + r"[\"']?[ \t]*(?::=|=>|[:=])[ \t]*(?P<q>[\"'])(?P<value>(?:(?!(?P=q)).){1,1024}?)(?P=q)"),
        _KEYWORDS, "value", _accept_quoted, _kind, _near_sign),
    Rule("credential", re.compile(_NAME + r"[\"']?[ \t]*:[ \t]+(?P<value>[^\s\"',;]{6,1024})"),
         _KEYWORDS, "value", _accept_loose, _kind, _near_sign),
    Rule("credential", re.compile(
        r"(?<![\w-])--?(?P<name>[A-Za-z][A-Za-z0-9\-]{1,40})(?:=|[ \t]+)(?P<value>[^\s\"'=\-][^\s\"']{3,1023})"),
        _KEYWORDS, "value", _accept_loose, _kind, _near_flag),
)
