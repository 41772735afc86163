"""What ``usim prove`` shows while it runs, and the line it prints per claim.

On a terminal (standard error is one), a live display drawn by ``rich``:
claims done out of all, the current claim and obligation, its tasks done out of
all, the time elapsed and the time left. Elsewhere (a CI log, a pipe) nothing
moves: besides the stable line per claim that is always printed (on standard
output), a long claim writes a heartbeat on standard error at most every
``HEARTBEAT`` seconds: its obligations built, then its tasks done out of all,
how many came from the cache, the last one finished, the time since the claim
started. With ``verbose``, one line per
task as well. rich draws the display because it
handles what hand-written escape codes get wrong (terminal width, redrawing
under other output, Ctrl-C).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from usim.engine.runner import ClaimReport, Progress


def claim_line(report: "ClaimReport") -> str:
    """One line for a finished claim, at most 100 columns."""
    from usim.engine.claim import Status

    claim, status = report.claim, report.status
    count = len(report.results)
    if claim.is_erratum:
        outcome = "REFUTED, erratum" if status is Status.REFUTED else f"{status.value}, NOT refuted"
    elif status is Status.PROVED:
        outcome = "PROVED"
    else:
        outcome = f"{status.value} ({count - report.count(Status.PROVED)} not)"
    text = (f"{claim.id:<22} {outcome:<17} N={report.max_n:<3}{count:>5} obligation(s)  "
            f"{'+'.join(report.engines):<20}{report.seconds:7.1f} s")
    return text[:100]


HEARTBEAT = 30.0
"""Seconds between two heartbeat lines of a run that has no live display."""


def heartbeat_line(p: "Progress", cached: int, elapsed: float) -> str:
    """Where a claim is: obligations built, or tasks done of all, cache hits and the
    last task; the time since the claim started."""
    minutes, seconds = divmod(int(elapsed), 60)
    if p.kind == "building":
        return (f"... {p.claim_id}: {p.done}/{p.total} obligations built, building {p.label}; "
                f"{minutes}m{seconds:02d}s")
    hits = f", {cached} from the cache" if cached else ""
    return (f"... {p.claim_id}: {p.done}/{p.total} tasks done{hits}; last {p.label} ({p.engine}); "
            f"{minutes}m{seconds:02d}s")


class ProveDisplay:
    """The progress of a run of several claims (a context manager)."""

    def __init__(self, claims: int, quiet: bool = False, verbose: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.claims, self.verbose, self.quiet = claims, verbose, quiet
        self.live = sys.stderr.isatty() and not quiet
        self.finished = 0
        self.cached = 0
        self._clock = clock
        self._claim: str | None = None  # the claim under way, its start, the last heartbeat
        self._started = self._last_beat = clock()
        self._progress = None
        self._overall = self._current = None

    def __enter__(self) -> "ProveDisplay":
        if self.live:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), TimeRemainingColumn(),
                                      console=Console(stderr=True), transient=True,
                                      redirect_stdout=False, redirect_stderr=False)
            self._progress.__enter__()
            self._overall = self._progress.add_task("claims", total=self.claims)
            self._current = self._progress.add_task("", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def say(self, line: str) -> None:
        """A line on standard output: above the live display when both are the
        same terminal, else plainly (a redirected output gets no escape codes)."""
        if self._progress is not None and sys.stdout.isatty():
            self._progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, flush=True)

    def event(self, p: "Progress") -> None:
        if p.claim_id != self._claim:
            self._claim, self._started = p.claim_id, self._clock()
            self._last_beat = self._started
        if p.kind == "running":
            self.cached = 0
        elif p.kind == "done" and p.cached:
            self.cached += 1
        if p.kind in ("building", "done") and not self.live and not self.quiet and not self.verbose:
            now = self._clock()
            if now - self._last_beat >= HEARTBEAT and p.done < p.total:
                self._last_beat = now
                print(heartbeat_line(p, self.cached, now - self._started), file=sys.stderr, flush=True)
        if self._progress is not None:
            if p.kind == "building":
                self._progress.update(self._current, description=f"{p.claim_id}: building {p.label}",
                                      completed=p.done, total=p.total)
            elif p.kind == "running":
                self._progress.update(self._current, description=f"{p.claim_id}: proving", completed=0,
                                      total=p.total)
            else:
                hits = f" ({self.cached} from cache)" if self.cached else ""
                self._progress.update(self._current, description=f"{p.claim_id} {p.label}: {p.engine}{hits}",
                                      completed=p.done, total=p.total)
        if self.verbose and p.kind == "done":
            self.say(f"  [{p.done}/{p.total}] {p.claim_id} {p.label}: {p.engine} "
                     f"{p.status.value if p.status else '?'} "
                     + ("(cached)" if p.cached else f"({p.seconds:.2f} s)"))

    def claim_done(self, report: "ClaimReport") -> None:
        self.finished += 1
        self._claim = None
        if self._progress is not None:
            self._progress.update(self._overall, completed=self.finished)
        self.say(claim_line(report))


class StepsDisplay:
    """The progress of a run of like steps (``usim site``'s claim pages): a live
    bar on a terminal, else one line per step on standard error (a context manager).

    Args:
        total: how many steps.
        what: what a step is, for the bar ("claim pages").
        quiet: show nothing.
    """

    def __init__(self, total: int, what: str, quiet: bool = False) -> None:
        self.total, self.what, self.quiet = total, what, quiet
        self.done = 0
        self._progress = None
        self._task = None

    def __enter__(self) -> "StepsDisplay":
        if sys.stderr.isatty() and not self.quiet:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._progress.__enter__()
            self._task = self._progress.add_task(self.what, total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def step(self, description: str) -> None:
        """One step is done.

        Args:
            description: what it did ("lemma3: page drawn").
        """
        self.done += 1
        if self._progress is not None:
            self._progress.update(self._task, description=f"{self.what}: {description}", completed=self.done)
        elif not self.quiet:
            print(f"[{self.done}/{self.total}] {description}", file=sys.stderr, flush=True)


def summary(reports: Sequence["ClaimReport"], seconds: float) -> str:
    """The closing line: how many claims ended as expected."""
    from usim.engine.claim import Status

    proved = sum(r.status is Status.PROVED and not r.claim.is_erratum for r in reports)
    errata = sum(r.status is Status.REFUTED and r.claim.is_erratum for r in reports)
    wrong = [r.claim.id for r in reports if r.status is not r.claim.expected]
    obligations = sum(len(r.results) for r in reports)
    text = (f"{len(reports)} claim(s), {obligations} obligation(s) in {seconds:.1f} s: {proved} PROVED, "
            f"{errata} erratum(s) REFUTED as expected")
    cached = sum(r.cached for r in reports)
    ignored: dict[str, int] = {}
    for r in reports:
        for reason, n in r.cache_use.why().items():
            ignored[reason] = ignored.get(reason, 0) + n
    if cached or ignored:
        from usim.render import cache_words

        text += f" ({cache_words(cached, sum(len(r.answers()) for r in reports), ignored)})"
    return text + (f"; NOT as expected: {', '.join(wrong)}" if wrong else "; all as expected")
