"""Who a usim is: the digest of its source and the versions it runs with."""

from pathlib import Path

from usim.engine.identity import identity, identity_difference, source_digest, sources_digest


def test_the_same_source_installed_or_editable_has_the_same_digest_and_any_change_shows(tmp_path):
    def write(root: Path, files: dict[str, str]) -> None:
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)

    files = {"usim/__init__.py": "v = 1", "usim/cli.py": "main", "rasp/expr.py": "x", "rasp/g.lark": "g"}
    editable, installed = tmp_path / "editable", tmp_path / "site"
    write(editable, files)
    write(installed, {("usim/" + n if not n.startswith("usim/") else n): t for n, t in files.items()})
    first = sources_digest({"usim": editable / "usim", "usim.rasp": editable / "rasp"})
    assert first == sources_digest({"usim": installed / "usim", "usim.rasp": installed / "usim" / "rasp"})
    (editable / "rasp" / "g.lark").write_text("h")
    assert sources_digest({"usim": editable / "usim", "usim.rasp": editable / "rasp"}) != first
    assert dict(identity())["usim source"] == source_digest()[:16]


def test_an_identity_difference_names_what_differs_and_nothing_else():
    ours = identity()
    theirs = tuple((k, "other" if k == "z3" else v) for k, v in ours)
    assert identity_difference(ours, ours) == ""
    assert identity_difference(theirs, ours).startswith("z3 other (here ")
    assert identity_difference(None, ours) == "no identity"
