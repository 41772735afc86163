"""What a caller of the constructions chooses from, importable without loading numpy or sympy.

The command line builds its help texts and its first checks from these (``usim
--help`` must not load a solver); the constructions use the same names:
:data:`BLOCK_NAMES` are the keys of :data:`usim.constructions.blocks.BLOCKS`,
and :mod:`usim.constructions.universal.simulate` refuses a layer past
:data:`MAX_N` or :data:`MAX_LENGTH`.
"""

from __future__ import annotations

BLOCK_NAMES: tuple[str, ...] = ("det3", "inverse3", "matmul", "softmax", "transpose")
"""The blocks of the paper ``usim run`` runs, in sorted order."""

MAX_N = 512
"""The longest sequence (n, and ``--bound``) ``usim simulate`` builds U for
(BERT-base's 512 positions)."""

MAX_LENGTH = 8_000_000
"""The most positions of U's input sequence ``usim simulate`` runs: a
BERT-base-sized encoder layer (n = 128, d = 768, 12 heads, a feed-forward
width of 3072) needs 7 186 181, and about 2 GB and 40 s on two cores
(``docs/scale.md``); its multi-head attention alone 2 460 675."""
