"""A user's spec can never make usim say PROVED for something false: its target
must be exact, its preconditions need a witness, a broken variant that is not
refuted fails the check, and --padding any still compares the whole result."""

from __future__ import annotations

from pathlib import Path

from usim.cli import main
from usim.engine.claim import Status
from usim.listings.check import CheckRequest, check
from usim.listings.user_spec import load_spec_text
from usim.listings.specs import spec

ROOT = Path(__file__).resolve().parents[2]
LISTING = ROOT / "examples" / "rasp" / "row_flip.rasp"

HEADER = "import sympy\nfrom usim.listings.user_spec import spec\n"


def _spec(body: str, name: str = "s"):
    return load_spec_text(HEADER + body, name, "soundness_spec.py")


def test_a_float_in_a_users_target_is_refused_not_rounded_into_a_proof():
    the_spec = _spec("@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')})\n"
                     "def s(M):\n    return M[::-1, :] * 1.0000000001\n")
    report = check(CheckRequest(str(LISTING), "flip", the_spec, shapes=[(3, 1)], timeout=30))
    (shape,) = report.shapes
    assert shape.status is not Status.PROVED
    assert "floating-point" in (shape.error or "") or shape.status is Status.ERROR


def test_unsatisfiable_preconditions_are_vacuous_never_proved():
    the_spec = _spec("@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')},\n"
                     "      preconditions=lambda M: [M[0, 0] > 1, M[0, 0] < 0])\n"
                     "def s(M):\n    return M  # false, but vacuously so\n")
    report = check(CheckRequest(str(LISTING), "flip", the_spec, shapes=[(3, 2)], timeout=30))
    assert report.shapes[0].status is Status.VACUOUS
    assert not report.ok


def test_a_broken_variant_that_is_not_refuted_fails_the_check(capsys, tmp_path):
    path = tmp_path / "same.py"
    path.write_text(HEADER + "@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')},\n"
                    "      mutants={'no-change': {'flip_src': 'flip_src'}})\n"
                    "def s(M):\n    return M[::-1, :]\n")
    status = main(["check", str(LISTING), "-f", "flip", "--spec-file", f"{path}:s", "--max-n", "2", "--mutants"])
    out = capsys.readouterr().out
    assert status == 1
    assert "NOT every one refuted" in out


def test_a_target_that_fails_is_an_error_for_that_shape():
    the_spec = _spec("@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')})\n"
                     "def s(M):\n    return M.inv()  # not square\n")
    report = check(CheckRequest(str(LISTING), "flip", the_spec, shapes=[(3, 2)], timeout=30))
    assert report.shapes[0].status is Status.ERROR
    assert not report.ok


def test_padding_any_still_compares_every_entry_of_the_result():
    report = check(CheckRequest(str(LISTING), "flip_columns", spec("transpose"), shapes=[(3, 3)], timeout=30,
                                padding="any"))
    assert report.shapes[0].status is Status.REFUTED
