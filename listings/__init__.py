"""Checking a RASP listing against a specification: an application of the engine.

A listing (the authors' files, the RASP REPL's, a user's) is read by
:mod:`usim.repl`, checked against a spec (:mod:`.spec`: the paper's listings'
in :mod:`.specs`, a user's own through :mod:`.user_spec`) at the shapes
planned from its variables (:mod:`.plan`); each shape becomes an obligation
(:mod:`.obligation`) the engine decides, cross-checked under every
interpretation (:mod:`.crosscheck`), and the file's examples are run
(:mod:`.examples`). :func:`usim.listings.check.check` does all of it and
returns data (:mod:`.report`); :mod:`.certificate` writes and rebuilds its
certificates. This layer sits above the engine and the proofs whose targets it
reuses, and prints nothing: ``usim check``'s text is :mod:`usim.render_check`.
"""
