"""The packages usim is made of: ONE list, read by everything that needs it.

The layers live in top-level folders of the repository and install as
subpackages of ``usim`` (so that no import name shadows the standard library's
``encodings``). :data:`FOLDERS` is that mapping, and the only place it is
written: ``setup.py`` reads it (as text, before usim is installed) to give the
installer its ``package_dir`` and packages (each folder's subpackages found on
disk), :mod:`usim.engine.identity` digests the source of exactly these packages
(the digest keys cached verdicts: a package left out once let a verdict survive
a change to its code), and ``tests/test_layers.py`` reads the modules of the
same folders. A new top-level folder is one new entry here.

This module imports nothing, so that the installer can read it and every layer
can import it.
"""

FOLDERS = {
    "usim": "usim",
    "rasp": "usim.rasp",
    "encodings": "usim.encodings",
    "repl": "usim.repl",
    "tracr_reader": "usim.tracr_reader",
    "constructions": "usim.constructions",
    "transformer": "usim.transformer",
    "engine": "usim.engine",
    "proofs": "usim.proofs",
    "listings": "usim.listings",
}
"""Each top-level folder of the repository that is a package, and the name it
installs as (``usim/`` itself is the package root and the command line)."""

PACKAGE_DATA = {"usim.repl": ["*.lark"]}
"""Files besides modules that a package installs: the REPL's grammar."""
