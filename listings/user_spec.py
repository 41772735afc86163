"""A user's spec: a Python function stating what a RASP listing must compute.

A spec file is ordinary Python. Each spec is a function that receives the input
blocks as sympy matrices (its parameters are the blocks' names; a parameter
named after a dimension receives that dimension's value) and returns the
output blocks (a dict by name, or one matrix when there is one block), the same
form as the targets of usim's claims. The layouts and everything else are
declared beside it with :func:`spec`::

    # flip.py
    from usim.listings.user_spec import spec

    @spec(inputs={"M": ("r", "c")}, outputs={"F": ("r", "c")})
    def row_flip(M):
        return M[::-1, :]          # the rows in reverse order

    usim check flip.rasp --function flip --spec-file flip.py:row_flip --max-n 3

Declarations (all but ``inputs`` and ``outputs`` optional):

``inputs``, ``outputs``
    block name -> (rows, cols), each a whole number, a dimension's name, or an
    arithmetic expression of dimensions (``"r*c"``). The input blocks are laid
    out row-major one after another; the output blocks likewise from position
    0, and the positions after them must hold 0.
``dims``
    the dimensions in shape order (default: in order of appearance).
``length``
    the sequence's length (a number, an expression of dimensions, or a function
    of them); default: the input blocks' total size.
``preconditions``
    a function of the input blocks (like the spec) returning sympy relations
    assumed to hold, e.g. ``lambda A: [sympy.Ne(A.det(), 0)]``.
``domain``, ``values``
    ``"real"`` (default) or ``"integer"``; a finite set of exact values each
    entry ranges over (``values=(0, 1)``: checked exhaustively as well).
``shapes``, ``max_n``
    a function N -> the shapes to check (default: every dimension 1..N), and
    the default N.
``engines``
    default ``("sympy", "z3")``.
``mutants``
    broken variants of the listing that must come out REFUTED (``usim check
    --mutants``): name -> {node name: replacement}, the replacement RASP text in
    which the node's own name is the original node (``{"src": "src + 1"}``).
``square``, ``sums``
    how the listing may fix the dimensions: the dimensions a side ``n = length
    ^ 0.5`` stands for, and the two dimensions a listing may write as
    ``length / (a + b)`` (:mod:`usim.listings.plan`).
``reads``, ``writes``
    ``"symbol"`` for an input (output) of symbols, as the REPL's strings: the
    input ranges over an alphabet (``--alphabet``, or the symbols of the file's
    examples), and the spec receives each symbol's *code*, its place in the
    alphabet's sorted order (so it may compare and order them; a symbol written
    out is its code). Codes mean nothing as numbers: the alphabet holds every
    string the listing can make with ``+``, so ``code + 1`` is whatever string
    sorts next. Default ``"number"``.

Running a spec file runs its Python: usim loads it as a module would be
imported. A certificate of a check against it embeds its text; ``usim verify``
runs that text again only when asked (``--run-spec-code``).
"""

from __future__ import annotations

import inspect
import itertools
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Mapping

import sympy

from usim.encodings.layout import SequenceLayout
from usim.engine.claim import Shape
from usim.listings.spec import ListingSpec, Statement
from usim.errors import InputError, ShapeError, UsimError

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
Size = int | str


@dataclass(frozen=True)
class Declaration:
    """What :func:`spec` records beside the function."""

    inputs: Mapping[str, tuple[Size, Size]]
    outputs: Mapping[str, tuple[Size, Size]]
    dims: tuple[str, ...] | None = None
    length: Size | Callable[..., int] | None = None
    preconditions: Callable[..., Any] | None = None
    domain: str = "real"
    values: tuple[Any, ...] | None = None
    shapes: Callable[[int], Any] | None = None
    max_n: int = 4
    engines: tuple[str, ...] = ("sympy", "z3")
    mutants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    square: tuple[str, ...] = ()
    sums: tuple[str, str] | None = None
    title: str | None = None
    reads: str = "number"
    writes: str = "number"
    undefined: Callable[..., Any] | None = None


def spec(*, inputs: Mapping[str, tuple[Size, Size]], outputs: Mapping[str, tuple[Size, Size]],
         **declared: Any) -> Callable[[Callable], Callable]:
    """Declare a function as a spec (see the module's docstring).

    Args:
        inputs: input block name -> (rows, cols), each a whole number, a
            dimension's name or an expression of dimensions.
        outputs: output block name -> (rows, cols), likewise.
        **declared: the other declarations (``dims``, ``length``,
            ``preconditions``, ``domain``, ``values``, ``shapes``, ``max_n``,
            ``engines``, ``mutants``, ``square``, ``sums``, ``title``,
            ``reads``, ``writes``, ``undefined``: a function of the dimensions
            giving the output positions where the program gives tracr's None),
            the fields of :class:`Declaration`.

    Returns:
        The decorator: it records the :class:`Declaration` on the function
        (``__usim_spec__``) and returns the function itself.
    """
    def mark(function: Callable) -> Callable:
        function.__usim_spec__ = Declaration(dict(inputs), dict(outputs), **declared)  # type: ignore[attr-defined]
        return function
    return mark


# -- loading ---------------------------------------------------------------------

def split_reference(text: str) -> tuple[str, str]:
    """``SPEC.py:NAME`` -> (path, name).

    Args:
        text: the reference as given to ``--spec-file``.

    Returns:
        The spec file's path and the spec function's name (the path is split
        at its last colon).

    Raises:
        InputError: there is no colon, no path, or the name is not a Python name.

    >>> split_reference('examples/specs/row_flip.py:row_flip')
    ('examples/specs/row_flip.py', 'row_flip')
    """
    path, sep, name = text.rpartition(":")
    if not sep or not path or not _NAME.fullmatch(name):
        raise InputError(f"--spec-file takes FILE.py:NAME (a spec function in a Python file), not {text!r}")
    return path, name


def load_spec_file(reference: str) -> ListingSpec:
    """The spec ``NAME`` of ``FILE.py:NAME``.

    Args:
        reference: ``FILE.py:NAME`` (:func:`split_reference`).

    Returns:
        The spec the file declares under that name (:func:`load_spec_text`).

    Raises:
        InputError: the reference is malformed, or the file is missing or
            cannot be read.
    """
    path, name = split_reference(reference)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such spec file: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the spec file {path}: {error}") from None
    return load_spec_text(text, name, path)


def load_spec_text(text: str, name: str, filename: str) -> ListingSpec:
    """Run a spec file's text and build its spec ``name``.

    Args:
        text: the spec file's Python source (it is run).
        name: the spec function it defines.
        filename: the file's name, for messages and the spec's source.

    Returns:
        The spec (:func:`build_spec`).

    Raises:
        UsimError: the text is not valid Python, running it fails, or it
            defines no ``name`` declared with :func:`spec`.

    >>> text = (
    ...     "from usim.listings.user_spec import spec\\n"
    ...     "@spec(inputs={'M': ('r', 'c')}, outputs={'F': ('r', 'c')})\\n"
    ...     "def row_flip(M):\\n"
    ...     "    return M[::-1, :]\\n")
    >>> flip = load_spec_text(text, "row_flip", "flip.py")
    >>> flip.dims, flip.title
    (('r', 'c'), 'row_flip from flip.py')
    """
    namespace: dict[str, Any] = {"__name__": "usim_spec_file", "__file__": filename}
    try:
        exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the user's own spec file
    except SyntaxError as error:
        raise UsimError(f"{filename}:{error.lineno}: the spec file is not valid Python: {error.msg}") from None
    except Exception as error:  # the user's code failed while loading
        raise UsimError(f"{filename}: running the spec file failed: {type(error).__name__}: {error}") from None
    function = namespace.get(name)
    if function is None:
        found = sorted(k for k, v in namespace.items() if hasattr(v, "__usim_spec__"))
        raise UsimError(f"{filename} defines no {name!r} (its specs: {', '.join(found) or 'none'})")
    declaration = getattr(function, "__usim_spec__", None)
    if not isinstance(declaration, Declaration):
        raise UsimError(f"{filename}: {name} is not declared as a spec (decorate it with "
                        "@spec(inputs=..., outputs=...) from usim.listings.user_spec)")
    return build_spec(function, declaration, name, filename, text)


# -- building ---------------------------------------------------------------------

def _names_in(size: Any) -> list[str]:
    return _NAME.findall(size) if isinstance(size, str) else []


def _size(size: Any, dims: Mapping[str, int], where: str) -> int:
    if isinstance(size, bool):
        raise UsimError(f"{where}: a size must be a whole number or a dimension, not {size!r}")
    if isinstance(size, int):
        value = size
    elif isinstance(size, str):
        try:
            value = eval(size, {"__builtins__": {}}, dict(dims))  # noqa: S307 - the user's own spec
        except Exception as error:
            raise UsimError(f"{where}: cannot compute the size {size!r}: {error}") from None
    elif callable(size):
        value = size(**{k: v for k, v in dims.items() if k in inspect.signature(size).parameters})
    else:
        raise UsimError(f"{where}: a size must be a whole number, a dimension or an expression, not {size!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, Fraction) and value.denominator == 1:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ShapeError(f"{where}: the size {size!r} is {value!r} here, not a whole number >= 1")
    return value


def _matrix(value: Any, where: str) -> sympy.Matrix:
    if isinstance(value, sympy.MatrixBase):
        return sympy.Matrix(value)
    try:
        return sympy.Matrix(value)
    except (TypeError, ValueError) as error:
        raise UsimError(f"{where} is not a matrix: {error}") from None


def _call(function: Callable, blocks: Mapping[str, Any], dims: Mapping[str, int], what: str) -> Any:
    parameters = inspect.signature(function).parameters
    arguments = {}
    for p in parameters:
        if p in blocks:
            arguments[p] = blocks[p]
        elif p in dims:
            arguments[p] = dims[p]
        elif parameters[p].default is inspect.Parameter.empty:
            raise UsimError(f"{what} has the parameter {p!r}, which is neither an input block "
                            f"({', '.join(blocks)}) nor a dimension ({', '.join(dims)})")
    return function(**arguments)


def build_spec(function: Callable, d: Declaration, name: str, filename: str, text: str) -> ListingSpec:
    """A :class:`~usim.listings.spec.ListingSpec` from a declared function.

    Args:
        function: the spec function (input blocks and dimensions -> output blocks).
        d: its declaration (:func:`spec`).
        name: the spec's name.
        filename: the spec file's name, for messages and the spec's source.
        text: the spec file's text, embedded in the spec's source (for certificates).

    Returns:
        The spec: its statement at each shape is built from the declared
        layouts and calls ``function`` for the target.

    Raises:
        UsimError: the declaration is incomplete or inconsistent (no inputs or
            outputs, a size naming no dimension, an unknown domain, ...).
    """
    where = f"{filename}:{name}"
    if not d.inputs or not d.outputs:
        raise UsimError(f"{where}: declare inputs and outputs, e.g. inputs={{'M': ('r', 'c')}}")
    for block in d.inputs:
        if not _NAME.fullmatch(block):
            raise UsimError(f"{where}: the input block name {block!r} is not a Python name")
    for blocks in (d.inputs, d.outputs):
        for block, size in blocks.items():
            if not (isinstance(size, (tuple, list)) and len(size) == 2):
                raise UsimError(f"{where}: the block {block} needs (rows, cols), got {size!r}")
    appearing: list[str] = []
    for blocks in (d.inputs, d.outputs):
        for rows, cols in blocks.values():
            for dim in _names_in(rows) + _names_in(cols):
                if dim not in appearing:
                    appearing.append(dim)
    appearing += [x for x in _names_in(d.length) if x not in appearing]
    dims = tuple(d.dims) if d.dims is not None else tuple(appearing)
    missing = [x for x in appearing if x not in dims]
    if missing:
        raise UsimError(f"{where}: the sizes use {missing[0]!r}, which is not among dims {dims}")
    if not dims:
        raise UsimError(f"{where}: the spec has no dimension (give sizes by name, e.g. ('r', 'c'))")
    if d.domain not in ("real", "integer"):
        raise UsimError(f"{where}: domain must be 'real' or 'integer', not {d.domain!r}")
    for what, kind in (("reads", d.reads), ("writes", d.writes)):
        if kind not in ("number", "symbol"):
            raise UsimError(f"{where}: {what} must be 'number' or 'symbol', not {kind!r}")
    values = None
    if d.values is not None:
        values = tuple(Fraction(v) if not isinstance(v, int) else v for v in d.values)
    for x in tuple(d.square) + tuple(d.sums or ()):
        if x not in dims:
            raise UsimError(f"{where}: square/sums name {x!r}, which is not a dimension ({', '.join(dims)})")

    def sizes(shape: Shape) -> dict[str, int]:
        if len(shape) != len(dims):
            raise ShapeError(f"{where}: a shape has {len(dims)} dimensions ({' x '.join(dims)}), got {shape}")
        return dict(zip(dims, shape))

    def blocks_of(layout: Mapping[str, tuple[Size, Size]], values_: Mapping[str, int]) -> list:
        return [(block, (_size(r, values_, f"{where} {block}"), _size(c, values_, f"{where} {block}")))
                for block, (r, c) in layout.items()]

    def length(shape: Shape) -> int:
        values_ = sizes(shape)
        if d.length is None:
            return sum(r * c for _, (r, c) in blocks_of(d.inputs, values_))
        return _size(d.length, values_, f"{where} length")

    def statement(shape: Shape) -> Statement:
        values_ = sizes(shape)
        n = length(shape)
        layout_in = SequenceLayout.of(*blocks_of(d.inputs, values_), length=n)
        outputs = blocks_of(d.outputs, values_)
        needed = sum(r * c for _, (r, c) in outputs)
        if needed > n:
            raise ShapeError(f"the output ({', '.join(f'{b} {r}x{c}' for b, (r, c) in outputs)}): "
                             f"{needed} entries, but the sequence has {n} positions (the result is "
                             "written from position 0): it does not fit")
        layout_out = SequenceLayout.of(*outputs, length=n)

        def target(m: Mapping[str, Any]) -> dict[str, Any]:
            got = _call(function, m, values_, where)
            if not isinstance(got, Mapping):
                if len(outputs) != 1:
                    raise UsimError(f"{where} returns one matrix; the outputs are {', '.join(d.outputs)}: "
                                    "return a dict by name")
                got = {outputs[0][0]: got}
            return {k: _matrix(v, f"{where}: the output {k}") for k, v in got.items()}

        if d.preconditions is None:
            preconditions = None
        else:
            def preconditions(m: Mapping[str, Any]) -> list[Any]:
                got = _call(d.preconditions, m, values_, f"{where} preconditions")
                return list(got) if isinstance(got, (list, tuple)) else [got]
        undefined: tuple[int, ...] = ()
        if d.undefined is not None:
            undefined = tuple(sorted({int(p) for p in d.undefined(**values_)}))
            if any(not 0 <= p < layout_out.used for p in undefined):
                raise UsimError(f"{where}: undefined gives a position outside the output ({undefined})")
        return Statement(layout_in, layout_out, target, preconditions, d.domain, values, undefined)

    def shapes(n: int) -> list[Shape]:
        if d.shapes is not None:
            return [tuple(s) for s in d.shapes(n)]
        return list(itertools.product(range(1, n + 1), repeat=len(dims)))

    source = {"kind": "file", "file": filename, "name": name, "text": text}
    title = d.title or (inspect.getdoc(function) or "").split("\n")[0] or f"{name} from {filename}"
    return ListingSpec(name, title, dims, shapes, length, statement, engines=tuple(d.engines),
                       default_max_n=d.max_n, square=tuple(d.square), sums=tuple(d.sums) if d.sums else None,
                       mutants={k: dict(v) for k, v in d.mutants.items()}, source=source,
                       notes=f"a user's spec: {name} in {filename}", reads=d.reads, writes=d.writes)
