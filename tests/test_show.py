"""`usim show`: pictures of every head, the layer diagram and the page.

Every registered claim is drawn at a small shape (claims added later are
covered without an edit); Lemma 5 at 2x3x2 is the acceptance case. The pictures
are checked as files (valid PNGs of sensible size) and their data is checked
against the semantics: what a head writes must be the mean of the values the
picture shows it moving, over the cells the picture shows selected.
"""

from __future__ import annotations

import dataclasses
import json
import re
import struct
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")  # the optional extra; its absence is tested below

from usim.cli import main  # noqa: E402
from usim.proofs import all_claims, get  # noqa: E402
from usim.proofs._weights import SOURCES  # noqa: E402
from usim.rasp.cost import depths  # noqa: E402
from usim.rasp.expr import Aggregate, SelectorWidth, Semantics  # noqa: E402
from usim.show import render  # noqa: E402
from usim.show.model import build_model, build_obligation  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def smallest_shape(claim):
    """The claim's shape with the shortest input sequence among claim.shapes(2)
    (then among larger bounds): fast to draw, and never skipped."""
    for bound in (2, 3, 4):
        candidates = []
        for shape in claim.shapes(bound):
            try:
                candidates.append((build_obligation(claim, tuple(shape)).construction.input_layout.length,
                                   tuple(shape)))
            except Exception:  # a shape this claim's construction does not fit
                continue
        if candidates:
            return min(candidates)[1]
    raise AssertionError(f"the claim {claim.id} has no drawable shape up to 4")


def check_png(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path.name} is not a PNG"
    assert 3_000 < len(data) < 4_000_000, f"{path.name} has {len(data)} bytes"
    width, height = struct.unpack(">II", data[16:24])
    assert 300 <= width <= 6000 and 200 <= height <= 6000, f"{path.name} is {width}x{height}"
    import matplotlib.image

    pixels = matplotlib.image.imread(path)  # decodes the whole file
    assert pixels.shape[:2] == (height, width)
    assert pixels.std() > 0.01, f"{path.name} is blank"
    return width, height


def check_svg(path: Path) -> tuple[float, float]:
    """An SVG a browser draws at its own size (width and height in points), its
    text kept as text, at least 9 pt, and no wider than a page shows at 100 %."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(path.read_text())
    assert root.tag.endswith("svg"), f"{path.name} is not an SVG"
    width, height = (float(root.get(side).removesuffix("pt")) for side in ("width", "height"))
    assert 300 <= width <= 10.6 * 72 + 1 and 100 <= height, f"{path.name} is {width}x{height} pt"
    texts = [e for e in root.iter() if e.tag.endswith("text")]
    assert texts, f"{path.name} draws its text as paths"
    sizes = [float(size) for size in re.findall(r"font-size:\s*([\d.]+)px", path.read_text())]
    assert sizes and min(sizes) >= 9.0, f"{path.name} has text of {min(sizes, default=0)} pt"
    return width, height


def head_selectors(program):
    """Every selector a head of the program uses: node id of the head -> selector."""
    return {node.id: node.selector for node in program.nodes()
            if isinstance(node, (Aggregate, SelectorWidth))}


CLAIM_IDS = [claim.id for claim in all_claims() if claim.id not in SOURCES]  # networks: usim compile


def test_a_compiled_network_is_not_drawn_but_named(tmp_path, capsys):
    assert main(["show", "lemma3_weights", "--shape", "2x2x0", "--out", str(tmp_path)]) == 2
    assert "usim compile lemma3_weights" in capsys.readouterr().err


def test_claims_are_registered():
    assert {"lemma3", "lemma5"} <= set(CLAIM_IDS)


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_every_claim_is_drawn(claim_id, tmp_path):
    claim = get(claim_id)
    shape = smallest_shape(claim)
    done = render(claim, shape, tmp_path, seed=1)
    program = done.model.program

    # one picture per head, i.e. per selector a head uses, each a valid PNG
    selectors = head_selectors(program)
    assert sorted(h.node.id for h in done.model.heads) == sorted(selectors)
    assert len(set(done.head_pictures)) == len(selectors)
    for head, picture in zip(done.model.heads, done.head_pictures):
        assert head.node.selector is selectors[head.node.id]
        assert picture.exists()
        check_png(picture)
    check_svg(done.layers)
    check_png(done.sequences)

    # the page names every head of the cost table, with and without the length layer
    markdown, html = done.markdown.read_text(), done.html.read_text()
    cost = done.model.cost
    names = {name for layer in cost.heads + cost.heads_with_length for name in layer}
    for name in names:
        assert name in markdown and name in html, f"the page does not name the head {name}"
    assert claim.statement in markdown
    # the HTML is self-contained: every picture embedded, none linked
    assert html.count('src="data:image/png;base64,') == len(selectors) + 1
    assert html.count('src="data:image/svg+xml;base64,') == 1 + (done.whole_layers is not None)
    assert 'src="head_' not in html and ".png\"" not in html and ".svg\"" not in html
    assert "(layers.svg)" in markdown
    for picture in done.head_pictures:
        assert f"({picture.name})" in markdown


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_layers_agree_with_cost(claim_id):
    """The layer each picture names is the layer usim.rasp.cost counts."""
    claim = get(claim_id)
    model = build_model(claim, smallest_shape(claim), seed=2)
    for with_length, expected in ((False, model.cost.heads), (True, model.cost.heads_with_length)):
        layers: dict[int, list[str]] = {}
        for head in model.heads:
            layers.setdefault(head.layer_with_length if with_length else head.layer, []).append(head.name)
        if with_length and model.length_layer:
            layers.setdefault(1, []).insert(0, "length")
        got = tuple(tuple(sorted(layers.get(i, ()))) for i in range(1, len(expected) + 1))
        assert got == tuple(tuple(sorted(names)) for names in expected)
        assert max(layers, default=0) == len(expected)


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_pictures_show_what_each_head_computes(claim_id):
    """At every query, the value written is the mean of the moved values over the
    selected keys (or the empty-row rule), and a width is the count of selected
    keys: the picture's cells and strips are the head's real computation."""
    claim = get(claim_id)
    model = build_model(claim, smallest_shape(claim), seed=3)
    for head in model.heads:
        for q in range(model.n):
            keys = [k for k in range(model.n) if head.selection[q, k]]
            if head.kind == "selector_width":
                want = len(keys)
            elif keys:
                picked = [head.moved[k] for k in keys]
                want = sum(picked) / len(picked) if model.interpretation == "numeric" else (
                    Fraction(sum(picked)) / len(picked))
            elif head.semantics is Semantics.AHAT:
                want = (sum(head.moved) / model.n if model.interpretation == "numeric"
                        else Fraction(sum(head.moved)) / model.n)
            else:
                want = head.default
            got = head.result[q]
            if model.interpretation == "numeric":
                assert abs(float(got) - float(want)) <= 1e-9 * max(1.0, abs(float(want))), (head.name, q)
            else:
                assert got == want, (head.name, q, got, want)


def test_single_select_strips_decide_the_cells():
    """For a single select, keys[k] == queries[q] exactly where a transpose cell is marked."""
    model = build_model(get("lemma3"), (2, 3), seed=0)
    (head,) = model.heads
    for q in range(model.n):
        for k in range(model.n):
            assert head.selection[q, k] == (head.key_values[k] == head.query_values[q])
    # and the head moves M[b][a] to the position of M^T[a][b]
    assert head.result == tuple(model.output)


def test_lemma5_acceptance(tmp_path, capsys):
    out = tmp_path / "lemma5"
    assert main(["show", "lemma5", "--shape", "2x3x2", "--out", str(out), "--random", "--seed", "0"]) == 0
    model = build_model(get("lemma5"), (2, 3, 2), seed=0)
    assert len(model.heads) == 2 + 2 + 2 * 2  # r + c gathers, r * c means
    pictures = sorted(out.glob("head_*.png"))
    assert len(pictures) == len(model.heads)
    for picture in pictures:
        check_png(picture)
    assert {p.name for p in out.iterdir()} >= {"index.md", "index.html", "layers.svg", "sequences.png"}
    page = (out / "index.md").read_text()
    for name in ("a0", "a1", "b0", "b1", "mean00", "mean01", "mean10", "mean11", "length"):
        assert name in page
    assert "equals the claim's target" in page
    assert "No certificate given" in page
    assert "PROVED" not in page  # nothing is claimed proved without a certificate
    assert "8 head picture(s)" in capsys.readouterr().out


def test_given_values_are_the_input():
    model = build_model(get("lemma5"), (2, 3, 2), values="1 2 3 4 5 6 7 8 9 10 11 12")
    assert model.tokens == tuple(range(1, 13))
    assert model.inputs_from == "given"
    # A = [[1,2,3],[4,5,6]], B = [[7,8],[9,10],[11,12]]: AB = [[58,64],[139,154]]
    assert model.output[:4] == (58, 64, 139, 154)
    assert all(v == 0 for v in model.output[4:])
    assert model.target_check.startswith("equals the claim's target")


def test_fractions_are_read_exactly():
    model = build_model(get("lemma3"), (1, 2), values="1/3, 0.5")
    assert model.tokens == (Fraction(1, 3), Fraction(1, 2))
    assert model.interpretation == "exact"


def test_a_wrong_output_is_reported_against_the_target():
    """The page's sentence about the target is computed, not assumed: Lemma 3's
    off-by-one mutant is drawn as differing from the transpose."""
    claim = get("lemma3")
    assert build_model(claim, (2, 2), seed=0).target_check.startswith("equals")
    broken = dataclasses.replace(claim, obligation=claim.mutants["off-by-one"])
    assert build_model(broken, (2, 2), seed=0).target_check.startswith("differs from the claim's target")


def test_large_shape_uses_the_compact_view(tmp_path):
    from usim.show.pictures import draw_head

    model = build_model(get("lemma3"), (4, 6), seed=0)  # n = 24 > TEXT_LIMIT
    width, height = check_png(draw_head(model, model.heads[0], tmp_path / "head.png"))
    assert width < 1500 and height < 1600


def _run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr()


@pytest.mark.parametrize("argv, message", [
    (["show", "lemma5", "--shape", "2x3", "--out", "{tmp}"], "3 dimension(s)"),
    (["show", "lemma5", "--shape", "3x1x3", "--out", "{tmp}"], "positions"),
    (["show", "lemma5", "--shape", "2x3x2", "--out", "{tmp}", "--values", "1 2 3"], "12 positions"),
    (["show", "lemma3", "--shape", "2x2", "--out", "{tmp}", "--values", "1 2 x 4"], "'x'"),
    (["show", "lemma3", "--shape", "2x2", "--out", "{tmp}", "--values", "1 2 3 1e400"], "out of range"),
    (["show", "lemma3", "--shape", "two", "--out", "{tmp}"], "cannot read the shape"),
    (["show", "no_such_claim", "--out", "{tmp}"], "no claim 'no_such_claim'"),
])
def test_user_mistakes_exit_2(argv, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path / "out")) for a in argv]
    code, captured = _run(argv, capsys)
    assert code == 2
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_without_matplotlib_says_how_to_install(tmp_path, capsys, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    code, captured = _run(["show", "lemma3", "--shape", "2x2", "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert "pip install 'usim[plot]'" in captured.err
    assert not (tmp_path / "o").exists()


# -- certificates -----------------------------------------------------------------------


def _certificate(claim, statuses: dict[str, str], cost=None) -> dict:
    """A certificate as `usim prove --json` writes it (usim.engine.certificate),
    sealed with its digest, its statuses as its engines' verdicts make them."""
    from usim.engine.certificate import VERSION, digest

    check = lambda name: {"engine": name, "status": "PROVED", "seconds": 0.0, "detail": ""}  # noqa: E731
    cert = {
        "usim_certificate": VERSION,
        "claim": {"id": claim.id, "paper": claim.paper, "title": claim.title, "statement": claim.statement},
        "source": {"kind": "claim"},
        "bound": 2,
        "status": "REFUTED" if "REFUTED" in statuses.values() else "PROVED",
        "obligations": [
            {"claim": claim.id, "shape": [int(d) for d in label.split("x")], "mutant": None,
             "status": status, "label": label,
             "engines": [{"engine": "z3", "status": status, "seconds": 0.1, "detail": "",
                          "counterexample": None}],
             "definedness": check("definedness"), "witness": check("witness")}
            for label, status in statuses.items()],
        "mutants": [{"claim": claim.id, "shape": [2, 2], "mutant": "off-by-one", "status": "REFUTED",
                     "engines": [{"engine": "z3", "status": "REFUTED", "seconds": 0.1, "detail": ""}],
                     "definedness": check("definedness"), "witness": check("witness")}],
        "cost": cost or {},
        "versions": {"usim": "0.1.0"},
        "commit": "abc123",
    }
    cert["digest"] = digest(cert)
    return cert


def test_certificate_status_is_shown_as_written(tmp_path):
    claim = get("lemma3")
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(_certificate(claim, {"1x1": "PROVED", "2x2": "REFUTED"})))
    done = render(claim, (2, 2), tmp_path / "out", certificate=path)
    page = done.markdown.read_text()
    assert "The shown shape 2x2: REFUTED." in page
    assert "| **2x2** (shown) | REFUTED |" in page
    assert "| 1x1 | PROVED |" in page
    assert "1 of 1 refuted" in page
    assert "REFUTED" in done.html.read_text()


def test_a_shape_missing_from_the_certificate_is_not_proved(tmp_path):
    claim = get("lemma3")
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(_certificate(claim, {"1x1": "PROVED"})))
    page = render(claim, (2, 3), tmp_path / "out", certificate=path).markdown.read_text()
    assert "The shown shape 2x3: not in the certificate (so not proved by it)." in page


def test_a_certificate_with_another_cost_is_flagged(tmp_path):
    claim = get("lemma3")
    path = tmp_path / "cert.json"
    stale = {"2x2": {"layers": 3, "heads_per_layer": [1, 1, 1], "layers_with_length": 4,
                     "heads_per_layer_with_length": [1, 1, 1, 1]}}
    path.write_text(json.dumps(_certificate(claim, {"2x2": "PROVED"}, cost=stale)))
    page = render(claim, (2, 2), tmp_path / "out", certificate=path).markdown.read_text()
    assert "**Warning:** the certificate records the cost" in page


def test_a_stage_of_u_is_compared_with_the_cost_of_the_whole_u_its_certificate_records(tmp_path):
    """The certificate records U's cost at a stage's shape (the claim is about U): the page warned that
    the stage, a part of U, had another cost."""
    from usim.engine.certificate import certificate
    from usim.engine.runner import prove_claim

    claim = get("theorem6")
    report = prove_claim(claim, 2, timeout=60, jobs=1, shapes=[(2, 0, 0, 1)])
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(certificate(report, 60.0)))
    page = render(claim, (2, 0, 0, 1), tmp_path / "out", certificate=path).markdown.read_text()
    assert "The shown shape 2x0x0x1: PROVED" in page and "**Warning:**" not in page


def test_a_certificate_for_another_claim_is_refused(tmp_path, capsys):
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(_certificate(get("lemma5"), {"1x1x1": "PROVED"})))
    code, captured = _run(["show", "lemma3", "--shape", "2x2", "--out", str(tmp_path / "o"),
                           "--certificate", str(path)], capsys)
    assert code == 2 and "not 'lemma3'" in captured.err


def test_an_edited_certificate_is_refused(tmp_path, capsys):
    data = _certificate(get("lemma3"), {"1x1": "PROVED", "2x2": "REFUTED"})
    data["obligations"][1]["status"] = "PROVED"
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(data))
    code, captured = _run(["show", "lemma3", "--shape", "2x2", "--out", str(tmp_path / "o"),
                           "--certificate", str(path)], capsys)
    assert code == 2 and "edited" in captured.err


def test_a_real_certificate_is_read(tmp_path, capsys):
    cert = tmp_path / "lemma3.json"
    assert main(["prove", "lemma3", "--max-n", "1", "--json", str(cert)]) == 0
    capsys.readouterr()
    page = render(get("lemma3"), (1, 1), tmp_path / "out", certificate=cert).markdown.read_text()
    assert "The shown shape 1x1: PROVED." in page


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ('{"usim_certificate": 1, "claim": {"id": "lemma5"}}', "version 1 certificate"),
    ('[1, 2]', "not a usim certificate"),
])
def test_bad_certificates_exit_2(content, message, tmp_path, capsys):
    path = tmp_path / "cert.json"
    path.write_text(content)
    code, captured = _run(["show", "lemma3", "--shape", "2x2", "--out", str(tmp_path / "o"),
                           "--certificate", str(path)], capsys)
    assert code == 2
    assert message in captured.err


def test_missing_certificate_exits_2(tmp_path, capsys):
    code, captured = _run(["show", "lemma3", "--out", str(tmp_path / "o"), "--certificate",
                           str(tmp_path / "none.json")], capsys)
    assert code == 2 and "none.json" in captured.err


def test_depths_rule_matches_cost_on_a_deep_program():
    """depths() is the rule of usim.rasp.cost: checked on a 3-layer chain."""
    from usim.rasp import Predicate, Program, aggregate, indices, length, select, tokens
    from usim.rasp.cost import cost

    first = aggregate(select(indices, indices, Predicate.EQ), tokens).named("h1")
    second = aggregate(select(indices, length - 1 - indices, Predicate.EQ), first).named("h2")
    third = aggregate(select(indices, indices, Predicate.LE), second + first).named("h3")
    program = Program.of("chain", {"out": third})
    order = program.nodes()
    plain, with_length = depths(order, False), depths(order, True)
    assert [plain[n.id] for n in (first, second, third)] == [1, 2, 3]
    assert [with_length[n.id] for n in (first, second, third)] == [1, 2, 3]
    assert cost(program).heads == (("h1",), ("h2",), ("h3",))


def test_shapes_are_read_with_zero_flags():
    from usim.encodings.notation import parse_dims
    from usim.errors import ShapeError

    def parse_shape(text):  # as usim show reads --shape
        return parse_dims(text, least=0)

    assert parse_shape("3x3x0x1") == (3, 3, 0, 1)
    assert parse_shape(" 2 x 3 ") == (2, 3)
    for bad in ("", "x3", "2x-1", "2.5x3"):
        with pytest.raises(ShapeError):
            parse_shape(bad)


# -- one numbering, one meaning per colour, honest strips, the whole of U ----------------


def _elements(model):
    """The page's elements for a model, with the file names render gives its pictures."""
    from usim.show import page
    from usim.show.model import whole_program, whole_program_drawn_by

    whole = whole_program(model)
    pictures = {"layers": Path("layers.svg"), "sequences": Path("sequences.png")}
    if whole is not None:
        pictures["whole"] = Path("whole_layers.svg")
    drawn_by = whole_program_drawn_by(model) if whole is not None else None
    return page.build(model, None, pictures, [Path(f"{h.file_stem}.png") for h in model.heads],
                      whole=whole, whole_drawn_by=drawn_by)


@pytest.mark.parametrize("claim_id, shape", [("lemma5", (2, 3, 2)), ("theorem6", (2, 0, 0, 1))])
def test_every_view_names_a_head_by_the_same_layer(claim_id, shape):
    """A head's picture title, its heading on the page, its row of the layer
    diagram and its row of the cost table give it one layer number, and the
    page says once what the numbers count (Lemma 5 reads length: no view
    numbers layers the other way)."""
    from usim.show.diagram import layer_numbering
    from usim.show.pictures import head_title

    model = build_model(get(claim_id), shape, seed=0)
    elements = _elements(model)
    headings = {e.text for e in elements if e.kind == "h3"}
    (table,) = [e for e in elements if e.kind == "table"]
    rows = {label: names.split(", ") for label, _, names in table.rows[1:]}
    diagram_rows = {box.node.id: row.label for row in model.diagram.rows if row.kind == "layer"
                    for box in row.boxes}
    for head in model.heads:
        label = head.layer_label
        assert head_title(head).endswith(label)
        assert f"{head.name}: {label}" in headings
        assert diagram_rows[head.node.id] == label
        assert head.name in rows[label]
    sentence = layer_numbering(model.cost.uses_length)
    assert [e.text for e in elements].count(sentence) == 1
    assert model.cost.uses_length == (claim_id == "lemma5")
    texts = " ".join(e.text for e in elements) + " ".join(head_title(h) for h in model.heads)
    assert not re.search(r"layer \d+ \(\d+", texts) and "without length" not in texts


def _legend_models():
    models = [build_model(get("lemma5"), (2, 2, 2), seed=0), build_model(get("theorem6"), (2, 0, 0, 1), seed=0)]
    for model in models:
        for head in model.heads:  # as drawn, and with both block strips drawn (both layouts pad)
            yield model, head
            yield model, dataclasses.replace(head, reads_input=True, writes_output=True)


def test_a_head_legend_says_each_meaning_once():
    from usim.show.pictures import head_legend

    paddings = 0
    for model, head in _legend_models():
        labels = [label for _, label in head_legend(model, head)]
        assert len(labels) == len(set(labels)), labels
        paddings += sum(label.startswith("padding") for label in labels)
        assert sum(label.startswith("padding") for label in labels) <= 1
    assert paddings > 0  # the case of two padded layouts was met


def test_the_selection_colour_means_selection_only():
    """No block colour, value colour or other swatch is blue, purple or teal;
    the rule is strict enough to catch the old palette (a light-blue block, a
    value map that turned negative values blue)."""
    import numpy as np
    from matplotlib import colormaps

    from usim.show import style
    from usim.show.pictures import head_legend, value_colours

    assert all(style.is_selection_hue(c) for c in style.SELECTION)
    others = (style.INPUT_BLOCKS + style.OUTPUT_BLOCKS
              + (style.PADDING, style.EMPTY_ROW, style.UNSELECTED, style.LENGTH, style.ELEMENTWISE,
                 style.INPUT_BOX, style.GRIDLINE))
    assert not any(style.is_selection_hue(c) for c in others)
    assert not set(style.SELECTION) & set(others)
    values = np.linspace(-5, 5, 81)
    for strong in (False, True):
        assert not any(style.is_selection_hue(tuple(c)) for c in value_colours(values, 5.0, strong))
    for model, head in _legend_models():
        swatches = [colour for colour, label in head_legend(model, head) if label != "selected"]
        assert not any(style.is_selection_hue(c) for c in swatches)
    # the old palette fails the rule: "key in input A" was #56b4e9, negative values RdBu_r's blues
    assert style.is_selection_hue("#56b4e9")
    assert style.is_selection_hue(tuple(colormaps["RdBu_r"](0.3)))


def test_a_block_strip_is_drawn_only_over_the_input_itself():
    """U's heads that read a sequence of its workspace (hierarchy's s1.Y1.a0
    gathers `fixed`, made by the placement's head) get no input block strip and
    say what their key positions are; the placement's head, which reads the
    tokens, gets the input's blocks; a head the output reads position by
    position gets the output's blocks."""
    from usim.show.pictures import head_legend, layout_notes, strip_layouts

    model = build_model(get("hierarchy"), (2, 2, 2), seed=0)
    heads = {head.name: head for head in model.heads}
    gather = heads["s1.Y1.a0"]
    assert strip_layouts(model, gather) == (None, None)
    assert "positions of fixed" in layout_notes(model, gather)[0]
    assert not any(label.startswith(("key in input", "query in output", "padding"))
                   for _, label in head_legend(model, gather))
    embed = heads["embed"]
    assert embed.read_name == "tokens"
    assert strip_layouts(model, embed)[0] is model.input_layout
    assert any(label.startswith("key in input X") for _, label in head_legend(model, embed))
    lemma5 = build_model(get("lemma5"), (2, 2, 2), seed=0)
    means = [head for head in lemma5.heads if head.name.startswith("mean")]
    assert means and all(strip_layouts(lemma5, h) == (None, lemma5.output_layout) for h in means)
    gathers = [head for head in lemma5.heads if not head.name.startswith("mean")]
    assert all(strip_layouts(lemma5, h) == (lemma5.input_layout, None) for h in gathers)


def test_rendered_lists_exactly_the_files_written(tmp_path):
    done = render(get("lemma3"), (2, 2), tmp_path, seed=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in done.files)
    assert done.layers.suffix == ".svg" and done.whole_layers is None


def test_theorem6_shows_a_stage_of_u_and_the_whole_u():
    """Theorem 6's default shape is a stage with heads (stage 1, not the padding
    lemma's 0 heads); its page carries the layer diagram of the whole U_2 and
    points to `usim show hierarchy` for its heads. The lemmas keep their shapes."""
    from usim.show.model import small_shape, whole_program

    shape = small_shape(get("theorem6"))
    assert shape[-1] >= 1  # k: a stage of U, not the padding lemma
    model = build_model(get("theorem6"), shape, seed=0)
    assert len(model.heads) > 0
    whole = whole_program(model)
    assert whole is not None and whole.program is model.obligation.cost_of
    assert whole.cost.layers > model.cost.layers
    layers = [row for row in whole.rows if row.kind == "layer"]
    assert len(layers) == whole.cost.layers
    elements = _elements(model)
    assert any(e.kind == "img" and e.path == Path("whole_layers.svg") for e in elements)
    assert any("`usim show hierarchy`" in e.text for e in elements if e.kind == "p")
    assert {c: small_shape(get(c)) for c in ("lemma3", "lemma4", "lemma5")} == {
        "lemma3": (2, 2), "lemma4": (2, 2), "lemma5": (2, 2, 2)}
    assert small_shape(get("hierarchy")) == (2, 2, 2)


def test_a_whole_program_is_pointed_to_only_where_it_is_drawn():
    """Theorem 9's U (with W_O) is not the hierarchy's: its page draws its own
    whole U but does not send the reader to `usim show hierarchy`; the
    hierarchy, a whole program itself, has no companion."""
    from usim.show.model import small_shape, whole_program

    claim = get("theorem9")
    model = build_model(claim, small_shape(claim), seed=0)
    assert model.heads and whole_program(model) is not None
    assert not any("usim show hierarchy" in e.text for e in _elements(model))
    assert whole_program(build_model(get("hierarchy"), (2, 2, 2), seed=0)) is None


def test_a_page_asked_for_fewer_pictures_pictures_each_layers_first_head_and_names_the_rest(tmp_path):
    """usim site pictures a few heads a page (U's pages have dozens: minutes and megabytes)."""
    from usim.show import pictured_heads

    claim = get("theorem6")
    done = render(claim, (2, 0, 0, 1), tmp_path / "out", most_heads=4)
    heads = done.model.heads
    assert len(heads) == 20 and len(done.head_pictures) == 4
    assert {h.layer for h in done.heads_pictured} == {h.layer for h in heads}  # every layer pictured
    page = done.markdown.read_text()
    assert "4 of the 20 heads are pictured here" in page and f"usim show theorem6 --shape 2x0x0x1" in page
    others = [h for h in heads if all(h is not p for p in done.heads_pictured)]
    assert all(f"`{h.name}`" in page for h in others)
    assert pictured_heads(heads, None) is heads and pictured_heads(heads, 50) is heads


def test_two_pages_showing_one_picture_share_one_stored_file(tmp_path):
    """usim site's pages link their pictures, each stored once under its content's digest."""
    from usim.show.page import Element, to_html

    picture = tmp_path / "drawn" / "whole_layers.svg"
    picture.parent.mkdir()
    picture.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    other = tmp_path / "drawn" / "layers.svg"
    other.write_text("<svg xmlns='http://www.w3.org/2000/svg' width='1'/>")
    images = tmp_path / "images"
    pages = []
    for name in ("a", "b"):
        folder = tmp_path / "claims" / name
        folder.mkdir(parents=True)
        pages.append(to_html([Element("img", "whole", path=picture), Element("img", "own", path=other)],
                             name, images, folder))
    assert pages[0] == pages[1].replace("<title>b</title>", "<title>a</title>")
    assert 'src="../../images/' in pages[0] and "base64" not in pages[0]
    assert sorted(p.suffix for p in images.iterdir()) == [".svg", ".svg"]  # two pictures, two files
    embedded = to_html([Element("img", "whole", path=picture)], "alone")
    assert 'src="data:image/svg+xml;base64,' in embedded  # usim show's page stays self-contained
