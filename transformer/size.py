"""What a network costs: layers, heads, residual width, MLP widths, parameters.

Parameters are counted as the dense matrices a framework would store: the
embedding (the token's column and the (n + 1) x W one-hot position table),
every head's W_Q, W_K (W x d_k), W_V (W x d_v), W_O (d_v x W), every MLP's
matrices, and the readouts; ``nonzero`` counts the weights that are not 0
(the compiled matrices are sparse).
"""

from __future__ import annotations

from dataclasses import dataclass

from usim.transformer.model import HARD, Network


@dataclass(frozen=True)
class Size:
    n: int
    layers: int
    heads_per_layer: tuple[int, ...]
    soft_heads: int
    width: int
    relu_units: tuple[int, ...]
    gate_units: tuple[int, ...]
    largest_d_k: int
    largest_d_v: int
    parameters: int
    nonzero: int

    @property
    def heads(self) -> int:
        return sum(self.heads_per_layer)

    @property
    def units(self) -> int:
        return sum(self.relu_units) + sum(self.gate_units)

    def summary(self) -> str:
        per = ", ".join(map(str, self.heads_per_layer))
        mlp = ", ".join(f"{r}+{g}" if r else str(g) for r, g in zip(self.relu_units, self.gate_units))
        return (f"{self.layers} layer(s), heads per layer [{per}] ({self.soft_heads} softmax), residual width "
                f"{self.width}, MLP units per layer [{mlp}] (ReLU+bilinear), largest d_k {self.largest_d_k}, "
                f"d_v {self.largest_d_v}; {self.parameters:,} parameters ({self.nonzero:,} non-zero); "
                f"sequence {self.n} + BOS")

    def as_dict(self) -> dict:
        return {"n": self.n, "layers": self.layers, "heads_per_layer": list(self.heads_per_layer),
                "softmax_heads": self.soft_heads, "residual_width": self.width,
                "relu_units_per_layer": list(self.relu_units), "bilinear_units_per_layer": list(self.gate_units),
                "largest_d_k": self.largest_d_k, "largest_d_v": self.largest_d_v,
                "parameters": self.parameters, "nonzero": self.nonzero}


def size_of(network: Network) -> Size:
    heads = [h for layer in network.layers for h in layer.heads]
    nonzero = 1 + network.n + 1  # the token weight and one weight per position
    for layer in network.layers:
        for h in layer.heads:
            nonzero += h.query.nonzeros + h.key.nonzeros + h.value.nonzeros + h.output.nonzeros
        m = layer.mlp
        nonzero += m.relu_in.nonzeros + m.relu_out.nonzeros + m.gate_a.nonzeros + m.gate_b.nonzeros \
            + m.gate_out.nonzeros
    nonzero += sum(r.nonzeros for _, r in network.outputs)
    return Size(
        n=network.n, layers=len(network.layers),
        heads_per_layer=tuple(len(layer.heads) for layer in network.layers),
        soft_heads=sum(h.kind != HARD for h in heads), width=network.width,
        relu_units=tuple(layer.mlp.relu_units for layer in network.layers),
        gate_units=tuple(layer.mlp.gate_units for layer in network.layers),
        largest_d_k=max((h.d_k for h in heads), default=0), largest_d_v=max((h.d_v for h in heads), default=0),
        parameters=network.parameters(), nonzero=nonzero)
