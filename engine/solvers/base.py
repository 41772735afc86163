"""What every engine is and shares: the contract, the clock.

An engine answers one question about an obligation: "for every input in the
domain satisfying the preconditions, does the construction's output sequence
equal the target sequence?" It answers PROVED only with a proof of that,
REFUTED only with a counterexample replayed by
:func:`usim.engine.replay.replay`, VACUOUS when no input meets the
preconditions (a finite domain), UNKNOWN otherwise: a timeout is UNKNOWN.
Engines check the clock between positions; the runner also kills an engine
that overruns its deadline.

A new engine is a subclass of :class:`Engine` in a module of its own under
``engine/solvers/`` and one row of :data:`usim.engine.engines.ENGINES` (its
name also in :data:`usim.engine.options.ENGINE_NAMES`, which the command
line's help reads without loading a solver).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Callable, ClassVar

from usim.engine.claim import EngineResult, Obligation

EngineCheck = Callable[[Obligation, float], EngineResult]
"""What the runner calls: an obligation and a timeout in seconds to a result."""


class Clock:
    """The seconds an engine has used of its ``timeout``, from its creation."""

    def __init__(self, timeout: float) -> None:
        self.start = time.perf_counter()
        self.timeout = timeout

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    @property
    def expired(self) -> bool:
        return self.elapsed > self.timeout


class Engine(ABC):
    """An equality engine: :attr:`name` (its key in the table of engines and
    the ``engine`` of its results) and :meth:`check`; calling the engine
    checks, so an engine is an :data:`EngineCheck`."""

    name: ClassVar[str]

    def available(self) -> bool:
        """Whether the engine's solver is installed (an optional one answers
        UNKNOWN when it is not).

        Returns:
            True unless the solver is missing.
        """
        return True

    @abstractmethod
    def check(self, ob: Obligation, timeout: float) -> EngineResult:
        """The engine's answer on ``ob``'s equality.

        Args:
            ob: the obligation.
            timeout: seconds; past them the answer is UNKNOWN.

        Returns:
            PROVED, REFUTED (with its replayed counterexample), VACUOUS or
            UNKNOWN, named :attr:`name`.
        """

    def __call__(self, ob: Obligation, timeout: float) -> EngineResult:
        return self.check(ob, timeout)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
