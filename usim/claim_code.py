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
asked (``--run-claim-code``), only from that file, and only if the file still
has that digest. The modules the file imports are not digested: a change
there changes the obligations' fingerprints, and the certificate is then NOT
reproduced (never a verdict believed for other code).

A claim of one's own may not take a registered claim's id (the registry's
claim object itself, named by its module, is the registry's). Two claims
files whose folders hold modules of the same name are refused in one run:
Python imports a module once per process, so the second file would prove
the first one's construction.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
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


_FOLDERS: dict[str, frozenset[str]] = {}
"""The folders of the claims files loaded in this process, each with the names of
the modules beside it (what the file's ``import construction`` may mean)."""


def _modules_beside(folder: Path) -> frozenset[str]:
    """The top-level modules a file in ``folder`` imports from there: its ``.py``
    files and its packages (folders with an ``__init__.py``)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return frozenset()
    return frozenset(e.stem for e in entries if e.suffix == ".py" and e.is_file()) | \
        frozenset(e.name for e in entries if e.is_dir() and (e / "__init__.py").is_file())


def _beside_another(folder: Path, path: Path) -> None:
    """Refuse a second claims folder whose modules share a name with an earlier one's.

    Python imports a module once per process: ``b/claims.py``'s ``import
    construction`` would get ``a/construction.py`` (loaded for ``a/claims.py``)
    and prove ``a``'s construction under ``b``'s name.
    """
    mine = _modules_beside(folder)
    for other, theirs in _FOLDERS.items():
        shared = sorted((mine & theirs) - {path.stem})
        if other != str(folder) and shared:
            raise InputError(f"{path} has modules beside it named as those beside an earlier claims file in "
                             f"{other} ({', '.join(shared)}): Python would import the earlier ones for both; "
                             "prove them in separate runs")
    _FOLDERS[str(folder)] = mine


def _module_of_file(path: Path, noun: str = "claim") -> Any:
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise InputError(f"the {noun}s file {path} {what}")
    folder = path.resolve().parent
    _beside_another(folder, path)
    name = "usim_claims_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise InputError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[name]
        raise InputError(f"{error.filename or path}:{error.lineno}: syntax error: {error.msg}") from None
    except (Exception, SystemExit) as error:  # the user's code raised or exited: one line naming where
        del sys.modules[name]
        raise InputError(f"running {path} raised {type(error).__name__}: {error}{_where_raised(error, path)} "
                         f"(no {noun} read)") from None
    return module


def _where_raised(error: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    return f" (at line {frames[-1].lineno})" if frames else ""


def _module_named(name: str, noun: str = "claim") -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        raise InputError(f"no module {name!r} to import {noun}s from ({error})") from None
    except SyntaxError as error:
        raise InputError(f"{error.filename}:{error.lineno}: syntax error: {error.msg}") from None
    except (Exception, SystemExit) as error:
        raise InputError(f"importing {name} raised {type(error).__name__}: {error} (no {noun} read)") from None


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
    found = [(c, None if _registered(c) else code) for c in claims]
    for claim, made_by in found:
        if made_by is not None:
            _MADE_BY[id(claim)] = (claim, made_by)
    return found


def load_object(reference: str, noun: str) -> Any:
    """The value ``reference`` names in a user's file or module.

    Args:
        reference: ``path/to/file.py:NAME`` or ``package.module:NAME``.
        noun: what the value is, for messages (``"tracr program"``).

    Returns:
        The module's attribute NAME.

    Raises:
        InputError: no NAME, no such file or module, or its code raised (one line naming which).
    """
    target, name = _split(reference)
    if not name:
        raise InputError(f"{reference!r} names no {noun}: write FILE.py:NAME or package.module:NAME")
    module = _module_of_file(Path(target), noun) if target.endswith(".py") else _module_named(target, noun)
    if not hasattr(module, name):
        raise InputError(f"{target} has no {name!r}")
    return getattr(module, name)


_MADE_BY: dict[int, tuple[Claim, ClaimCode]] = {}
"""Each claim loaded from code in this process, by identity, with where it came from."""


def code_of(claim: Claim) -> ClaimCode | None:
    """Where a claim loaded by :func:`load_claims` came from (None: it was not).

    Args:
        claim: a claim object.

    Returns:
        Its :class:`ClaimCode`, or None.
    """
    made = _MADE_BY.get(id(claim))
    return made[1] if made is not None and made[0] is claim else None


def _registered(claim: Claim) -> bool:
    """Whether ``claim`` is the registry's own (then it is the registry's, whoever names it);
    a claim of one's own under a registered id is refused, never passed off as the registry's."""
    from usim.proofs import all_claims

    registered = {c.id: c for c in all_claims()}
    if claim.id not in registered:
        return False
    if registered[claim.id] is claim:
        return True
    raise InputError(f"the claim {claim.id!r} is registered in usim, and this one is not that claim: give your "
                     "claim an id of its own")


def _spec_of(module: str) -> Any:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def _unchanged_code(source: Mapping[str, Any], what: str) -> tuple[Path, str, str, str]:
    """The file a certificate's ``source`` names, if it is still the code that was run.

    Returns:
        The file, the reference's target and name, and the reference.

    Raises:
        InputError: the record names no file, or the file is gone or changed, or a
            module's name now stands for another file.
    """
    file_text, reference = source.get("file"), source.get("reference")
    if not isinstance(file_text, str) or not os.path.isabs(file_text) or not isinstance(reference, str) \
            or not reference:
        raise InputError(f"{what}'s source names no absolute file and reference "
                         f"(file {file_text!r}, reference {reference!r})")
    file = unchanged_file(source, what)
    target, name = _split(reference)
    if not target.endswith(".py"):  # a module: it must still be the recorded file
        spec = _spec_of(target)
        origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
        if origin != file.resolve():
            raise InputError(f"{what} came from the module {target} at {file}; {target} is now "
                             f"{origin or 'not importable'}: not the code that was proved")
    return file, target, name, reference


def file_record(path: str | Path) -> dict[str, str]:
    """A file as a certificate records it: its absolute path and its sha256.

    Args:
        path: the file.

    Returns:
        ``file`` and ``sha256``.
    """
    file = Path(path).resolve()
    return {"file": str(file), "sha256": _file_digest(file)}


def unchanged_file(source: Mapping[str, Any], what: str) -> Path:
    """The file a certificate's record names (:func:`file_record`), if it is as it was recorded.

    Args:
        source: the record.
        what: what the file holds, for messages.

    Returns:
        The file.

    Raises:
        InputError: the record names no absolute file, or the file is gone or changed.
    """
    file_text = source.get("file")
    if not isinstance(file_text, str) or not os.path.isabs(file_text):
        raise InputError(f"{what}'s record names no absolute file (file {file_text!r})")
    file = Path(file_text)
    if not file.is_file():
        raise InputError(f"{what} came from {file}, which does not exist here")
    if _file_digest(file) != source.get("sha256"):
        raise InputError(f"{what} came from {file}, which has changed since the certificate was "
                         "written (its sha256 differs): not the code that was proved")
    return file


def code_record(reference: str) -> dict[str, str]:
    """Where the code ``reference`` names lives, for a certificate: the reference, its file, the file's sha256.

    Args:
        reference: ``path/to/file.py:NAME`` or ``package.module:NAME`` (already loaded once).

    Returns:
        ``reference``, ``file`` (absolute) and ``sha256``.
    """
    target, _ = _split(reference)
    if target.endswith(".py"):
        file = Path(target).resolve()
    else:
        spec = _spec_of(target)
        if spec is None or not spec.origin:
            raise InputError(f"the module {target} has no file to record in a certificate")
        file = Path(spec.origin).resolve()
    return {"reference": reference, **file_record(file)}


def reload_object(source: Mapping[str, Any], noun: str) -> Any:
    """The value a certificate's ``source`` names, loaded again (its code runs) only if its
    file still has the recorded digest.

    Args:
        source: a record of :func:`code_record`.
        noun: what the value is, for messages.

    Returns:
        The value.

    Raises:
        InputError: see :func:`_unchanged_code`, or the value is gone.
    """
    file, target, name, reference = _unchanged_code(source, f"the {noun} {source.get('reference')}")
    return load_object(f"{file}:{name}" if target.endswith(".py") else reference, noun)


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
    file, target, name, reference = _unchanged_code(source, f"the claim {claim_id}")
    again = str(file) + (f":{name}" if name else "") if target.endswith(".py") else reference
    for claim, code in load_claims(again):
        if claim.id == claim_id:
            return claim, ClaimCode(reference, code.file, code.sha256).as_source()
    raise InputError(f"{reference} no longer makes the claim {claim_id}")
