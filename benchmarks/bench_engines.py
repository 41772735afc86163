"""Which engines pay: canonical forms in sympy, symengine and flint; z3; cvc5.

For each problem (one obligation: the construction's output sequence and the
target sequence, both as sympy expressions) this script times how long each
engine takes to decide it:

``build``
    interpreting the construction symbolically and laying out the target (the
    input of the three canonical-form engines; not included in their times).
``sympy``
    :func:`usim.engine.canonical.compare` over every position (the
    library's decision procedure; with the accelerated path switched off).
``symengine``
    the same algorithm in symengine: exp(u) -> a fresh symbol per expanded
    argument u, the difference over one denominator (``as_numer_denom``), the
    numerator expanded; zero numerator = equal. Includes converting the sympy
    expressions.
``flint``
    the same algorithm on flint's exact multivariate polynomials (fmpq_mpoly):
    every sub-expression evaluated bottom-up to a numerator/denominator pair of
    polynomials in the input symbols and exp atoms (:mod:`usim.engine.canonical`,
    the accelerated path).
``z3``
    :func:`usim.engine.solvers.z3_engine.check_z3` on the obligation (its time includes
    building its own z3 terms from the construction); for the direct attention
    problem, the same per-position queries on the sympy sides translated by
    :func:`usim.engine.translate.to_z3`.
``cvc5``
    :func:`usim.engine.solvers.cvc5_engine.check_cvc5` (the sympy sides written as SMT-LIB,
    shared sub-terms as ``define-fun``, exp as cvc5's real exponential, one
    ``(check-sat)`` per position, in a child process killed at the deadline;
    its time includes building the terms and writing the script); for the
    direct attention problem, the same script from the sympy sides.

Problems: ``lemma4`` (softmax, r = c = n), ``lemma5`` (product, r = k = c = n),
``attention`` (softmax(X A X^T) X V against its formula, n = d = d_v: the
registered claim ``hierarchy``, shape n x n x n, the whole program U, when it
exists, otherwise the direct problem), ``attention-direct`` (built here with
sympy matrices: the left side step by step as the blocks compute it, Y1 = X A,
Y2 = Y1 X^T, softmax by rows, times X V; the right side written from the
formula with expanded scores s_ij = sum_ab X_ia A_ab X_jb and one fraction per
entry). ``--broken`` adds one broken
variant per family (missing factor c / k, A transposed) to time refutations.

Every (problem, engine) runs in a forked child with a hard deadline
(``--timeout``); an engine that times out at some size is not run at larger
sizes of that family. Usage::

    python benchmarks/bench_engines.py [--timeout 60] [--families lemma4,lemma5,attention]
        [--engines sympy,symengine,flint,z3,cvc5] [--sizes-lemma4 1,2,4,8,12,16] [--broken]
"""

from __future__ import annotations

import argparse
import os
import pickle
import select
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

import sympy

from usim.engine import canonical
from usim.engine.canonical import Atoms, Verdict

DEFAULT_SIZES = {
    "lemma4": [1, 2, 4, 8, 12, 16],
    "lemma5": [2, 4, 8, 12, 16, 20, 24],
    "attention": [1, 2, 3, 4, 5, 6, 7, 8],
    "attention-direct": [1, 2, 3, 4, 5, 6, 7, 8],
}
ALL_ENGINES = ["sympy", "symengine", "flint", "z3", "cvc5"]


@dataclass
class Problem:
    family: str
    size: int
    broken: bool
    got: list[Any]
    expected: list[Any]
    obligation: Any  # an Obligation, or None for the direct attention problem
    build_seconds: float

    @property
    def label(self) -> str:
        return f"{self.family}{' [broken]' if self.broken else ''} n={self.size}"


# -- problems ------------------------------------------------------------------

def _from_obligation(family: str, size: int, ob, broken: bool) -> Problem:
    from usim.encodings.symbolic import SymbolicInterpretation
    from usim.engine.replay import expected_sequence, output_of, symbol_matrices

    start = time.perf_counter()
    layout = ob.construction.input_layout
    matrices = symbol_matrices(layout, ob.domain)
    got = output_of(ob, SymbolicInterpretation(), layout.encode(matrices))
    expected = expected_sequence(ob, matrices)
    return Problem(family, size, broken, list(got), list(expected), ob, time.perf_counter() - start)


def _attention_direct(n: int, broken: bool) -> Problem:
    """softmax(X A X^T) X V, step by step, against the formula with expanded scores."""
    start = time.perf_counter()
    d = n
    X = sympy.Matrix(n, d, lambda i, j: sympy.Symbol(f"X[{i},{j}]", real=True))
    A = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"A[{i},{j}]", real=True))
    V = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"V[{i},{j}]", real=True))
    # left: Y1 = X A; Y2 = Y1 X^T; Y3 = softmax(Y2) row-wise; Y4 = X V; Y = Y3 Y4
    Y2 = (X * (A.T if broken else A)) * X.T
    Y3 = sympy.Matrix(n, n, lambda i, j: sympy.exp(Y2[i, j]) / sympy.Add(*[sympy.exp(Y2[i, l]) for l in range(n)]))
    Y = Y3 * (X * V)
    got = [Y[i, j] for i in range(n) for j in range(d)]
    # right: the formula, scores s_ij = sum_ab X[i,a] A[a,b] X[j,b]
    s = [[sympy.Add(*[X[i, a] * A[a, b] * X[j, b] for a in range(d) for b in range(d)])
          for j in range(n)] for i in range(n)]
    expected = []
    for i in range(n):
        den = sympy.Add(*[sympy.exp(s[i][j]) for j in range(n)])
        for l in range(d):
            num = sympy.Add(*[sympy.exp(s[i][j]) * X[j, k] * V[k, l] for j in range(n) for k in range(d)])
            expected.append(num / den)
    return Problem("attention-direct", n, broken, got, expected, None, time.perf_counter() - start)


def build_problem(family: str, size: int, broken: bool) -> Problem:
    from usim.proofs import all_claims, get

    if family == "lemma4":
        claim = get("lemma4")
        ob = claim.mutants["missing-factor-c"]((size, size)) if broken else claim.obligation((size, size))
        return _from_obligation(family, size, ob, broken)
    if family == "lemma5":
        claim = get("lemma5")
        shape = (size, size, size)
        ob = claim.mutants["missing-factor-k"](shape) if broken else claim.obligation(shape)
        return _from_obligation(family, size, ob, broken)
    if family == "attention":
        ids = {c.id for c in all_claims()}
        if "hierarchy" in ids:
            claim = get("hierarchy")
            whole = (size, size, size)  # U for n = d = size: the whole program against the formula
            if whole in claim.shapes(size) and (not broken or "swapped-operand" in claim.mutants):
                ob = claim.mutants["swapped-operand"](whole) if broken else claim.obligation(whole)
                return _from_obligation("hierarchy", size, ob, broken)
        return _attention_direct(size, broken)
    if family == "attention-direct":
        return _attention_direct(size, broken)
    raise SystemExit(f"no problem family {family!r}")


# -- engines -------------------------------------------------------------------

def run_sympy(p: Problem, timeout: float) -> str:
    atoms = Atoms()
    verdicts = set()
    with canonical.accelerated(False):
        for g, e in zip(p.got, p.expected):
            verdicts.add(canonical.compare(g, e, atoms))
            if Verdict.UNEQUAL in verdicts:
                break
    return _summary(verdicts)


def _summary(verdicts: set) -> str:
    if Verdict.UNEQUAL in verdicts:
        return "unequal"
    if Verdict.UNDECIDED in verdicts:
        return "undecided"
    return "equal"


def run_symengine(p: Problem, timeout: float) -> str:
    import symengine as se

    table: dict = {}

    def abstract(x):
        exps = [a for a in x.atoms(se.Pow) if a.args[0] == se.E]  # exp(u) is E**u in symengine
        if not exps:
            return x
        mapping = {}
        for node in exps:
            arg = se.expand(abstract(node.args[1]))
            if arg not in table:
                table[arg] = se.Symbol(f"_exp{len(table)}")
            mapping[node] = table[arg]
        return x.xreplace(mapping)

    verdicts = set()
    for g, e in zip(p.got, p.expected):
        difference = abstract(se.sympify(g)) - abstract(se.sympify(e))
        numerator, _ = difference.as_numer_denom()
        if se.expand(numerator) != 0:
            verdicts.add(Verdict.UNEQUAL)
            break
        verdicts.add(Verdict.EQUAL)
    return _summary(verdicts)


def run_flint(p: Problem, timeout: float) -> str:
    """What :func:`canonical.compare` does with the flint path on: identical trees
    are EQUAL at once, else flint decides, else (outside its fragment) sympy."""
    verdicts, fell_back = set(), 0
    atoms = Atoms()
    for g, e in zip(p.got, p.expected):
        g, e = sympy.sympify(g), sympy.sympify(e)
        verdict = Verdict.EQUAL if g == e else canonical.compare_flint(g, e)
        if verdict is None:
            fell_back += 1
            with canonical.accelerated(False):
                verdict = canonical.compare(g, e, atoms)
        verdicts.add(verdict)
        if verdict is Verdict.UNEQUAL:
            break
    return _summary(verdicts) + (f" ({fell_back} position(s) fell back to sympy)" if fell_back else "")


def run_z3(p: Problem, timeout: float) -> str:
    if p.obligation is not None:
        from usim.engine.solvers.z3_engine import check_z3

        result = check_z3(p.obligation, timeout)
        return f"{result.status.value.lower()}" + (f" ({result.detail})" if result.status.value == "UNKNOWN" else "")
    import z3

    from usim.encodings.smt import SmtInterpretation, real
    from usim.engine.translate import to_z3

    start = time.perf_counter()
    interp = SmtInterpretation()
    names = sorted({s.name for x in p.got + p.expected for s in sympy.sympify(x).free_symbols})
    consts = {name: z3.Real(name) for name in names}
    got = [to_z3(g, consts, interp) for g in p.got]
    expected = [to_z3(e, consts, interp) for e in p.expected]
    for g, e in zip(got, expected):
        remaining = timeout - (time.perf_counter() - start)
        if remaining <= 0:
            return "unknown (timeout)"
        solver = z3.Solver()
        solver.set("timeout", max(1, int(remaining * 1000)))
        solver.add(*interp.facts)
        solver.add(real(g) != real(e))
        answer = solver.check()
        if answer == z3.sat:
            return "sat (a model; replay decides)"
        if answer == z3.unknown:
            return f"unknown ({solver.reason_unknown()})"
    return "proved"


def run_cvc5(p: Problem, timeout: float) -> str:
    from usim.engine.solvers.cvc5_engine import check_cvc5, run_cvc5_script
    from usim.engine.solvers.smtlib import SmtLib

    if p.obligation is not None:
        result = check_cvc5(p.obligation, timeout)
        return f"{result.status.value.lower()}" + (f" ({result.detail})" if result.status.value == "UNKNOWN" else "")
    start = time.perf_counter()
    smt = SmtLib()
    checks = [smt.check_differs(g, e) for g, e in zip(p.got, p.expected)]
    answers, stopped = run_cvc5_script(smt.script(checks), timeout - (time.perf_counter() - start))
    if stopped is None and answers == ["unsat"] * len(checks):
        return "proved"
    return "sat" if "sat" in answers else f"unknown ({stopped or 'cvc5 answered unknown'})"


ENGINES: dict[str, Callable[[Problem, float], str]] = {
    "sympy": run_sympy, "symengine": run_symengine, "flint": run_flint, "z3": run_z3, "cvc5": run_cvc5,
}


# -- children with a hard deadline ---------------------------------------------

def timed(engine: str, problem: Problem, timeout: float) -> tuple[str, float]:
    """(outcome, seconds) of one engine on one problem, in a forked child killed at the deadline."""
    read, write = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            t0 = time.perf_counter()
            outcome = ENGINES[engine](problem, timeout)
            result = (outcome, time.perf_counter() - t0)
        except BaseException as error:  # noqa: BLE001 - reported in the table
            result = (f"error ({type(error).__name__}: {str(error)[:60]})", time.perf_counter() - t0)
        with os.fdopen(write, "wb") as out:
            out.write(pickle.dumps(result))
        os._exit(0)
    os.close(write)
    chunks = []
    deadline = start + timeout + 2.0
    while True:
        ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.perf_counter()))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
            return "unknown (killed at the deadline)", time.perf_counter() - start
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001
        return "error (the child died)", time.perf_counter() - start


# -- the table -----------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per problem and engine")
    parser.add_argument("--families", default=",".join(DEFAULT_SIZES))
    parser.add_argument("--engines", default=",".join(ALL_ENGINES))
    for family, sizes in DEFAULT_SIZES.items():
        parser.add_argument(f"--sizes-{family}", dest=f"sizes_{family.replace('-', '_')}",
                            default=",".join(map(str, sizes)))
    parser.add_argument("--broken", action="store_true", help="also time one broken variant per family")
    args = parser.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    for e in engines:
        if e not in ENGINES:
            raise SystemExit(f"no engine {e!r}; engines: {', '.join(ENGINES)}")
    if "cvc5" in engines:
        try:
            import cvc5  # noqa: F401
        except ImportError:
            print("cvc5 is not installed: its column is left out")
            engines.remove("cvc5")
    header = f"{'problem':<28} {'positions':>9} {'build s':>8}  " + "  ".join(f"{e:>22}" for e in engines)
    print(header)
    print("-" * len(header))
    for family in [f for f in args.families.split(",") if f]:
        sizes = [int(s) for s in getattr(args, f"sizes_{family.replace('-', '_')}").split(",") if s]
        for broken in ([False, True] if args.broken else [False]):
            gave_up: set[str] = set()
            for size in sizes:
                try:
                    problem = build_problem(family, size, broken)
                except Exception as error:  # noqa: BLE001 - a problem that fails must not stop the table
                    print(f"{family} n={size}: cannot build ({type(error).__name__}: {error})")
                    continue
                cells = []
                for engine in engines:
                    if engine in gave_up:
                        cells.append("skipped")
                        continue
                    outcome, seconds = timed(engine, problem, args.timeout)
                    if outcome.startswith(("unknown", "error")) and seconds >= args.timeout:
                        gave_up.add(engine)
                    cells.append(f"{seconds:7.3f} {outcome.split(' (')[0]}")
                    if "(" in outcome:
                        print(f"  # {problem.label} {engine}: {outcome}", flush=True)
                print(f"{problem.label:<28} {len(problem.got):>9} {problem.build_seconds:8.3f}  "
                      + "  ".join(f"{c:>22}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
