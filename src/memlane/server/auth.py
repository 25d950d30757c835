"""API keys: each key maps to one namespace; only a salted hash of it is ever stored.

A key reads `mlk_<key id>_<secret>`. The key id (public, 8 hex digits) finds the entry in O(1);
the secret (32 random bytes, url-safe base64) is checked against `sha256(salt || secret)` with a
constant-time compare. The keys file is JSON, written atomically with mode 0600:

    {"keys": [{"id": "3f9a0c1e", "namespace": "acme", "salt": "<hex>", "hash": "<hex>",
               "created": 1718000000.0}]}

A key never leaves its namespace: the server resolves the namespace from the key alone, and no
request parameter can name another one. With no keys configured the server runs in dev mode (one
`default` namespace, no authentication), which it only agrees to do on a loopback address.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import re
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .. import validate
from ..errors import UsageError

KEY_PREFIX = "mlk_"
_KEY_RE = re.compile(r"^mlk_([0-9a-f]{8})_([A-Za-z0-9_\-]{20,100})$")
DEV_NAMESPACE = "default"


def default_keys_path() -> Path:
    """`$MEMLANE_KEYS`, else `~/.memlane/keys.json`."""
    env = os.environ.get("MEMLANE_KEYS")
    return Path(env) if env else Path.home() / ".memlane" / "keys.json"


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _digest(salt: bytes, secret: str) -> str:
    return hashlib.sha256(salt + secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class KeyEntry:
    """One stored key: never the key itself."""

    id: str
    """Public key id, the 8 hex digits after `mlk_`."""
    namespace: str
    """The only namespace this key can read or write."""
    salt: str
    """Per-key random salt, hex."""
    hash: str
    """sha256(salt || secret), hex."""
    created: float


class KeyRing:
    """The keys a server accepts, loaded from (and saved to) one JSON file."""

    def __init__(self, entries: list[KeyEntry] | None = None, path: Path | None = None) -> None:
        self.path = path
        self._by_id = {e.id: e for e in entries or []}
        self._lock = threading.Lock()
        self._stamp = self._file_stamp()
        self._checked = time.monotonic()

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None) -> KeyRing:
        """Read a keys file; a missing file is an empty ring (dev mode on loopback)."""
        p = Path(path) if path is not None else default_keys_path()
        return cls(_read(p), p)

    def refresh(self, every: float = 1.0) -> bool:
        """Reload the file if it changed (checked at most once per `every` seconds), so keys
        added or revoked with `memlane keys` take effect on a running server. True if reloaded.
        A file that became unreadable keeps the keys already loaded."""
        now = time.monotonic()
        if self.path is None or now - self._checked < every:
            return False
        self._checked = now
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return False
        try:
            entries = _read(self.path)
        except UsageError:
            return False
        with self._lock:
            self._by_id = {e.id: e for e in entries}
            self._stamp = stamp
        return True

    def _reread(self) -> None:
        # A change starts from the file as it is now, so keys another process added or revoked
        # (`memlane keys` beside a running server) are not undone by this one.
        if self.path is not None:
            self._by_id = {e.id: e for e in _read(self.path)}

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat() if self.path is not None else None
        except OSError:
            return None
        return None if st is None else (st.st_mtime_ns, st.st_size)

    def __len__(self) -> int:
        return len(self._by_id)

    def entries(self) -> list[KeyEntry]:
        return sorted(self._by_id.values(), key=lambda e: e.created)

    def add(self, namespace: str) -> str:
        """Create a key for `namespace`, save the ring, and return the key (shown once)."""
        validate.namespace(namespace)  # the rule of every surface (`memlane -n` too)
        with self._lock:
            self._reread()
            kid = secrets.token_hex(4)
            while kid in self._by_id:
                kid = secrets.token_hex(4)
            secret = secrets.token_urlsafe(32)
            salt = secrets.token_bytes(16)
            self._by_id[kid] = KeyEntry(kid, namespace, salt.hex(), _digest(salt, secret),
                                        time.time())
            self._save()
        return f"{KEY_PREFIX}{kid}_{secret}"

    def revoke(self, key_id: str) -> bool:
        with self._lock:
            self._reread()
            if self._by_id.pop(key_id.removeprefix(KEY_PREFIX), None) is None:
                return False
            self._save()
            return True

    def namespace_for(self, key: str) -> str | None:
        """The namespace of a valid key, None for anything else."""
        m = _KEY_RE.match(key)
        if m is None:
            return None
        entry = self._by_id.get(m.group(1))
        if entry is None:
            # Hash anyway, so an unknown id and a wrong secret take the same time.
            _digest(b"\0" * 16, m.group(2))
            return None
        ok = hmac.compare_digest(_digest(bytes.fromhex(entry.salt), m.group(2)), entry.hash)
        return entry.namespace if ok else None

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"keys": [e.__dict__ for e in self.entries()]}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".keys-")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stamp = self._file_stamp()


def _read(path: Path) -> list[KeyEntry]:
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [KeyEntry(**{k: e[k] for k in ("id", "namespace", "salt", "hash", "created")})
                for e in data["keys"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UsageError(f"keys file {path} is unreadable ({e}): fix it, or move it away and "
                         "add keys again with `memlane keys add NAMESPACE`") from None


class Auth:
    """Resolves a request's `Authorization: Bearer KEY` header to a namespace."""

    def __init__(self, keys: KeyRing, *, dev: bool = False,
                 dev_namespace: str = DEV_NAMESPACE) -> None:
        self.keys = keys
        self.dev = dev
        """No keys: every request is `dev_namespace` (only allowed on loopback)."""
        self.dev_namespace = dev_namespace
        """The one namespace of dev mode (`memlane -n NS serve`; default `default`)."""

    @classmethod
    def for_host(cls, keys: KeyRing, host: str, dev_namespace: str = DEV_NAMESPACE) -> Auth:
        """Dev mode (every request is `dev_namespace`) when no key is configured and `host` is
        loopback; refuses an open server on any other address."""
        if len(keys):
            return cls(keys)
        if not is_loopback(host):
            raise UsageError(
                f"no API keys configured and host {host!r} is not loopback: anyone could read "
                "every memory. Add a key with `memlane keys add NAMESPACE`, or bind to 127.0.0.1"
            )
        return cls(keys, dev=True, dev_namespace=dev_namespace)

    def namespace(self, authorization: str | None) -> str | None:
        """The namespace for this header value, or None (401)."""
        self.keys.refresh()
        if self.dev and len(self.keys):
            self.dev = False  # a key was added: dev mode is over, for good
        if self.dev:
            return self.dev_namespace
        if not authorization:
            return None
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return self.keys.namespace_for(token.strip())
