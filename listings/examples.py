"""The file's examples (``set example [...]``), run by the listing and compared with the spec: as data.

Each distinct example is matched to the shapes of its length the listing is
meant for (:func:`usim.listings.plan.example_shapes`: by the spec's length
formula, nothing built), and only at those the obligation is built and the
example replayed against the spec. ``usim check`` prints them
(:mod:`usim.render_check`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from usim.engine.claim import Counterexample, Shape
from usim.engine.options import DEFAULT_TIMEOUT
from usim.errors import DeadlineError, NotExactError, UsimError
from usim.listings.obligation import obligation_for, output_name
from usim.listings.plan import ShapePlan, call_arguments, example_shapes
from usim.listings.spec import ListingSpec
from usim.rasp.program import Program
from usim.repl import RaspFile


@dataclass(frozen=True)
class ExampleAtShape:
    """One example at one shape of its length: the listing's output on it and
    the spec's verdict (``counterexample`` None: it agrees), or why it could
    not run (``error``)."""

    shape: Shape
    output: tuple[Any, ...] = ()
    counterexample: Counterexample | None = None
    error: str | None = None


@dataclass(frozen=True)
class ExampleRun:
    """One of the file's examples: its line, kind and values, and what running it gave.

    ``skipped`` names what the example is not ("symbols" or "numbers": the kind
    the listing reads), and it is not run. Otherwise ``shapes`` are the shapes
    of its length the listing is meant for; where there are none,
    ``uncalled`` says the function takes dimensions (nothing to call it with),
    else ``output`` is the listing's output on it or ``error`` why there is none.
    """

    line: int
    kind: str
    values: tuple[Any, ...]
    skipped: str | None = None
    shapes: tuple[ExampleAtShape, ...] = ()
    uncalled: bool = False
    output: tuple[Any, ...] = ()
    error: str | None = None


def shown_counterexample(counter: Counterexample, alphabet: Any, spec: ListingSpec) -> Counterexample:
    """``counter`` with the symbols' codes replaced by the symbols (for a spec of symbols).

    Args:
        counter: a counterexample of an obligation of ``spec``.
        alphabet: the codes the obligation was built with (None: a spec of numbers).
        spec: the spec.

    Returns:
        The counterexample in the listing's own symbols (``counter`` itself for numbers).
    """
    if alphabet is None:
        return counter

    def symbol(text: str) -> str:
        try:
            return repr(alphabet.symbol(Fraction(text)))
        except (UsimError, ValueError, ZeroDivisionError):
            return text
    inputs = {k: [[symbol(x) for x in row] for row in v] for k, v in counter.inputs.items()}
    shown = dataclasses.replace(counter, inputs=inputs)
    if spec.writes == "symbol":
        shown = dataclasses.replace(shown, expected=symbol(counter.expected), got=symbol(counter.got))
    return shown


def run_examples(rasp: RaspFile, function: str, spec: ListingSpec, plan: ShapePlan,
                 padding: str, timeout: float = DEFAULT_TIMEOUT) -> list[ExampleRun]:
    """Every distinct example of the file, run and compared with the spec.

    Args:
        rasp: the listing, read.
        function: its function (or an expression).
        spec: the spec it is checked against.
        plan: the listing's shape plan (which shapes it is meant for).
        padding: ``zero`` or ``any`` (:func:`usim.listings.obligation.obligation_for`).
        timeout: an engine's seconds: each replay against the spec (it calls
            the spec's target) runs in a child under the engines' deadline
            (:func:`usim.engine.children.under_deadline`); past it, the example
            at that shape failed, and that is said.

    Returns:
        One run per distinct example, in the file's order.
    """
    from usim.engine.replay import entry_names, replay
    from usim.engine.children import under_deadline

    runs, seen = [], set()
    for example in rasp.examples:
        if example.values in seen:
            continue
        seen.add(example.values)
        at = dict(line=example.line, kind=example.kind, values=tuple(example.values))
        symbols = rasp.alphabet is not None
        if not (example.symbols if symbols else example.numeric):
            runs.append(ExampleRun(**at, skipped="symbols" if symbols else "numbers"))
            continue
        shapes = example_shapes(spec, plan, len(example.values))
        if not shapes:
            if plan.parameters:
                runs.append(ExampleRun(**at, uncalled=True))
                continue
            try:
                runs.append(ExampleRun(**at, output=_run_listing(rasp, function, example.values)))
            except UsimError as error:
                runs.append(ExampleRun(**at, error=str(error)))
            continue
        found = []
        for shape in shapes:
            try:
                ob = obligation_for(rasp, function, spec, shape, plan.parameters, padding)
                out = _run_listing(rasp, function, example.values, call_arguments(plan.parameters, spec, shape))
                # encoded after the build: a build may widen the alphabet (strings made by +)
                values = rasp.alphabet.encode(example.values) if symbols else list(example.values)
            except UsimError as error:
                found.append(ExampleAtShape(shape, error=str(error)))
                continue
            point = {name: Fraction(v) for name, v in
                     zip(entry_names(ob.construction.input_layout), values)}
            try:
                counter = under_deadline(REPLAYING, lambda: replay(ob, point), timeout)
            except DeadlineError as error:
                found.append(ExampleAtShape(shape, out, error=str(error)))
                continue
            if counter is not None:
                counter = shown_counterexample(counter, rasp.alphabet, spec)
            found.append(ExampleAtShape(shape, out, counter))
        runs.append(ExampleRun(**at, shapes=tuple(found)))
    return runs


REPLAYING = "replaying the example against the spec"


def _run(program: Program, name: str, values: Sequence[Any]) -> tuple[Any, ...]:
    """The program's output on ``values``: exact if it can be, else floats
    (checked, in float64 or long double, in the type they needed)."""
    from usim.encodings.runners import run_exact, run_numeric_in_range

    try:
        return tuple(run_exact(program, list(values))[name])
    except NotExactError:
        outputs, _ = run_numeric_in_range(program, np.asarray([float(v) for v in values]))
        return tuple(outputs[name][0])


def _run_listing(rasp: RaspFile, function: str, values: Sequence[Any],
                 arguments: Mapping[str, Any] | None = None) -> tuple[Any, ...]:
    """The listing's output on one input, as the REPL gives it (symbols as themselves)."""
    built = rasp.build(function, arguments)
    if rasp.alphabet is not None:
        return tuple(rasp.elaborator.run(built.sop, list(values)))
    name = output_name(function)
    return _run(Program.of(name, {name: built.sop}), name, values)
