"""Checking a RASP listing against a specification: an application of the engine.

A listing (the authors' files, the RASP REPL's, a user's) is read by
:mod:`usim.repl`, its shapes are planned from its variables, and each shape
becomes an obligation the engine decides. The paper's listings' specifications
(:mod:`.specs`) and a user's own (:mod:`.user_spec`) live here, above the
engine and the proofs whose targets they reuse.
"""
