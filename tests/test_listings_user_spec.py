"""``usim check --spec-file SPEC.py:NAME``: a spec of one's own, with everything a
built-in spec gets (both engines, counterexamples, broken variants,
certificates that ``usim verify`` runs again)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.claim import Status
from usim.listings.check import CheckRequest, check
from usim.listings.user_spec import load_spec_file, load_spec_text
from usim.errors import UsimError

ROOT = Path(__file__).resolve().parent.parent
LISTING = ROOT / "examples" / "rasp" / "row_flip.rasp"
SPECS = ROOT / "examples" / "specs" / "row_flip.py"


def test_the_worked_example_is_proved_with_its_broken_variants_refuted(capsys):
    status = main(["check", str(LISTING), "--function", "flip", "--spec-file", f"{SPECS}:row_flip",
                   "--max-n", "3", "--mutants"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "hard-coded r = 3 (as r)" in out
    for c in (1, 2, 3):
        assert f"shape 3x{c}: PROVED" in out
        assert f"shape 3x{c} [no-flip]: REFUTED" in out and f"shape 3x{c} [off-by-one]: REFUTED" in out
    assert "broken variants: 2 (no-flip, off-by-one): every one refuted" in out


def test_a_wrong_listing_is_refuted_against_a_user_spec_with_a_replayed_counterexample():
    report = check(CheckRequest(str(LISTING), "flip_columns", load_spec_file(f"{SPECS}:row_flip"), max_n=2, timeout=60))
    assert [s.status for s in report.shapes] == [Status.REFUTED, Status.REFUTED]
    for shape in report.shapes:
        counter = shape.result.counterexample
        rows = [[Fraction(x) for x in row] for row in counter.inputs["M"]]
        assert rows[::-1] != [row[::-1] for row in rows]  # the input tells the two flips apart


def test_preconditions_of_a_user_spec_are_assumed_and_need_a_witness():
    the_spec = load_spec_file(f"{SPECS}:row_flip_positive_corner")
    report = check(CheckRequest(str(LISTING), "flip", the_spec, shapes=[(3, 2)], timeout=60))
    assert report.ok
    assert report.shapes[0].result.witness_status is Status.PROVED


def test_a_certificate_embeds_the_spec_and_verify_runs_it_only_when_asked(tmp_path, capsys):
    cert = tmp_path / "flip.json"
    assert main(["check", str(LISTING), "-f", "flip", "--spec-file", f"{SPECS}:row_flip", "--max-n", "2",
                 "--mutants", "--json", str(cert)]) == 0
    data = json.loads(cert.read_text())
    assert data["source"]["spec_source"]["kind"] == "file"
    assert "def row_flip" in data["source"]["spec_source"]["text"]
    assert len(data["mutants"]) == 4
    capsys.readouterr()
    assert main(["verify", str(cert), "-q"]) == 2
    assert "--run-spec-code" in capsys.readouterr().err
    assert main(["verify", str(cert), "-q", "--run-spec-code"]) == 0
    assert "spec:row_flip: reproduced (6 obligation(s), status PROVED)" in capsys.readouterr().out


def test_a_built_in_spec_with_a_base_is_verified_with_that_base(tmp_path, capsys):
    cert = tmp_path / "paper.json"
    listing = ROOT / "examples" / "rasp" / "softmax_paper.rasp"
    assert main(["check", str(listing), "-f", "softmax", "--spec", "softmax", "--base", "2.718", "--max-n", "1",
                 "--json", str(cert)]) == 0
    assert json.loads(cert.read_text())["source"]["spec_source"] == {"kind": "builtin", "name": "softmax",
                                                                     "base": "1359/500"}
    capsys.readouterr()
    assert main(["verify", str(cert), "-q"]) == 0


SPEC_WITH_DIMENSIONS = '''
import sympy
from usim.listings.user_spec import spec

@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, dims=("n", "k"), domain="integer", values=(0, 1),
      shapes=lambda N: [(n, k) for n in range(1, N + 1) for k in range(1, n + 1)])
def first_k_parity(x, k):
    return sympy.Matrix([[sympy.Mod(sum(x[0, j] for j in range(k)), 2)] * x.cols])
'''


def test_a_user_spec_may_take_a_dimension_as_an_argument_and_a_finite_domain(tmp_path):
    path = tmp_path / "parity_spec.py"
    path.write_text(SPEC_WITH_DIMENSIONS)
    the_spec = load_spec_file(f"{path}:first_k_parity")
    report = check(CheckRequest(str(ROOT / "examples" / "rasp" / "parity.rasp"), "parity", the_spec, max_n=3,
                                timeout=60))
    assert report.ok
    assert all(any(r.engine == "exhaustive" and r.status is Status.PROVED for r in s.result.results)
               for s in report.shapes)


@pytest.mark.parametrize("text, reference, message", [
    ("def f(:\n", "f", "not valid Python"),
    ("raise ValueError('no')\n", "f", "running the spec file failed: ValueError: no"),
    ("x = 1\n", "f", "defines no 'f'"),
    ("def f(M): return M\n", "f", "not declared as a spec"),
    ("from usim.listings.user_spec import spec\n@spec(inputs={'M': ('r',)}, outputs={'F': ('r', 'c')})\n"
     "def f(M): return M\n", "f", "needs \\(rows, cols\\)"),
    ("from usim.listings.user_spec import spec\n@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')}, "
     "domain='complex')\ndef f(M): return M\n", "f", "domain must be"),
])
def test_a_bad_spec_file_is_one_clear_error(text, reference, message):
    with pytest.raises(UsimError, match=message):
        load_spec_text(text, reference, "bad_spec.py")


@pytest.mark.parametrize("argv, message", [
    (["--spec-file", "nothing.py:f"], "no such spec file: nothing.py"),
    (["--spec-file", "nothing.py"], "takes FILE.py:NAME"),
    (["--spec", "relu", "--spec-file", "x.py:f"], "give one of --spec NAME or --spec-file"),
    ([], "give one of --spec NAME or --spec-file"),
    (["--spec", "relu", "--mutants"], "gives no broken variants"),
])
def test_bad_spec_options_are_one_line_and_exit_2(argv, message, capsys):
    assert main(["check", str(LISTING), "-f", "flip", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_the_readme_worked_example_is_the_example_spec_and_proves_what_it_says(tmp_path, capsys):
    import re

    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Checking a RASP listing", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    path = tmp_path / "readme_spec.py"
    path.write_text(code)
    command = next(line for line in section.splitlines() if line.startswith("usim check") and "--spec-file" in line)
    argv = command.split()[1:]
    argv[argv.index("--spec-file") + 1] = f"{path}:row_flip"
    argv = [str(ROOT / a) if a.startswith("examples/") else a for a in argv]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "shape 3x4: PROVED" in out and "shape 3x4 [no-flip]: REFUTED" in out
    assert "def row_flip" in SPECS.read_text()  # the README shows the example file's spec
