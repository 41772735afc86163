"""``usim check`` builds the spec's target under the deadline too (issue 30, part 3).

Before: the spec function was called, and the statement built on the input's
symbols, in ``usim check``'s own process before any engine's child was forked,
with no deadline: a target whose sympy folds grow exponentially with the length
(tracr's shuffle-Dyck over ``(){}`` at length 2) gave no answer after 236 s with
``--timeout 60``. The same held for the replay of the file's examples against
the spec. Now both run in a child under the engines' deadline and are killed
past it: the shape is UNKNOWN, saying what took too long, and the check goes on.

The specs here sleep where a real one would fold Piecewise for minutes.
"""

from __future__ import annotations

import subprocess
import sys
import threading

LISTING = """\
def copy() {
    return aggregate(select(indices, indices, ==), tokens);
}
"""

SPEC = '''\
import time

from usim.listings.user_spec import spec


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, max_n=2)
def slow_target(x, n):
    """the entries as they are; slow to state from length 2 on"""
    if n >= 2:
        time.sleep(600)
    return x


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, max_n=2)
def slow_on_the_example(x):
    """the entries as they are; slow on the example's input (no random input is that large)"""
    if list(x) == [97, 98]:
        time.sleep(600)
    return x
'''

BOUND = 60.0
"""Seconds of wall time past which the command counts as not stopping: a
generous failure bound (the deadline here is 2 * 1.5 + 5 s, or 0.01 * 1.5 + 5 s
for the examples), not a target."""


def _check(tmp_path, listing: str, name: str) -> subprocess.CompletedProcess:
    (tmp_path / "copy.rasp").write_text(listing)
    (tmp_path / "copy_spec.py").write_text(SPEC)
    argv = [sys.executable, "-P", "-m", "usim", "check", str(tmp_path / "copy.rasp"), "--function", "copy",
            "--spec-file", f"{tmp_path / 'copy_spec.py'}:{name}", "--timeout", "2"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=BOUND)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_a_target_slow_to_build_is_unknown_at_its_shape_and_the_others_are_proved(tmp_path):
    done = _check(tmp_path, LISTING, "slow_target")
    assert done.returncode == 1, done.stdout + done.stderr  # not every shape proved
    assert "shape 1: PROVED" in done.stdout, done.stdout
    assert ("shape 2: UNKNOWN: building the target and preconditions took longer than the 2 s timeout: "
            "killed after") in done.stdout, done.stdout
    assert "1 PROVED, 0 REFUTED, 1 UNKNOWN" in done.stdout, done.stdout


def test_an_example_slow_to_replay_against_the_spec_fails_at_its_shape(tmp_path):
    from usim.listings.examples import run_examples
    from usim.listings.plan import plan_shapes
    from usim.listings.user_spec import load_spec_text
    from usim.repl import load_text

    spec = load_spec_text(SPEC, "slow_on_the_example", "copy_spec.py")
    rasp = load_text("set example [97, 98]\n\n" + LISTING, "copy.rasp", False, None)
    plan = plan_shapes(rasp, "copy", spec, None, None)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(run_examples(rasp, "copy", spec, plan, "zero", 0.01)),
                              daemon=True)
    worker.start()
    worker.join(BOUND)
    assert done, "the examples' replay did not stop"
    [run] = done[0]
    [at] = run.shapes
    assert at.shape == (2,) and at.counterexample is None, at
    assert at.error.startswith("replaying the example against the spec took longer than the 0.01 s timeout: "
                               "killed after"), at.error
