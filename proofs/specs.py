"""The specs a listing can be checked against (``usim check --spec NAME``).

A spec is a claim of :mod:`usim.proofs` whose statement a listing's function
must meet (its construction replaced by the listing's), with the names of the
claim's dimensions in shape order, so that a listing's parameters and
hard-coded constants (``r = 3;``) can be matched to them.
"""

from __future__ import annotations

from usim.engine.listing import Spec
from usim.proofs import get

# name -> (claim id, dimensions in shape order, asks for exp)
TABLE: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "transpose": ("lemma3", ("r", "c"), False),
    "softmax": ("lemma4", ("r", "c"), True),
    "matmul": ("lemma5", ("r", "k", "c"), False),
}


def spec(name: str) -> Spec:
    from usim.errors import UsimError

    if name not in TABLE:
        raise UsimError(f"no spec {name!r}; specs: {', '.join(TABLE)}")
    claim_id, dims, wants_exp = TABLE[name]
    return Spec(name, get(claim_id), dims, wants_exp)


def specs() -> dict[str, Spec]:
    return {name: spec(name) for name in TABLE}
