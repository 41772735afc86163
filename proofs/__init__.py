"""One module per result of the paper; each registers its claim on import.

The registry (:mod:`usim.engine.registry`) imports every module here, in name
order, the first time it is asked for a claim, so a new proof script needs no
other edit to appear in ``usim prove --list``. Each is also runnable on its own:
``python -m usim.proofs.lemma3_transpose --max-n 8``.
"""
