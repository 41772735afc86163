"""Reading the RASP REPL's language: grammar, meaning, library, errors, and the
example listings against the Python-built constructions under every interpretation."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
import z3

from usim.constructions.matmul import matmul_construction
from usim.constructions.softmax import softmax_construction
from usim.constructions.transpose import transpose_construction
from usim.encodings.evaluate import evaluate
from usim.encodings.runners import run_exact, run_numeric, run_symbolic
from usim.encodings.smt import SmtInterpretation
from usim.errors import NotExactError, UsimError
from usim.rasp import expr as E
from usim.repl import RaspEvaluationError, RaspSyntaxError, load_file, load_text, parse
from usim.repl import tree as T

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "rasp"


def value_of(source: str, name: str, tokens):
    """Exact values of the sequence ``name`` the source defines, on ``tokens``."""
    program = load_text(source, "t.rasp").program(name)
    return run_exact(program, tokens)[name]


def expression(text: str) -> T.Node:
    return parse(f"x = {text};").statements[0].values[0]


# -- grammar: precedence as in RASP.g4 ------------------------------------------------

def shape_of(node: T.Node) -> str:
    """The tree as nested text: op(left, right)."""
    if isinstance(node, T.Name):
        return node.id
    if isinstance(node, T.Number):
        return str(node.value)
    if isinstance(node, T.Binary):
        return f"{node.op}({shape_of(node.left)}, {shape_of(node.right)})"
    if isinstance(node, T.Unary):
        return f"{node.op}({shape_of(node.operand)})"
    if isinstance(node, T.IfElse):
        return f"if({shape_of(node.then)}, {shape_of(node.cond)}, {shape_of(node.otherwise)})"
    raise AssertionError(node)


@pytest.mark.parametrize("text, tree", [
    ("a + b * c", "+(a, *(b, c))"),
    ("a * b % c", "%(*(a, b), c)"),        # % binds looser than * in RASP.g4
    ("a % b * c", "%(a, *(b, c))"),
    ("a - b - c", "-(-(a, b), c)"),
    ("a ^ b ^ c", "^(^(a, b), c)"),        # left-associative
    ("-a ^ b", "^(-(a), b)"),              # prefix binds tighter than ^
    ("not a == b", "==(not(a), b)"),
    ("a or b and c", "and(or(a, b), c)"),  # one level, left to right
    ("a < b == c", "==(<(a, b), c)"),
    ("a if b else c if d else e", "if(if(a, b, c), d, e)"),
    ("a if b else c + 1", "if(a, b, +(c, 1))"),
    ("a + 1 if b and c else d", "if(+(a, 1), and(b, c), d)"),
    ("2.718 ^ x", "^(1359/500, x)"),
])
def test_precedence_follows_the_antlr_grammar(text, tree):
    assert shape_of(expression(text)) == tree


def test_statements_and_repl_commands_parse():
    module = parse(
        "set example [1, 2, 3]\n"
        "examples off\n"
        "s-op examples on\n"
        "selector examples off   # comment\n"
        "show example\n"
        "full seq display on\n"
        "set s-op example [4, 5]\n"
        "a, b = 1, 2;\n"
        "def f(x, y) {\n  # a comment inside\n  z = x + y;\n  return z, x;\n}\n"
        "for i in range(3) { q = i; }\n"
        "load \"other\";\n"
        "draw(tokens);\n"
        "exit\n"
    )
    kinds = [type(s).__name__ for s in module.statements]
    assert kinds == ["SetExample", "ReplCommand", "ReplCommand", "ReplCommand", "ReplCommand",
                     "ReplCommand", "SetExample", "Assign", "FuncDef", "ForLoop", "Load", "Draw", "Exit"]
    assert module.statements[7].names == ("a", "b")
    assert module.statements[8].params == ("x", "y") and len(module.statements[8].returns) == 2


@pytest.mark.parametrize("source, line, column, fragment", [
    ("x = 1;\ny = (2 + ;\n", 2, 10, "unexpected ';'"),
    ("x = 1;\n\n  y = a . b;", 3, 9, "unexpected character '.'"),
    ("def f() {\n  x = 1;\n}\n", 3, 1, "unexpected '}'"),
    ("x = select(a, b, =);", 1, 18, "expected a comparison"),
    ("x = 1", 1, 6, "unexpected end of file"),
    ("x = 'a';", 1, 5, "double quotes"),
    ("m = Map(lambda x: math.exp(x), tokens);", 1, 23, "lambda"),
    ("f(x) = 3;", 1, 1, "only names can be assigned"),
])
def test_syntax_errors_name_line_column_and_text(source, line, column, fragment):
    with pytest.raises(RaspSyntaxError) as caught:
        parse(source, "bad.rasp")
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert fragment in str(error)
    assert str(error).startswith(f"bad.rasp:{line}:{column}: syntax error")
    assert "\n" not in str(error)


# -- meaning -----------------------------------------------------------------------

def test_select_takes_keys_first_and_predicates_compare_key_to_query():
    tokens = [3, 1, 4, 1, 5]
    # at query q: the mean of the tokens at keys k with k < q (key index below query index)
    got = value_of("s = aggregate(select(indices, indices, <), tokens);", "s", tokens)
    want = [0] + [Fraction(sum(tokens[:q]), q) for q in range(1, 5)]
    assert got == want
    # keys: tokens; queries: constant 1: every query selects the keys whose token is 1
    got = value_of("s = aggregate(select(tokens, 1, ==), indices);", "s", tokens)
    assert got == [Fraction(1 + 3, 2)] * 5
    got = value_of("s = aggregate(select(tokens, tokens, >), tokens, 9);", "s", tokens)
    want = [np.mean([t for t in tokens if t > q]) if any(t > q for t in tokens) else 9 for q in tokens]
    assert got == [Fraction(w).limit_denominator() for w in want]


def test_indexing_a_sequence_is_one_head_reading_one_position():
    tokens = [7, 8, 9, 10]
    assert value_of("s = tokens[2];", "s", tokens) == [9] * 4
    assert value_of("s = tokens[-1];", "s", tokens) == [10] * 4
    program = load_text("s = tokens[1];").program("s")
    from usim.rasp.cost import cost
    assert cost(program).heads_per_layer == (1,)


def test_arithmetic_on_atoms_is_exact_and_on_sequences_elementwise():
    f = load_text("a = 6 / 4; b = 2 ^ 10; c = 7 % 3; d = 2.5 * 2; e = 9 ^ 0.5; g = 1 + 2 * 3 % 4;")
    assert f.get("a") == Fraction(3, 2) and f.get("b") == 1024 and f.get("c") == 1
    assert f.get("d") == 5 and isinstance(f.get("d"), int) and f.get("e") == 3
    assert f.get("g") == 1 + (2 * 3) % 4
    tokens = [Fraction(1, 2), 3, -2]
    got = value_of("s = (tokens * 2 - 1) / 4 + tokens % 2;", "s", tokens)
    assert got == [(t * 2 - 1) / 4 + t % 2 for t in tokens]


def test_power_with_non_integral_exponent_is_a_pow_node_never_exp():
    program = load_text("e = 2.718 ^ tokens;").program("e")
    ops = [n.op for n in program.nodes() if isinstance(n, E.Map)]
    assert E.Op.POW in ops and E.Op.EXP not in ops
    base = [n for n in program.nodes() if isinstance(n, E.Constant)][0]
    assert base.value == Fraction(2718, 1000)
    got = run_numeric(program, [1.0, 2.0])["e"][0]
    assert np.allclose(got, [2.718, 2.718 ** 2]) and not np.allclose(got, np.exp([1.0, 2.0]))
    # length ^ 0.5: exact where length is a perfect square, no exact value elsewhere
    root = load_text("r = length ^ 0.5;").program("r")
    assert run_exact(root, [0] * 4)["r"] == [2] * 4
    with pytest.raises(NotExactError):
        run_exact(root, [0] * 6)
    assert np.allclose(run_numeric(root, [0.0] * 6)["r"], np.sqrt(6))


def test_conditionals_and_booleans():
    tokens = [-2, 0, 3]
    assert value_of("s = tokens if tokens > 0 else 0 - tokens;", "s", tokens) == [2, 0, 3]
    assert value_of("s = indicator(tokens > 0 or tokens < -1);", "s", tokens) == [1, 0, 1]
    assert value_of("s = indicator(not tokens);", "s", tokens) == [0, 1, 0]
    assert value_of("s = indicator(tokens and indices);", "s", tokens) == [0, 0, 1]
    # an atom condition picks one branch without evaluating the other
    assert value_of("s = tokens if 1 > 0 else undefined_name;", "s", tokens) == tokens
    halves = [Fraction(k, 2) for k in range(-5, 6)]
    assert value_of("s = round(tokens);", "s", halves) == [round(h) for h in halves]  # half to even


def test_selectors_combine_with_and_or_not_into_one_head():
    tokens = [1, 2, 1, 3]
    source = ("same = select(tokens, tokens, ==); before = select(indices, indices, <);\n"
              "a = aggregate(same and before, indices, -1);\n"
              "o = aggregate(same or before, indices);\n"
              "n = aggregate(not same, indices);\n")
    f = load_text(source)
    n = len(tokens)
    for name, pick, default in [
        ("a", lambda q, k: tokens[k] == tokens[q] and k < q, -1),
        ("o", lambda q, k: tokens[k] == tokens[q] or k < q, 0),
        ("n", lambda q, k: tokens[k] != tokens[q], 0),
    ]:
        want = []
        for q in range(n):
            keys = [k for k in range(n) if pick(q, k)]
            want.append(Fraction(sum(keys), len(keys)) if keys else default)
        assert run_exact(f.program(name), tokens)[name] == want
        from usim.rasp.cost import cost
        assert cost(f.program(name)).heads_per_layer == (1,)


def test_library_helpers_have_the_repl_meaning():
    tokens = [3, 1, 2, 1, 5]
    n = len(tokens)
    f = load_text(
        "h = selector_width(select(tokens, tokens, ==));\n"
        "srt = sort(tokens, tokens);\n"
        "cnt = count(tokens, 1);\n"
        "has = indicator(contains(tokens, 5));\n"
        "sh = shift(tokens, 1, 0);\n"
        "ld = load_from_location(tokens, 4 - indices);\n"
        "big = max(tokens, 2);\n"
        "small = min(tokens, 2);\n"
        "avg = average(tokens);\n"
        "last = indicator(mark_last_instance(tokens, 1));\n"
        "full = aggregate(full_s, indices);\n"
        "nxt = aggregate(select_next_identical(tokens), indices, -1);\n"
    )
    run = lambda name: run_exact(f.program(name), tokens)[name]  # noqa: E731
    assert run("h") == [tokens.count(t) for t in tokens]
    assert run("srt") == sorted(tokens)
    assert run("cnt") == [tokens.count(1)] * n
    assert run("has") == [1] * n
    assert run("sh") == [0] + tokens[:-1]
    assert run("ld") == tokens[::-1]
    assert run("big") == [max(t, 2) for t in tokens] and run("small") == [min(t, 2) for t in tokens]
    assert run("avg") == [Fraction(sum(tokens), n)] * n
    assert run("last") == [1 if t == 1 and 1 not in tokens[i + 1:] else 0 for i, t in enumerate(tokens)]
    assert run("full") == [Fraction(sum(range(n)), n)] * n
    want = []
    for q, t in enumerate(tokens):
        later = [k for k in range(q + 1, n) if tokens[k] == t]
        want.append(later[0] if later else -1)
    assert run("nxt") == want


def test_functions_tuples_loops_comprehensions_and_application():
    source = (
        "set example [5, 6, 7]\n"
        "def pair(s) {\n  doubled = 2 * s;\n  return doubled, s + 1;\n}\n"
        "a, b = pair(tokens);\n"
        "c = 1, 2;\n"
        "total = 0;\n"
        "for i in range(3) { total = total + tokens[i]; }\n"
        "heads = [aggregate(select(indices, i, ==), tokens) for i in [0, 2]];\n"
        "first = heads[0]; third = heads[1];\n"
        "out_values = pair(tokens)[0]([1, 2, 3]);\n"
    )
    f = load_text(source, "f.rasp")
    tokens = [5, 6, 7]
    assert run_exact(f.program("a"), tokens)["a"] == [10, 12, 14]
    assert run_exact(f.program("b"), tokens)["b"] == [6, 7, 8]
    assert f.get("c") == (1, 2)
    assert run_exact(f.program("total"), tokens)["total"] == [18] * 3
    assert run_exact(f.program("third"), tokens)["third"] == [7] * 3
    assert f.get("out_values") == [2, 4, 6]
    assert [(e.kind, e.values) for e in f.examples] == [("set example", (5, 6, 7)),
                                                       ("application", (1, 2, 3))]
    # the function's scope: its locals, for usim check
    built = load_text("def g(r) { k = 4; x = tokens * r; return x; }").build("g", {"r": 3})
    assert built.locals["k"] == 4 and built.locals["r"] == 3


def test_assignment_names_nodes_but_never_the_primitives():
    f = load_text("x = indices; y = tokens + 1; z = y;")
    assert f.get("x") is E.indices and E.indices.name == "indices"
    assert f.get("z").name == "z"  # the last assignment names the node, as in the REPL


def test_exit_stops_reading_the_file():
    f = load_text("a = 1;\nexit\nb = undefined_thing;\n")
    assert f.get("a") == 1 and "b" not in f.names()


def test_tokens_kinds_all_read_the_numeric_input():
    for name in ("tokens", "tokens_int", "tokens_float", "tokens_str", "tokens_asis"):
        assert value_of(f"s = {name} * 2;", "s", [1, 2]) == [2, 4]
    assert value_of("s = indicator(tokens_bool);", "s", [0, 3]) == [0, 1]
    with pytest.raises(RaspEvaluationError) as caught:
        load_text('s = tokens_str == "a";', "str.rasp")
    assert "str.rasp:1:19" in str(caught.value) and "numbers" in str(caught.value)


def test_lambdas_of_the_closed_form_are_maps_and_others_are_rejected():
    tokens = [-1, 2, 3]
    got = value_of("s = numerical(Map(lambda x: x * x + 1 if x > 0 else 0, tokens));", "s", tokens)
    assert got == [0, 5, 10]
    got = value_of("s = SequenceMap(lambda x, y: x - y, tokens, indices);", "s", tokens)
    assert got == [-1, 1, 1]
    got = value_of("def sq(v) { return v * v; }\ns = categorical(Map(sq, tokens));", "s", tokens)
    assert got == [1, 4, 9]
    with pytest.raises(RaspEvaluationError) as caught:
        load_text("s = Map(lambda x: str(x), tokens);", "l.rasp")
    assert "l.rasp:1:19" in str(caught.value) and "unknown name str" in str(caught.value)
    with pytest.raises(RaspEvaluationError) as caught:
        load_text("s = Map(lambda x: aggregate(full_s, x), tokens);", "l.rasp")
    assert "not element-wise" in str(caught.value)
    with pytest.raises(RaspEvaluationError) as caught:
        load_text("def f(g) { return g; }\ns = f(lambda x: x);", "l.rasp")
    assert "only be passed to Map" in str(caught.value)


@pytest.mark.parametrize("source, line, column, fragment", [
    ("a = 1;\nb = a + undefined;\n", 2, 9, "unknown name undefined"),
    ("indices = 3;", 1, 1, "reserved name indices"),
    ("s = aggregate(tokens, tokens);", 1, 15, "needs a selector"),
    ("s = select(indices, indices, ==) + 1;", 1, 5, "cannot apply + to a selector"),
    ("s = tokens[indices];", 1, 12, "indexed by an integer"),
    ("def f(x) {\n  return x and select(1, 1, ==);\n}\ns = f(tokens);", 2, 10, "in a call of f at e.rasp:4:5"),
    ("x = 1 / 0;", 1, 5, "division by zero"),
    ("a, b = 1, 2, 3;", 1, 1, "2 names but 3 value(s)"),
])
def test_meaning_errors_name_line_column_and_text(source, line, column, fragment):
    with pytest.raises(RaspEvaluationError) as caught:
        load_text(source, "e.rasp")
    error = caught.value
    assert (error.line, error.column) == (line, column), str(error)
    assert fragment in str(error)
    assert isinstance(error, UsimError)


def test_load_copies_public_names(tmp_path):
    (tmp_path / "lib.rasp").write_text("def twice(s) { return 2 * s; }\n_private = 1;\n")
    main = tmp_path / "main.rasp"
    main.write_text('load "lib";\ns = twice(tokens);\n')
    f = load_file(main)
    assert run_exact(f.program("s"), [1, 2])["s"] == [2, 4]
    assert "_private" not in f.names()


# -- the listings are the constructions, under every interpretation --------------------

def _random_rationals(rng: random.Random, n: int) -> list[Fraction]:
    return [Fraction(rng.randint(-20, 20), rng.choice([1, 2, 3, 7])) for _ in range(n)]


def _z3_equal(a, b, facts) -> bool:
    solver = z3.Solver()
    solver.add(*facts)
    solver.add(z3.Or(*[x != y for x, y in zip(a, b)]))
    return solver.check() == z3.unsat


LISTINGS = [
    ("transpose.rasp", "transpose", lambda s: transpose_construction(*s), [(3, 1), (3, 2), (3, 4)], True),
    ("softmax.rasp", "softmax", lambda s: softmax_construction(*s), [(3, 1), (3, 2), (3, 3)], False),
    ("matmul.rasp", "matmul", lambda s: matmul_construction(*s), [(2, 1, 2), (2, 2, 2), (2, 3, 2)], True),
]


@pytest.mark.parametrize("filename, function, build, shapes, exact", LISTINGS)
def test_listings_agree_with_the_python_constructions(filename, function, build, shapes, exact):
    parsed = load_file(EXAMPLES / filename).program(function)
    rng = random.Random(7)
    for shape in shapes:
        reference = build(shape).program
        name = reference.outputs[0][0]
        n = build(shape).input_layout.length
        # numeric, a batch of random floats
        batch = np.random.default_rng(3).normal(size=(16, n))
        assert np.allclose(run_numeric(parsed, batch)[function], run_numeric(reference, batch)[name],
                           rtol=1e-12, atol=1e-12)
        # exact, random rationals (softmax has no exact value)
        tokens = _random_rationals(rng, n)
        if exact:
            assert run_exact(parsed, tokens)[function] == run_exact(reference, tokens)[name]
        else:
            with pytest.raises(NotExactError):
                run_exact(parsed, tokens)
        # symbolic: equal expressions over symbols
        symbols = [sympy.Symbol(f"x{p}", real=True) for p in range(n)]
        mine, theirs = run_symbolic(parsed, symbols)[function], run_symbolic(reference, symbols)[name]
        assert all(sympy.simplify(a - b) == 0 for a, b in zip(mine, theirs))
        # smt: z3 proves the two output sequences equal for all real inputs
        reals = [z3.Real(f"x{p}") for p in range(n)]
        i1, i2 = SmtInterpretation(), SmtInterpretation()
        mine = evaluate(parsed, i1, reals)[function]
        theirs = evaluate(reference, i2, reals)[name]
        assert _z3_equal(mine, theirs, i1.facts + i2.facts)


def test_the_off_by_one_listing_differs_from_the_construction():
    parsed = load_file(EXAMPLES / "transpose_off_by_one.rasp").program("transpose")
    reference = transpose_construction(3, 2).program
    tokens = [1, 2, 3, 4, 5, 6]
    assert run_exact(parsed, tokens)["transpose"] != run_exact(reference, tokens)["transpose"]


def test_listing_costs_match_the_constructions():
    from usim.rasp.cost import cost

    for filename, function, build, shapes, _ in LISTINGS:
        parsed = cost(load_file(EXAMPLES / filename).program(function))
        reference = cost(build(shapes[0]).program)
        assert parsed.heads_per_layer == reference.heads_per_layer
        assert parsed.heads_per_layer_with_length == reference.heads_per_layer_with_length
