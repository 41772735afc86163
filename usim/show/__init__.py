"""`usim show`: pictures and a page that teach what a construction's heads do.

Everything is drawn from the very program a claim proves, run on one input:

* :mod:`usim.show.model` runs the construction and collects each head's
  selection, the values it moves and what it writes (no drawing);
* :mod:`usim.show.pictures` draws one picture per head and the input and
  output matrices (PNG), and the layer diagram (SVG, its text as text), with
  matplotlib, an optional extra;
* :mod:`usim.show.page` writes the page as Markdown and self-contained HTML;
* :mod:`usim.show.certificate` reads the proof status from a certificate.

:func:`render` is the whole pipeline; ``usim show`` calls it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from usim.engine.claim import Claim, Shape
from usim.errors import InputError
from usim.show.certificate import ShownCertificate, read_certificate
from usim.show.model import Model, ShownHead, build_model, small_shape, whole_program, whole_program_drawn_by


@dataclass(frozen=True)
class Rendered:
    """What :func:`render` wrote."""

    model: Model
    folder: Path
    head_pictures: tuple[Path, ...]  # one per pictured head, in the order of ``pictured`` (PNG)
    layers: Path  # the layer diagram (SVG)
    sequences: Path  # the input and output as matrices (PNG)
    markdown: Path
    html: Path
    certificate: ShownCertificate | None
    whole_layers: Path | None = None  # the whole program's diagram (SVG), when a part is shown
    pictured: tuple[ShownHead, ...] | None = None  # the heads pictured (None: every head)

    @property
    def heads_pictured(self) -> tuple[ShownHead, ...]:
        """The heads that have a picture, in the order of :attr:`head_pictures`."""
        return self.model.heads if self.pictured is None else self.pictured

    def picture_of(self, head: ShownHead) -> Path:
        """The picture of ``head`` (by identity: a head's fields are sequences, whose == is RASP's)."""
        return self.head_pictures[next(i for i, h in enumerate(self.heads_pictured) if h is head)]

    @property
    def files(self) -> tuple[Path, ...]:
        whole = (self.whole_layers,) if self.whole_layers is not None else ()
        return (self.markdown, self.html, self.layers, self.sequences) + whole + self.head_pictures


def pictured_heads(heads: tuple[ShownHead, ...], most: int | None) -> tuple[ShownHead, ...]:
    """The heads to picture when at most ``most`` are: every layer's first head, then
    each layer's next in turn, in the program's order (None: every head).

    Args:
        heads: the heads, in the program's order.
        most: how many pictures at the most.

    Returns:
        The heads pictured, in the program's order.
    """
    if most is None or len(heads) <= most:
        return heads
    layers: dict[int, list[ShownHead]] = {}
    for head in heads:
        layers.setdefault(head.layer, []).append(head)
    chosen: list[ShownHead] = []
    rank = 0
    while len(chosen) < most:
        turn = [layer[rank] for layer in layers.values() if rank < len(layer)]
        chosen += turn[: most - len(chosen)]
        rank += 1
    picked = set(map(id, chosen))
    return tuple(h for h in heads if id(h) in picked)


def render(claim: Claim, shape: Shape, out: str | Path, values: str | None = None, seed: int = 0,
           certificate: str | Path | None = None, most_heads: int | None = None,
           images: str | Path | None = None) -> Rendered:
    """Draw ``claim`` at ``shape`` into the folder ``out`` (created if needed).

    Args:
        claim: the claim.
        shape: the shape whose program is drawn.
        out: the folder to write into.
        values: the input sequence as text (None: a random one).
        seed: the seed of the random input.
        certificate: a certificate of ``usim prove CLAIM --json`` whose statuses the page shows.
        most_heads: picture at most this many heads (:func:`pictured_heads`; the
            page names the others); None: every head.
        images: None: the HTML page embeds its pictures; else the folder where each
            picture is stored once, shared by the pages that show it (the site's).

    Returns:
        What was written.
    """
    from usim.show import page, pictures

    pictures.pyplot()  # fail early, before any work, if matplotlib is missing
    cert = read_certificate(certificate, claim.id) if certificate is not None else None
    model = build_model(claim, shape, values, seed)
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the output folder {str(folder)!r}: {error}") from None
    pictured = pictured_heads(model.heads, most_heads)
    heads = tuple(pictures.draw_head(model, head, folder / f"{head.file_stem}.png") for head in pictured)
    layers = pictures.draw_layers(model.diagram, folder / "layers.svg")
    sequences = pictures.draw_sequences(model, folder / "sequences.png")
    drawn = {"layers": layers, "sequences": sequences}
    whole = whole_program(model)
    if whole is not None:
        drawn["whole"] = pictures.draw_layers(whole, folder / "whole_layers.svg")
    elements = page.build(model, cert, drawn, heads, whole=whole,
                          whole_drawn_by=whole_program_drawn_by(model) if whole is not None else None,
                          pictured=pictured)
    title = f"usim show {claim.id} {model.shape_label}"
    markdown = folder / "index.md"
    markdown.write_text(page.to_markdown(elements, folder))
    html = folder / "index.html"
    html.write_text(page.to_html(elements, title, None if images is None else Path(images), folder))
    return Rendered(model, folder, heads, layers, sequences, markdown, html, cert, drawn.get("whole"),
                    None if len(pictured) == len(model.heads) else pictured)


__all__ = ["Rendered", "render", "pictured_heads", "build_model", "small_shape", "read_certificate"]
