"""One static page for the whole paper, built from certificates.

``usim site --certificates DIR --out SITE`` reads the certificates a run of
``usim prove all --json-dir DIR`` wrote (each checked as it is read and
against the registry, :func:`usim.registry.read_checked`: one that is damaged,
inconsistent with its own rows or states something other than the registered
claim is refused, and so is an erratum recorded PROVED) and writes ``SITE/index.html``: every
registered claim with the paper's number, its status as its certificate's
engines gave it and, under it, what that is relative to the paper (its
category: the status is said once), the bound and
the engines that proved every obligation, how many of its answers were reused
from the verdict cache (and how many cache entries its run ignored), its
cost, an erratum's replayed counterexample (marked when it came from the
cache), the versions, commit and digest of its certificate, and, from the
claim's name, a link to its own page drawn by ``usim show`` (its heads, at
most :data:`SITE_HEADS` of them pictured, its layers and matrices: one
self-contained file, ``SITE/claims/ID/index.html``). How to read a status, a shape
label (3x3x3x0) and a cost is said once, above the table; the table fits a
window 1 400 pixels wide (long values wrap). Certificates may be gzip-compressed
(``CLAIM.json.gz``). A claim without a certificate is listed as
such: nothing is shown as proved that a certificate does not say.

The HTML comes from a Jinja2 template (escaping by the library, not by hand).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from usim.encodings.notation import shape_label
from usim.engine.certificate import Certificate
from usim.engine.claim import CATEGORIES, Claim, Status
from usim.errors import InputError
from usim.registry import read_checked
from usim.render import certificate_cache_use

WORDS = {
    "as stated": "proved",
    "after correction": "proved after correction",
    "refuted": "refuted (erratum)",
    "approximate": "approximate",
    "our statement": "our statement, proved",
}
"""The status words of paper_map.md's table for a claim whose certificate gives its
expected outcome (one cell says status and category at once)."""

OUTCOME = {
    "as stated": "as the paper states it",
    "after correction": "a corrected construction (the published one is an erratum)",
    "refuted": "an erratum of the paper, as expected",
    "approximate": "an approximation, its distance measured",
    "our statement": "usim's own statement of a claim the paper leaves informal",
}
"""What a claim's status means, under the status itself, where its certificate gives its
expected outcome (the status is said once; this says what it is relative to the paper)."""

SHAPES = ("A shape such as 3x2x4 lists the sizes a claim is checked at, in the order its statement "
          "names them (for Lemma 5, r x k x c: an r x k matrix times a k x c one); for U's claims "
          "(Theorem 6, Theorem 9, the hierarchy, the corollaries) N x n x d x k: U built for N, the "
          "attention's n and d, and the stage k of U (0: the padding lemma). Each claim's statement "
          "(hover over its name) says what its sizes are.")
"""How to read a shape label, said once on the page."""

COSTS = ("The claim's program at the largest shape its certificate proves, as the RASP "
         "interpreter counts it: its attention layers, and the heads in each, bottom layer first. "
         "A program that reads length pays one more layer for it (the REPL computes length by "
         "attention): the second count, 'with length'.")
"""How to read a cost, said once on the page."""


@dataclass(frozen=True)
class ClaimEntry:
    """One row of the page."""

    claim: Claim
    certificate: Certificate | None
    source: str | None = None  # the certificate file
    page: str | None = None  # the link to the claim's own page, relative to the site
    notes: list[str] = field(default_factory=list)
    all_sizes: Certificate | None = None  # a certificate with a verdict for every size

    @property
    def every_size(self) -> str | None:
        """"all sizes (conditions)" where a certificate proves the claim for every
        size, with the bounded cross-check's verdict where it is not PROVED."""
        from usim.engine.claim import Status as S

        if self.all_sizes is None or self.all_sizes.all_sizes_status is not S.PROVED:
            return None
        section = self.all_sizes.data["all_sizes"]
        cross = section["cross_check"]
        tail = "" if cross["status"] == S.PROVED.value else \
            f", bounded cross-check to N={cross.get('max_n')} {cross['status']}"
        return f"all sizes ({section.get('conditions')}){tail}"

    @property
    def status(self) -> str:
        """The verdict in the certificate's own word (derived from its engines), or NONE."""
        return self.certificate.status.value if self.certificate is not None else "NONE"

    @property
    def as_expected(self) -> bool:
        return self.certificate is not None and self.certificate.status is self.claim.expected

    @property
    def words(self) -> str:
        """paper_map.md's status cell (:data:`WORDS`)."""
        if self.certificate is None:
            return "no certificate: not proved here"
        if self.as_expected:
            return WORDS[self.claim.category]
        return f"NOT {WORDS[self.claim.category]}: {self.status}"

    @property
    def outcome(self) -> str:
        """What the status means relative to the paper (said once, under the status)."""
        if self.certificate is None:
            return "no certificate: not proved here"
        if self.as_expected:
            return OUTCOME[self.claim.category]
        return f"NOT the expected outcome: {self.claim.expected.value} expected"

    @property
    def bound(self) -> str:
        text = f"N={self.certificate.data['bound']}" if self.certificate else "-"
        return text + (f"; {self.every_size}" if self.every_size else "")

    @property
    def engines(self) -> str:
        """The engines that proved every obligation, and those that did not answer everywhere."""
        if self.certificate is None:
            return "-"
        obligations = self.certificate.obligations
        names = list(dict.fromkeys(r.engine for ob in obligations for r in ob.results))
        if self.claim.is_erratum:
            refuting = [e for e in names if any(r.engine == e and r.status is Status.REFUTED
                                                for ob in obligations for r in ob.results)]
            return "refuted by " + ("+".join(refuting) or "no engine")
        complete = [e for e in names if all(any(r.engine == e and r.status is Status.PROVED for r in ob.results)
                                            for ob in obligations)]
        partial = [e for e in names if e not in complete]
        text = "+".join(complete) or "no engine everywhere"
        return text + (f" ({', '.join(partial)} not everywhere)" if partial else "")

    @property
    def cache(self) -> str | None:
        """How many of the certificate's answers came from the verdict cache and
        how many entries were ignored (None: none came from it)."""
        if self.certificate is None:
            return None
        return certificate_cache_use(self.certificate).words

    @property
    def cached(self) -> int:
        """The answers of the certificate that came from the verdict cache."""
        if self.certificate is None:
            return 0
        return certificate_cache_use(self.certificate).reused

    @property
    def cost(self) -> str:
        """The last cost the certificate records, in words (:data:`COSTS`)."""
        if self.certificate is None:
            return "-"
        costs = self.certificate.data.get("cost") or {}
        if not costs:
            return "-"
        label, cost = list(costs.items())[-1]
        heads = ", ".join(map(str, cost.get("heads_per_layer", [])))
        text = f"at {label}: {cost.get('layers')} attention layer(s), heads {heads}"
        if cost.get("uses_length"):
            text += f"; with length: {cost.get('layers_with_length')}"
        return text

    @property
    def counterexample(self) -> str | None:
        if self.certificate is None:
            return None
        for row in self.certificate.data["obligations"]:
            for e in list(row["engines"]) + [row.get("definedness") or {}]:
                cx = e.get("counterexample") if isinstance(e, dict) else None
                if cx:
                    inputs = " ".join(f"{k} = [" + "; ".join(", ".join(r) for r in v) + "]"
                                      for k, v in cx["inputs"].items())
                    return (f"at {shape_label(row['shape'])}: {inputs}; {cx['entry']}: expected "
                            f"{cx['expected']}, got {cx['got']} (replayed {cx['replay']}"
                            + ("; cached, replayed again in its run)" if e.get("cached") is True else ")"))
        return None

    @property
    def provenance(self) -> str:
        if self.certificate is None:
            return "-"
        data = self.certificate.data
        v = data.get("versions", {})
        return (f"usim {v.get('usim')}, sympy {v.get('sympy')}, z3 {v.get('z3')}, flint {v.get('flint')}, "
                f"cvc5 {v.get('cvc5')}; commit {data.get('commit')}; {data.get('digest')}")


def entries(claims: Iterable[Claim], folder: Path) -> list[ClaimEntry]:
    """Every claim with its certificate from ``folder`` (CLAIM.json), checked
    as it is read and against the registry (:func:`usim.registry.read_checked`:
    one that states something else, or an erratum recorded PROVED, is refused)."""
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise InputError(f"the certificates folder {folder} {what} (write one with "
                         "usim prove all --json-dir FOLDER)")
    claims = list(claims)
    found: dict[str, tuple[Certificate, str]] = {}
    every: dict[str, Certificate] = {}
    for path in sorted(list(folder.glob("*.json")) + list(folder.glob("*.json.gz"))):
        for cert in read_checked(str(path), listings=False):
            if "all_sizes" in cert.data:  # usim prove --all-sizes: its verdict for every size
                every[cert.claim_id] = cert
            else:
                found[cert.claim_id] = (cert, path.name)
    if not found:
        raise InputError(f"no certificate in {folder} (write them with usim prove all --json-dir {folder})")
    return [ClaimEntry(c, *found.get(c.id, (None, None)), all_sizes=every.get(c.id)) for c in claims]


SITE_HEADS = 6
"""The most head pictures a claim's page on the site draws (each layer's first, then
the next in turn; the page names the rest and how to draw them all): U's pages
have dozens of heads, and drawing every one made the site minutes long and tens
of megabytes."""


IMAGES = "images"
"""The site's folder of pictures, each stored once under its content's digest."""


def _draw_page(claim_id: str, certificate: str, target: str, images: str) -> str | None:
    """One claim's page, drawn as ``usim show`` draws it (at most :data:`SITE_HEADS`
    heads pictured), as one HTML file whose pictures are stored once in the site's
    ``images`` folder (the whole U's diagram, on every page of a part of U, is one
    file); None, or why there is none."""
    from usim.proofs import get
    from usim.show import render, small_shape

    claim = get(claim_id)
    try:
        drawn = render(claim, small_shape(claim), target, certificate=certificate, most_heads=SITE_HEADS,
                       images=images)
    except InputError as error:  # e.g. matplotlib missing: the page says so
        return str(error)
    for written in drawn.files:  # the pictures are in the shared folder: the page's own would be a second copy
        if written != drawn.html:
            written.unlink()
    return None


def draw_pages(items: list[ClaimEntry], folder: Path, out: Path,
               step: Callable[[str], None] | None = None, jobs: int = 1) -> list[ClaimEntry]:
    """The claim pages of ``usim show`` (a small shape, the certificate's statuses),
    where matplotlib is installed; the entries with their links.

    Args:
        items: the entries.
        folder: the certificates' folder.
        out: the site's folder.
        step: told as each page is done (a progress display).
        jobs: pages drawn at once, each in a process of its own (1: here, one by one).

    Returns:
        The entries, each with its page's link (or a note saying why it has none).
    """
    pages = {item.claim.id: (item.claim.id, str(folder / item.source), str(out / "claims" / item.claim.id),
                             str(out / IMAGES)) for item in items if item.certificate is not None}
    failed: dict[str, str | None] = {}
    if jobs <= 1 or len(pages) <= 1:
        for claim_id, arguments in pages.items():
            failed[claim_id] = _draw_page(*arguments)
            if step is not None:
                step(f"{claim_id}: page drawn")
    else:
        import concurrent.futures
        import multiprocessing

        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            running = {pool.submit(_draw_page, *arguments): claim_id for claim_id, arguments in pages.items()}
            for future in concurrent.futures.as_completed(running):
                failed[running[future]] = future.result()
                if step is not None:
                    step(f"{running[future]}: page drawn")
    done = []
    for item in items:
        if item.claim.id not in pages:
            done.append(item)
        elif failed[item.claim.id] is not None:
            done.append(ClaimEntry(item.claim, item.certificate, item.source, None,
                                   [f"no picture page: {failed[item.claim.id]}"], item.all_sizes))
        else:
            done.append(ClaimEntry(item.claim, item.certificate, item.source,
                                   f"claims/{item.claim.id}/index.html", all_sizes=item.all_sizes))
    return done


TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>usim: {{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; table-layout: fixed; }
th, td { border-bottom: 1px solid #ddd; padding: 0.35em 0.5em; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f4f4f4; }
col.paper { width: 9%; } col.claim { width: 27%; } col.status { width: 17%; } col.bound { width: 13%; }
col.engines { width: 14%; } col.cost { width: 20%; }
.PROVED { color: #116611; font-weight: 600; } .REFUTED { color: #a33; font-weight: 600; }
.UNKNOWN, .VACUOUS, .ERROR, .NONE { color: #b36b00; font-weight: 600; }
.cx { font-family: ui-monospace, monospace; font-size: 0.85em; }
.small { color: #666; font-size: 0.85em; } .outcome { font-weight: normal; }
dt { font-weight: 600; margin-top: 0.4em; } dd { margin-left: 1.5em; }
</style></head>
<body>
<h1>{{ title }}</h1>
<p>Every claim of the paper, as usim states and checks it. Each status is the verdict of the
claim's certificate (its engines' answers; the certificate is checked as it is read), up to the
bound it was run at; under it, what that verdict is relative to the paper. A claim's name links to its
own page: its program's heads, layers and matrices drawn at a small shape.</p>
<details id="reading" open><summary>How to read this table</summary><dl>
<dt>status</dt><dd>PROVED, REFUTED (a counterexample, replayed), UNKNOWN, VACUOUS or ERROR, as the
certificate's engines gave it; NONE: no certificate, nothing shown as proved. Under it, what the
verdict is relative to the paper, one of: {% for name in categories %}<i>{{ outcome[name] }}</i>{% if not loop.last %}; {% endif %}{% endfor %}
(or, where a certificate does not give the expected outcome, NOT the expected outcome, and the one expected).</dd>
<dt>bound</dt><dd>N: every shape with every size at most N is proved (or refuted); "all sizes":
a proof for every size, with its conditions.</dd>
<dt>shapes</dt><dd>{{ shapes }}</dd>
<dt>engines</dt><dd>The engines that proved every obligation; answers an engine gave in an earlier run,
reused from the verdict cache, are counted under them (a release certificate is made without the cache).</dd>
<dt>cost</dt><dd>{{ costs }}</dd>
</dl></details>
<p class="small">{{ summary }}. Built {{ built }} from the certificates in <code>{{ folder }}</code>.</p>
<table id="claims">
<colgroup><col class="paper"><col class="claim"><col class="status"><col class="bound"><col class="engines"><col class="cost"></colgroup>
<thead><tr><th>paper</th><th>claim</th><th>status</th><th>bound</th><th>engines</th><th>cost</th></tr></thead>
<tbody>
{% for e in items %}<tr id="claim-{{ e.claim.id }}" data-claim="{{ e.claim.id }}" data-status="{{ e.status }}" data-cached="{{ e.cached }}">
<td>{{ e.claim.paper }}</td>
<td>{% if e.page %}<a href="{{ e.page }}" title="{{ e.claim.statement }}"><code>{{ e.claim.id }}</code></a>{% else %}<code title="{{ e.claim.statement }}">{{ e.claim.id }}</code>{% endif %}<br><span class="small">{{ e.claim.title }}</span></td>
<td class="{{ e.status }}">{{ e.status }}<br><span class="small outcome">{{ e.outcome }}</span></td>
<td>{{ e.bound }}</td>
<td>{{ e.engines }}{% if e.cache %}<br><span class="small cached">{{ e.cache }} (marked cached in the certificate)</span>{% endif %}</td>
<td>{{ e.cost }}</td>
</tr>
{% if e.counterexample %}<tr class="erratum"><td></td><td colspan="5" class="cx">counterexample {{ e.counterexample }}</td></tr>{% endif %}
{% for note in e.notes %}<tr><td></td><td colspan="5" class="small">{{ note }}</td></tr>{% endfor %}
{% endfor %}
</tbody></table>
<h2>Provenance</h2>
<p class="small">Each certificate records the versions of usim and of every solver, the commit of usim it ran
(the checkout's, or the one an installed usim was built from; "unknown": built from a tree without git),
and its digest (the sha256 of the rest: it detects damage and an edit not re-sealed, it is not a signature).</p>
<table id="provenance"><colgroup><col style="width: 18%"><col style="width: 22%"><col></colgroup>
<thead><tr><th>claim</th><th>certificate</th><th>versions, commit, digest</th></tr></thead><tbody>
{% for e in items %}{% if e.certificate %}<tr><td><code>{{ e.claim.id }}</code></td><td>{{ e.source }}</td><td class="small">{{ e.provenance }}</td></tr>{% endif %}
{% endfor %}</tbody></table>
</body></html>
"""


def render_site(items: list[ClaimEntry], folder: Path, out: Path) -> Path:
    """Write ``out/index.html`` (and nothing else); return its path."""
    from jinja2 import Environment

    template = Environment(autoescape=True).from_string(TEMPLATE)
    proved = sum(e.as_expected for e in items)
    text = template.render(
        title="On the Existence of Universal Simulators of Attention (arXiv 2506.18739): every claim",
        categories=CATEGORIES, outcome=OUTCOME, shapes=SHAPES, costs=COSTS, items=items, folder=str(folder),
        summary=f"{len(items)} claims; {proved} with their expected outcome; "
                f"{sum(e.certificate is None for e in items)} without a certificate",
        built=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    index = out / "index.html"
    index.write_text(text)
    return index


def build_site(claims: Iterable[Claim], folder: Path, out: Path, pictures: bool = True,
               display: Callable[[int], Any] | None = None, jobs: int = 1) -> Path:
    """The whole page (and, with ``pictures``, every claim's own page).

    Args:
        claims: the registered claims.
        folder: the certificates' folder.
        out: the site's folder (created).
        pictures: draw every certified claim's page.
        display: given the number of pages, a context manager with a
            ``step(description)`` (:class:`usim.progress.StepsDisplay`); None: none.
        jobs: pages drawn at once (:func:`draw_pages`).

    Returns:
        The index page's path.
    """
    items = entries(claims, folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the folder {out}: {error.strerror}") from None
    if pictures:
        pages = sum(e.certificate is not None for e in items)
        if display is None:
            items = draw_pages(items, folder, out, jobs=jobs)
        else:
            with display(pages) as shown:
                items = draw_pages(items, folder, out, shown.step, jobs=jobs)
    return render_site(items, folder, out)
