"""Claims from any file or module: ``usim prove path/to/claims.py[:NAME]``, ``package.module:NAME``.

A claim is a :class:`~usim.engine.claim.Claim` value (written with
:func:`usim.claim`, as the registered ones are). Outside usim's registry it is
named by the code that makes it:

* ``path/to/claims.py:NAME``: the Python file, run as a module (its folder put
  first on ``sys.path`` so that it imports what sits beside it), and its
  module-level name ``NAME``;
* ``path/to/claims.py``: every claim the file lists in ``CLAIMS`` (a tuple),
  else every claim among its module-level names;
* ``package.module:NAME`` (or ``package.module`` for its claims): an importable
  module, as ``import package.module`` finds it.

``NAME`` is a claim, or a tuple or list of claims. Loading runs the code: the
command line runs only the code it is told to. A certificate of such a claim
records where it came from (:meth:`ClaimCode.as_source`: the reference, the
file, the sha256 of its text), and ``usim verify`` imports it again only when
asked (``--run-claim-code``) and only if the file still has that digest.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from usim.engine.claim import Claim
from usim.errors import InputError

CLAIM_CODE = "claim_code"
"""A certificate's ``source.kind`` for a claim made by code outside the registry."""


@dataclass(frozen=True)
class ClaimCode:
    """Where a claim outside the registry came from.

    ``reference`` is what was written (``claims.py:NAME``), ``file`` the module's
    file, absolute, and ``sha256`` the digest of its text when it was loaded.
    """

    reference: str
    file: str
    sha256: str

    def as_source(self) -> dict[str, str]:
        """The certificate's ``source`` record."""
        return {"kind": CLAIM_CODE, "reference": self.reference, "file": self.file, "sha256": self.sha256}


def is_code_reference(text: str) -> bool:
    """Whether ``text`` names claims by code, not by a registered id.

    Args:
        text: a name from the command line.

    Returns:
        True for a ``.py`` file, ``package.module`` or ``...:NAME`` (a
        registered id has no dot and no colon).
    """
    return ":" in text or "." in text


def _file_digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _module_of_file(path: Path) -> Any:
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise InputError(f"the claims file {path} {what}")
    name = "usim_claims_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise InputError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[name]
        raise InputError(f"{path}:{error.lineno}: syntax error: {error.msg}") from None
    except Exception as error:  # the user's code raised: one line naming where
        del sys.modules[name]
        raise InputError(f"running {path} raised {type(error).__name__}: {error}"
                         f"{_where_raised(error, path)}") from None
    return module


def _where_raised(error: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    return f" (at line {frames[-1].lineno})" if frames else ""


def _module_named(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        raise InputError(f"no module {name!r} to import claims from ({error})") from None
    except Exception as error:
        raise InputError(f"importing {name} raised {type(error).__name__}: {error}") from None


def _claims_in(value: Any, what: str) -> list[Claim]:
    if isinstance(value, Claim):
        return [value]
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, Claim) for v in value):
        return list(value)
    raise InputError(f"{what} is not a claim or a tuple of claims (it is {type(value).__name__}; make one with "
                     "usim.claim)")


def _every_claim(module: Any, where: str) -> list[Claim]:
    if hasattr(module, "CLAIMS"):
        return _claims_in(module.CLAIMS, f"{where}'s CLAIMS")
    found = [v for k, v in vars(module).items() if isinstance(v, Claim) and not k.startswith("_")]
    if not found:
        raise InputError(f"{where} defines no claim (name one, {where}:NAME, or list them in CLAIMS)")
    return list({id(c): c for c in found}.values())


def _split(reference: str) -> tuple[str, str]:
    """``file.py:NAME`` or ``module:NAME`` into its two parts (NAME empty where it is left out)."""
    if reference.endswith(".py") or ":" not in reference:
        return reference, ""
    target, _, name = reference.rpartition(":")
    return target, name


def load_claims(reference: str) -> list[tuple[Claim, ClaimCode]]:
    """The claims ``reference`` names, each with where it came from.

    Args:
        reference: ``path/to/claims.py[:NAME]`` or ``package.module[:NAME]``.

    Returns:
        The claims, in the order the code gives them.

    Raises:
        InputError: no such file or module, its code raised, or it has no such
            claim (one line naming which).

    Example:

    >>> load_claims("usim.proofs.lemma3_transpose:CLAIM")[0][0].id
    'lemma3'
    """
    target, name = _split(reference)
    if target.endswith(".py"):
        path = Path(target)
        module = _module_of_file(path)
        file = path.resolve()
    else:
        module = _module_named(target)
        if getattr(module, "__file__", None) is None:
            raise InputError(f"the module {target} has no file to record in a certificate")
        file = Path(module.__file__).resolve()
    where = target
    if name:
        if not hasattr(module, name):
            raise InputError(f"{where} has no {name!r}")
        claims = _claims_in(getattr(module, name), f"{where}:{name}")
    else:
        claims = _every_claim(module, where)
    code = ClaimCode(reference, str(file), _file_digest(file))
    return [(c, code) for c in claims]


def reload_claim(source: Mapping[str, Any], claim_id: str) -> tuple[Claim, dict[str, str]]:
    """The claim ``claim_id`` from the code a certificate's ``source`` records,
    loaded again (the code runs) only if its file still has the recorded digest.

    Args:
        source: a certificate's ``source`` record of kind :data:`CLAIM_CODE`.
        claim_id: the certificate's claim.

    Returns:
        The claim, and the ``source`` record its certificate would have now.

    Raises:
        InputError: the file is gone or changed, or no longer makes the claim.
    """
    file = Path(str(source.get("file")))
    if not file.is_file():
        raise InputError(f"the claim {claim_id} came from {file}, which does not exist here")
    if _file_digest(file) != source.get("sha256"):
        raise InputError(f"the claim {claim_id} came from {file}, which has changed since the certificate was "
                         "written (its sha256 differs): not the code that was proved")
    reference = str(source.get("reference"))
    target, name = _split(reference)
    again = str(file) + (f":{name}" if name else "") if target.endswith(".py") else reference
    for claim, code in load_claims(again):
        if claim.id == claim_id:
            return claim, ClaimCode(reference, code.file, code.sha256).as_source()
    raise InputError(f"{reference} no longer makes the claim {claim_id}")
