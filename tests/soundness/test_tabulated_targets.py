"""A finite domain decided by its table (issue 30, part 3): the target evaluated at
each input, never built as one expression. Each check that PROVED rests on is shown
to fail: an input where the listing is undefined is refuted by the definedness
check run input by input, a target that differs at one input has another
fingerprint, and a float in the target is refused, as for a target built whole."""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from usim.cli import main
from usim.engine.claim import TABULATED, Status
from usim.engine.runner import check_obligation
from usim.engine.statement import table_fingerprint
from usim.errors import UsimError
from usim.proofs import get

LISTING = """\
def halve() {
    return 2 / tokens;
}
"""

SPEC = '''\
from usim.listings.user_spec import spec


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, values=(0, 1, 2), max_n=2)
def halves(x):
    """2 / x, entry by entry, where x is not 0"""
    return x.applyfunc(lambda v: 2 / v if v != 0 else 0)
'''


def test_a_listing_undefined_at_one_input_of_the_domain_is_not_proved(tmp_path, capsys):
    (tmp_path / "halve.rasp").write_text(LISTING)
    (tmp_path / "halves.py").write_text(SPEC)
    status = main(["check", str(tmp_path / "halve.rasp"), "--function", "halve",
                   "--spec-file", f"{tmp_path / 'halves.py'}:halves", "--timeout", "30"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "shape 1: PROVED" not in out
    assert "shape 1: REFUTED" in out and "got undefined (division by zero" in out, out


def _parity(shape=(3, 0, 2)):
    return get("parity").obligation(shape)


def test_the_table_is_checked_by_the_exhaustive_engine_and_its_result_says_so():
    ob = _parity()
    result = check_obligation(ob, timeout=30, claim_engines=get("parity").engines, jobs=1, until_decided=True)
    assert result.status is Status.PROVED and result.engine_choice == TABULATED
    assert next(r for r in result.results if r.engine == "exhaustive").status is Status.PROVED
    assert result.definedness.status is Status.PROVED and "each of the" in result.definedness.detail


def test_a_target_differing_at_one_input_has_another_table_and_is_refuted():
    ob = _parity()

    def off_at_all_ones(matrices):
        blocks = ob.target(matrices)
        if all(v == 1 for m in matrices.values() for v in m):
            return {k: v.applyfunc(lambda e: e + 1) for k, v in blocks.items()}
        return blocks

    broken = dataclasses.replace(ob, target=off_at_all_ones)
    assert table_fingerprint(broken) != table_fingerprint(ob)
    result = check_obligation(broken, timeout=30, claim_engines=get("parity").engines, jobs=1, tabulate=True)
    assert result.status is Status.REFUTED


def test_a_float_in_a_tabulated_target_is_refused():
    ob = _parity()
    floating = dataclasses.replace(ob, target=lambda m: {k: v * sympy.Float(1.0)
                                                           for k, v in ob.target(m).items()})
    with pytest.raises(UsimError, match="floating-point"):
        table_fingerprint(floating)


def test_a_check_decided_by_its_table_is_reproduced_by_verify_and_a_changed_spec_is_not(tmp_path, capsys):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    spec_text = (examples / "specs" / "tracr_like.py").read_text()
    (tmp_path / "specs.py").write_text(spec_text)
    cert = tmp_path / "balanced.json"
    assert main(["check", str(examples / "rasp" / "tracr_like.rasp"), "--function", "balanced",
                 "--spec-file", f"{tmp_path / 'specs.py'}:balanced", "--alphabet", "()x", "--max-n", "3",
                 "--json", str(cert)]) == 0
    capsys.readouterr()
    assert main(["verify", str(cert), "--run-spec-code"]) == 0
    assert "reproduced" in capsys.readouterr().out
    # the same certificate, its embedded spec without the final count, re-sealed: another table
    import gzip
    import json

    opened = gzip.open if cert.read_bytes()[:2] == b"\x1f\x8b" else open
    with opened(cert, "rt") as handle:
        data = json.load(handle)
    text = json.dumps(data)
    assert "sympy.Eq(opened[-1], closed[-1])" in text
    from usim.engine.certificate import digest

    edited = json.loads(text.replace("sympy.Eq(opened[-1], closed[-1])", "True"))
    edited["digest"] = digest(edited)  # re-sealed: the seal says nothing of the statement
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(edited))
    status = main(["verify", str(changed), "--run-spec-code"])
    out = capsys.readouterr().out
    assert status != 0 and "NOT reproduced" in out and "no longer the one certified" in out, out


def test_where_the_exhaustive_engine_does_not_decide_the_others_run_on_the_target_built_whole(monkeypatch):
    from usim.engine import runner

    monkeypatch.setitem(runner.ENGINES, "exhaustive",
                        lambda ob, timeout: runner.EngineResult("exhaustive", Status.UNKNOWN, 0.0, "timeout"))
    ob = _parity()
    result = check_obligation(ob, timeout=30, claim_engines=get("parity").engines, jobs=1, until_decided=True)
    assert result.engine_choice != TABULATED
    assert result.results[0].engine == "exhaustive" and result.results[0].status is Status.UNKNOWN
    assert any(r.status is Status.PROVED for r in result.results[1:])
    assert result.status is Status.PROVED


def test_a_certificate_calling_a_real_domain_tabulated_is_not_reproduced(tmp_path, capsys):
    """A re-sealed check certificate whose row says TABULATED on a domain that is not
    finite: there is no table, so nothing is re-run as if there were one."""
    import json
    from pathlib import Path

    from usim.engine.certificate import digest

    examples = Path(__file__).resolve().parents[2] / "examples"
    cert = tmp_path / "sort.json"
    assert main(["check", str(examples / "rasp" / "tracr_like.rasp"), "--function", "sort_keys",
                 "--spec-file", f"{examples / 'specs' / 'tracr_like.py'}:ascending", "--max-n", "2",
                 "--json", str(cert)]) == 0
    capsys.readouterr()
    data = json.loads(cert.read_text())
    for row in data["obligations"]:
        row["engine_choice"] = TABULATED
    data["digest"] = digest(data)
    cert.write_text(json.dumps(data))
    status = main(["verify", str(cert), "--run-spec-code"])
    out = capsys.readouterr().out
    assert status != 0 and "domain is not finite" in out, out
