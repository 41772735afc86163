"""tracr_to_network: the model tracr compiles, as usim's :class:`~usim.transformer.model.Network`.

tracr (``tracr/compiler/compiling.py``, ``compile_rasp_to_model``) assembles a
transformer (``tracr/transformer/model.py``): one-hot token and position
embeddings, then layers of multi-head softmax attention and a ReLU MLP, each
added to the residual stream, no layer norm; biases throughout; the output is
the argmax over the output's dimensions (categorical) or the one dimension
(numerical). Its weights are float32 numbers. This pass writes the same
computation in usim's model, for inputs of one length n, every weight the
exact value of tracr's float32 number:

* usim's input is one number per position: the token's number, 0 for tracr's
  BOS (usim's BOS token is 0), 1, 2, ... for the others in the order of tracr's
  input encoder (:attr:`TracrNetwork.token_ids`). A first layer without
  heads writes tracr's embedding into the residual dimensions ``tracr:LABEL``:
  the token's one-hot row as the exact indicator of an integer x = c,
  relu(x - c + 1) - 2 relu(x - c) + relu(x - c - 1), and the position's row
  through relu(pos:t) = pos:t;
* a bias is a weight on every position dimension (exactly one is 1); an
  attention output's bias is a value coordinate that is 1 everywhere (a
  softmax row sums to 1), an MLP output's bias a unit relu(1);
* tracr's logits q . k / sqrt(key_size): the scale is folded into W_Q as the
  float64 nearest to 1/sqrt(key_size), the one number here that is not
  tracr's own (its model divides in float32).

So usim runs tracr's model as tracr built it, in float64, and
:func:`decode` reads its output as tracr's ``apply`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from usim.errors import InputError
from usim.transformer.model import MLP, SOFT, TOKEN, Head, Layer, Linear, Network, embedding_dims


@dataclass(frozen=True)
class TracrNetwork:
    """tracr's model at one length, in usim's model, and how to read its output.

    Attributes:
        network: the network (its outputs ``out:K``, one per output dimension).
        token_ids: tracr's id of each token (the network's input numbers).
        values: the value each output dimension stands for (categorical), or
            ``None`` (numerical: one output, the value itself).
    """

    network: Network
    token_ids: dict[Any, int]
    values: tuple[Any, ...] | None

    def encode(self, tokens: Sequence[Any]) -> list[int]:
        return [self.token_ids[t] for t in tokens]

    def decode(self, outputs: dict[str, np.ndarray]) -> list[list[Any]]:
        """The network's outputs (a batch) as tracr's ``apply`` decodes them."""
        if self.values is None:
            return np.asarray(outputs["out:0"], dtype=float).tolist()
        stacked = np.stack([np.asarray(outputs[f"out:{k}"], dtype=float) for k in range(len(self.values))])
        return [[self.values[k] for k in row] for row in np.argmax(stacked, axis=0)]


def _exact(x: Any) -> Fraction:
    return Fraction(float(x))


def tracr_to_network(model: Any, program: Any, n: int) -> TracrNetwork:
    """tracr's assembled ``model`` of ``program``, for inputs of length ``n``, as a usim network.

    Args:
        model: ``tracr.compiler.assemble.AssembledTransformerModel`` (``compile_rasp_to_model``'s).
        program: the tracr program it was compiled from (its label names the output).
        n: the input's length (at most the model's longest).

    Returns:
        The network and how to code its input and read its output.

    Raises:
        InputError: a model usim's network cannot state (a layer norm, causal attention).
    """
    config = model.model_config
    if config.layer_norm or config.causal:
        raise InputError("usim reads tracr's models without layer norm and not causal (compile_rasp_to_model's)")
    params = {k: {kk: np.asarray(vv, dtype=np.float64) for kk, vv in v.items()} for k, v in model.params.items()}
    labels = list(model.residual_labels)
    width_tracr = len(labels)
    base = n + 2
    dims = embedding_dims(n) + tuple(f"tracr:{label}" for label in labels)
    width = len(dims)
    positions = range(1, n + 2)  # the rows of pos:0 .. pos:n
    tracr_ids = dict(model.input_encoder.encoding_map)  # token -> tracr's row of the token embedding
    bos = model.input_encoder.bos_token
    others = sorted((t for t in tracr_ids if t != bos), key=lambda t: tracr_ids[t])
    token_ids = {bos: 0, **{t: i + 1 for i, t in enumerate(others)}}  # usim's BOS token is 0
    if params["pos_embed"]["embeddings"].shape[0] < n + 1:
        raise InputError(f"tracr's model takes at most {params['pos_embed']['embeddings'].shape[0] - 1} tokens, "
                         f"not {n}")

    def written(row: np.ndarray) -> dict[int, Fraction]:
        return {base + i: _exact(w) for i, w in enumerate(row) if w != 0}

    def on_positions(column: dict[int, Any], constant: float) -> dict[int, Any]:
        if constant != 0:
            for p in positions:
                column[p] = column.get(p, 0) + _exact(constant)
        return column

    layers = [_embedding_layer(params, {code: tracr_ids[t] for t, code in token_ids.items()}, n, width, written)]
    for index in range(config.num_layers):
        scope = f"transformer/layer_{index}"
        layers.append(Layer(_heads(params, scope, config, width, base, on_positions, written),
                            _mlp(params[f"{scope}/mlp/linear_1"], params[f"{scope}/mlp/linear_2"], width, base,
                                 on_positions, written)))
    output = program.label
    from tracr.rasp import rasp

    if rasp.is_categorical(program):
        decoding = {k: value for value, k in model.output_encoder.encoding_map.items()}
        rows = [i for i, label in enumerate(labels) if label.startswith(f"{output}:")]
        values: tuple[Any, ...] | None = tuple(decoding[k] for k in range(len(rows)))
    else:
        rows = [labels.index(output)]
        values = None
    outputs = tuple((f"out:{k}", Linear.of(width, [{base + row: 1}])) for k, row in enumerate(rows))
    network = Network(f"tracr:{output}@n{n}", n, dims, tuple(layers), outputs,
                      description=f"tracr's model of {output}, {config.num_layers} layers, "
                                  f"{config.num_heads} head(s) a layer, residual width {width_tracr}")
    return TracrNetwork(network, token_ids, values)


def _embedding_layer(params: dict, rows_of: dict[int, int], n: int, width: int, written) -> Layer:
    """No heads; ReLU units writing tracr's token and position embeddings (``rows_of``: usim's
    token number -> tracr's row of its embedding)."""
    token_rows = params["token_embed"]["embeddings"]
    position_rows = params["pos_embed"]["embeddings"]
    relu_in, relu_out = [], []
    positions = range(1, n + 2)
    for code, tracr_row in sorted(rows_of.items()):
        row = written(token_rows[tracr_row])
        if not row:
            continue
        for shift, weight in ((1 - code, 1), (-code, -2), (-1 - code, 1)):  # [x == code] for an integer x
            relu_in.append({TOKEN: 1, **{p: shift for p in positions}})
            relu_out.append({d: weight * w for d, w in row.items()})
    for t in range(n + 1):
        row = written(position_rows[t])
        if row:
            relu_in.append({1 + t: 1})
            relu_out.append(row)
    return Layer((), _mlp_of(relu_in, relu_out, width))


def _mlp_of(relu_in: list[dict], relu_out: list[dict], width: int) -> MLP:
    ins = Linear.of(width, relu_in)
    outs = Linear.of(len(relu_out), [{u: row[d] for u, row in enumerate(relu_out) if d in row} for d in range(width)])
    return MLP(ins, outs, Linear.zeros(width, 0), Linear.zeros(width, 0), Linear.zeros(0, width))


def _heads(params: dict, scope: str, config: Any, width: int, base: int, on_positions, written) -> tuple[Head, ...]:
    query, key, value, linear = (params[f"{scope}/attn/{part}"] for part in ("query", "key", "value", "linear"))
    heads_count, key_size = config.num_heads, config.key_size
    value_size = value["w"].shape[1] // heads_count
    scale = 1 / np.sqrt(key_size)
    heads = []
    for h in range(heads_count):
        keys = slice(h * key_size, (h + 1) * key_size)
        values = slice(h * value_size, (h + 1) * value_size)

        def columns(part: dict, cut: slice, factor: float) -> list[dict]:
            return [on_positions({base + i: _exact(w * factor) for i, w in enumerate(part["w"][:, j]) if w != 0},
                                 part["b"][j] * factor) for j in range(cut.start, cut.stop)]

        value_columns = columns(value, values, 1.0)
        out_rows = [linear["w"][j] for j in range(values.start, values.stop)]
        if h == 0:  # the output's bias: a value coordinate 1 at every position, a softmax row summing to 1
            value_columns.append(on_positions({}, 1.0))
            out_rows.append(linear["b"])
        out = Linear.of(len(out_rows), [{u: _exact(r[d - base]) for u, r in enumerate(out_rows) if r[d - base] != 0}
                                        if d >= base else {} for d in range(width)])
        heads.append(Head(f"{scope.split('/')[-1]}.head{h}", SOFT, Linear.of(width, columns(query, keys, scale)),
                          Linear.of(width, columns(key, keys, 1.0)), Linear.of(width, value_columns), out))
    return tuple(heads)


def _mlp(first: dict, second: dict, width: int, base: int, on_positions, written) -> MLP:
    relu_in = [on_positions({base + i: _exact(w) for i, w in enumerate(first["w"][:, j]) if w != 0}, first["b"][j])
               for j in range(first["w"].shape[1])]
    relu_out = [written(second["w"][j]) for j in range(second["w"].shape[0])]
    if np.any(second["b"] != 0):  # the output's bias: a unit relu(1)
        relu_in.append(on_positions({}, 1.0))
        relu_out.append(written(second["b"]))
    return _mlp_of(relu_in, relu_out, width)


TOLERANCE = 1e-6
"""A numerical output counts as differing from tracr's evaluator past this (its MLPs approximate)."""


@dataclass(frozen=True)
class ModelCheck:
    """tracr's compiled model, run in usim (float64), against tracr's evaluator on every input.

    Attributes:
        program: the program's label.
        inputs: every input of the vocabulary, of length 1 to the longest.
        positions: their positions, in all.
        differs: positions where the model's output differs from the evaluator's
            (numerical: by more than :data:`TOLERANCE`), None included.
        at_none: of those, positions where the evaluator gives None (the model decodes a value).
        largest_error: numerical outputs: the largest |model - evaluator| where the
            evaluator gives a number (None for categorical outputs).
        first: the first difference: (input, position, the evaluator's, the model's).
        layers, heads, width, parameters: the size of tracr's model (its own parameters:
            embeddings, attention and MLP weights and biases).
        agrees_with_tracr: inputs where usim's run of the model decodes as tracr's own
            ``apply`` (float32) does at every position the evaluator gives a value;
            equal to ``inputs`` when the reading is faithful.
    """

    program: str
    inputs: int
    positions: int
    differs: int
    at_none: int
    largest_error: float | None
    first: tuple | None
    layers: int
    heads: int
    width: int
    parameters: int
    agrees_with_tracr: int


def check_tracr_model(program: Any, vocab: Sequence[Any], max_len: int, compare_apply: bool = True) -> ModelCheck:
    """Compile ``program`` with tracr, run its model in usim at every input up to ``max_len``, and
    compare with tracr's evaluator (and, with ``compare_apply``, with tracr's own run of the model).

    Args:
        program: a tracr program.
        vocab: the tokens.
        max_len: the longest input (tracr's ``max_seq_len``).
        compare_apply: also run tracr's own ``apply`` on every input (slow: one jax call each).

    Returns:
        What the model gets wrong (:class:`ModelCheck`).
    """
    import itertools

    from tracr.compiler import compiling
    from tracr.rasp import rasp

    from usim.encodings.numeric import NumericInterpretation
    from usim.transformer.forward import run

    bos = "compiler_bos"
    model = compiling.compile_rasp_to_model(program, vocab=set(vocab), max_seq_len=max_len, compiler_bos=bos)
    config = model.model_config
    numerical = not rasp.is_categorical(program)
    inputs = positions = differs = at_none = agreeing = 0
    largest: float | None = 0.0 if numerical else None
    first = None
    for n in range(1, max_len + 1):
        converted = tracr_to_network(model, program, n)
        tokens = [list(t) for t in itertools.product(sorted(vocab, key=repr), repeat=n)]
        out = run(converted.network, NumericInterpretation(), np.array([converted.encode(t) for t in tokens], float))
        for xs, got in zip(tokens, converted.decode(out)):
            expected = rasp.evaluate(program, xs)
            inputs, positions = inputs + 1, positions + n
            if compare_apply:  # where the evaluator gives None, a categorical output can be a tie of zeros,
                # which float32 noise breaks one way and float64 another: compared where it gives a value
                theirs = model.apply([bos] + xs).decoded[1:]
                agreeing += all((abs(a - b) <= TOLERANCE if numerical else a == b)
                                for a, b, e in zip(got, theirs, expected) if e is not None)
            for p, (e, g) in enumerate(zip(expected, got)):
                if numerical and e is not None:
                    error = abs(float(e) - g)
                    largest = max(largest, error)
                    wrong = error > TOLERANCE
                else:
                    wrong = e is None or e != g
                if wrong:
                    differs += 1
                    at_none += e is None
                    first = first or (tuple(xs), p, e, g)
    parameters = sum(int(np.size(w)) for part in model.params.values() for w in part.values())
    return ModelCheck(program.label, inputs, positions, differs, at_none, largest, first, config.num_layers,
                      config.num_heads, len(model.residual_labels), parameters,
                      agreeing if compare_apply else inputs)
