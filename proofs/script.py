"""A proof module run on its own: ``python -m usim.proofs.lemma3_transpose --max-n 8``.

Such a run is ``usim prove`` of the module's claims with the same options, and
the way to say it is ``python -m usim prove lemma3 --max-n 8`` (or ``usim prove
lemma3 --max-n 8``). A proof module's ``if __name__ == "__main__"`` block calls
:func:`run_as_script`, which hands the process over to that command: the
process becomes ``python -m usim prove CLAIMS OPTIONS`` (``os.execv``: the same
interpreter, its ``-P`` if it was given, so that it finds the same usim; the
same standard streams and exit status). No proof module imports the command
line: the proofs are a layer below it, and what prints is the command itself.
The module's own imports have run by then, so a script starts about as fast as
the module imports plus ``usim prove``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import NoReturn


def run_as_script(*claim_ids: str) -> NoReturn:
    """Become ``python -m usim prove CLAIM... ARGS`` (ARGS: this script's own arguments).

    Args:
        claim_ids: the ids of the claims the module states.

    Returns:
        Never: the process is replaced (where the system cannot replace a
        process, Windows, it runs the command and exits with its status).
    """
    argv = [sys.executable, *(["-P"] if sys.flags.safe_path else []), "-m", "usim", "prove", *claim_ids,
            *sys.argv[1:]]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "nt":  # pragma: no cover - execv there starts a new process and returns at once
        sys.exit(subprocess.call(argv))
    os.execv(sys.executable, argv)
