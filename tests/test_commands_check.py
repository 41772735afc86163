"""``usim check``: RASP listings proved or refuted against the specs of Lemmas 3-5."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from usim.cli import main
from usim.encodings.runners import run_exact
from usim.engine.claim import Status
from usim.errors import UsimError
from usim.listings.check import CheckRequest, check
from usim.listings.crosscheck import power_findings
from usim.listings.options import SPEC_NAMES
from usim.listings.plan import plan_shapes
from usim.listings.specs import TABLE, spec
from usim.rasp.cost import repl_heads
from usim.render_check import cost_lines
from usim.repl import load_file, load_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "rasp"


def test_transpose_listing_is_proved_for_its_shapes(capsys):
    status = main(["check", str(EXAMPLES / "transpose.rasp"), "--function", "transpose",
                   "--spec", "transpose", "--max-n", "4", "--timeout", "30"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "hard-coded r = 3" in out
    for c in range(1, 5):
        assert f"shape 3x{c}: PROVED" in out
    assert "summary: 4 shape(s): 4 PROVED, 0 REFUTED, 0 UNKNOWN" in out
    assert "as 3x2 -> [1, 3, 5, 2, 4, 6]: agrees with the spec" in out
    assert "heads per layer [1, 1]" in out  # 1 head, plus the length layer


def test_off_by_one_listing_is_refuted_with_a_replayed_counterexample(capsys):
    report = check(CheckRequest(str(EXAMPLES / "transpose_off_by_one.rasp"), "transpose", spec("transpose"),
                                max_n=3, timeout=30))
    assert [s.label for s in report.shapes] == ["3x1", "3x2", "3x3"]
    for shape in report.shapes:
        assert shape.status is Status.REFUTED
        counter = shape.result.counterexample
        assert counter is not None and counter.expected != counter.got
        # replay the counterexample ourselves on the parsed program
        program = load_file(EXAMPLES / "transpose_off_by_one.rasp").program("transpose")
        rows = counter.inputs["M"]
        flat = [Fraction(x) for row in rows for x in row]
        got = run_exact(program, flat)["transpose"]
        r, c = shape.shape
        want = [flat[(p % r) * c + p // r] for p in range(r * c)]
        assert got[counter.position] != want[counter.position]
        assert str(want[counter.position]) == counter.expected
    assert not report.ok
    status = main(["check", str(EXAMPLES / "transpose_off_by_one.rasp"), "-f", "transpose",
                   "--spec", "transpose", "--shape", "3x2", "--engine", "z3"])
    out = capsys.readouterr().out
    assert status == 1
    assert "shape 3x2: REFUTED" in out and "counterexample: input M = " in out
    assert "DIFFERS from the spec" in out  # its own example shows the bug too


def test_softmax_listing_with_exp_is_proved():
    report = check(CheckRequest(str(EXAMPLES / "softmax.rasp"), "softmax", spec("softmax"), max_n=2, timeout=30))
    assert [s.label for s in report.shapes] == ["3x1", "3x2"]
    assert report.ok
    assert "usim addition exp" in report.uses
    assert report.deviation is None


def test_paper_softmax_with_2718_is_refuted_and_its_deviation_measured():
    report = check(CheckRequest(str(EXAMPLES / "softmax_paper.rasp"), "softmax", spec("softmax"), shapes=[(3, 2)],
                                timeout=30, samples=100))
    (shape,) = report.shapes
    assert shape.status is Status.REFUTED
    assert any("not exp" in f for f in shape.findings)
    value, where, label = report.deviation
    assert label == "3x2" and 1e-5 < value < 1e-1  # 2.718 vs e: small but not zero


def test_matmul_listing_is_proved():
    report = check(CheckRequest(str(EXAMPLES / "matmul.rasp"), "matmul", spec("matmul"), max_n=2, timeout=30))
    assert [s.label for s in report.shapes] == ["2x1x2", "2x2x2"]
    assert report.ok
    assert all(v == "ok" for s in report.shapes for v in s.interpretations.values())
    assert "heads per layer [4, 4]" in cost_lines(report.shapes[0].cost)[0]


def test_a_syntax_error_is_one_line_with_line_and_column_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.rasp"
    bad.write_text("def f() {\n    x = (indices + ;\n    return x;\n}\n")
    status = main(["check", str(bad), "--function", "f", "--spec", "transpose", "--shape", "2x2"])
    err = capsys.readouterr().err
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert f"{bad}:2:20: syntax error: unexpected ';'" in lines[0]


def test_shapes_follow_parameters_and_hard_coded_dimensions(tmp_path):
    transpose = spec("transpose")
    listing = load_file(EXAMPLES / "transpose.rasp")
    fixed = plan_shapes(listing, "transpose", transpose, None, 3)
    assert fixed.shapes == ((3, 1), (3, 2), (3, 3)) and fixed.fixed["r"] == ("as r", 3)
    free = plan_shapes(listing, "transpose_rows", transpose, None, 2)
    assert free.shapes == ((1, 1), (1, 2), (2, 1), (2, 2)) and free.parameters == {"r": "r"}
    warned = plan_shapes(listing, "transpose", transpose, [(2, 2)], None)
    assert warned.shapes == ((2, 2),) and "the listing fixes r = 3" in warned.warnings[0]
    odd = tmp_path / "odd.rasp"
    odd.write_text("def t(width) { return tokens; }\n")
    with pytest.raises(UsimError, match="parameter 'width'"):
        plan_shapes(load_file(odd), "t", transpose, None, 2)
    # a listing that fixes the rows by a global and is wrong elsewhere
    glob = tmp_path / "glob.rasp"
    glob.write_text("rows = 2;\ndef t() {\n  c = length / rows;\n"
                    "  src = (indices % rows) * c + (indices - indices % rows) / rows;\n"
                    "  return aggregate(select(indices, src, ==), tokens);\n}\n")
    plan = plan_shapes(load_file(glob), "t", transpose, None, 3)
    assert plan.shapes == ((2, 1), (2, 2), (2, 3))
    report = check(CheckRequest(str(glob), "t", spec("transpose"), max_n=2, timeout=30))
    assert report.ok
    wrong = check(CheckRequest(str(glob), "t", spec("transpose"), shapes=[(3, 2)], timeout=30))
    assert wrong.shapes[0].status is Status.REFUTED


def test_repl_head_count_merges_a_shared_selector_and_doubles_selector_width():
    f = load_text(
        "s = select(indices, 0, ==);\n"
        "two = aggregate(s, tokens) + aggregate(s, indices);\n"
        "w = selector_width(select(tokens, tokens, ==));\n"
        "both = two + aggregate(select(indices, indices, ==), tokens);\n"
    )
    from usim.rasp.cost import cost

    two = f.program("two")
    assert cost(two).heads_per_layer == (2,)         # usim: two aggregates
    assert repl_heads(two, with_length=False) == (1,)  # the REPL: one selector
    assert repl_heads(f.program("w"), with_length=False) == (2,)
    assert repl_heads(f.program("both"), with_length=False) == (2,)
    assert repl_heads(load_text("l = tokens * length;").program("l"), with_length=True) == (1,)


def test_fractional_powers_are_flagged():
    softmax = spec("softmax")
    root = load_text("r = tokens * length ^ 0.5;").program("r")
    assert any("exact (the base is a perfect power)" in f for f in power_findings(root, softmax, 9))
    assert any("irrational for base 6" in f for f in power_findings(root, softmax, 6))
    paper = load_text("e = 2.718 ^ tokens;").program("e")
    (finding,) = power_findings(paper, softmax, 4)
    assert "not exp" in finding and "deviation" in finding


def test_the_observer_hears_the_plan_the_alphabet_and_every_shape_the_report_holds():
    heard = []

    class Recorder:
        def planned(self, plan):
            heard.append(("planned", plan.shapes))

        def ready(self, alphabet):
            heard.append(("ready", alphabet))

        def checked(self, shape):
            heard.append(("checked", shape))

    request = CheckRequest(str(EXAMPLES / "transpose_off_by_one.rasp"), "transpose", spec("transpose"),
                           max_n=2, engines=("z3",), timeout=30)
    report = check(request, Recorder())
    assert heard[:2] == [("planned", ((3, 1), (3, 2))), ("ready", None)]
    assert [s for kind, s in heard[2:]] == list(report.shapes) and len(report.shapes) == 2
    assert all(s.status is Status.REFUTED and s.checked and s.result.shape == s.shape for s in report.shapes)


def test_the_command_offers_exactly_the_specs_of_the_table():
    assert sorted(SPEC_NAMES) == sorted(TABLE)


# -- engines that fail alone (issue 30): tracr-like programs, examples/rasp/tracr_like.rasp --------

TRACR_LIKE = str(EXAMPLES / "tracr_like.rasp")
TRACR_SPECS = str(EXAMPLES.parent / "specs" / "tracr_like.py")


def _check_tracr_like(capsys, function: str, spec_name: str, *options: str) -> tuple[int, str]:
    status = main(["check", TRACR_LIKE, "--function", function, "--spec-file", f"{TRACR_SPECS}:{spec_name}",
                   "--mutants", *options])
    return status, capsys.readouterr().out


def test_a_sort_whose_sympy_form_is_slow_is_decided_by_z3_first_from_the_second_length_on(capsys):
    """Part 5: sympy's canonical forms of the Min/Max network ran past 240 s at length 4
    (killed at the deadline since), z3 proves it in a fraction of a second; z3 is tried
    first once it was cheaper, and sympy is then not run."""
    status, out = _check_tracr_like(capsys, "sort_keys", "ascending", "--max-n", "5")
    assert status == 0, out
    for n in (3, 4, 5):
        assert f"shape {n}: PROVED (z3 PROVED" in out and f"shape {n}: PROVED (z3 PROVED" in out
    assert "sympy not run" in out
    assert "shape 2 [unstable]: REFUTED" in out


def test_a_sort_of_distinct_reals_is_proved_to_length_6_and_its_descending_variant_refuted(capsys):
    """Issue 27, part 5: the place of each key is how many keys are smaller (a selector width
    over a real comparison); the spec asks for distinct reals. z3 decides each length."""
    status, out = _check_tracr_like(capsys, "sort_distinct", "ascending_reals", "--max-n", "6")
    assert status == 0, out
    for n in range(3, 7):
        assert f"shape {n}: PROVED (z3 PROVED" in out and f"shape {n} [descending]: REFUTED" in out


def test_balanced_brackets_over_an_alphabet_are_decided_by_their_table_to_length_6(capsys):
    """Part 3: the spec's indicators, folded by sympy, took longer than the deadline to
    build from length 3 on; on the finite domain the target is evaluated at each input."""
    status, out = _check_tracr_like(capsys, "balanced", "balanced", "--alphabet", "()x", "--max-n", "6")
    assert status == 0, out
    assert "summary: 6 shape(s): 6 PROVED, 0 REFUTED, 0 UNKNOWN" in out
    assert "the target is evaluated at each input" in out
    for n in range(1, 7):
        assert f"shape {n} [prefixes-only]: REFUTED" in out


@pytest.mark.parametrize("function, spec_name, variant", [
    ("sort_by_frequency", "by_frequency", "rarest-first"),
    ("count_rare", "rare_count", "counts-one-too-many"),
])
def test_a_frequency_sort_and_a_count_of_rare_symbols_are_proved_and_their_variants_refuted(
        capsys, function, spec_name, variant):
    status, out = _check_tracr_like(capsys, function, spec_name, "--alphabet", "abc", "--max-n", "4")
    assert status == 0, out
    assert "summary: 4 shape(s): 4 PROVED, 0 REFUTED, 0 UNKNOWN" in out
    assert f"[{variant}]: REFUTED" in out


def test_tracrs_own_form_of_the_frequency_sort_a_sequence_map_over_a_count_is_proved(capsys):
    """make_sort_freq as tracr writes it: SequenceMap over the computed -hist (refused before, issue 26)."""
    status = main(["check", TRACR_LIKE, "--function", "sort_by_frequency_tracr", "--spec-file",
                   f"{TRACR_SPECS}:by_frequency", "--alphabet", "abc", "--max-n", "3"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "summary: 3 shape(s): 3 PROVED, 0 REFUTED, 0 UNKNOWN" in out


def test_every_engine_still_runs_and_must_agree_when_asked(capsys):
    """Part 2: z3 answers the count of rare symbols (its spec is ITE over Piecewise sums)."""
    status, out = _check_tracr_like(capsys, "count_rare", "rare_count", "--alphabet", "abc", "--max-n", "3",
                                    "--every-engine")
    assert status == 0, out
    assert "shape 3: PROVED (sympy" in out and "z3 PROVED" in out and "exhaustive PROVED" in out
    assert "not run" not in out


def test_sympys_own_assertion_on_the_frequency_sort_leaves_the_length_to_the_other_engines(capsys):
    """Part 1: at length 3, sympy's expand fails an internal assert (piecewise_fold) on
    the frequency sort's spec; that engine cannot decide, and z3 and the exhaustive
    engine, which both ran (--every-engine), prove the length."""
    status = main(["check", TRACR_LIKE, "--function", "sort_by_frequency", "--spec-file",
                   f"{TRACR_SPECS}:by_frequency", "--alphabet", "abc", "--shape", "3", "--every-engine",
                   "--timeout", "30"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "shape 3: PROVED (sympy UNKNOWN" in out and "z3 PROVED" in out and "exhaustive PROVED" in out
    assert "sympy: sympy failed in its own code: AssertionError" in out


EXPECTED = EXAMPLES.parent / "expected"
DOCUMENTED = [  # (listing, options, expectations): usim's listings with documented faults
    ("documented_faults.rasp", ["--function", "transpose_side_3", "--spec", "transpose", "--max-n", "4"],
     ["--expect-file", str(EXPECTED / "transpose_side_3.txt")]),
    ("documented_faults.rasp", ["--function", "det_everywhere", "--spec", "det3"],
     ["--expect-file", str(EXPECTED / "det_everywhere.txt")]),
    ("documented_faults.rasp", ["--function", "det_everywhere", "--spec", "det3", "--padding", "any"],
     ["--expect", "proved"]),
    ("documented_faults.rasp", ["--function", "matmul_stride_k", "--spec", "matmul", "--max-n", "4"],
     ["--expect-file", str(EXPECTED / "matmul_stride_k.txt")]),
    ("maxmin.rasp", ["--function", "maxmin_unguarded", "--spec", "maxmin", "--max-n", "4"],
     ["--expect-file", str(EXPECTED / "maxmin_unguarded.txt")]),
    ("match2.rasp", ["--function", "match2_no_wrap", "--spec", "match2", "--max-n", "3"], ["--expect", "refuted"]),
    ("transpose_off_by_one.rasp", ["--function", "transpose", "--spec", "transpose", "--max-n", "3"],
     ["--expect", "refuted"]),
    ("heads.rasp", ["--function", "softmax_heads_273", "--spec", "softmax_heads", "--max-n", "2"],
     ["--expect-file", str(EXPECTED / "softmax_heads_273.txt")]),
    ("heads.rasp", ["--function", "softmax_heads_273", "--spec", "softmax_heads", "--base", "2.73", "--max-n", "2"],
     ["--expect", "proved"]),
    ("softmax_paper.rasp", ["--function", "softmax", "--spec", "softmax", "--max-n", "2"],
     ["--expect-file", str(EXPECTED / "softmax_paper.txt")]),
]


@pytest.mark.parametrize("listing, options, expect", DOCUMENTED, ids=lambda row: str(row)[:40])
def test_a_documented_verdict_exits_0(listing, options, expect, capsys) -> None:
    status = main(["check", str(EXAMPLES / listing), *options, *expect])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "expected verdicts: all " in out


def test_a_regression_from_a_documented_verdict_exits_1_naming_the_shape(tmp_path, capsys) -> None:
    """transpose_side_3 documented right at 3x3: an expectation file that says
    otherwise (as a regression would make the check) fails, naming the shape."""
    changed = tmp_path / "expected.txt"
    changed.write_text((EXPECTED / "transpose_side_3.txt").read_text() + "3x3 refuted\n")
    status = main(["check", str(EXAMPLES / "documented_faults.rasp"), "--function",
                   "transpose_side_3", "--spec", "transpose", "--max-n", "4", "--expect-file", str(changed)])
    out = capsys.readouterr().out
    assert status == 1
    assert "  shape 3x3: expected REFUTED, got PROVED" in out


def test_without_expectations_a_documented_refutation_still_exits_1(capsys) -> None:
    assert main(["check", str(EXAMPLES / "transpose_off_by_one.rasp"), "--function",
                 "transpose", "--spec", "transpose", "--max-n", "2"]) == 1


def test_an_expected_shape_the_check_does_not_reach_is_not_met(capsys) -> None:
    status = main(["check", str(EXAMPLES / "transpose_off_by_one.rasp"), "--function",
                   "transpose", "--spec", "transpose", "--max-n", "2", "--expect", "3x9=refuted,*=refuted"])
    assert status == 1
    assert "shape 3x9: expected REFUTED, got not checked" in capsys.readouterr().out


def test_an_expectation_that_is_not_one_is_one_line_before_anything_is_checked(capsys) -> None:
    status = main(["check", str(EXAMPLES / "transpose_off_by_one.rasp"), "--function",
                   "transpose", "--spec", "transpose", "--expect", "bogus"])
    captured = capsys.readouterr()
    assert status == 2 and "shapes:" not in captured.out
    assert captured.err.count("\n") == 1 and "'bogus' is not a verdict" in captured.err


def test_a_base_the_listing_does_not_use_is_said_in_one_line(capsys) -> None:
    """softmax_heads_273 raises 2.73 to the input: --base 2.718 checks it against
    another function, and the output says so plainly (it said only 'a power to
    the base 273/100' under a header naming 2.718)."""
    listing = str(EXAMPLES / "heads.rasp")
    main(["check", listing, "--function", "softmax_heads_273", "--spec", "softmax_heads", "--base", "2.718",
          "--max-n", "1"])
    warned = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning: --base")]
    assert warned == ["warning: --base 1359/500 (2.718) is not a base the listing uses (it raises 273/100 (2.73) "
                      "to the input): the verdicts are against a softmax to the base given"]
    main(["check", listing, "--function", "softmax_heads_273", "--spec", "softmax_heads", "--base", "2.73",
          "--max-n", "1"])
    assert "warning: --base" not in capsys.readouterr().out


TRACR_PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
TRACR_LIB_SPECS = Path(__file__).resolve().parent.parent / "examples" / "specs" / "tracr_lib.py"


def test_a_tracr_program_is_checked_length_by_length_and_its_broken_variant_refuted(capsys):
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    status = main(["check", "--tracr", f"{TRACR_PROGRAMS}:sort_freq", "--vocab", '["a", "b", "c"]',
                   "--spec-file", f"{TRACR_LIB_SPECS}:by_frequency", "--max-n", "4",
                   "--broken", f"{TRACR_PROGRAMS}:broken_sort_freq"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert [f"length {n}: PROVED" in out for n in range(1, 5)] == [True] * 4
    assert "length 3 [broken_sort_freq]: REFUTED" in out and "counterexample: input x = ['" in out
    assert "summary: 4 of 4 lengths PROVED; 1 broken variant(s) refuted of 1" in out


def test_a_tracr_program_refuted_exits_1_with_the_counterexample_in_its_tokens(capsys):
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    status = main(["check", "--tracr", f"{TRACR_PROGRAMS}:broken_reverse", "--vocab", '["a", "b"]',
                   "--spec-file", f"{TRACR_LIB_SPECS}:reverse", "--max-n", "2"])
    out = capsys.readouterr().out
    assert status == 1 and "length 1: REFUTED" in out and "input x = ['a']" in out


@pytest.mark.parametrize("argv, message", [
    (["--spec", "transpose"], "--tracr needs --vocab"),
    (["--vocab", "[1]", "--spec", "transpose", "--shape", "2x2"], "--shape does not apply"),
    (["--vocab", '["a"]', "--spec", "transpose"], "one dimension"),
    (["--vocab", '["a"]', "--spec-file", f"{TRACR_LIB_SPECS}:ascending"], "reads symbols, but the ascending spec"),
    (["--vocab", '["a"]', "--spec-file", f"{TRACR_LIB_SPECS}:reverse", "--max-len", "0"], "at least 1"),
])
def test_tracr_check_mistakes_are_one_line(capsys, argv, message):
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    status = main(["check", "--tracr", f"{TRACR_PROGRAMS}:reverse", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and message in err[0], err


def test_tracr_options_without_tracr_are_refused(capsys):
    assert main(["check", "x.rasp", "--function", "f", "--spec", "transpose", "--vocab", "[1]"]) == 2
    assert "--vocab applies to --tracr" in capsys.readouterr().err


def _tracr_certificate(tmp_path, program="hist", broken="broken_hist"):
    out = tmp_path / f"{program}.json"
    status = main(["check", "--tracr", f"{TRACR_PROGRAMS}:{program}", "--vocab", '["a", "b", "c"]',
                   "--spec-file", f"{TRACR_LIB_SPECS}:hist", "--max-n", "3",
                   "--broken", f"{TRACR_PROGRAMS}:{broken}", "--json", str(out)])
    return status, out


def test_a_tracr_checks_certificate_is_reproduced_by_usim_verify_only_when_asked_to_run_its_code(tmp_path, capsys):
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    status, cert = _tracr_certificate(tmp_path)
    assert status == 0 and json.loads(cert.read_text())["source"]["kind"] == "tracr"
    capsys.readouterr()
    assert main(["verify", str(cert)]) == 2
    assert "--run-spec-code" in capsys.readouterr().err  # the spec file is Python too
    assert main(["verify", str(cert), "--run-spec-code"]) == 2
    assert "usim runs that code only when asked (--run-claim-code)" in capsys.readouterr().err
    assert main(["verify", str(cert), "--run-claim-code", "--run-spec-code"]) == 0
    assert "reproduced (6 obligation(s), status PROVED)" in capsys.readouterr().out


def test_a_resealed_tracr_certificate_or_one_whose_program_changed_is_not_reproduced(tmp_path, capsys):
    pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra)")
    from usim.engine.certificate import digest

    # a program that is wrong at length 2, its certificate re-sealed with every row PROVED
    status, cert = _tracr_certificate(tmp_path, program="broken_hist", broken="hist")
    assert status == 1
    data = json.loads(cert.read_text())
    for row in data["obligations"]:
        row["status"] = row["equality"] = "PROVED"
        for engine in row["engines"]:
            engine["status"], engine["counterexample"] = "PROVED", None
    data["status"] = "PROVED"
    data["digest"] = digest(data)
    cert.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["verify", str(cert), "--run-claim-code", "--run-spec-code"]) != 0
    assert "NOT reproduced" in capsys.readouterr().out
    # the program's file edited after the certificate was written
    copy = tmp_path / "programs.py"
    copy.write_text(TRACR_PROGRAMS.read_text())
    status = main(["check", "--tracr", f"{copy}:hist", "--vocab", '["a", "b", "c"]',
                   "--spec-file", f"{TRACR_LIB_SPECS}:hist", "--max-n", "2", "--json", str(tmp_path / "c.json")])
    assert status == 0
    copy.write_text(copy.read_text() + "\nhist = broken_hist\n")
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "c.json"), "--run-claim-code", "--run-spec-code"]) != 0
    out = capsys.readouterr().out
    assert "NOT reproduced" in out and "has changed since the certificate was written" in out
