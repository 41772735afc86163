"""One module per result of the paper, and the registry of their claims.

Each module states its claims with :func:`usim.engine.declare.claim` (or, for
U, :func:`usim.proofs._universal.universal_claim`) and lists them in ``CLAIMS``.
:data:`MODULES` is the explicit list of those modules, in the order of the
paper: a new proof script is added here, once. A module that also states a
claim for every size (:class:`usim.engine.parametric.statement.FamilyClaim`)
lists it in ``FAMILIES``; one stated for every size in parts that compose
(:class:`usim.engine.parametric.composed.ComposedClaim`) in ``COMPOSED``. Each is also runnable on its
own: ``python -P -m usim.proofs.lemma3_transpose --max-n 8`` is
``python -m usim prove lemma3 --max-n 8`` (:mod:`usim.proofs.script`).
"""

from __future__ import annotations

import inspect
from importlib import import_module
from typing import TYPE_CHECKING, Callable

from usim.encodings.notation import shape_label
from usim.errors import UsimError

if TYPE_CHECKING:  # pragma: no cover
    from usim.constructions.universal import LayerSpec
    from usim.engine.claim import Claim, Obligation
    from usim.engine.parametric.composed import ComposedClaim
    from usim.engine.parametric.statement import FamilyClaim

MODULES: tuple[str, ...] = (
    "lemma3_transpose",
    "lemma4_softmax",
    "lemma5_matmul",
    "theorem6_attention",
    "theorem6_stages",
    "routing_heads",
    "stacked_softmax",
    "corollary6_1_encoder",
    "corollary6_1_stages",
    "theorem9_multihead",
    "theorem9_stages",
    "theorem9_stacked",
    "theorem9_users_stacked",
    "corollary9_1_multihead_encoder",
    "corollary9_1_stages",
    "corollary9_1_stacked",
    "corollary9_1_users_stacked",
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
_FAMILIES: dict[str, "FamilyClaim"] = {}
_COMPOSED: dict[str, "ComposedClaim"] = {}


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


def _gathered(attribute: str, found: dict) -> dict:
    """Every module's ``attribute`` (a tuple of statements), by claim id, loaded once into ``found``."""
    if not found:
        for name in MODULES:
            for statement in getattr(import_module(f"{__name__}.{name}"), attribute, ()):
                found[statement.id] = statement
    return found


def families() -> dict[str, "FamilyClaim"]:
    """The claims stated for every size (a module's ``FAMILIES``), by claim id."""
    return _gathered("FAMILIES", _FAMILIES)


def composed() -> dict[str, "ComposedClaim"]:
    """The claims stated for every size in parts (a module's ``COMPOSED``), by claim id."""
    return _gathered("COMPOSED", _COMPOSED)


def statements() -> dict[str, "FamilyClaim | ComposedClaim"]:
    """Every claim's statement for every size: one family, or parts that compose."""
    return {**families(), **composed()}


def about_layer(layer: "LayerSpec") -> list[tuple[str, Callable[[int, int], "LayerSpec"]]]:
    """The statements for every size about a layer of this specification: (claim id,
    T's specification as a function of the sizes n, d) for each registered composed
    claim one of whose layers is ``layer`` at (layer.n, layer.d). For N >= n, d, the
    function at (N, N) is U_N's specification: the program that claim proves for
    every size (every n, d <= N), which ``usim simulate --bound N`` runs.

    Args:
        layer: T's specification, at integer sizes.

    Returns:
        (claim id, T's specification at (n, d)), in the order of :data:`MODULES`.
    """
    found = []
    for statement in composed().values():
        for spec_of in statement.layers:
            try:
                at = _at_layer(spec_of, layer)
            except UsimError:  # no layer of that form at these sizes
                continue
            if at is not None:
                found.append((statement.id, at))
    return found


def _at_layer(spec_of: Callable[..., "LayerSpec"], layer: "LayerSpec") -> Callable[[int, int], "LayerSpec"] | None:
    """A composed claim's layer function of (n, d) if ``layer`` is of its form, else None.

    ``spec_of`` takes (n, d), then U's own sizes (no default: the head count of U over
    stacked heads, given the layer's), then T's sizes placed into U's (a default that
    is U's: the value width d_v), each named as the LayerSpec's field (other
    parameters keep their defaults); the layer is of its form where ``spec_of`` at the
    layer's sizes is the layer, and U_N is the returned function at (N, N)."""
    parameters = [p for p in list(inspect.signature(spec_of).parameters.values())[2:] if hasattr(layer, p.name)]
    own = {p.name: getattr(layer, p.name) for p in parameters if p.default is inspect.Parameter.empty}
    placed = {p.name: getattr(layer, p.name) for p in parameters if p.default is not inspect.Parameter.empty}
    if spec_of(layer.n, layer.d, **own, **placed) != layer:
        return None
    return (lambda n, d: spec_of(n, d, **own)) if own else spec_of


def family(claim_id: str) -> "FamilyClaim | ComposedClaim":
    """The all-sizes statement of a claim (``usim prove CLAIM --all-sizes``)."""
    get(claim_id)
    found = statements()
    if claim_id not in found:
        parts = {part.id for statement in composed().values() for part in statement.parts}
        raise UsimError(f"claim {claim_id!r} has no statement for every size; --all-sizes proves "
                        f"{', '.join(i for i in found if i not in parts)} (and the parts they compose)")
    return found[claim_id]


def registered_obligation(claim_id: str, shape: tuple[int, ...], mutant: str | None = None) -> "Obligation":
    """The obligation of the registered claim ``claim_id`` at ``shape`` (of its
    broken variant ``mutant`` when given): how a worker of a cluster rebuilds,
    from its own usim, a task it was sent as a description
    (:mod:`usim.engine.cluster`)."""
    claim = get(claim_id)
    if mutant is None:
        return claim.obligation(tuple(shape))
    if mutant not in claim.mutants:
        raise UsimError(f"claim {claim_id} has no broken variant {mutant!r}")
    found = claim.mutants[mutant](tuple(shape))
    if found is None:
        raise UsimError(f"claim {claim_id}'s broken variant {mutant!r} breaks nothing at "
                        f"{shape_label(shape)}: there is no such obligation")
    return found
