"""The registry of claims: ``usim.proofs`` modules register theirs on import."""

from __future__ import annotations

from usim.engine.claim import Claim
from usim.errors import UsimError

_CLAIMS: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    if claim.id in _CLAIMS and _CLAIMS[claim.id] is not claim:
        raise ValueError(f"two claims with the id {claim.id!r}")
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
    import usim.proofs  # noqa: F401  (imports every proof module, which registers its claim)
