"""Verdicts kept across runs: an engine's answer on a statement is computed once.

The same obligation comes back again and again: a block at one shape sits in
many programs' proofs, a sweep to N repeats every proof below N, and a user
re-runs a claim after changing something else. What an engine answers depends
on three things only, so they are the key:

* **the statement**, by its fingerprint (:func:`usim.engine.statement.fingerprint`;
  the definedness check's answer also by the divisions the target writes,
  :func:`usim.engine.definedness.decided_statement`):
  the program node by node (:mod:`usim.rasp.fingerprint`), the input and output
  layouts, the target, the preconditions, the domain and padding. Which claim
  or shape it was built for is not part of it: a statement proved inside one
  claim is proved wherever it appears again;
* **the engine or check** that answered (``sympy``, ``z3``, ``definedness``, ...);
* **the usim that ran it**: the digest of every source file
  (:func:`usim.engine.identity.source_digest`) and the versions of usim, Python
  and every solver (:func:`usim.engine.identity.identity`). Any change to
  usim's code or a solver makes every entry unreachable; nothing is reused
  across versions.

Only **definitive** answers are stored: PROVED and REFUTED (a refutation
carries its replayed counterexample). UNKNOWN (a timeout may pass with more
time), VACUOUS (the witness search may succeed with more time) and ERROR are
computed again on every run.

**What an entry must show before it is used.** An entry is a JSON file that
anyone who can write the folder can edit, so nothing in it is believed as
written. It holds the full statement fingerprint, the engine, the full source
digest and the versions it was computed for, the answer, and an integrity tag:
HMAC-SHA256 of all of that under a random key of the user's that is *not* kept
in the cache folder (:func:`default_key_file`: ``$USIM_CACHE_KEY``, else
``$XDG_CONFIG_HOME/usim/cache.key``, else ``~/.config/usim/cache.key``; made
with mode 0600 on first use, and not used if others may read or write it). An
entry is **ignored** (the task is run again, and the run counts it, see
:class:`Lookup`) if it is not JSON or not an entry, its tag does not check out
(it was edited, or written by another key: a copied folder), or it was written
for another statement, engine, source or versions (a file moved to another
entry's name). A REFUTED is used only after its counterexample is replayed
again on this obligation and gives the same refutation to the letter
(:func:`usim.engine.replay.replayed_again`); one that does not is ignored too.

What the tag does not protect against: whoever holds the key (the user, or
anyone who can read the user's configuration folder) can write an entry that
checks out, and a PROVED is then believed (a REFUTED still has to replay). A
release certificate is therefore made with ``usim prove --no-cache``, and
checked with ``usim verify``, which never reads the cache.

Entries are small JSON files (``ab/abcdef...json``), written atomically, so
concurrent runs may share a folder. The folder is ``$USIM_CACHE`` if set,
else ``$XDG_CACHE_HOME/usim`` or ``~/.cache/usim``; deleting it is always safe
(so is deleting the key: every entry is then ignored once and written again).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from usim.engine import identity as this_usim
from usim.engine.certificate import canonical_json
from usim.engine.claim import Counterexample, EngineResult, Obligation, Status
from usim.engine.definedness import ENGINE as DEFINEDNESS
from usim.engine.replay import replayed_again
from usim.errors import UsimError

FORMAT = 2
ENTRY_BYTES = 64 * 2**20
"""The largest entry read (a counterexample of U at N = 64 is a few MB); a
larger file, or anything not a regular file, is ignored."""
"""The layout of an entry; a change makes older entries misses (their names differ)."""

DEFINITIVE = (Status.PROVED, Status.REFUTED)
"""The answers worth keeping: they do not depend on time or luck."""

KEY_VARIABLE = "USIM_CACHE_KEY"
"""The environment variable that names the key file (tests point it at a temporary folder)."""

TAG_CONTEXT = b"usim verdict cache entry\0"
"""What the tag is for, hashed before the entry: a tag made for anything else never checks out here."""

MALFORMED = "not a readable entry"
TAG = "integrity tag does not check out"  # edited, or written with another key (a copied folder)
STATEMENT = "for another statement"
ENGINE = "for another engine"
SOURCE = "for another usim source"
VERSIONS = "for other versions of usim, Python or a solver"
NO_REPLAY = "counterexample does not replay"
REASONS = (MALFORMED, TAG, STATEMENT, ENGINE, SOURCE, VERSIONS, NO_REPLAY)
"""Why an entry that was found is ignored, in the order they are checked."""


def default_folder() -> Path:
    """``$USIM_CACHE``, else ``$XDG_CACHE_HOME/usim``, else ``~/.cache/usim``."""
    if os.environ.get("USIM_CACHE"):
        return Path(os.environ["USIM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "usim"


def default_key_file() -> Path:
    """The user's cache key: ``$USIM_CACHE_KEY``, else ``$XDG_CONFIG_HOME/usim/cache.key``,
    else ``~/.config/usim/cache.key`` (never inside the cache folder).

    Returns:
        The path of the key file (it may not exist yet).
    """
    if os.environ.get(KEY_VARIABLE):
        return Path(os.environ[KEY_VARIABLE])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "usim" / "cache.key"


class KeyProblem(UsimError):
    """The cache key cannot be read, made, or trusted; the message says why."""


def user_key(path: Path) -> bytes:
    """The 32 secret bytes in the key file ``path``, made (random, mode 0600) if
    there is none. Two runs that make it at once agree on one: the file
    appears whole, by a hard link, or not at all.

    Args:
        path: the key file (:func:`default_key_file`).

    Returns:
        The key.

    Raises:
        KeyProblem: it cannot be read or made, is not a key, or others may read
            or write it (then anyone of them could forge entries).
    """
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-", suffix=".tmp")
            try:
                with os.fdopen(descriptor, "w") as out:  # mkstemp's file is the user's alone (0600)
                    out.write(secrets.token_hex(32) + "\n")
                try:
                    os.link(temporary, path)
                except FileExistsError:
                    pass  # another run made it first: that one is the key
            finally:
                os.unlink(temporary)
        mode = path.stat().st_mode
        text = path.read_text()
    except OSError as error:
        raise KeyProblem(f"the cache key {path} cannot be read or made: {error.strerror or error}") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyProblem(f"the cache key {path} may be read or written by others (chmod 600 {path})")
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) != 32:
        raise KeyProblem(f"the cache key {path} is not a key (64 hexadecimal digits); delete it to make a new one")
    return key


@dataclass(frozen=True)
class Lookup:
    """What the cache gave for one task.

    ``answer``: the stored answer, checked, marked cached (None: run the task).
    ``ignored``: why an entry that was there was not used (one of
    :data:`REASONS`); None if there was none or it was used.
    """

    answer: EngineResult | None = None
    ignored: str | None = None


@dataclass(frozen=True)
class CacheUse:
    """How one run used the cache: whether it read it, and why each entry it
    found and ignored (the task was run again) was ignored."""

    read: bool = False
    ignored: tuple[str, ...] = ()

    def why(self) -> dict[str, int]:
        """How many entries were ignored for each reason, in the order of :data:`REASONS`.

        Returns:
            Reason -> count, only the reasons that occurred.
        """
        return {reason: self.ignored.count(reason) for reason in REASONS if reason in self.ignored}

    def as_dict(self, reused: int) -> dict[str, Any]:
        """The record a certificate keeps.

        Args:
            reused: how many of the run's answers came from the cache.

        Returns:
            ``read``, ``reused``, ``ignored`` and, by reason, ``ignored_why``.
        """
        return {"read": self.read, "reused": reused, "ignored": len(self.ignored), "ignored_why": self.why()}


@dataclass(frozen=True)
class VerdictCache:
    """The verdicts in ``folder``, for the usim that is running, tagged with the
    key in ``key_file`` (default: :func:`default_key_file`)."""

    folder: Path
    key_file: Path | None = None

    def __post_init__(self) -> None:
        if self.key_file is None:
            object.__setattr__(self, "key_file", default_key_file())

    @functools.cached_property
    def _key(self) -> bytes | KeyProblem:
        try:
            return user_key(self.key_file)
        except KeyProblem as problem:
            return problem

    @property
    def problem(self) -> str | None:
        """Why the cache cannot be used (its key), or None: then nothing is read or written.

        Returns:
            One line, or None.
        """
        return str(self._key) if isinstance(self._key, KeyProblem) else None

    @staticmethod
    def _made_by() -> dict[str, Any]:
        """The usim an entry is for: its full source digest and its versions."""
        versions = {name: value for name, value in this_usim.identity() if name != "usim source"}
        return {"source": this_usim.source_digest(), "versions": versions}

    def key(self, statement: str, engine: str) -> str:
        """sha256 of (format, source digest, versions, engine, statement fingerprint): the entry's name.

        Args:
            statement: the statement's fingerprint.
            engine: the engine or check.

        Returns:
            64 hexadecimal digits.
        """
        made_by = self._made_by()
        text = json.dumps([FORMAT, made_by["source"], sorted(made_by["versions"].items()), engine, statement],
                          separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def path(self, statement: str, engine: str) -> Path:
        """Where the entry of ``engine`` on ``statement`` is kept.

        Args:
            statement: the statement's fingerprint.
            engine: the engine or check.

        Returns:
            The entry's file (it may not exist).
        """
        key = self.key(statement, engine)
        return self.folder / "verdicts" / key[:2] / f"{key}.json"

    def _tag(self, body: Mapping[str, Any]) -> str:
        assert isinstance(self._key, bytes)
        message = TAG_CONTEXT + canonical_json(body).encode()
        return "hmac-sha256:" + hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def lookup(self, ob: Obligation, statement: str, engine: str) -> Lookup:
        """The stored definitive answer of ``engine`` on ``ob``, if its entry checks out.

        Args:
            ob: the obligation (a stored REFUTED is replayed on it).
            statement: its fingerprint (:func:`usim.engine.statement.fingerprint`).
            engine: the engine or check.

        Returns:
            The answer marked cached (a REFUTED with its counterexample as replayed
            now), or none: with the reason if an entry was found and ignored.
        """
        if self.problem is not None:
            return Lookup()
        path = self.path(statement, engine)
        try:
            found = path.lstat()
        except FileNotFoundError:
            return Lookup()
        except OSError:
            return Lookup(ignored=MALFORMED)
        # a regular file (not a link, a FIFO or a device) of an entry's size: reading it cannot block or fill memory
        if not stat.S_ISREG(found.st_mode) or found.st_size > ENTRY_BYTES:
            return Lookup(ignored=MALFORMED)
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            return Lookup(ignored=MALFORMED)
        try:
            entry = json.loads(text)
        except ValueError:
            return Lookup(ignored=MALFORMED)
        if not isinstance(entry, dict) or not isinstance(entry.get("tag"), str):
            return Lookup(ignored=MALFORMED)
        body = {k: v for k, v in entry.items() if k != "tag"}
        if not hmac.compare_digest(entry["tag"].encode(), self._tag(body).encode()):
            return Lookup(ignored=TAG)
        made_by = self._made_by()
        for field, wanted, reason in (("format", FORMAT, MALFORMED), ("statement", statement, STATEMENT),
                                      ("engine", engine, ENGINE), ("source", made_by["source"], SOURCE),
                                      ("versions", made_by["versions"], VERSIONS)):
            if entry.get(field) != wanted:
                return Lookup(ignored=reason)
        try:
            result = EngineResult.from_dict(entry["result"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return Lookup(ignored=MALFORMED)
        if result.engine != engine:
            return Lookup(ignored=ENGINE)
        if result.status not in DEFINITIVE or result.cached:
            return Lookup(ignored=MALFORMED)
        if result.status is Status.REFUTED:
            again = self._replayed(ob, result)
            if again is None:
                return Lookup(ignored=NO_REPLAY)
            result = replace(result, counterexample=again)
        return Lookup(replace(result, cached=True))

    @staticmethod
    def _replayed(ob: Obligation, result: EngineResult) -> Counterexample | None:
        """The counterexample of a stored REFUTED, replayed on ``ob`` (None if it
        has none or does not replay exactly)."""
        if result.counterexample is None:
            return None
        try:
            return replayed_again(ob, result.counterexample, definedness=result.engine == DEFINEDNESS)
        except Exception:  # noqa: BLE001 - whatever fails here, the task is run again and says it
            return None

    def put(self, statement: str, engine: str, result: EngineResult) -> bool:
        """Store a definitive answer, tagged (True if stored). A folder that cannot
        be written, or a key that cannot be used, loses the entry, not the run.

        Args:
            statement: the statement's fingerprint.
            engine: the engine or check that answered.
            result: its answer (not one read from the cache).

        Returns:
            Whether the entry was written.
        """
        if result.status not in DEFINITIVE or result.cached or result.engine != engine or self.problem:
            return False
        path = self.path(statement, engine)
        body = {"format": FORMAT, "statement": statement, "engine": engine, **self._made_by(),
                "result": result.as_dict()}
        entry = {**body, "tag": self._tag(body)}
        temporary = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as out:
                temporary = out.name
                json.dump(entry, out)
            os.replace(temporary, path)
        except OSError:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            return False
        return True
