"""Obligations on a Dask cluster: the same verdicts and certificate as the local
pool, the same deadline and hard kill on a worker, workers that die are
replaced, and a worker's verdict counts only for the statement that was sent
from the same usim.

The cluster tests run against a ``distributed.LocalCluster`` (2 worker
processes of 1 thread); they skip where Dask is not installed. The checks of
what arrives need no cluster.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from usim.cli import main
from usim.engine.claim import EngineResult, Status
from usim.engine.cluster import ClusterDispatch, ClusterError, RemoteResult, RemoteTask, accept, check_workers, run_remote
from usim.engine.identity import identity
from usim.engine.runner import prove_claim
from usim.engine.statement import fingerprint
from usim.proofs import get, registered_obligation

needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason='Dask is not installed: pip install ".[dask]" to run the cluster tests')

KEY = ((2, 2), None)


def _task(engine: str = "z3", timeout: float = 30.0, print_: str | None = None) -> RemoteTask:
    ob = get("lemma3").obligation(KEY[0])
    return RemoteTask("lemma3", KEY, engine, timeout, print_ or fingerprint(ob), registered_obligation)


def _proved(engine: str = "z3") -> EngineResult:
    return EngineResult(engine, Status.PROVED, 0.1, "every position simplifies to the target")


# -- what arrives is checked (no cluster needed) ----------------------------------

def test_an_answer_from_the_same_usim_on_the_same_statement_gives_its_verdict():
    task = _task()
    answer = RemoteResult(KEY, "z3", "w", identity(), task.fingerprint, _proved())
    assert accept(task, answer, identity()).status is Status.PROVED


def test_a_worker_that_built_another_statement_contributes_no_verdict():
    task = _task()
    answer = RemoteResult(KEY, "z3", "w", identity(), "0" * 64, _proved())
    result = accept(task, answer, identity())
    assert result.status is Status.ERROR and "built another statement" in result.detail


def test_a_worker_with_another_usim_or_solver_contributes_no_verdict():
    task = _task()
    for name in ("usim source", "z3", "python"):
        theirs = tuple((k, "other" if k == name else v) for k, v in identity())
        result = accept(task, RemoteResult(KEY, "z3", "w", theirs, task.fingerprint, _proved()), identity())
        assert result.status is Status.ERROR and f"{name} other" in result.detail


@pytest.mark.parametrize("answer", [
    None,
    "PROVED",
    RemoteResult(((1, 1), None), "z3", "w", (), "x", _proved()),  # another obligation
    RemoteResult(KEY, "sympy", "w", (), "x", _proved("sympy")),  # another engine
])
def test_an_answer_to_another_task_or_not_an_answer_is_an_error(answer):
    assert accept(_task(), answer, identity()).status is Status.ERROR


def test_a_malformed_result_is_an_error_not_a_verdict():
    task = _task()
    for result in ("PROVED", EngineResult("sympy", Status.PROVED, 0.1), EngineResult("z3", "PROVED", 0.1)):
        answer = RemoteResult(KEY, "z3", "w", identity(), task.fingerprint, result)
        assert accept(task, answer, identity()).status is Status.ERROR


def test_run_remote_rebuilds_the_obligation_and_runs_the_engine_in_a_child():
    answer = run_remote(_task())
    assert answer.fingerprint == _task().fingerprint and answer.identity == identity()
    assert answer.result.status is Status.PROVED


def test_run_remote_does_not_run_an_engine_on_another_statement():
    answer = run_remote(_task(print_="0" * 64))
    assert answer.result.status is Status.ERROR and answer.result.seconds == 0.0
    assert "built another statement" in accept(_task(print_="0" * 64), answer, identity()).detail


def test_a_claim_the_worker_cannot_build_is_an_error_that_says_why():
    task = dataclasses.replace(_task(), claim_id="no_such_claim")
    answer = run_remote(task)
    assert answer.fingerprint is None
    result = accept(task, answer, identity())
    assert result.status is Status.ERROR and "no claim 'no_such_claim'" in result.detail


def test_usim_prove_without_dask_or_with_an_empty_address_says_so_in_one_line(monkeypatch, capsys):
    assert main(["prove", "lemma3", "--max-n", "1", "--cluster", " "]) == 2
    assert "--cluster needs the scheduler's address" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    assert main(["prove", "lemma3", "--max-n", "1", "--cluster", "tcp://127.0.0.1:8786"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "usim[dask]"' in err


# -- on a local cluster -------------------------------------------------------------

def _hang(ob, timeout):
    time.sleep(600)  # a solver that never watches its clock
    return EngineResult("hang", Status.PROVED, 600.0)


def _slow(folder, ob, timeout):
    with open(Path(folder) / "started", "a") as log:  # who runs it: this child and its worker
        log.write(f"{os.getpid()} {os.getppid()}\n")
    time.sleep(4)
    return EngineResult("slow", Status.UNKNOWN, 4.0, "slept 4 s")


@pytest.fixture(scope="module")
def engines_folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("engines")


@pytest.fixture(scope="module")
def client(engines_folder):
    pytest.importorskip("distributed", reason='Dask is not installed: pip install ".[dask]"')
    import cloudpickle
    from distributed import Client, LocalCluster
    from distributed.diagnostics.plugin import WorkerPlugin

    class TestEngines(WorkerPlugin):
        """Engines that only tests have, on every worker (also on one that the
        nanny starts in place of a killed one)."""

        name = "usim-test-engines"

        def __init__(self, folder: str) -> None:
            self.folder = folder

        def setup(self, worker) -> None:
            from usim.engine.engines import ENGINES

            ENGINES["hang"] = _hang
            ENGINES["slow"] = functools.partial(_slow, self.folder)

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the test engines travel by value
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local, \
            Client(local) as c:
        c.register_plugin(TestEngines(str(engines_folder)))
        yield c


def _pids(client) -> dict[str, int]:
    return client.run(os.getpid)


def _without_times(data):
    """A certificate without what differs from run to run: times, dates, digest,
    commit, and how the run used the verdict cache (``verdict_cache``)."""
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items()
                if k not in ("seconds", "created", "digest", "commit", "verdict_cache")}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


@needs_dask
def test_usim_prove_on_a_cluster_writes_the_certificate_of_a_local_run(client, tmp_path, capsys):
    """Lemma 5 and its broken variants: proofs, refutations with replayed
    counterexamples, mutants right at some shapes; one local process gives
    each obligation's engines in the order of its tasks, as the cluster does."""
    address = client.scheduler.address
    remote, local = tmp_path / "remote.json", tmp_path / "local.json"
    assert main(["prove", "lemma5", "--max-n", "2", "--mutants", "-q", "--cluster", address,
                 "--json", str(remote)]) == 0
    assert f"on the cluster at {address}: 2 worker(s), 2 thread(s)" in capsys.readouterr().out
    assert main(["prove", "lemma5", "--max-n", "2", "--mutants", "-q", "--jobs", "1", "--no-cache", "--json", str(local)]) == 0
    remote_data, local_data = json.loads(remote.read_text()), json.loads(local.read_text())
    assert _without_times(remote_data) == _without_times(local_data)
    assert main(["report", str(remote)]) == 0  # a valid, unedited certificate


@needs_dask
def test_a_claim_outside_the_registry_is_sent_by_value_and_proved(client):
    claim = dataclasses.replace(get("lemma3"), id="lemma3_copy")
    local = prove_claim(claim, 2, timeout=30, jobs=2)
    remote = prove_claim(claim, 2, timeout=30, dispatch=ClusterDispatch(client))
    assert remote.status is Status.PROVED
    assert [(r.shape, r.status, r.fingerprint) for r in remote.results] == \
        [(r.shape, r.status, r.fingerprint) for r in local.results]


@needs_dask
def test_a_client_whose_statement_differs_from_the_workers_gets_errors_not_verdicts(client):
    """Here the client's lemma3 is the off-by-one transpose while the workers'
    registry has the right one: no worker's verdict may count for it."""
    lemma3 = get("lemma3")
    claim = dataclasses.replace(lemma3, obligation=lemma3.mutants["off-by-one"])
    report = prove_claim(claim, 2, timeout=30, dispatch=ClusterDispatch(client, registered_obligation))
    assert report.status is Status.ERROR
    for row in report.results:
        assert all(r.status is Status.ERROR and "built another statement" in r.detail for r in row.results)


def _pretend_another_usim() -> None:
    from usim.engine import identity as on_worker

    other = tuple((k, "0" * 16 if k == "usim source" else v) for k, v in on_worker.identity())
    on_worker.real_identity, on_worker.identity = on_worker.identity, lambda: other


def _be_this_usim_again() -> None:
    from usim.engine import identity as on_worker

    on_worker.identity = on_worker.real_identity


@needs_dask
def test_workers_that_run_another_usim_are_refused_and_their_verdicts_unused(client):
    client.run(_pretend_another_usim)
    try:
        with pytest.raises(ClusterError, match=r"worker tcp://\S+ runs another usim or other solvers: usim source"):
            check_workers(client)
        report = prove_claim(get("lemma3"), 1, timeout=30, dispatch=ClusterDispatch(client, registered_obligation))
    finally:
        client.run(_be_this_usim_again)
    assert report.status is Status.ERROR
    assert all("runs another usim" in r.detail for row in report.results for r in row.results)
    check_workers(client)  # the same usim again: accepted


@needs_dask
def test_a_task_past_its_deadline_on_a_worker_is_killed_unknown_and_the_worker_serves_the_next(client):
    pids = _pids(client)
    start = time.perf_counter()
    answer = client.submit(run_remote, _task("hang", timeout=0.01), pure=False).result(timeout=120)
    assert accept(_task("hang", timeout=0.01), answer, identity()).status is Status.UNKNOWN
    assert "timeout: killed after" in answer.result.detail and time.perf_counter() - start < 60
    assert _pids(client) == pids  # no worker was lost or restarted
    following = client.submit(run_remote, _task("z3"), workers=[answer.worker], pure=False).result(timeout=120)
    assert following.worker == answer.worker and following.result.status is Status.PROVED


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # a zombie nobody reaps has stopped running


@needs_dask
def test_a_worker_killed_mid_run_is_replaced_and_the_task_runs_again_elsewhere(client, engines_folder):
    log = engines_folder / "started"
    log.unlink(missing_ok=True)
    future = client.submit(run_remote, _task("slow"), pure=False)
    deadline = time.perf_counter() + 60
    while not (log.exists() and log.read_text().strip()):
        assert time.perf_counter() < deadline, "the task never started"
        time.sleep(0.1)
    child, worker = map(int, log.read_text().split())
    os.kill(worker, signal.SIGKILL)
    answer = future.result(timeout=120)
    assert answer.result.detail == "slept 4 s"
    runs = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    assert len(runs) == 2 and runs[1][1] != worker  # run again, by another worker process
    deadline = time.perf_counter() + 10
    while not _gone(child):  # the engine child died with its worker
        assert time.perf_counter() < deadline, "the killed worker's engine child still runs"
        time.sleep(0.1)
    client.wait_for_workers(2, timeout=60)  # the nanny replaced the killed worker


class _Ended:
    """A future as the client sees it once the cluster is done with it."""

    def __init__(self, status: str, error: BaseException | None = None) -> None:
        self.status, self.error = status, error

    def exception(self) -> BaseException | None:
        return self.error


@needs_dask
def test_a_task_whose_workers_all_died_is_an_error_and_a_cancelled_run_stops_with_one_line():
    from distributed.scheduler import KilledWorker

    dispatch = ClusterDispatch(client=None)
    died = dispatch._receive(_task(), _Ended("error", KilledWorker("task", "tcp://w", 3)))
    assert died.status is Status.ERROR and "died without a result" in died.detail
    failed = dispatch._receive(_task(), _Ended("error", ModuleNotFoundError("No module named 'usim'")))
    assert failed.status is Status.ERROR and "No module named 'usim'" in failed.detail
    with pytest.raises(ClusterError, match="cancelled lemma3 2x2"):
        dispatch._receive(_task(), _Ended("cancelled"))


def test_no_task_left_to_run_sends_nothing():
    heard = []
    assert ClusterDispatch(client=None)("lemma3", [], {}, 1.0, lambda *a: heard.append(a)) == {} and not heard
