"""End-to-end encryption of event payloads for the hub: AES-256-GCM (``cryptography``).

The key is 32 random bytes made by ``tapestryctl sync init`` and kept in ``<data>/sync.key``
(mode 0600). The user carries it to the other machines as a passphrase: the key and a
2-byte checksum in base32, in groups of five letters (``tps1-ABCDE-FGHIJ-...``), so a typo
is caught (:func:`key_from_passphrase`) instead of making a key that reads nothing.

What leaves the machine for one event (:meth:`Sealer.seal`): the envelope the hub needs to
order and dedupe (event id, origin, type, schema, occurred_at) in clear, bound to the
ciphertext as associated data, so a row whose envelope was altered fails to open; and the
ciphertext of agent, source, recorded time and payload (a 12-byte random nonce per event). Each row also
names the key's id (:func:`key_id`: 8 hex digits of a hash of the key, not the key), so a row
sealed with another key is told apart from a damaged one.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from tapestryd.errors import SyncError
from tapestryd.events.codec import loads
from tapestryd.filemodes import private_file

__all__ = ["KEY_BYTES", "Opened", "Sealed", "Sealer", "key_from_passphrase", "key_id", "load_key", "new_key",
           "passphrase", "save_key"]

KEY_BYTES = 32
_PREFIX = "tps1"
_CHECK_BYTES = 2
NONCE_BYTES = 12


def new_key() -> bytes:
    """32 random bytes from the OS's CSPRNG."""
    return os.urandom(KEY_BYTES)


def key_id(key: bytes) -> str:
    """8 hex digits naming the key (a hash of it; the key cannot be recovered from it)."""
    return hashlib.sha256(b"tapestryd sync key id\x00" + key).hexdigest()[:8]


def passphrase(key: bytes) -> str:
    """The key as the passphrase a user copies: ``tps1-`` then base32 of key + checksum in groups of 5."""
    check = hashlib.sha256(key).digest()[:_CHECK_BYTES]
    letters = base64.b32encode(key + check).decode().rstrip("=")
    return "-".join([_PREFIX, *(letters[i:i + 5] for i in range(0, len(letters), 5))])


def key_from_passphrase(text: str) -> bytes:
    """The key a passphrase holds; spaces, dashes and letter case do not matter.

    Raises SyncError when it is not a tapestryd sync passphrase or its checksum fails (a typo).
    """
    cleaned = "".join(ch for ch in text.strip().upper() if ch not in " -\t\n")
    if not cleaned.startswith(_PREFIX.upper()):
        raise SyncError(f"not a tapestryd sync key: it should start with {_PREFIX}- (copy it from `tapestryctl sync"
                        " init` on the first machine)")
    letters = cleaned[len(_PREFIX):]
    try:
        raw = base64.b32decode(letters + "=" * (-len(letters) % 8))
    except ValueError as exc:
        raise SyncError(f"the sync key holds a character that is not base32 (A-Z, 2-7): {exc}") from exc
    key, check = raw[:KEY_BYTES], raw[KEY_BYTES:]
    if len(raw) != KEY_BYTES + _CHECK_BYTES or hashlib.sha256(key).digest()[:_CHECK_BYTES] != check:
        raise SyncError("the sync key's checksum does not match: a letter is missing or mistyped")
    return key


def save_key(path: Path, key: bytes) -> None:
    """Write the key's passphrase to ``path`` with mode 0600 (replacing the file atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    private_file(tmp)
    tmp.write_text(passphrase(key) + "\n")
    os.replace(tmp, path)


def load_key(path: Path) -> bytes:
    """The key stored at ``path``; raises SyncError when there is none or it is damaged."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise SyncError(f"no sync key at {path}: run `tapestryctl sync init` on the first machine, and `tapestryctl"
                        " sync init --key <passphrase>` on the others") from None
    except OSError as exc:
        raise SyncError(f"cannot read the sync key {path}: {exc.strerror}") from exc
    return key_from_passphrase(text)


@dataclass(frozen=True)
class Sealed:
    """What the hub stores of one event's secret part: the key's id, the nonce and the ciphertext."""

    key_id: str
    nonce: bytes
    ciphertext: bytes


@dataclass(frozen=True)
class Opened:
    """The secret part of one event, opened: agent, source, the payload JSON text, and when the
    capturing machine recorded it (ISO UTC, ``""`` when unknown)."""

    agent: str
    source: str
    payload: str
    recorded_at: str = ""


def _aad(event_id: str, origin: str, type_name: str, schema: int, occurred_at: str) -> bytes:
    """The envelope as associated data: altering any field makes the row fail to open."""
    return "\x1f".join((event_id, origin, type_name, str(schema), occurred_at)).encode("utf-8", "surrogatepass")


def _header(opened: Opened) -> bytes:
    """Agent, source and recorded time as a JSON array (orjson; the stdlib escapes a lone surrogate)."""
    values = [opened.agent, opened.source, opened.recorded_at]
    try:
        return orjson.dumps(values)
    except orjson.JSONEncodeError:
        return json.dumps(values).encode()


class Sealer:
    """Seals and opens event payloads with one key (AES-256-GCM)."""

    def __init__(self, key: bytes) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if len(key) != KEY_BYTES:
            raise SyncError(f"a sync key is {KEY_BYTES} bytes, not {len(key)}")
        self._aes = AESGCM(key)
        self.key_id = key_id(key)

    def seal(self, event_id: str, origin: str, type_name: str, schema: int, occurred_at: str,
             opened: Opened) -> Sealed:
        """Encrypt agent, source and payload, bound to the envelope fields given."""
        head = _header(opened)
        plain = head + b"\n" + opened.payload.encode("utf-8", "surrogatepass")
        nonce = os.urandom(NONCE_BYTES)
        return Sealed(self.key_id, nonce, self._aes.encrypt(nonce, plain,
                                                            _aad(event_id, origin, type_name, schema, occurred_at)))

    def open(self, event_id: str, origin: str, type_name: str, schema: int, occurred_at: str,
             sealed: Sealed) -> Opened:
        """Decrypt a row. Raises SyncError naming why: another key, or damaged or altered contents."""
        from cryptography.exceptions import InvalidTag

        if sealed.key_id != self.key_id:
            raise SyncError(f"sealed with another key (key id {sealed.key_id}, this machine's is {self.key_id})")
        try:
            plain = self._aes.decrypt(bytes(sealed.nonce), bytes(sealed.ciphertext),
                                      _aad(event_id, origin, type_name, schema, occurred_at))
        except (InvalidTag, ValueError) as exc:
            raise SyncError("does not open with this key: damaged, altered, or sealed with another key") from exc
        head, sep, payload = plain.partition(b"\n")
        try:
            agent, source, recorded = loads(head.decode())
            return Opened(str(agent), str(source), payload.decode("utf-8", "surrogatepass"), str(recorded))
        except (ValueError, TypeError) as exc:
            raise SyncError(f"opens, but its contents are malformed: {exc}") from exc
