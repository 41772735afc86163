"""The RASP language: the shared cases, the semantics of each construct, listings,
rewriting, and the errors a user can make while writing a program."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from cases import ALL_CASES, CASES, as_fraction, exact_values, numeric_values
from usim.encodings.runners import run_exact
from usim.rasp import (
    Aggregate,
    Constant,
    Map,
    Op,
    Predicate,
    Program,
    Semantics,
    aggregate,
    constant,
    indices,
    length,
    listing,
    select,
    selector_width,
    substitute,
    tokens,
    where,
)

# --- the shared table ----------------------------------------------------------------------


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.exact], ids=lambda c: c.name)
def test_exact_meaning_of_the_shared_cases(case) -> None:
    program = case.build()
    (out,) = exact_values(program, case.tokens).values()
    assert out == [as_fraction(v) for v in case.expected]


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.name)
def test_numeric_meaning_of_the_shared_cases(case) -> None:
    program = case.build()
    (out,) = numeric_values(program, case.tokens).values()
    assert all(math.isclose(x, float(y), rel_tol=1e-12, abs_tol=1e-12) for x, y in zip(out, case.expected))


def test_the_table_covers_the_language() -> None:
    kinds = {type(node).__name__ for case in CASES for node in case.build().nodes()}
    assert {"Select", "SelectorAnd", "SelectorOr", "SelectorNot", "Aggregate", "SelectorWidth",
            "Map", "Constant", "Tokens", "Indices", "Length"} <= kinds
    ops = {node.op for case in CASES for node in case.build().nodes() if isinstance(node, Map)}
    missing = set(Op) - ops - {Op.SQRT}  # sqrt has no exact value in general: see the interpretation tests
    assert not missing, missing


# --- the semantics of attention -------------------------------------------------------------


def test_select_is_keys_first() -> None:
    """select(keys, queries, <) selects key k at query q when keys[k] < queries[q]."""
    program = Program.of("p", {"out": selector_width(select(indices, 2, Predicate.LT))})
    assert run_exact(program, [0] * 5)["out"] == [2] * 5  # keys 0 and 1 at every query
    program = Program.of("p", {"out": selector_width(select(2, indices, Predicate.LT))})
    assert run_exact(program, [0] * 5)["out"] == [0, 0, 0, 5, 5]  # 2 < q: every key, from q = 3


def test_rasp_and_ahat_differ_only_on_empty_rows() -> None:
    def mean_before(semantics: Semantics, default=0) -> Program:
        sel = select(indices, indices, Predicate.LT)  # the first query selects nothing
        return Program.of("p", {"out": aggregate(sel, tokens, default=default, semantics=semantics)})

    x = [4, 8, 6, 2]
    rasp = run_exact(mean_before(Semantics.RASP), x)["out"]
    rasp7 = run_exact(mean_before(Semantics.RASP, default=7), x)["out"]
    ahat = run_exact(mean_before(Semantics.AHAT), x)["out"]
    assert rasp[1:] == ahat[1:] == rasp7[1:] == [4, 6, 6]
    assert (rasp[0], rasp7[0], ahat[0]) == (0, 7, 5)


def test_float_constants_mean_the_decimal_they_print_as() -> None:
    assert constant(2.718).value == Fraction(2718, 1000)
    assert constant(0.1).value == Fraction(1, 10)
    program = Program.of("p", {"out": tokens * 0.1})
    assert run_exact(program, [3])["out"] == [Fraction(3, 10)]


def test_booleans_become_one_and_zero_where_numbers_are_needed() -> None:
    program = Program.of("p", {"out": (tokens > 1) + (tokens > 2) * 10})
    assert run_exact(program, [1, 2, 3])["out"] == [0, 1, 11]
    program = Program.of("p", {"out": where(tokens, 1, -1)})  # a number as a condition: non-zero
    assert run_exact(program, [0, 5, Fraction(-1, 2)])["out"] == [-1, 1, 1]


def test_identity_shortcuts_build_no_node() -> None:
    assert (tokens + 0) is tokens and (0 + tokens) is tokens and (tokens * 1) is tokens
    assert (tokens - 0) is tokens
    assert isinstance(tokens + 0.0 if False else tokens + 1, Map)


# --- listings --------------------------------------------------------------------------------


def test_listing_names_each_head_and_prints_keys_first() -> None:
    rev = aggregate(select(indices, length - 1 - indices, Predicate.EQ), tokens).named("reverse")
    mean = aggregate(select(tokens, tokens, Predicate.GE) & ~select(indices, 0, Predicate.EQ), rev,
                     default=2).named("mean")
    text = listing(Program.of("demo", {"out": mean * 3}, "a demonstration"))
    assert text.splitlines() == [
        "# demo: a demonstration",
        "reverse = aggregate(select(indices, length - 1 - indices, ==), tokens)",
        "mean = aggregate(select(tokens, tokens, >=) & ~select(indices, 0, ==), reverse, default=2)",
        "output out = mean * 3",
    ]


def test_listing_parenthesises_by_precedence() -> None:
    program = Program.of("p", {"out": (tokens + 1) * (indices - 2) - (tokens - indices) + tokens ** 2})
    assert listing(program).splitlines()[-1] == "output out = (tokens + 1) * (indices - 2) - (tokens - indices) + tokens ** 2"
    ahat = aggregate(select(indices, indices, Predicate.TRUE), tokens, semantics=Semantics.AHAT)
    assert "semantics=ahat" in listing(Program.of("q", {"o": ahat}))


# --- rewriting ------------------------------------------------------------------------------------


def _demo() -> Program:
    src = (length - 1 - indices).named("src")
    rev = aggregate(select(indices, src, Predicate.EQ), tokens).named("rev")
    other = aggregate(select(indices, indices, Predicate.LE), tokens).named("other")
    return Program.of("demo", {"rev": rev * 2, "other": other})


def test_substitute_replaces_a_named_node_and_rebuilds_only_what_depends_on_it() -> None:
    program = _demo()
    mutant = substitute(program, {"src": lambda node: node - 1}, name="demo_shifted")
    assert mutant.name == "demo_shifted"
    x = [1, 2, 3, 4]
    assert run_exact(program, x) == {"rev": [8, 6, 4, 2], "other": [1, Fraction(3, 2), 2, Fraction(5, 2)]}
    assert run_exact(mutant, x)["rev"] == [6, 4, 2, 0]
    old = {n.name: n for n in program.nodes() if n.has_name}
    new = {n.name: n for n in mutant.nodes() if n.has_name}
    assert new["other"] is old["other"]  # shared: does not depend on src
    assert new["rev"] is not old["rev"] and new["rev"].name == "rev"  # rebuilt, name kept
    assert run_exact(program, x)["rev"] == [8, 6, 4, 2]  # the original is untouched


def test_substitute_of_an_unknown_name_is_an_error() -> None:
    with pytest.raises(KeyError, match="no node named 'nowhere'"):
        substitute(_demo(), {"nowhere": lambda node: node})


def test_substitute_can_change_an_aggregate() -> None:
    program = _demo()
    mutant = substitute(program, {"other": lambda node: Aggregate(
        node.selector, node.values, semantics=Semantics.AHAT)})
    assert [n.semantics for n in mutant.nodes() if isinstance(n, Aggregate) and n.name == "other"] == [
        Semantics.AHAT]


# --- mistakes while writing a program ------------------------------------------------------------


def test_a_sequence_has_no_truth_value() -> None:
    with pytest.raises(TypeError, match="no single truth value"):
        if tokens > 0:
            pass
    with pytest.raises(TypeError, match="no single truth value"):
        bool(select(indices, indices, Predicate.EQ))


def test_construction_errors() -> None:
    with pytest.raises(TypeError, match="select needs a Predicate"):
        select(indices, indices, "==")
    with pytest.raises(TypeError, match="expected a selector"):
        aggregate(tokens, tokens)
    with pytest.raises(TypeError, match="default must be a number"):
        aggregate(select(indices, indices, Predicate.EQ), tokens, default=True)
    with pytest.raises(ValueError, match="finite"):
        Constant(float("inf"))
    with pytest.raises(TypeError, match="expected a sequence or a number"):
        tokens + "1"
    with pytest.raises(TypeError, match="takes 2 arguments"):
        Map(Op.ADD, tokens)
    with pytest.raises(ValueError, match="non-empty string"):
        (tokens + 1).named("")


def test_program_errors() -> None:
    with pytest.raises(ValueError, match="has no output"):
        Program.of("p", {})
    with pytest.raises(TypeError, match="is not a sequence"):
        Program.of("p", {"s": select(indices, indices, Predicate.EQ)})
    two = Program.of("p", {"a": tokens + 1, "b": tokens + 2})
    with pytest.raises(ValueError, match="has 2 outputs"):
        two.output
    assert Program.of("p", (tokens * 3).named("triple")).outputs[0][0] == "triple"


def test_nodes_come_after_their_children() -> None:
    program = _demo()
    seen: set[int] = set()
    for node in program.nodes():
        assert all(child.id in seen for child in node.children())
        seen.add(node.id)
    assert len(seen) == len(program.nodes())  # each node once


def _most_alive(order, roots) -> int:
    """The most values an evaluation in ``order`` holds at once, dropping each after its last reader."""
    from usim.encodings.evaluate import last_reads

    releases, alive, most = last_reads(order, roots), 0, 0
    for place, _ in enumerate(order):
        alive += 1
        most = max(most, alive)
        alive -= len(releases.get(place, ()))
    return most


@pytest.mark.parametrize("depth", [5, 40, 200])
def test_the_heaviest_first_order_computes_a_where_chain_from_the_inside_out(depth) -> None:
    """A chain where(c_k, s_k, where(c_(k-1), ...)) (a routing head's source map):
    visited in the children's own order, every level's condition and value wait
    for the inner chain, so the values alive grow with its depth; heaviest first,
    a few whatever the depth. Both orders put every node after its children."""
    from usim.rasp.program import topological_order

    chain = indices * 0 - 1
    for k in range(depth):
        chain = where((indices >= 3 * k) & (indices < 3 * k + 2), indices + (k + 1), chain)
    roots = (chain.named("src"),)
    plain, lean = topological_order(roots), topological_order(roots, heaviest_first=True)
    assert {n.id for n in plain} == {n.id for n in lean} and len(plain) == len(lean)
    seen: set[int] = set()
    for node in lean:
        assert all(child.id in seen for child in node.children())
        seen.add(node.id)
    assert _most_alive(plain, roots) > depth and _most_alive(lean, roots) <= 8


def test_numeric_batches_share_the_static_part() -> None:
    from usim.encodings.runners import run_numeric

    program = _demo()
    out = run_numeric(program, np.arange(12.0).reshape(3, 4))
    assert out["rev"].shape == (3, 4)
    np.testing.assert_array_equal(out["rev"][2], [22.0, 20.0, 18.0, 16.0])
