"""``python -m usim``: the ``usim`` command (``python -m usim prove lemma3`` is ``usim prove lemma3``).

From the repository root Python finds the checkout's folder ``usim/`` before
the installed package. After an editable install that folder is the installed
package's root and every layer is found. After a regular install it is not:
the layers (``usim.proofs``, ...) are installed from the other top-level
folders, beside which this folder alone is no usim. Then the command hands the
process over to ``python -P -m usim`` (the same interpreter, without the
current folder on the path: the installed usim, as the ``usim`` command runs),
with the same arguments, streams and exit status.
"""

import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("usim.proofs") is None:  # this folder, not the installed usim
    if sys.flags.safe_path:  # already without the current folder: usim is not installed
        print("usim: error: this usim has no layers (usim.proofs, ...): install it, pip install . in the repository", file=sys.stderr)
        sys.exit(2)
    argv = [sys.executable, "-P", "-m", "usim", *sys.argv[1:]]
    if os.name == "nt":  # pragma: no cover - execv there starts a new process and returns at once
        sys.exit(subprocess.call(argv))
    os.execv(sys.executable, argv)

from usim.cli import main  # noqa: E402

sys.exit(main())
