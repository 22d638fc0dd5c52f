"""Find API keys, tokens, private keys and passwords in text; replace them with typed placeholders.

Why not detect-secrets (Yelp, 1.5.0)? Its plugins yield matched strings per line, not spans;
it has no Anthropic or Google API key plugin; its private key plugin flags only the
``BEGIN`` line, not the block; its Stripe rule knows only 24-character live keys; and it
ships ``verify`` methods that POST candidate secrets to Slack, Stripe and AWS, which a
privacy filter must never be able to do. So the formats are written here, each citing
where it comes from:

* gitleaks (MIT) rule files ``cmd/generate/config/rules/{openai,anthropic,github,aws,gcp,
  slack,stripe}.go``: prefixes, alphabets and lengths of vendor keys;
* GitHub's token formats: https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/
  (``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36 base62) and ``github_pat_`` fine-grained tokens;
* AWS IAM unique ID prefixes: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html;
* RFC 7468 (PEM ``-----BEGIN … PRIVATE KEY-----`` blocks), RFC 4880 (PGP armour),
  RFC 3986 §3.2.1 (``scheme://user:password@host``), RFC 6750 (``Authorization: Bearer``),
  RFC 7617 (``Authorization: Basic``), RFC 7519 (JWT: three base64url parts, ``eyJ`` header);
* ``.env`` files as python-dotenv reads them (``[export] NAME=value``), and ``name: value`` /
  ``"name": "value"`` assignments whose name says it holds a secret.

Context-free "random-looking string" detection is deliberately not done: git SHAs,
UUIDs, message ids (``msg_01…``) and base64 image data would drown real findings. A token
is found by its vendor prefix or by the word in front of it (Bearer, token=, PASSWORD=).
The one exception, a bare AWS secret access key (no prefix, often pasted without its
label), is found by :mod:`tapestryd.privacy.awskeys` with guards of its own.

:func:`find_secrets` returns non-overlapping :class:`Finding` spans; :func:`redact`
replaces each with ``[secret:<kind>]``. Redaction is idempotent.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterator

from tapestryd.privacy.assignments import ASSIGNMENT_RULES
from tapestryd.privacy.awskeys import find_bare_aws_secrets
from tapestryd.privacy.rules import Rule, token_like

__all__ = ["KINDS", "Finding", "find_secrets", "placeholder", "redact"]


@dataclass(frozen=True)
class Finding:
    """One secret: its ``kind`` (``aws-access-key``, ...) and the span ``text[start:end]``."""

    kind: str
    start: int
    end: int
    rank: int = field(default=0, compare=False, repr=False)


def placeholder(kind: str) -> str:
    """The text that replaces a secret of ``kind``: ``[secret:<kind>]``."""
    return f"[secret:{kind}]"


# A token starts at a boundary, so "task-proj-..." is not "sk-proj-...". It need not end at
# one: a token glued to the next word is still redacted (failing closed).
_START = r"(?<![A-Za-z0-9_\-])"


def _group_token_like(match: re.Match[str]) -> bool:
    return token_like(match.group(1))


def _not_placeholder(match: re.Match[str]) -> bool:
    value = match.group(1)
    return not value.startswith(("$", "%", "{")) and len(set(value)) > 2


_VENDOR_RULES = (
    # RFC 7468 / RFC 4880: the whole block; a truncated block is cut at its last base64-ish char.
    Rule("private-key", re.compile(
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END[ A-Z0-9]{0,40}"
        r"PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,\-]{0,8000})"), ("private key",)),
    # gitleaks openai.go: project/service/admin keys, and legacy keys, carry "T3BlbkFJ".
    Rule("openai-api-key", re.compile(
        _START + r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,200}|[A-Za-z0-9]{20})T3BlbkFJ"
        r"[A-Za-z0-9_\-]{20,200}"), ("t3blbkfj",)),
    Rule("openai-api-key", re.compile(_START + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,250}"),
          ("sk-proj-", "sk-svcacct-", "sk-admin-")),
    # gitleaks anthropic.go: sk-ant-api03- / admin01- / oat01- / ort01- then 40+ base64url.
    Rule("anthropic-api-key", re.compile(_START + r"sk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_\-]{40,250}"),
          ("sk-ant-",)),
    Rule("github-token", re.compile(_START + r"(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})"),
          ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    # AWS unique-ID prefixes of access keys (AKIA long-term, ASIA STS, ...) + 16 base32.
    Rule("aws-access-key", re.compile(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
          ("a3t", "akia", "asia", "abia", "acca")),
    Rule("aws-secret-key", re.compile(
        r"(?i:aws_?secret_?(?:access_?)?key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"),
        ("secret",), group=1),
    # gitleaks gcp.go: Google API keys are AIza + 35 base64url; OAuth access tokens start ya29.
    Rule("google-api-key", re.compile(_START + r"AIza[0-9A-Za-z_\-]{35}"), ("aiza",)),
    Rule("google-oauth-token", re.compile(_START + r"ya29\.[0-9A-Za-z_\-]{20,2048}"), ("ya29.",)),
    # gitleaks slack.go: xox[abposre]- tokens, xoxe.xox[bp]- config tokens, xapp- app tokens.
    Rule("slack-token", re.compile(
        _START + r"(?:xox[abposre]-(?:\d{1,14}-){1,4}[A-Za-z0-9]{8,64}|xox[ar]-\d-[A-Za-z0-9-]{10,200}"
        r"|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,200}|xoxe-\d-[A-Za-z0-9]{100,200}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)"
       ), ("xox", "xapp-")),
    Rule("slack-webhook", re.compile(
        r"https://hooks\.slack\.com/(?:services|workflows)/T[A-Za-z0-9_]+/[AB][A-Za-z0-9_]+/[A-Za-z0-9_]+"),
        ("hooks.slack.com",)),
    # gitleaks stripe.go: secret and restricted keys (sk_/rk_ live or test); webhook secrets whsec_.
    Rule("stripe-key", re.compile(_START + r"(?:[sr]k_(?:live|test)_[0-9A-Za-z]{10,247}|whsec_[0-9A-Za-z]{24,64})"
                                  ), ("sk_live", "sk_test", "rk_live", "rk_test", "whsec_")),
    Rule("jwt", re.compile(_START + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
          ("eyj",)),
)

_CONTEXT_RULES = (
    # RFC 3986 userinfo: only the password part is replaced, the user and host stay readable.
    Rule("password-in-url", re.compile(
        r"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/?#@\[\]\"'<>]{1,256}:([^\s/?#@\[\]\"'<>]{1,256})@"),
        ("://",), group=1, accept=_not_placeholder),
    Rule("bearer-token", re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9\-._~+/]{16,2048}=*)"), ("bearer",),
          group=1, accept=_group_token_like),
    Rule("basic-auth", re.compile(r"(?i:\bauthorization[\"']?\s*:\s*[\"']?basic)\s+([A-Za-z0-9+/]{8,1024}={0,2})"),
          ("basic",), group=1),
    Rule("url-secret-param", re.compile(
        r"[?&](?i:access_token|auth_token|id_token|refresh_token|token|api_key|apikey|key|secret|client_secret"
        r"|password|passwd|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=([^&\s#\"'<>]{8,2048})"),
        ("=",), group=1, accept=_group_token_like),
)


_RULES = _VENDOR_RULES + _CONTEXT_RULES + ASSIGNMENT_RULES
# Characters one of which every match of the rule at the same position of _RULES holds, looked
# for in the text as it is ("" for none). A rule whose characters are all absent cannot match,
# so its keywords need no scan: prose without ":", "=", "-", "_" or "." scans for "bearer" alone,
# not for 39 keywords. "A" stands for the case-sensitive prefixes of AWS and Google keys
# (_CASED_PREFIX, one regex search where the five keywords took five scans of the lowered text).
_NEEDS = (
    "-", "-", "-", "-", "_",  # private key block (-----BEGIN), openai (sk-) twice, anthropic (sk-ant-), github
    "A", ":=", "A", ".", "-",  # AWS access key (A…), AWS secret (name = or :), Google (AIza, ya29.), Slack (xox…-)
    ":", "_", ".",  # Slack webhook (https:), Stripe (sk_live_, whsec_), JWT (eyJ….eyJ)
    ":", "", ":", "=",  # password in URL (://), bearer, basic auth (Authorization:), URL parameter (?key=)
    "=", ":=", ":", "-",  # assignments: NAME=value, quoted name: / = value, name: value, --flag
)
_RULE_NEEDS = tuple(zip(_RULES, _NEEDS, strict=True))
_NEED_CHARS = "".join(sorted(set("".join(_NEEDS))))
_CASED_PREFIX = re.compile(r"A(?:3T|KIA|SIA|BIA|CCA|Iza)")
_KEYWORDS = frozenset(k for rule in _RULES for k in rule.keywords)
# Keywords grouped by a character that chat prose rarely holds ("" for the rest): when the
# character is absent no keyword of its group can be, so one memchr stands in for the
# group's substring scans (about 2.5x faster on 1 KB messages than scanning all 39).
# Within a group, keywords that hold one of the _SHARED substrings are scanned only when
# it occurs (absent from the text, it is absent from every keyword holding it): the same
# keywords found with 6 to 12 fewer substring scans (find_secrets 15.0 -> 14.0 us on 1 KB
# bench messages; the 12 keywords scanned in every text are most of what is left).
_RARE_CHARS = "_-=:.3j"
_SHARED = ("sk-", "gh", "k_", "pw", "key")

Groups = tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...]


def _rare_char(keyword: str) -> str:
    return next((c for c in _RARE_CHARS if c in keyword), "")


def _shared(keyword: str) -> str:
    return next((s for s in _SHARED if s in keyword), "")


def _buckets(keywords: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((shared, tuple(sorted(k for k in keywords if _shared(k) == shared)))
                 for shared in sorted({_shared(k) for k in keywords}))


def _groups(keywords: frozenset[str]) -> Groups:
    """``keywords`` by rare character, then by shared substring (see above)."""
    return tuple((char, _buckets([k for k in keywords if _rare_char(k) == char]))
                 for char in sorted({_rare_char(k) for k in keywords}))


_KEYWORD_GROUPS = _groups(_KEYWORDS)
KINDS = tuple(dict.fromkeys(r.kind for r in _VENDOR_RULES + _CONTEXT_RULES)) + ("password", "credential")


def _present(lowered: str, groups: Groups = _KEYWORD_GROUPS) -> set[str]:
    """The keywords of ``groups`` that occur in ``lowered`` (exactly ``{k for k in keywords if k in lowered}``)."""
    return {k for char, buckets in groups if char in lowered
            for shared, group in buckets if shared in lowered for k in group if k in lowered}


@lru_cache(maxsize=None)
def _plan(chars: str) -> tuple[tuple[tuple[int, Rule], ...], Groups]:
    """The rules (with their rank) that can match a text holding exactly the :data:`_NEED_CHARS` in
    ``chars``, and their keywords grouped for :func:`_present` (one plan per subset of those characters)."""
    rules = tuple((rank, rule) for rank, (rule, needs) in enumerate(_RULE_NEEDS)
                  if not needs or any(c in chars for c in needs))
    return rules, _groups(frozenset(k for _, rule in rules for k in rule.keywords))


def _held(text: str) -> str:
    """The :data:`_NEED_CHARS` that ``text`` holds ("A" when an AWS or Google key prefix occurs)."""
    held = "".join(c for c in _NEED_CHARS if c != "A" and c in text)
    return held + "A" if _CASED_PREFIX.search(text) else held


def _candidates(text: str) -> Iterator[Finding]:
    rules, groups = _plan(_held(text))
    present = _present(text.lower(), groups)
    gates: dict[Callable[[str], bool], bool] = {}
    for rank, rule in rules:
        if present.isdisjoint(rule.keywords):
            continue
        if rule.gate is not None and not gates.setdefault(rule.gate, rule.gate(text)):
            continue
        for match in _matches(rule, text):
            kind = rule.kind_of(match)
            if kind:
                yield Finding(kind, match.start(rule.group), match.end(rule.group), rank)


def _all_candidates(text: str) -> Iterator[Finding]:
    yield from _candidates(text)
    for start, end in find_bare_aws_secrets(text):
        yield Finding("aws-secret-key", start, end, len(_RULES))


def _matches(rule: Rule, text: str) -> Iterator[re.Match[str]]:
    """Accepted matches; after a rejected one the search resumes one character later.

    (``finditer`` would resume after the rejected match and miss a secret inside it, as in
    ``A=' export PGPASSWORD='…'``.)
    """
    pos = 0
    while (match := rule.pattern.search(text, pos)) is not None:
        if match.group(rule.group) and (rule.accept is None or rule.accept(match)):
            yield match
            pos = max(match.end(), match.start() + 1)
        else:
            pos = match.start() + 1


def find_secrets(text: str) -> list[Finding]:
    """Every secret in ``text``, in text order, never overlapping.

    Rules run in priority order (private key blocks, vendor formats, context rules,
    assignments). Overlapping matches are merged into one span that keeps the kind of
    the first rule that found it, so ``OPENAI_API_KEY=sk-proj-…`` reports
    ``openai-api-key``, and no byte any rule matched is ever left out.
    """
    taken: list[Finding] = []  # disjoint and sorted by start
    for found in _all_candidates(text):
        lo = bisect.bisect_left(taken, found.start, key=_end_after)
        hi = bisect.bisect_left(taken, found.end, key=_start)
        if lo < hi:
            first = min(taken[lo:hi], key=lambda f: f.rank)
            found = Finding(first.kind, min(found.start, taken[lo].start), max(found.end, taken[hi - 1].end),
                            first.rank)
        taken[lo:hi] = [found]
    return taken


def _start(finding: Finding) -> int:
    return finding.start


def _end_after(finding: Finding) -> int:
    return finding.end - 1


def redact(text: str) -> str:
    """``text`` with each secret replaced by ``[secret:<kind>]``; unchanged when none is found.

    A replacement can expose a boundary a glued token lacked (``x…AKIA…`` becomes
    ``]AKIA…``), so redaction repeats until nothing more is found (at most
    :data:`_MAX_PASSES` times); hence ``redact(redact(t)) == redact(t)``.
    """
    for _ in range(_MAX_PASSES):
        findings = find_secrets(text)
        if not findings:
            break
        text = _replace(text, findings)
    return text


_MAX_PASSES = 8


def _replace(text: str, findings: list[Finding]) -> str:
    parts, last = [], 0
    for f in findings:
        parts.append(text[last:f.start])
        parts.append(placeholder(f.kind))
        last = f.end
    parts.append(text[last:])
    return "".join(parts)
