"""Which shapes a listing is checked at, read from the listing's own variables.

The paper's listings hard-code some dimensions and read the rest from
``length``; :func:`plan_shapes` reads the same things from the listing itself:

* a parameter of the function named after a dimension (``r``, ``c``, ``k``,
  ``h``, ``p``, ``n`` or a longer alias, :data:`ALIASES`) is set to it;
* a dimension the function (or the file) assigns a whole number to under such a
  name (``r = 3;``) is fixed to that value (even above N);
* ``k = length / (a + b)`` with two whole numbers, in a spec whose length is a
  multiple of the sum of two dimensions (the product's ``k (r + c)``), fixes
  those two to a and b (the authors' ``Matmul_3dot4``: r = 3, c = 4);
* a dimension read from ``length`` (``c = length / 3``; ``k = length / (h*(r+c))``),
  and a side ``n`` read through a square root (``n = length ^ 0.5``: every
  matrix dimension is n), keep only the shapes where that value, computed
  exactly at the shape's length, is the shape's dimension;
* every other dimension ranges over 1..N.

Matching the file's examples to shapes (:func:`example_shapes`) uses the spec's
length formula and the same plan, and builds nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

from usim.engine.claim import Shape
from usim.errors import UsimError
from usim.listings.spec import ListingSpec
from usim.rasp import expr as E
from usim.rasp.program import topological_order
from usim.repl import RaspFile
from usim.repl import tree as T

# names under which a listing may hold a dimension
ALIASES = {
    "r": ("r", "rows", "n_rows", "num_rows"),
    "c": ("c", "cols", "columns", "n_cols", "num_cols"),
    "k": ("k", "inner", "n_inner"),
    "h": ("h", "heads", "n_heads", "num_heads"),
    "p": ("p", "modulus", "mod"),
    "n": ("n", "size"),
}
SIDE = "n"  # a square's side, when n is not itself a dimension of the spec


def _dimension_of(name: str, spec: ListingSpec) -> str | None:
    """The dimension of ``spec`` a listing's variable or parameter names (its
    own name, or an alias of r, c, k, h, p, n), or ``n`` for a square's side."""
    if name in spec.dims:
        return name
    for dim, names in ALIASES.items():
        if name in names:
            return dim
    return None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True, eq=False)
class Derived:
    """A dimension the listing reads from ``length``: a variable whose value is
    the same number at every position and does not depend on the tokens. When
    the function takes dimensions as parameters, the variable is read again
    from the call for each shape (``c = length / r`` depends on r)."""

    variable: str
    dims: tuple[str, ...]  # what it stands for (every matrix dimension, for a square's side)
    node: E.SOp            # its value in the first call
    _values: dict = field(default_factory=dict, repr=False)

    def value(self, n: int, node: E.SOp | None = None) -> Fraction | None | str:
        """Its exact value at length n; None where it is undefined or irrational
        (a square root of a non-square); ``"varies"`` if it differs across positions."""
        node = self.node if node is None else node
        key = (node.id, n)
        if key not in self._values:
            self._values[key] = _static_value(node, n)
        return self._values[key]

    @property
    def text(self) -> str:
        from usim.rasp.printing import expression

        return f"{self.variable} = {expression(self.node)[0]}"


def _static_value(node: E.SOp, n: int) -> Fraction | None | str:
    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import evaluate_sops
    from usim.encodings.exact import EXACT

    try:
        values = evaluate_sops((node,), EXACT, [0] * n)[0]
    except (UsimError, ArithmeticError, ValueError):
        return None
    if any(isinstance(v, Undefined) for v in values):
        return None
    if len({Fraction(v) for v in values}) > 1:
        return "varies"
    return Fraction(values[0])


def depends_on_tokens(node: E.Expr) -> bool:
    """Whether ``node`` reads the input tokens anywhere (else it depends on the length alone)."""
    return any(isinstance(n, E.Tokens) for n in topological_order([node]))


def _has_square_root(node: E.Expr) -> bool:
    return any(isinstance(n, E.Map) and n.op is E.Op.POW and isinstance(n.args[1], E.Constant)
               and not isinstance(n.args[1].value, bool) and Fraction(n.args[1].value) == Fraction(1, 2)
               for n in topological_order([node]))


@dataclass(frozen=True)
class ShapePlan:
    """Which shapes to check, and why."""

    shapes: tuple[Shape, ...]
    parameters: Mapping[str, str]           # function parameter -> dimension
    fixed: Mapping[str, tuple[str, int]]    # dimension -> (how the listing fixes it, value)
    derived: tuple[Derived, ...] = ()
    warnings: tuple[str, ...] = ()
    call: Callable[[Shape], Mapping[str, Any]] | None = field(default=None, compare=False, repr=False)
    """The function's local variables in its call at a shape (when it takes
    dimensions as parameters)."""

    def describe(self, spec: ListingSpec) -> str:
        parts = []
        if self.parameters:
            parts.append("parameters " + ", ".join(f"{p} = {d}" for p, d in self.parameters.items()))
        if self.fixed:
            parts.append("hard-coded " + ", ".join(f"{d} = {v} ({how})" for d, (how, v) in self.fixed.items()))
        for d in self.derived:
            parts.append(f"read from length: {d.text} (= {' = '.join(d.dims)})")
        free = [d for d in spec.dims if d not in self.fixed]
        text = "; ".join(parts) if parts else "no parameters or hard-coded dimensions"
        return f"{text}; shapes {spec.dims_text} with {', '.join(free) or 'nothing'} free"

    def misfit(self, spec: ListingSpec, shape: Shape) -> str | None:
        """Why the listing is not meant for ``shape`` (None if it is)."""
        values = dict(zip(spec.dims, shape))
        for dim, (how, value) in self.fixed.items():
            if values[dim] != value:
                return f"{dim} = {values[dim]}, but the listing fixes {dim} = {value} ({how})"
        n = spec.length(shape)
        scope = self.call(shape) if self.call is not None and self.derived else {}
        for d in self.derived:
            node = scope.get(d.variable) if scope else None
            value = d.value(n, node if isinstance(node, E.SOp) else None)
            if value == "varies":
                continue
            if value is None:
                return f"{d.text} has no exact value at length {n}"
            wrong = [x for x in d.dims if values[x] != value]
            if wrong:
                return f"{d.text} is {value} at length {n}, but {wrong[0]} = {values[wrong[0]]}"
        return None

    def fits(self, spec: ListingSpec, shape: Shape) -> bool:
        return self.misfit(spec, shape) is None


def call_arguments(parameters: Mapping[str, str], spec: ListingSpec, shape: Shape) -> dict[str, int]:
    """The arguments the function is called with at ``shape``.

    Args:
        parameters: the function's parameters and the dimension each stands for.
        spec: the spec the shape belongs to.
        shape: the shape.

    Returns:
        Each parameter's value at the shape.
    """
    values = dict(zip(spec.dims, shape))
    return {p: values[d] for p, d in parameters.items()}


def _sum_rule(rasp: RaspFile, function: str, spec: ListingSpec) -> dict[str, tuple[str, int]]:
    """``k = length / (a + b)`` with whole numbers a, b: the two summed
    dimensions of the spec are a and b."""
    found = rasp.function_of(function)
    if spec.sums is None or found is None:
        return {}
    for statement in found.body:
        if not (isinstance(statement, T.Assign) and len(statement.names) == len(statement.values)):
            continue
        for name, value in zip(statement.names, statement.values):
            dim = _dimension_of(name, spec)
            if dim is None or dim in spec.sums or dim not in spec.dims:
                continue
            if not (isinstance(value, T.Binary) and value.op == "/" and isinstance(value.left, T.Name)
                    and value.left.id == "length"):
                continue
            total = value.right
            if isinstance(total, T.Binary) and total.op == "+" and all(
                    isinstance(x, T.Number) and _is_int(x.value) and x.value > 0 for x in (total.left, total.right)):
                a, b = total.left.value, total.right.value
                how = f"from {name} = length / ({a} + {b})"
                return {spec.sums[0]: (how, a), spec.sums[1]: (how, b)}
    return {}


def _assigned(statements: Iterable[T.Node]) -> set[str]:
    """The names these statements assign directly (not in a loop's body: a loop
    counter left behind is no dimension)."""
    return {name for st in statements if isinstance(st, T.Assign) for name in st.names}


def _mentions(node: Any, name: str) -> bool:
    """Whether the syntax tree reads the variable ``name`` anywhere."""
    if isinstance(node, T.Name):
        return node.id == name
    if isinstance(node, (tuple, list)):
        return any(_mentions(x, name) for x in node)
    if dataclasses.is_dataclass(node):
        return any(_mentions(getattr(node, f.name), name) for f in dataclasses.fields(node))
    return False


def plan_shapes(rasp: RaspFile, function: str, spec: ListingSpec, shapes: Sequence[Shape] | None,
                max_n: int | None) -> ShapePlan:
    """The shapes ``function`` of ``rasp`` is checked at, and why (the module's rules).

    Args:
        rasp: the listing, read.
        function: its function (or an expression).
        spec: the spec it is checked against.
        shapes: the shapes asked for (checked anyway where the listing is not
            meant for them: a warning says so), or None for every shape it is
            meant for with the free dimensions up to ``max_n``.
        max_n: the bound (None: the spec's default).

    Returns:
        The plan. A parameter that is no dimension, or no shape at all, is a UsimError.
    """
    parameters: dict[str, str] = {}
    for p in rasp.parameters(function):
        dim = _dimension_of(p, spec)
        if dim is None or dim not in spec.dims:
            raise UsimError(
                f"{function} has the parameter {p!r}, which is not a dimension of the {spec.name} "
                f"spec ({spec.dims_text}; accepted names: "
                + "; ".join(f"{d}: {', '.join(ALIASES.get(d, (d,)))}" for d in spec.dims)
                + "); to pass other arguments, check an expression such as --function 'F(G())'")
        parameters[p] = dim
    bound = max_n or spec.default_max_n
    candidates = list(shapes) if shapes else list(spec.shapes(bound))
    if not candidates:
        raise UsimError(f"no {spec.name} shape up to {bound}")
    # a first call shows the constants the function assigns (its local variables)
    probe = rasp.build(function, call_arguments(parameters, spec, candidates[0]))
    fixed: dict[str, tuple[str, int]] = _sum_rule(rasp, function, spec)
    derived: dict[str, Derived] = {}
    # a dimension is fixed by a variable the function assigns itself, or by a file-level
    # one the file reads somewhere; never by a loop counter or a variable nothing reads
    found = rasp.function_of(function)
    body = found.body if found is not None else ()
    own = _assigned(body) | set(found.params if found is not None else ())  # a parameter: bound by the call
    statements = rasp.tree.statements
    file_level = {n: v for n, v in rasp.env.vars.items() if n in _assigned(statements) and _mentions(statements, n)}
    local = {n: v for n, v in probe.locals.items() if found is None or n in own}
    for scope in (file_level, local):  # the function's own variables win
        for name, value in scope.items():
            dim = _dimension_of(name, spec)
            if dim in spec.dims and dim not in parameters.values():
                if _is_int(value) and value > 0:
                    fixed[dim] = (f"as {name}", value)
                    derived.pop(dim, None)
                elif isinstance(value, E.SOp) and not depends_on_tokens(value) and dim not in fixed:
                    derived[dim] = Derived(name, (dim,), value)
            elif dim == SIDE and spec.square and isinstance(value, E.SOp) \
                    and not depends_on_tokens(value) and _has_square_root(value):
                derived[SIDE] = Derived(name, spec.square, value)
    calls: dict[tuple, Mapping[str, Any]] = {}

    def call(shape: Shape) -> Mapping[str, Any]:
        arguments = call_arguments(parameters, spec, shape)
        key = tuple(sorted(arguments.items()))
        if key not in calls:
            try:
                calls[key] = rasp.build(function, arguments).locals
            except UsimError:
                calls[key] = {}
        return calls[key]

    plan = ShapePlan((), parameters, fixed, tuple(derived.values()), call=call if parameters else None)
    warnings = []
    if shapes:
        for shape in shapes:
            reason = plan.misfit(spec, shape)
            if reason:
                warnings.append(f"shape {spec.label(shape)}: {reason}: checked anyway")
        chosen = candidates
    else:
        # hard-coded dimensions keep their value (even above N); the others range over 1..N
        wide = max([bound] + [v for _, v in fixed.values()])
        chosen = []
        for s in spec.shapes(wide):
            values = dict(zip(spec.dims, s))
            if all(values[d] <= bound for d in spec.dims if d not in fixed) and plan.fits(spec, s):
                chosen.append(s)
        if not chosen:
            raise UsimError(f"{function} is meant for no {spec.name} shape with the free dimensions "
                            f"up to {bound} ({plan.describe(spec)})")
    return dataclasses.replace(plan, shapes=tuple(chosen), warnings=tuple(warnings))



MAX_EXAMPLE_SHAPES = 6


def example_shapes(spec: ListingSpec, plan: ShapePlan, n: int) -> list[Shape]:
    """The shapes of length n the listing is meant for (by the spec's length
    formula and the plan: nothing is built).

    Args:
        spec: the spec.
        plan: the listing's plan.
        n: an example's length.

    Returns:
        At most :data:`MAX_EXAMPLE_SHAPES` shapes, in the spec's order.
    """
    found = []
    for s in spec.shapes(n):
        if spec.length(s) == n and plan.fits(spec, s):
            found.append(s)
            if len(found) == MAX_EXAMPLE_SHAPES:
                break
    return found
