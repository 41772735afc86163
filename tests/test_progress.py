"""What usim prove shows while it runs, away from a terminal: a heartbeat on long claims."""

from __future__ import annotations

from usim.engine.claim import Status
from usim.engine.runner import Progress
from usim.progress import HEARTBEAT, ProveDisplay, heartbeat_line


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _done(i: int, total: int, cached: bool = False) -> Progress:
    return Progress("theorem6", "done", f"4x0x0x{i}", engine="sympy", status=Status.PROVED, seconds=1.0,
                    done=i, total=total, cached=cached)


def _run(display: ProveDisplay, clock: Clock, total: int, step: float) -> None:
    display.event(Progress("theorem6", "running", "", total=total))
    for i in range(1, total + 1):
        clock.now += step
        display.event(_done(i, total, cached=i % 2 == 0))


def test_a_long_claim_writes_a_heartbeat_at_most_every_interval_on_standard_error(capsys):
    clock = Clock()
    display = ProveDisplay(1, clock=clock)  # under pytest standard error is no terminal
    _run(display, clock, total=10, step=HEARTBEAT / 2)
    out, err = capsys.readouterr()
    beats = err.splitlines()
    assert out == ""
    assert len(beats) == 4  # at 30, 60, 90, 120 s; none at the last task (the claim line follows)
    assert beats[0] == "... theorem6: 2/10 tasks done, 1 from the cache; last 4x0x0x2 (sympy); 0m30s"
    assert beats[-1].endswith("2m00s")


def test_a_short_claim_and_a_quiet_or_verbose_run_write_no_heartbeat(capsys):
    clock = Clock()
    _run(ProveDisplay(1, clock=clock), clock, total=10, step=1.0)
    _run(ProveDisplay(1, quiet=True, clock=clock), clock, total=10, step=HEARTBEAT)
    assert capsys.readouterr().err == ""


def test_building_the_obligations_beats_too_and_the_time_counts_from_the_claims_start(capsys):
    clock = Clock()
    display = ProveDisplay(1, clock=clock)
    for i in range(4):  # as the runner says it: before building each obligation, 20 s each
        display.event(Progress("theorem6", "building", f"4x0x0x{i + 1}", done=i, total=4))
        clock.now += 20
    _run(display, clock, total=4, step=HEARTBEAT)
    beats = capsys.readouterr().err.splitlines()
    assert beats[0] == "... theorem6: 2/4 obligations built, building 4x0x0x3; 0m40s"
    assert beats[1] == "... theorem6: 1/4 tasks done; last 4x0x0x1 (sympy); 1m50s"


def test_the_heartbeat_line_counts_from_the_claims_start():
    line = heartbeat_line(_done(3, 7), cached=0, elapsed=125.0)
    assert line == "... theorem6: 3/7 tasks done; last 4x0x0x3 (sympy); 2m05s"


def test_a_run_of_steps_off_a_terminal_says_each_step_on_standard_error(capsys):
    """usim site drew for minutes and printed nothing (issue 27): one line per page."""
    from usim.progress import StepsDisplay

    with StepsDisplay(2, "claim pages") as shown:
        shown.step("lemma3: page drawn")
        shown.step("relu: page drawn")
    captured = capsys.readouterr()
    assert captured.err.splitlines() == ["[1/2] lemma3: page drawn", "[2/2] relu: page drawn"]
    assert captured.out == ""
    with StepsDisplay(1, "claim pages", quiet=True) as shown:
        shown.step("lemma3: page drawn")
    assert capsys.readouterr().err == ""
