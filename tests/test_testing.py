"""usim.testing: assert_proved / assert_refuted and the pytest plugin, as a project's own suite uses them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import usim
from usim.testing import ProofFailed, assert_proved, assert_refuted

SUITE = textwrap.dedent('''
    import usim
    from usim.testing import assert_proved, assert_refuted

    def test_bound(usim_max_n):
        print("BOUND", usim_max_n(2))

    def test_lemma3_proved(usim_max_n):
        assert_proved("lemma3", max_n=min(usim_max_n(2), 3))

    def test_expected_refuted_but_proved():
        assert_refuted("lemma3", max_n=1)

    def test_own_cache(usim_cache):
        report = usim.prove("lemma3", max_n=1, cache=usim_cache)
        again = usim.prove("lemma3", max_n=1, cache=usim_cache)
        assert report.cached == 0 and again.cached > 0
''')


def _pytest(tmp_path, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_suite.py").write_text(SUITE)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *options,
                           str(tmp_path / "test_suite.py")], capture_output=True, text=True, cwd=tmp_path)


def test_the_plugin_gives_a_suite_its_fixtures_and_failures_that_say_what_was_expected(tmp_path):
    done = _pytest(tmp_path)
    assert "BOUND 2" in done.stdout
    assert "1 failed, 3 passed" in done.stdout, done.stdout[-3000:]
    assert "expected lemma3 REFUTED up to N=1, got PROVED" in done.stdout


def test_a_nightly_run_raises_the_bounds(tmp_path):
    done = _pytest(tmp_path, "--usim-max-n", "5", "-k", "bound")
    assert "BOUND 5" in done.stdout and done.returncode == 0


def test_a_proved_claim_passes_and_its_report_is_returned():
    report = assert_proved("lemma3", max_n=2, mutants=True)
    assert report.status is usim.Status.PROVED and report.mutants_refuted


def test_a_refutation_is_shown_with_its_replayed_counterexample():
    wrong = usim.redeclare(usim.claims("lemma3")[0], id="not_transpose", target=lambda m: {"MT": 2 * m["M"].T})
    with pytest.raises(ProofFailed, match=r"(?s)expected not_transpose PROVED up to N=2, got REFUTED.*"
                                          r"counterexample: input M = .*replayed: exact"):
        assert_proved(wrong, max_n=2)
    assert assert_refuted(wrong, max_n=2).counterexample is not None


def test_a_broken_variant_that_survives_fails_assert_proved():
    claim = usim.claims("lemma3")[0]
    harmless = usim.redeclare(claim, mutants={"same": lambda shape: {}})  # replaces nothing: still right
    with pytest.raises(ProofFailed, match="broken variants were not refuted: same at 1x1 .PROVED."):
        assert_proved(harmless, max_n=1, mutants=True)


def test_asking_for_broken_variants_of_a_claim_that_has_none_fails():
    """It passed: every one of no variants was refuted."""
    bare = usim.redeclare(usim.claims("lemma3")[0], id="lemma3_bare", mutants={})
    with pytest.raises(ProofFailed, match="has no broken variants to refute"):
        assert_proved(bare, max_n=1, mutants=True)
