"""Verdicts kept across runs: an engine's answer on a statement is computed once.

The same obligation comes back again and again: a block at one shape sits in
many programs' proofs, a sweep to N repeats every proof below N, and a user
re-runs a claim after changing something else. What an engine answers depends
on three things only, so they are the key:

* **the statement**, by its fingerprint (:func:`usim.engine.statement.fingerprint`):
  the program node by node (:mod:`usim.rasp.fingerprint`), the input and output
  layouts, the target, the preconditions, the domain and padding. Which claim
  or shape it was built for is not part of it: a statement proved inside one
  claim is proved wherever it appears again;
* **the engine or check** that answered (``sympy``, ``z3``, ``definedness``, ...);
* **the usim that ran it** (:func:`usim.engine.identity.identity`: the digest
  of every source file and the versions of Python and every solver). Any
  change to usim's code or a solver makes every entry unreachable; nothing is
  reused across versions.

The key is sha256 of the three; an entry is reused only for an identical key,
and its stored fingerprint, engine and identity are compared again on reading
(a damaged or foreign file is a miss, never a verdict). Only **definitive**
answers are stored: PROVED and REFUTED (a refutation carries its replayed
counterexample). UNKNOWN (a timeout may pass with more time), VACUOUS (the
witness search may succeed with more time) and ERROR are computed again on
every run. A reused answer is marked ``cached`` in reports and certificates;
``usim verify`` never reads the cache.

Entries are small JSON files (``ab/abcdef...json``), written atomically, so
concurrent runs may share a folder. The folder is ``$USIM_CACHE`` if set,
else ``$XDG_CACHE_HOME/usim`` or ``~/.cache/usim``; deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from usim.engine import identity as this_usim
from usim.engine.claim import EngineResult, Status

FORMAT = 1
"""The layout of an entry; a change makes older entries misses."""

DEFINITIVE = (Status.PROVED, Status.REFUTED)
"""The answers worth keeping: they do not depend on time or luck."""


def default_folder() -> Path:
    """``$USIM_CACHE``, else ``$XDG_CACHE_HOME/usim``, else ``~/.cache/usim``."""
    if os.environ.get("USIM_CACHE"):
        return Path(os.environ["USIM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "usim"


@dataclass(frozen=True)
class VerdictCache:
    """The verdicts in ``folder``, for the usim that is running."""

    folder: Path

    def _identity(self) -> list[list[str]]:
        return [list(pair) for pair in this_usim.identity()]

    def key(self, statement: str, engine: str) -> str:
        """sha256 of (format, identity, engine, statement fingerprint)."""
        text = json.dumps([FORMAT, self._identity(), engine, statement], separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / "verdicts" / key[:2] / f"{key}.json"

    def get(self, statement: str, engine: str) -> EngineResult | None:
        """The stored definitive answer of ``engine`` on the statement with
        fingerprint ``statement``, marked cached; None if there is none (or the
        entry is damaged, or was written by another usim)."""
        path = self._path(self.key(statement, engine))
        try:
            entry = json.loads(path.read_text())
            if (entry.get("format") != FORMAT or entry.get("statement") != statement
                    or entry.get("engine") != engine or entry.get("identity") != self._identity()):
                return None
            result = EngineResult.from_dict(entry["result"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        if result.engine != engine or result.status not in DEFINITIVE:
            return None
        return replace(result, cached=True)

    def put(self, statement: str, engine: str, result: EngineResult) -> bool:
        """Store a definitive answer (True if stored). A folder that cannot be
        written loses the entry, not the run."""
        if result.status not in DEFINITIVE or result.cached or result.engine != engine:
            return False
        path = self._path(self.key(statement, engine))
        entry = {"format": FORMAT, "statement": statement, "engine": engine,
                 "identity": self._identity(), "result": result.as_dict()}
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
