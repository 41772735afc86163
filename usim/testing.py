"""Proofs in one's own test suite: ``assert_proved``, ``assert_refuted``, and a pytest plugin.

In a project's tests::

    from usim.testing import assert_proved, assert_refuted

    def test_my_block_is_proved(usim_max_n):
        assert_proved(MY_CLAIM, max_n=usim_max_n(3), mutants=True)

    def test_a_wrong_target_is_refuted():
        assert_refuted(usim.redeclare(MY_CLAIM, target=wrong), max_n=2)

A failure reads like pytest's own: what was expected, the claim and bound, the
shapes that were not, and for a refutation the replayed counterexample.

The plugin (the top-level module ``usim_pytest``, registered by usim's
``pytest11`` entry point, so it is active wherever usim is installed; it
imports usim only when a test uses it, so that in usim's own repository the
folder ``usim/`` is never imported in place of the installed package) adds:

* ``--usim-max-n N``: raise (or lower) every bound the tests ask for, e.g. in a
  nightly run; the ``usim_max_n`` fixture applies it (``usim_max_n(3)`` is 3,
  or N when the option is given);
* ``--usim-cache``: let the tests reuse verdicts from the user's verdict cache
  (by default each test proves from scratch);
* the ``usim_cache`` fixture: a verdict cache of the test's own, in its
  temporary folder, for a test about reuse.

Nothing here is believed that the engines did not say: ``assert_proved``
passes only if the report's status is PROVED and, with ``mutants``, every
broken variant is REFUTED.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from usim.engine.options import DEFAULT_TIMEOUT

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.cache import VerdictCache
    from usim.engine.claim import Claim
    from usim.engine.runner import ClaimReport

_CACHE: "VerdictCache | None" = None  # the cache the plugin's --usim-cache chose for this session


class ProofFailed(AssertionError):
    """A claim did not get the verdict a test expected (its message says what it got, shape by shape)."""


def _not_as_expected(report: "ClaimReport", expected: str) -> str:
    from usim.render import describe_failures

    lines = [f"expected {report.claim.id} {expected} up to N={report.max_n}, got {report.status.value}"]
    return "\n".join(lines + describe_failures(report, detail=False))


def _prove(claim: "Claim | str", max_n: int | None, engines: Sequence[str] | None, mutants: bool,
           timeout: float, jobs: int, cache: "VerdictCache | None") -> "ClaimReport":
    from usim.api import prove

    return prove(claim, max_n=max_n, engines=engines, mutants=mutants, timeout=timeout, jobs=jobs,
                 cache=cache if cache is not None else _CACHE)


def assert_proved(claim: "Claim | str", max_n: int | None = None, engines: Sequence[str] | None = None,
                  mutants: bool = False, timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
                  cache: "VerdictCache | None" = None) -> "ClaimReport":
    """Fail unless ``claim`` is PROVED at every shape up to ``max_n`` (and, with
    ``mutants``, each broken variant REFUTED).

    Args:
        claim: a claim, or a name :func:`usim.claims` reads.
        max_n: the bound (None: the claim's default).
        engines: None: the claim's.
        mutants: also require every broken variant REFUTED.
        timeout: seconds per obligation and engine (a timeout is UNKNOWN: a failure).
        jobs: engine processes in parallel.
        cache: a verdict cache (None: the plugin's choice, none unless ``--usim-cache``).

    Returns:
        The report, for further assertions.

    Raises:
        ProofFailed: what was expected and what each shape got.
    """
    from usim.engine.claim import Status

    report = _prove(claim, max_n, engines, mutants, timeout, jobs, cache)
    if mutants and not report.claim.mutants:
        raise ProofFailed(f"{report.claim.id} has no broken variants to refute (mutants=True asks for them)")
    if report.status is not Status.PROVED:
        raise ProofFailed(_not_as_expected(report, "PROVED"))
    if mutants and not report.mutants_refuted:
        survivors = sorted({f"{r.mutant} at {r.label} ({r.status.value})" for r in report.mutant_results
                            if r.status is not Status.REFUTED})
        raise ProofFailed(f"{report.claim.id} is PROVED, but broken variants were not refuted: "
                          + "; ".join(survivors))
    return report


def assert_refuted(claim: "Claim | str", max_n: int | None = None, engines: Sequence[str] | None = None,
                   timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
                   cache: "VerdictCache | None" = None) -> "ClaimReport":
    """Fail unless ``claim`` is REFUTED, with a counterexample replayed.

    Args:
        claim: a claim, or a name :func:`usim.claims` reads.
        max_n: the bound (None: the claim's default).
        engines: None: the claim's.
        timeout: seconds per obligation and engine.
        jobs: engine processes in parallel.
        cache: a verdict cache (None: the plugin's choice).

    Returns:
        The report: ``report.counterexample`` is the replayed counterexample.

    Raises:
        ProofFailed: it was not refuted (what each shape got).
    """
    from usim.engine.claim import Status

    report = _prove(claim, max_n, engines, False, timeout, jobs, cache)
    if report.status is not Status.REFUTED or report.counterexample is None:
        raise ProofFailed(_not_as_expected(report, "REFUTED"))
    return report


def use_cache(cache: "VerdictCache | None") -> None:
    """The verdict cache :func:`assert_proved` and :func:`assert_refuted` use when
    given none (the plugin's ``--usim-cache`` sets the user's; None: none).

    Args:
        cache: the cache, or None.
    """
    global _CACHE
    _CACHE = cache


__all__ = ["ProofFailed", "assert_proved", "assert_refuted", "use_cache"]
