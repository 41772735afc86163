"""The page: one document, written as Markdown and as HTML.

The content is built once as a list of elements (heading, paragraph, code,
table, image) and rendered twice, so the two pages cannot say different things.
The HTML embeds every picture (PNG, and the layer diagrams as SVG) as base64
and needs no other file (``usim show``), or links each picture stored once in a
folder the pages share (``usim site``: the whole U's diagram is on every page of
a part of U); the Markdown links the files next to it. Layers are
numbered one way on the whole page, as :func:`usim.show.diagram.layer_name` names
them, and the page says once what that numbering counts.

What a page says about proof comes only from the certificate given with
``--certificate``: statuses are copied as written, and without a certificate the
page says that nothing was proved by drawing it.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from usim.encodings.notation import shape_label
from usim.engine.claim import Claim
from usim.rasp.cost import cost as rasp_cost
from usim.rasp.printing import listing
from usim.rasp.program import Program
from usim.render import CACHED
from usim.show.certificate import ShownCertificate
from usim.show.diagram import LayerDiagram, layer_name, layer_numbering
from usim.show.model import Model, ShownHead, format_value


@dataclass(frozen=True)
class Element:
    kind: str  # h1 h2 h3 p code table img
    text: str = ""
    rows: tuple[tuple[str, ...], ...] = ()  # a table's rows, the first is the header
    path: Path | None = None  # an image


def program_listing(program: Program) -> tuple[str, str]:
    """usim's Python-side listing of the program (selectors keys first, as in
    RASP), and what it is."""
    return listing(program), "usim's listing; selectors keys first, as in RASP"


def _status_rows(model: Model, certificate: ShownCertificate) -> list[tuple[str, ...]]:
    rows = [("shape", "status", "engines")]
    for s in certificate.shapes:
        engines = "; ".join(
            f"{e.engine}: {e.status}" + (CACHED if e.cached else
                                          f" ({e.seconds:.2f} s)" if e.seconds is not None else "")
            for e in s.engines) or "-"
        shape = f"**{s.shape}** (shown)" if s.shape == model.shape_label else s.shape
        status = s.status + (f" - counterexample: {s.counterexample}" if s.counterexample else "")
        rows.append((shape, status, engines))
    return rows


def build(model: Model, certificate: ShownCertificate | None, pictures: dict[str, Path],
          head_pictures: Sequence[Path], whole: LayerDiagram | None = None,
          whole_drawn_by: Claim | None = None, pictured: Sequence[ShownHead] | None = None) -> list[Element]:
    """The page's elements.

    Args:
        model: what is shown.
        certificate: the certificate whose statuses are shown, or None.
        pictures: the files drawn: "layers", "sequences", and "whole" with ``whole``.
        head_pictures: one picture per pictured head, in the order of ``pictured``.
        whole: the diagram of the whole program the shown program is a part of.
        whole_drawn_by: the claim whose page draws that whole program's heads.
        pictured: the heads pictured (None: every head); the page names the others.

    Returns:
        The elements, in order.
    """
    claim, construction = model.claim, model.obligation.construction
    cost = model.cost
    out = [Element("h1", f"{claim.id} ({claim.paper}): {claim.title}")]
    out.append(Element("p", f"**Statement.** {claim.statement}"))
    out.append(Element("p", (
        f"**Shown:** shape {model.shape_label}, construction *{construction.name}* "
        f"(program `{model.program.name}`), sequence length n = {model.n}; "
        f"input {model.inputs_from}, run in the {model.interpretation} interpretation. "
        f"The output {model.target_check}. A picture is an illustration on one input, "
        f"never a proof.")))

    out.append(Element("h2", "Proof status"))
    if certificate is None:
        out.append(Element("p", (
            "No certificate given: nothing on this page is a proof status. Run "
            f"`usim prove {claim.id} --json FILE` and pass `--certificate FILE`.")))
    else:
        shown = certificate.status_of(model.shape_label)
        out.append(Element("p", (
            f"From the certificate `{certificate.path}`"
            + (f" (bound {certificate.bound})" if certificate.bound else "")
            + (f", commit {certificate.commit}" if certificate.commit else "")
            + (f": overall {certificate.status}" if certificate.status else "")
            + f"; per shape {certificate.summary}. The shown shape {model.shape_label}: "
            + (shown if shown else "not in the certificate (so not proved by it)") + ".")))
        recorded = (certificate.costs or {}).get(model.shape_label)
        if recorded is not None:  # the certificate's cost is of the program its claim is about
            claimed = model.obligation.cost_of
            current = (rasp_cost(claimed) if claimed is not None else cost).as_dict()
            keys = ("layers", "heads_per_layer", "layers_with_length", "heads_per_layer_with_length")
            if any(k in recorded and recorded[k] != current[k] for k in keys):
                out.append(Element("p", (
                    f"**Warning:** the certificate records the cost {recorded} at this shape, but the "
                    f"program shown has {current}: the certificate may be for another version of "
                    "the construction.")))
        if certificate.shapes:
            out.append(Element("table", rows=tuple(_status_rows(model, certificate))))
        if certificate.mutants:
            refuted = sum(m.status == "REFUTED" for m in certificate.mutants)
            out.append(Element("p", (
                f"Deliberately broken variants: {refuted} of {len(certificate.mutants)} "
                "refuted, as they must be.")))
        if certificate.versions:
            out.append(Element("p", "Versions: " + ", ".join(
                f"{k} {v}" for k, v in certificate.versions.items()) + "."))
        for note in certificate.notes:
            out.append(Element("p", f"Note: {note}."))

    out.append(Element("h2", "The construction"))
    out.append(Element("p", (
        f"Input layout: {model.input_layout.describe()}. Output layout: "
        f"{model.output_layout.describe()}. Semantics of empty selections: "
        f"{construction.semantics.value}." + (f" {construction.notes}" if construction.notes else ""))))
    text, kind = program_listing(model.program)
    out.append(Element("p", f"Listing ({kind}):"))
    out.append(Element("code", text))

    out.append(Element("h2", "Cost"))
    out.append(Element("p", cost.summary() + "."))
    out.append(Element("p", layer_numbering(cost.uses_length)))
    rows = [("layer", "heads", "names")]
    for layer, names in enumerate(cost.heads, 1):
        rows.append((layer_name(layer), str(len(names)), ", ".join(names)))
    out.append(Element("table", rows=tuple(rows)))

    out.append(Element("h2", "Layers"))
    out.append(Element("img", "the layer diagram", path=pictures["layers"]))
    if whole is not None:
        out += _whole_program(model, whole, whole_drawn_by, pictures["whole"])
    out.append(Element("h2", "Input and output"))
    tokens = ", ".join(format_value(v) for v in model.tokens)
    result = ", ".join(format_value(v) for v in model.output)
    out.append(Element("p", f"Input sequence: [{tokens}]. Output sequence: [{result}]."))
    out.append(Element("img", "the input and output sequences as matrices", path=pictures["sequences"]))

    out.append(Element("h2", "Heads"))
    out.append(Element("p", (
        "One picture per head: query positions down, key positions across, the selected "
        "cells filled (blue: decided by positions alone; purple: depends on the input "
        "values; teal: a selector width; no other colour of the pictures is blue, purple or "
        "teal), marked with the value each selected key moves where there is room. Values are "
        "shaded brown below 0 and red above. The strip of input blocks over the keys is drawn "
        "only where what the head reads is computed position by position from the input, the "
        "strip of output blocks beside the queries only where the output is computed position "
        "by position from what the head writes; elsewhere the picture names the sequence inside "
        "the program.")))
    shown = tuple(model.heads if pictured is None else pictured)
    others = [h for h in model.heads if all(h is not p for p in shown)]
    if others:
        out.append(Element("p", (
            f"{len(shown)} of the {len(model.heads)} heads are pictured here (each layer's first, then "
            f"its next in turn); the other {len(others)}: "
            + ", ".join(f"`{h.name}` ({h.layer_label})" for h in others)
            + f". `usim show {claim.id} --shape {model.shape_label}` draws every head.")))
    for head, picture in zip(shown, head_pictures):
        out.append(Element("h3", f"{head.name}: {head.layer_label}"))
        decided = "decided by positions alone" if head.static else "depends on the input values"
        out.append(Element("p", (f"{head.description[:1].upper()}{head.description[1:]}. "
                                 f"Selector: `{head.selector}` ({decided}).")))
        out.append(Element("img", f"selector of {head.name}", path=picture))
    return out


def _whole_program(model: Model, whole: LayerDiagram, drawn_by: Claim | None, picture: Path) -> list[Element]:
    """The section on the whole program the shown one is a part of."""
    cost = whole.cost
    text = (f"The program shown is a part of `{whole.program.name}`, the program the claim's cost is "
            f"about: {cost.summary()}. Its layers, drawn from the program itself (not run here):")
    out = [Element("h2", "The whole program"), Element("p", text),
           Element("img", "the layer diagram of the whole program", path=picture)]
    others = next(([shape_label(s) for s in listed] for listed in (list(model.claim.shapes(bound))
                                                                for bound in (2, 3, 4))
                   if model.shape in [tuple(s) for s in listed]), [])
    parts = (f" The claim's other shapes: `usim show {model.claim.id} --shape S` for S among "
             f"{', '.join(others)}." if others else "")
    if drawn_by is not None:
        out.append(Element("p", (f"To see every head of this whole program run on an input: "
                                 f"`usim show {drawn_by.id}` ({drawn_by.title}).{parts}")))
    elif parts:
        out.append(Element("p", parts.strip()))
    return out


# -- rendering -----------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(elements: Sequence[Element], folder: Path) -> str:
    lines: list[str] = []
    for e in elements:
        if e.kind in ("h1", "h2", "h3"):
            lines += ["#" * int(e.kind[1]) + " " + e.text, ""]
        elif e.kind == "p":
            lines += [e.text, ""]
        elif e.kind == "code":
            lines += ["```", e.text, "```", ""]
        elif e.kind == "table":
            header, *body = e.rows
            lines.append("| " + " | ".join(_md_cell(c) for c in header) + " |")
            lines.append("|" + "---|" * len(header))
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in body]
            lines.append("")
        elif e.kind == "img":
            lines += [f"![{e.text}]({e.path.relative_to(folder).as_posix()})", ""]
    return "\n".join(lines)


def _inline(text: str) -> str:
    """Escape, then render the few Markdown marks the page uses: **b**, *i*, `code`."""
    import re

    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*(\S[^*]*?\S|\S)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*(\S[^*]*?\S|\S)\*(?![\w*])", r"<em>\1</em>", out)
    return out


_MIME = {".png": "image/png", ".svg": "image/svg+xml"}

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
code { background: #f6f8fa; padding: 0 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.4em 0; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
"""


def shared_image(path: Path, images: Path, page_folder: Path) -> str:
    """``path``'s picture stored once in ``images`` under its content's digest (pages showing the
    same picture share one file), and its address relative to ``page_folder``.

    Args:
        path: the picture drawn.
        images: the folder of shared pictures (created).
        page_folder: the folder of the page that links it.

    Returns:
        The relative address, with ``/``.
    """
    import hashlib
    import os

    data = path.read_bytes()
    target = images / (hashlib.sha256(data).hexdigest()[:20] + path.suffix)
    if not target.exists():
        images.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        os.replace(partial, target)  # pages drawn at once may write the same picture: whole or not at all
    return Path(os.path.relpath(target, page_folder)).as_posix()


def to_html(elements: Sequence[Element], title: str, images: Path | None = None,
            page_folder: Path | None = None) -> str:
    """The page as one HTML file.

    Args:
        elements: the page.
        title: its title.
        images: None: every picture embedded (the file is self-contained); else the
            folder the pictures are stored in once each (:func:`shared_image`), linked.
        page_folder: where the page is written (with ``images``).

    Returns:
        The HTML.
    """
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"]
    for e in elements:
        if e.kind in ("h1", "h2", "h3"):
            parts.append(f"<{e.kind}>{_inline(e.text)}</{e.kind}>")
        elif e.kind == "p":
            parts.append(f"<p>{_inline(e.text)}</p>")
        elif e.kind == "code":
            parts.append(f"<pre>{html.escape(e.text)}</pre>")
        elif e.kind == "table":
            header, *body = e.rows
            parts.append("<table><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in header) + "</tr>")
            parts += ["<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in body]
            parts.append("</table>")
        elif e.kind == "img":
            if images is not None and page_folder is not None:
                source = html.escape(shared_image(e.path, images, page_folder))
            else:
                source = f"data:{_MIME[e.path.suffix]};base64," + base64.b64encode(e.path.read_bytes()).decode("ascii")
            parts.append(f'<img alt="{html.escape(e.text)}" src="{source}">')
    parts.append("</body></html>")
    return "\n".join(parts)
