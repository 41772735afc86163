"""The registry of claims: ``usim.proofs`` modules register theirs on import."""

from __future__ import annotations

from usim.engine.claim import Claim
from usim.errors import UsimError

_CLAIMS: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim``; registering the same statement again (a proof script run as
    ``python -m``, which imports its module a second time) replaces it."""
    old = _CLAIMS.get(claim.id)
    if old is not None and (old.paper, old.title, old.statement) != (claim.paper, claim.title, claim.statement):
        raise ValueError(f"two different claims with the id {claim.id!r}")
    _CLAIMS[claim.id] = claim
    return claim


def all_claims() -> list[Claim]:
    _load()
    return list(_CLAIMS.values())


def get(claim_id: str) -> Claim:
    _load()
    try:
        return _CLAIMS[claim_id]
    except KeyError:
        known = ", ".join(sorted(_CLAIMS)) or "none"
        raise UsimError(f"no claim {claim_id!r}; known claims: {known}") from None


def _load() -> None:
    """Import every module of usim.proofs (each registers its claim), in name order."""
    import importlib
    import pkgutil

    import usim.proofs

    for module in sorted(m.name for m in pkgutil.iter_modules(usim.proofs.__path__)):
        if not module.startswith("_"):
            importlib.import_module(f"usim.proofs.{module}")
