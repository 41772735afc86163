"""What a caller of the listing check chooses from, importable without loading a proof.

``usim check --help`` lists the built-in specs from :data:`SPEC_NAMES` without
loading sympy; :data:`usim.listings.specs.TABLE` defines a spec for each name
(a test checks that the two agree).
"""

from __future__ import annotations

SPEC_NAMES: tuple[str, ...] = (
    "transpose", "softmax", "matmul", "relu", "maxmin", "cofactor3", "det3", "inverse3", "match2",
    "match2_distinct", "parity", "reverse", "histogram", "sort", "most_frequent",
    "transpose_heads", "softmax_heads", "matmul_heads")
"""The built-in specs of ``usim check --spec``, in the order of the table."""
