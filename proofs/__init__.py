"""One module per result of the paper; each registers its claim on import.

Every module here is imported (in name order) when the registry is first used,
so a new proof script needs no other edit to appear in ``usim prove --list``.
Each is also runnable: ``python -m usim.proofs.lemma3_transpose --max-n 8``.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")
