"""``usim compile``: a claim's RASP program as transformer weights.

    usim compile CLAIM --shape S [--out DIR]
    usim compile CLAIM --sizes S1,S2,...

Compiles the program the claim proves, at the shape S (for U: n x d, or
n x d x H for theorem9), into a network (:mod:`usim.transformer`): one-hot
positions and a BOS sink, average-hard heads scored from the positions,
ReLU and bilinear MLP units, and a softmax head for each softmax block.
CLAIM is a weights claim (``lemma3_weights``, ``lemma4_weights``,
``lemma5_weights``, ``theorem6_weights``, ``theorem9_weights``,
``maxmin_weights``), the claim it compiles (``lemma3`` ... ``theorem9``,
``maxmin``), or any other claim whose program compiles at that shape
(``relu``, ``det3``, ``soft_from_hard``, ...), or a claim of one's own
(``claims.py:NAME``, ``package.module:NAME``: the code runs); a program with
no exact realisation is refused with the expression that has none.

It prints a report: the network's size (layers, heads per layer, residual
width, MLP widths, parameters), what is exact and what approximate (the
hard heads run as softmax(beta * scores) without masks: the bound per head
and the measured end-to-end deviation), and checks: the network against the
RASP program on random inputs (float64), and the PyTorch module against the
network (with the ``torch`` extra). With ``--out DIR`` (created if needed)
it writes ``network.npz`` (every matrix, float64; names in
:mod:`usim.transformer.network_to_arrays`), ``report.md``, and with PyTorch
``model.pt2``: the network under softmax attention with masks as an exported
PyTorch module of standard parts (``torch.export.load("model.pt2").module()``;
it maps a (B, n) float64 tensor, any batch B, to (B, n, outputs)).

``usim compile --tracr FILE.py:NAME --vocab '["a", "b"]' --max-len N``
compiles a tracr program (the ``tracr`` extra) with usim's compiler over
finite value sets (:mod:`usim.transformer.finite_to_network`: one-hot codes of
each sequence's values, heads that read values, exact lookup MLPs), at every
length up to N, runs each network exactly on every input of the vocabulary
against the program (a proof by exhaustion of the finite domain), and prints
its size beside the size of the model tracr compiles.

``usim compile FILE.rasp --function F --max-len N --alphabet S`` (or ``--vocab
"[...]"`` for a listing of numbers) compiles a listing in the RASP REPL's
language the same way (written first as a tracr program; the ``tracr``
extra), and proves each network equal to the listing, usim's own evaluation
of it, on every input.

With ``--tracr`` or a .rasp file, ``--engine z3`` proves each length by one z3
query over every input at once in place of running the network on each
(:func:`usim.transformer.finite_to_network.check_finite`; a length z3 does not
prove is run exhaustively), and ``--json FILE`` writes a certificate
(:mod:`usim.compile_certificate`) that ``usim verify FILE --run-claim-code``
compiles and proves again.

``--sizes`` prints, for each shape, one row of a Markdown table of the
network's size and nothing else (the weights are not decided exactly:
compiling U for n = d = 16 takes about half a minute):

    usim compile theorem6 --sizes 2x2,4x4,8x8,16x16

Limits: the program's sequence at most 1024 positions with --shape (the
exact check of every head's maximisers and the dense matrices grow with its
square), 4096 with --sizes.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from usim.commands.options import check_writable, help_text
from usim.encodings.notation import parse_dims, shape_label
from usim.errors import InputError, ShapeError

MAX_SIZE_POSITIONS = 4096  # --sizes: the size alone, no network run
BETAS = (10, 20, 40, 80)
SAMPLES = 64


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compile", help="compile a claim's RASP program to transformer weights (.npz, PyTorch) and report its size",
        description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("claim", nargs="?", metavar="CLAIM|FILE.rasp",
                        help="the claim's id (usim prove --list), e.g. theorem6 or lemma5_weights; or a RASP file")
    parser.add_argument("--tracr", metavar="FILE.py:NAME|MODULE:NAME",
                        help="compile a tracr program instead (needs --vocab and --max-len)")
    parser.add_argument("--vocab", help='--tracr, FILE.rasp: the tokens\' values as a list, e.g. \'["a", "b", "c"]\'')
    parser.add_argument("--max-len", type=int, help="--tracr, FILE.rasp: the longest input")
    parser.add_argument("--function", "-f", help="FILE.rasp: the function (or expression) to compile")
    parser.add_argument("--alphabet", metavar="SYMBOLS",
                        help="FILE.rasp: the symbols a token ranges over, e.g. abc (else --vocab: its numbers)")
    parser.add_argument("--engine", choices=("exhaustive", "z3"), default=None,
                        help="--tracr, FILE.rasp: prove each network by running it on every input (exhaustive, "
                             "the default) or by asking z3 once per length (faster for some programs: docs/tracr.md)")
    parser.add_argument("--json", metavar="FILE",
                        help="--tracr, FILE.rasp: write a certificate (usim verify FILE --run-claim-code runs it "
                             "again)")
    parser.add_argument("--shape", help="the shape, e.g. 2x3 (lemma3), 2x3x2 (lemma5), 3x3 (theorem6)")
    parser.add_argument("--out", metavar="DIR", help="write network.npz, report.md (and model.pt2) into DIR")
    parser.add_argument("--sizes", metavar="S1,S2,...",
                        help="print a Markdown table of the network's size at each shape, e.g. 2x2,4x4,8x8")
    parser.set_defaults(func=run)


def _shapes(text: str) -> list[tuple[int, ...]]:
    parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        raise InputError("--sizes needs at least one shape, e.g. 2x2,4x4")
    return [parse_dims(p) for p in parts]


def _folder(text: str) -> Path:
    """The output folder, checked before anything runs: not a file, and its
    nearest existing ancestor writable (it is created, with its parents, only
    once the network is compiled)."""
    import os

    if not text.strip():
        raise InputError("the folder name is empty")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise InputError(f"cannot write into {text}: it is a file, not a folder")
    ancestor = path
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(f"cannot create {text}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK):
        raise InputError(f"cannot write into {ancestor}: permission denied")
    return path


def _source(claim_id: str, shape: tuple[int, ...]):
    from usim.claim_code import is_code_reference
    from usim.proofs import all_claims, get
    from usim.proofs._weights import BASES, SOURCES, compile_source

    if is_code_reference(claim_id):  # a claim of one's own (claims.py:NAME): its own program
        from usim.api import one_claim

        claim = one_claim(claim_id)
        weights, source = claim.id, claim
    else:
        all_claims()  # registers the weights claims' sources
        weights = BASES.get(claim_id, claim_id)
        claim, source = get(weights), claim_id
    if math.prod(shape) > MAX_SIZE_POSITIONS:  # refused before listing every shape up to it
        raise ShapeError(f"{claim_id} at {shape_label(shape)}: at least {math.prod(shape)} positions, "
                         f"above the limit of {MAX_SIZE_POSITIONS}")
    listed = claim.shapes(max(shape))
    wanted = tuple(shape) + ((0,) if weights in SOURCES else ())
    if wanted not in listed:
        examples = ", ".join(shape_label(s[: len(s) - (1 if weights in SOURCES else 0)])
                             for s in list(claim.shapes(2))[:4:3 if weights in SOURCES else 1])
        raise ShapeError(f"{claim_id} has no shape {shape_label(shape)} (shapes look like {examples})")
    ob = compile_source(source, shape)
    return weights, ob


def _size_row(label: str, length: int, size) -> str:
    mlp = sum(size.relu_units) + sum(size.gate_units)
    return (f"| {label} | {length} | {size.layers} | {size.heads} (at most {max(size.heads_per_layer, default=0)} "
            f"per layer) | {size.soft_heads} | {size.width:,} | {mlp:,} | {size.largest_d_k} | "
            f"{size.parameters:,} | {size.nonzero:,} |")


SIZE_HEADER = ("| shape | sequence | layers | heads | softmax heads | residual width | MLP units | largest d_k "
               "| parameters | non-zero |\n|---|---|---|---|---|---|---|---|---|---|")


def sizes_table(claim_id: str, shapes: list[tuple[int, ...]]) -> str:
    from usim.transformer.compiler import compile_program
    from usim.transformer.size import size_of

    rows = [SIZE_HEADER]
    for shape in shapes:
        _, ob = _source(claim_id, shape)
        length = ob.construction.input_layout.length
        if length > MAX_SIZE_POSITIONS:
            raise ShapeError(f"the program's sequence at {shape_label(shape)} has {length} positions, "
                             f"above the limit of {MAX_SIZE_POSITIONS}")
        network = compile_program(ob.construction.program, length, outputs=[ob.output_name], check=False)
        rows.append(_size_row(shape_label(shape), length, size_of(network)))
    return "\n".join(rows)


def report(claim_id: str, weights: str, shape: tuple[int, ...], ob, network, seconds: float,
           checked: bool, torch_note: str) -> str:
    from usim.encodings.numeric import NumericInterpretation, difference
    from usim.encodings.runners import run_numeric
    from usim.transformer.compiler import CHECKED_POSITIONS
    from usim.transformer.forward import run as run_network
    from usim.transformer.model import HARD
    from usim.transformer.size import size_of
    from usim.transformer.softmax_bound import measure

    size = size_of(network)
    label = shape_label(shape)
    lines = [f"# {ob.construction.program.name} as a transformer ({claim_id} at {label})", "",
             f"{network.description}: compiled in {seconds:.2f} s.", "",
             f"**Size.** {size.summary()}.", "",
             "| layer | heads (kind d_k/d_v) | MLP units (ReLU + bilinear) |", "|---|---|---|"]
    for i, layer in enumerate(network.layers):
        heads = ", ".join(f"{h.name} ({h.kind} {h.d_k}/{h.d_v})" for h in layer.heads) or "-"
        lines.append(f"| {i} | {heads} | {layer.mlp.relu_units} + {layer.mlp.gate_units} |")
    numeric = NumericInterpretation()
    x = np.random.default_rng(0).normal(size=(SAMPLES, network.n))
    with np.errstate(all="ignore"):
        mine = np.asarray(run_network(network, numeric, x)[ob.output_name], dtype=float)
        program = np.asarray(run_numeric(ob.construction.program, x)[ob.output_name], dtype=float)
    deviation = difference(mine, program, ("the network's", "the RASP program's"))
    hard = sum(h.kind == HARD for layer in network.layers for h in layer.heads)
    lines += ["", "**Exact.** Every weight is a rational number (the .npz holds them as float64). Under "
              "average-hard attention, and under softmax attention with each hard head's maximisers as its "
              "mask (what model.pt2 runs), the network computes the program exactly: "
              + (f"`usim prove {weights} --max-n N` proves it for every shape up to N (parts 0, 1, 2)."
                 if weights.endswith("_weights") else "no weights claim states it for this program; the "
                 "float64 check below is cross-validation only."),
              "", f"**Checks (float64, {SAMPLES} random inputs, cross-validation only).** Largest |network - RASP "
              f"program|: {deviation.text()}. " + torch_note
              + ("" if checked else f" (The maximisers of every hard head were not re-decided exactly: the "
                 f"sequence is longer than {CHECKED_POSITIONS}.)")]
    if hard:
        margin = next((n.rsplit(": ", 1)[1] for n in network.notes if "smallest margin" in n), "1/2")
        lines += ["", f"**Approximate: hard heads as softmax(beta * scores), no mask.** One head deviates from "
                  f"its hard value by at most 2 (N - m)/m exp(-beta g) max|v| (N keys, m maximisers, gap g; "
                  f"here g >= {margin}; proof in usim.transformer.softmax_bound). Measured end to end in float64 "
                  f"({SAMPLES} random inputs, N(0, 1) entries; float64 resolves a deviation down to about "
                  f"1e-16 times the values):", "", "| beta | largest deviation |", "|---|---|"]
        for d in measure(network, BETAS, samples=SAMPLES):
            shown = d.measured.text() if d.largest != 0 else "0 in float64 (any deviation is below its rounding)"
            lines.append(f"| {d.beta:g} | {shown} |")
    if network.notes:
        lines += ["", "**Notes.**", ""] + [f"- {n}" for n in network.notes]
    return "\n".join(lines) + "\n"




def run_tracr(args: argparse.Namespace) -> int:
    """``usim compile --tracr REF --vocab "[...]" --max-len N``: usim's network, proved by exhaustion, beside tracr's."""
    from usim.api import compile_tracr
    from usim.repl import read_input

    for option in ("claim", "shape", "sizes", "out"):
        if getattr(args, option) is not None:
            raise InputError(f"--tracr compiles a tracr program: {'a claim' if option == 'claim' else '--' + option} "
                             "does not apply")
    if args.vocab is None or args.max_len is None:
        raise InputError('--tracr needs --vocab "[...]" and --max-len N')
    from usim.tracr_reader.convert import python_tokens

    vocab = python_tokens(read_input(args.vocab))
    if args.max_len < 1:
        raise InputError(f"--max-len must be at least 1, got {args.max_len}")
    from usim.transformer.finite_to_network import MAX_INPUTS as MAX_TRACR_INPUTS

    count = sum(len(set(vocab)) ** n for n in range(1, args.max_len + 1))
    if count > MAX_TRACR_INPUTS:
        raise InputError(f"{count} inputs up to length {args.max_len}, above usim compile --tracr's limit of "
                         f"{MAX_TRACR_INPUTS} (every input is run)")
    if args.json:
        check_writable(args.json, "--json")
        if not all(isinstance(t, str) or (isinstance(t, int) and not isinstance(t, bool)) for t in vocab):
            raise InputError("--json: a certificate records a vocabulary of strings or integers only")
    engine = args.engine or "exhaustive"
    started = time.perf_counter()
    check, theirs = compile_tracr(args.tracr, vocab, args.max_len, engine=engine)
    seconds = time.perf_counter() - started
    layers, heads, width, parameters = check.sizes[-1]
    print(f"usim compile --tracr {args.tracr}: lengths 1 to {args.max_len}, vocabulary {', '.join(map(repr, vocab))}")
    print(f"  usim's network at length {args.max_len}: {layers} layers, {heads} heads, residual width {width}, "
          f"{parameters} parameters (exact rationals; its first layer codes the tokens)")
    if isinstance(theirs, Exception):
        print(f"  tracr's model: tracr does not compile it ({type(theirs).__name__}: {theirs})")
    else:
        config = theirs.model_config
        count_theirs = sum(int(np.size(w)) for part in theirs.params.values() for w in part.values())
        print(f"  tracr's model: {config.num_layers} layers of {config.num_heads} head(s), residual width "
              f"{len(theirs.residual_labels)}, {count_theirs} parameters (float32)")
    _verdict_lines(check)
    if args.json:
        from usim.claim_code import code_record

        _write_certificate(args.json, check, {"kind": "tracr", "program": code_record(args.tracr), "vocab": vocab,
                                              "max_len": args.max_len, "engine": engine}, seconds)
    return 0 if check.proved else 1


def _write_certificate(path: str, check, source: dict, seconds: float) -> None:
    from usim.compile_certificate import compilation_certificate
    from usim.engine.certificate import write_certificate

    write_certificate(Path(path), compilation_certificate(check, source, seconds))  # one line if it cannot
    print(f"certificate written to {path} (check it again with usim verify {path} --run-claim-code)")


def run_listing(args: argparse.Namespace) -> int:
    """``usim compile FILE.rasp --function F --max-len N (--alphabet S | --vocab "[...]")``."""
    from usim.api import compile_listing
    from usim.repl import read_input
    from usim.repl.symbols import parse_alphabet

    for option in ("shape", "sizes", "out"):
        if getattr(args, option) is not None:
            raise InputError(f"compiling a RASP file over finite value sets: --{option} does not apply")
    if args.function is None or args.max_len is None or (args.alphabet is None) == (args.vocab is None):
        raise InputError("compiling a RASP file needs --function F, --max-len N and --alphabet S or --vocab \"[...]\"")
    if args.max_len < 1:
        raise InputError(f"--max-len must be at least 1, got {args.max_len}")
    alphabet = parse_alphabet(args.alphabet) if args.alphabet is not None else None
    vocab = read_input(args.vocab) if args.vocab is not None else None
    size = len(alphabet if alphabet is not None else set(vocab))
    from usim.transformer.finite_to_network import MAX_INPUTS as MAX_TRACR_INPUTS

    count = sum(size ** n for n in range(1, args.max_len + 1))
    if count > MAX_TRACR_INPUTS:
        raise InputError(f"{count} inputs up to length {args.max_len}, above usim compile's limit of "
                         f"{MAX_TRACR_INPUTS} over finite value sets (every input is run)")
    if args.json:
        check_writable(args.json, "--json")
        if vocab is not None and not all(isinstance(t, int) and not isinstance(t, bool) for t in vocab):
            raise InputError("--json: a certificate records a vocabulary of integers only")
    engine = args.engine or "exhaustive"
    started = time.perf_counter()
    check = compile_listing(args.claim, args.function, args.max_len, alphabet=alphabet, vocab=vocab, engine=engine)
    seconds = time.perf_counter() - started
    layers, heads, width, parameters = check.sizes[-1]
    print(f"usim compile {args.claim} --function {args.function}: lengths 1 to {args.max_len}, over finite value sets")
    print(f"  the network at length {args.max_len}: {layers} layers, {heads} heads, residual width {width}, "
          f"{parameters} parameters (exact rationals)")
    _verdict_lines(check)
    if args.json:
        from usim.claim_code import file_record

        _write_certificate(args.json, check, {"kind": "listing", "listing": file_record(args.claim),
                                              "function": args.function, "max_len": args.max_len,
                                              "alphabet": list(alphabet) if alphabet is not None else None,
                                              "vocab": list(vocab) if vocab is not None else None,
                                              "engine": engine}, seconds)
    return 0 if check.proved else 1


def _verdict_lines(check) -> None:
    verdict = "PROVED" if check.proved else "REFUTED"
    if any(engine != "exhaustive" for engine in check.engines):
        print("  engines per length: " + "; ".join(f"{n} {engine}" for n, engine in enumerate(check.engines, 1)))
    print(f"  {verdict}: on every one of the {check.inputs} inputs, exactly, the network gives the program's value "
          f"at each of the {check.positions - check.undefined} positions where the program is defined"
          + (f" ({check.undefined} positions where it is undefined ask nothing)" if check.undefined else ""))
    if check.first is not None:
        tokens, position, expected, got = check.first
        print(f"  first difference: input {list(tokens)}, position {position}: the program {expected!r}, "
              f"the network {got!r} ({check.differs} positions differ)")


def run(args: argparse.Namespace) -> int:
    if args.tracr is not None:
        return run_tracr(args)
    if args.claim is not None and args.claim.endswith(".rasp"):
        return run_listing(args)
    for option in ("vocab", "max_len", "function", "alphabet", "engine", "json"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option.replace('_', '-')} applies to --tracr or a .rasp file")
    if args.claim is None:
        raise InputError("usim compile needs a claim (or --tracr)")
    if (args.shape is None) == (args.sizes is None):
        raise InputError("give --shape S (one network) or --sizes S1,S2,... (a size table)")
    if args.sizes is not None:
        if args.out is not None:
            raise InputError("--out applies to --shape (--sizes prints a table only)")
        print(sizes_table(args.claim, _shapes(args.sizes)))
        return 0
    shape = parse_dims(args.shape)
    folder = _folder(args.out) if args.out is not None else None
    weights, ob = _source(args.claim, shape)
    length = ob.construction.input_layout.length
    from usim.transformer.compiler import CHECKED_POSITIONS, MAX_POSITIONS, compile_program

    if length > MAX_POSITIONS:
        raise ShapeError(f"the program's sequence has {length} positions, above usim compile's limit of "
                         f"{MAX_POSITIONS} (use --sizes for the size alone)")
    start = time.perf_counter()
    checked = length <= CHECKED_POSITIONS
    network = compile_program(ob.construction.program, length, outputs=[ob.output_name], check=checked)
    seconds = time.perf_counter() - start
    module, torch_note = _torch_module(network, ob)
    text = report(args.claim, weights, shape, ob, network, seconds, checked, torch_note)
    print(text, end="")
    if folder is not None:
        _write(folder, network, text, module)
    return 0


def _torch_module(network, ob):
    """The PyTorch module and one sentence on how it agrees with the network (or why there is none)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return None, "No PyTorch module: PyTorch is not installed (pip install usim[torch])."
    from usim.encodings.numeric import NumericInterpretation, difference
    from usim.transformer.forward import run as run_network
    from usim.transformer.network_to_torch import network_to_torch, run_torch

    module = network_to_torch(network)
    x = np.random.default_rng(1).normal(size=(SAMPLES, network.n))
    index = [name for name, _ in network.outputs].index(ob.output_name)
    with np.errstate(all="ignore"):
        mine = np.asarray(run_network(network, NumericInterpretation(), x)[ob.output_name], dtype=float)
        theirs = run_torch(module, x)[:, :, index]
    found = difference(theirs, mine, ("the PyTorch module's", "the network's"))
    return module, f"Largest |PyTorch module (nn.MultiheadAttention with masks) - network|: {found.text()}."


def _write(folder: Path, network, text: str, module) -> None:
    from usim.commands.simulate import write_atomically
    from usim.transformer.network_to_arrays import network_arrays

    arrays = network_arrays(network)
    exported = None
    if module is not None:  # exported before anything is written: a failure leaves no half folder
        import torch

        example = torch.zeros(2, network.n, dtype=torch.float64)
        exported = torch.export.export(module, (example,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create {folder}: {error.strerror}") from None
    write_atomically(folder / "network.npz", lambda f: np.savez_compressed(f, **arrays))
    written = ["network.npz"]
    if exported is not None:
        import torch

        write_atomically(folder / "model.pt2", lambda f: torch.export.save(exported, f))
        written.append("model.pt2")
    text += "\n**Files.** " + ", ".join(written) + ", report.md.\n"
    write_atomically(folder / "report.md", lambda f: f.write(text.encode()))
    print(f"wrote {', '.join(written)} and report.md to {folder}")
