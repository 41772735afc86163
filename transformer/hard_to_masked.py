"""The same network under softmax attention, with masks: what PyTorch runs.

Every average-hard head whose scores are fixed per position becomes a softmax
head with W_Q = W_K = 0 (every score 0) and, as its additive mask, 0 at its
maximisers (decided exactly, :func:`usim.transformer.forward.head_selection`)
and -inf elsewhere. Softmax over a row of equal scores is the uniform
distribution over the allowed keys: exactly the average-hard head's mean over
its maximisers, with no approximation and no scale. Softmax heads are kept as
they are. So the masked network computes exactly what the average-hard one
does, in every interpretation (proved again for each compiled claim, part 2).
"""

from __future__ import annotations

from usim.transformer.forward import head_selection
from usim.transformer.model import HARD, SOFT, Head, Layer, Linear, Network


def hard_to_masked(network: Network) -> Network:
    """The network with every average-hard head a masked softmax head (see above).

    Args:
        network: a compiled network (left unchanged).

    Returns:
        The network ``{name} [masked]``: the same layers, MLPs and outputs,
        each hard head replaced by a softmax head with zero scores whose mask
        is its maximisers (an example is in :mod:`usim.transformer.compiler`).
    """
    size = network.n + 1
    layers = []
    for layer in network.layers:
        heads = []
        for head in layer.heads:
            if head.kind != HARD:
                heads.append(head)
                continue
            mask = head_selection(head, size).dense()
            zero = Linear.of(network.width, [{}])
            heads.append(Head(head.name, SOFT, zero, zero, head.value, head.output, mask, head.carries))
        layers.append(Layer(tuple(heads), layer.mlp))
    notes = network.notes + ("every average-hard head is a softmax head with zero scores and its "
                             "maximisers as its mask",)
    return Network(f"{network.name} [masked]", network.n, network.dims, tuple(layers), network.outputs,
                   network.description + " (softmax attention with masks)", notes)
