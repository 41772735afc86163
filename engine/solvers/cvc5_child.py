"""The cvc5 child process: reads an SMT-LIB script on stdin, prints one answer a line.

The cvc5 engine runs this module's source in a child Python process
(``python -c``, :func:`usim.engine.solvers.cvc5_engine.run_cvc5_script`),
so that a cvc5 that ignores its own time limit is killed at the deadline.
An answer is "unsat", "unknown", or "sat" followed by the model as JSON (the
declared constants' values, as exact rationals where cvc5 has them). It
imports nothing of usim: a child starts with cvc5 alone.
"""

import json
import sys


def _answer(line: str) -> None:
    """One answer to the engine, flushed: the answers before a kill at the deadline still reach it."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    """Answer every command of the SMT-LIB script on stdin, one line each."""
    try:  # die with the engine process that started us (Linux), even if it is killed
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    import cvc5
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("produce-models", "true")
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.stdin.read(), "obligation")
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        answer = command.invoke(solver, symbols).strip()
        if answer == "sat":  # the model, as exact rationals where cvc5 has them
            model = {}
            for term in symbols.getDeclaredTerms():
                value = solver.getValue(term)
                if value.isRealValue():
                    model[str(term).strip("|")] = str(value.getRealValue())
            _answer("sat " + json.dumps(model))
        elif answer:
            _answer(answer)


if __name__ == "__main__":
    main()
