"""``usim check`` honours ``--timeout``: each engine runs in a child process
under the runner's deadline and is killed past it (UNKNOWN), as in ``usim prove``.

Before: ``usim check`` ran its engines in its own process and looked at the
clock only between steps. A sort of distinct reals (each key's place is the
number of smaller keys, one head moves it there) was PROVED to length 3 in
seconds; at length 4 sympy's canonical comparison never looked at the clock,
and the command was still running after 300 s with 60 s per engine.
"""

from __future__ import annotations

import subprocess
import sys

LISTING = """\
set example [3, 1, 2]

def sort_distinct() {
    place = selector_width(select(tokens, tokens, <));
    return aggregate(select(place, indices, ==), tokens);
}
"""

SPEC = '''\
import sympy

from usim.listings.user_spec import spec


def _distinct(x):
    return [sympy.Ne(x[0, i], x[0, j]) for i in range(x.cols) for j in range(i + 1, x.cols)]


@spec(inputs={"x": (1, "n")}, outputs={"y": (1, "n")}, preconditions=_distinct)
def sort_distinct(x):
    """the entries in ascending order (distinct reals): a min/max sorting network"""
    row = [x[0, j] for j in range(x.cols)]
    for sweep in range(len(row)):
        for j in range(sweep % 2, len(row) - 1, 2):
            row[j], row[j + 1] = sympy.Min(row[j], row[j + 1]), sympy.Max(row[j], row[j + 1])
    return sympy.Matrix([row])
'''

BOUND = 60.0
"""Seconds of wall time past which the command counts as not stopping: a
generous failure bound (the deadline here is 1 * 1.5 + 5 s), not a target."""


def test_an_engine_that_never_looks_at_the_clock_is_killed_at_the_deadline(tmp_path):
    (tmp_path / "sort.rasp").write_text(LISTING)
    (tmp_path / "sort_spec.py").write_text(SPEC)
    argv = [sys.executable, "-P", "-m", "usim", "check", str(tmp_path / "sort.rasp"), "--function",
            "sort_distinct", "--spec-file", f"{tmp_path / 'sort_spec.py'}:sort_distinct", "--shape", "4",
            "--engine", "sympy", "--timeout", "1"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=BOUND)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr  # not proved
    assert "shape 4: UNKNOWN (sympy UNKNOWN" in done.stdout, done.stdout
    assert "sympy: timeout: killed after" in done.stdout
    assert "1 shape(s): 0 PROVED, 0 REFUTED, 1 UNKNOWN" in done.stdout
