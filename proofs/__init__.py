"""One module per result of the paper, and the registry of their claims.

Each module states its claims with :func:`usim.engine.declare.claim` (or, for
U, :func:`usim.proofs._universal.make_claim`) and lists them in ``CLAIMS``.
:data:`MODULES` is the explicit list of those modules, in the order of the
paper: a new proof script is added here, once. Each is also runnable on its
own: ``python -P -m usim.proofs.lemma3_transpose --max-n 8`` is
``usim prove lemma3 --max-n 8``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.claim import Claim

MODULES: tuple[str, ...] = (
    "lemma3_transpose",
    "lemma4_softmax",
    "lemma5_matmul",
    "theorem6_attention",
    "corollary6_1_encoder",
    "theorem9_multihead",
    "corollary9_1_multihead_encoder",
    "hierarchy",
    "cofactor3",
    "det3",
    "inverse3",
    "inverse3_identity",
    "det_leibniz",
    "relu",
    "maxmin",
    "match2",
    "parity",
    "soft_from_hard",
    "linformer",
    "performer",
    "lemma3_weights",
    "lemma4_weights",
    "lemma5_weights",
    "theorem6_weights",
    "theorem9_weights",
    "maxmin_weights",
)

_CLAIMS: dict[str, "Claim"] = {}


def _load() -> dict[str, "Claim"]:
    if not _CLAIMS:
        for name in MODULES:
            for claim in import_module(f"{__name__}.{name}").CLAIMS:
                if claim.id in _CLAIMS:
                    raise ValueError(f"two claims with the id {claim.id!r} ({name})")
                _CLAIMS[claim.id] = claim
    return _CLAIMS


def all_claims() -> list["Claim"]:
    """Every claim, in the order of :data:`MODULES`."""
    return list(_load().values())


def get(claim_id: str) -> "Claim":
    claims = _load()
    try:
        return claims[claim_id]
    except KeyError:
        raise UsimError(f"no claim {claim_id!r}; known claims: {', '.join(sorted(claims))}") from None
