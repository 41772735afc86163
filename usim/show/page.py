"""The page: one document, written as Markdown and as self-contained HTML.

The content is built once as a list of elements (heading, paragraph, code,
table, image) and rendered twice, so the two pages cannot say different things.
The HTML embeds every picture as base64 and needs no other file; the Markdown
links the PNG files next to it.

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

from usim.rasp.printing import listing
from usim.rasp.program import Program
from usim.render import CACHED
from usim.show.certificate import ShownCertificate
from usim.show.model import Model, format_value


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
          head_pictures: Sequence[Path]) -> list[Element]:
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
        if recorded is not None:
            current = cost.as_dict()
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
    rows = [("layer", "heads", "names")]
    for layer, names in enumerate(cost.heads_with_length if cost.uses_length else cost.heads, 1):
        label = f"{layer} (computes length)" if cost.uses_length and "length" in names else str(layer)
        rows.append((label, str(len(names)), ", ".join(names)))
    out.append(Element("table", rows=tuple(rows)))
    if cost.uses_length:
        plain = "; ".join(f"layer {i}: {', '.join(names)}" for i, names in enumerate(cost.heads, 1))
        out.append(Element("p", f"Without the length layer: {plain or 'no attention layer'}."))

    out.append(Element("h2", "Layers"))
    out.append(Element("img", "the layer diagram", path=pictures["layers"]))
    out.append(Element("h2", "Input and output"))
    tokens = ", ".join(format_value(v) for v in model.tokens)
    result = ", ".join(format_value(v) for v in model.output)
    out.append(Element("p", f"Input sequence: [{tokens}]. Output sequence: [{result}]."))
    out.append(Element("img", "the input and output sequences as matrices", path=pictures["sequences"]))

    out.append(Element("h2", "Heads"))
    out.append(Element("p", (
        "One picture per head: query positions down, key positions across, the selected "
        "cells filled (blue: decided by positions alone; purple: depends on the input "
        "values; green: a selector width), marked with the value each selected key moves "
        "where there is room.")))
    for head, picture in zip(model.heads, head_pictures):
        layer = f"layer {head.layer}" + (
            f" ({head.layer_with_length} counting the length layer)" if model.length_layer else "")
        out.append(Element("h3", f"{head.name}: {layer}"))
        decided = "decided by positions alone" if head.static else "depends on the input values"
        out.append(Element("p", (f"{head.description[:1].upper()}{head.description[1:]}. "
                                 f"Selector: `{head.selector}` ({decided}).")))
        out.append(Element("img", f"selector of {head.name}", path=picture))
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


def to_html(elements: Sequence[Element], title: str) -> str:
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
            data = base64.b64encode(e.path.read_bytes()).decode("ascii")
            parts.append(f'<img alt="{html.escape(e.text)}" src="data:image/png;base64,{data}">')
    parts.append("</body></html>")
    return "\n".join(parts)
