"""The time limit of a call in ``%%comprobar``, without POSIX signals (Windows has none): a watchdog thread stops it.

Each test can fail: a stop that never comes hangs the call, so the calls that could hang run in a thread that
the test waits for (``within``); a stop that comes too late raises in the code that runs after the call.
"""

import signal
import sys
import threading
import time

import pytest
import torch

from gradientes import selfcheck
from gradientes.checks import CALL_LIMIT, CheckFailure

# What Windows's ``signal`` module lacks and the time limit once used.
POSIX_TIMERS = ("SIGALRM", "ITIMER_REAL", "setitimer", "getitimer", "alarm")


@pytest.fixture
def without_signals(monkeypatch):
    for name in POSIX_TIMERS:
        monkeypatch.delattr(signal, name)


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(selfcheck, "CALL_LIMIT", 0.2)


def student(source, name):
    """``name``, defined by ``source`` in the student's notebook, wrapped as ``%%comprobar`` wraps it."""
    notebook = {"__name__": "__main__"}
    exec(source, notebook)
    return selfcheck.LocalStudentFunction(notebook[name])


def busy(seconds):
    """Run bytecode for ``seconds``: the exception that arrived meanwhile, or None."""
    end = time.perf_counter() + seconds
    try:
        while time.perf_counter() < end:
            pass
    except BaseException as error:
        return error
    return None


def within(seconds, call):
    """``call()`` in a thread: what it returned or raised, and how long it took; fails if it is not done in time."""
    outcome = {}

    def run():
        started = time.perf_counter()
        try:
            outcome["value"] = call()
        except BaseException as error:
            outcome["error"] = error
        outcome["seconds"] = time.perf_counter() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"la llamada sigue en marcha después de {seconds} s"
    return outcome


ENDLESS = "def atascada(x):\n    while True:\n        pass\n"


def test_an_endless_loop_stops_at_the_limit_with_the_spanish_message(without_signals):
    stuck = student(ENDLESS, "atascada")
    started = time.perf_counter()
    with pytest.raises(CheckFailure, match=r"^atascada\(1\) no terminó dentro del tiempo límite \(5 s\)\."):
        stuck(1)
    assert CALL_LIMIT <= time.perf_counter() - started < CALL_LIMIT + 2


def test_the_limit_holds_in_a_thread_other_than_the_main_one(without_signals, short_limit):
    outcome = within(10, lambda: student(ENDLESS, "atascada")(1))
    assert isinstance(outcome.get("error"), CheckFailure) and "tiempo límite" in str(outcome["error"])
    assert outcome["seconds"] < 2


def test_a_fast_call_returns_its_value_and_no_stop_arrives_afterwards(without_signals, short_limit):
    assert student("def rapida(x):\n    return 2 * x\n", "rapida")(21) == 42
    assert busy(3 * selfcheck.CALL_LIMIT) is None


def test_a_stop_sent_as_the_call_returns_is_reported_and_never_leaks(without_signals, monkeypatch):
    """The worst moment: the watchdog fires after the student's function returned, as the wrapper cancels it."""
    cancel = selfcheck._Deadline.cancel

    def fire_then_cancel(deadline):
        deadline._expire()
        cancel(deadline)

    monkeypatch.setattr(selfcheck._Deadline, "cancel", fire_then_cancel)
    with pytest.raises(CheckFailure, match=r"^rapida\(1\) no terminó dentro del tiempo límite"):
        student("def rapida(x):\n    return x\n", "rapida")(1)
    assert busy(0.5) is None


def test_calls_that_end_as_their_time_runs_out_never_leak_the_stop(monkeypatch):
    """The race between the watchdog and the call's return: each call returns or fails in Spanish, and then
    nothing arrives in the code after it. (The watchdog waits for the interpreter lock, which the busy thread
    yields every switch interval: a short interval makes the two meet more often.)"""
    monkeypatch.setattr(selfcheck, "CALL_LIMIT", 0.004)
    near = student(
        "import time\n\ndef justa(t):\n    fin = time.perf_counter() + t\n"
        "    while time.perf_counter() < fin:\n        pass\n    return t\n",
        "justa",
    )
    interval, outcomes = sys.getswitchinterval(), set()
    sys.setswitchinterval(0.0002)
    try:
        for i in range(200):
            duration = (i % 5) * 0.002  # from far below the limit to twice the limit
            try:
                assert near(duration) == duration
                outcomes.add("devuelve")
            except CheckFailure as failure:
                assert "tiempo límite" in str(failure)
                outcomes.add("parada")
            stray = busy(0.01)
            assert stray is None, f"llegó {stray!r} después de la llamada {i}"
    finally:
        sys.setswitchinterval(interval)
    assert outcomes == {"devuelve", "parada"}


def test_a_students_except_exception_cannot_swallow_the_stop(without_signals, short_limit):
    stubborn = student(
        "def terca():\n    while True:\n        try:\n            while True:\n                pass\n"
        "        except Exception:\n            pass\n",
        "terca",
    )
    outcome = within(10, stubborn)
    assert isinstance(outcome.get("error"), CheckFailure) and "tiempo límite" in str(outcome["error"])


def test_a_students_except_base_exception_swallows_the_stop_as_with_signals(without_signals, short_limit):
    """As when a signal handler raised the stop: the student's code goes on (here it returns), and nothing
    arrives later. A loop around such an ``except`` runs until the student interrupts the kernel."""
    greedy = student(
        "def glotona():\n    try:\n        while True:\n            pass\n    except BaseException:\n"
        "        return 'tragada'\n",
        "glotona",
    )
    assert within(10, greedy).get("value") == "tragada"
    assert busy(3 * selfcheck.CALL_LIMIT) is None


@pytest.mark.parametrize("grad_enabled", [True, False])
def test_a_stop_inside_a_grad_mode_block_leaves_grad_mode_as_it_was(without_signals, short_limit, grad_enabled):
    block = "torch.no_grad()" if grad_enabled else "torch.enable_grad()"
    stuck = student(
        f"import torch\n\ndef en_bloque():\n    with {block}:\n        while True:\n            pass\n", "en_bloque"
    )
    try:
        torch.set_grad_enabled(grad_enabled)
        with pytest.raises(CheckFailure, match="tiempo límite"):
            stuck()
        assert torch.is_grad_enabled() == grad_enabled
    finally:
        torch.set_grad_enabled(True)


def test_a_nested_call_keeps_the_outer_calls_limit(without_signals, short_limit):
    """A student function given another one: the outer call's limit counts, and names the outer call."""
    inner = student("def interior(x):\n    return x + 1\n", "interior")
    loops_after = student("def exterior(f):\n    f(1)\n    while True:\n        pass\n", "exterior")
    outcome = within(10, lambda: loops_after(inner))
    assert str(outcome.get("error", "")).startswith("exterior(interior) no terminó dentro del tiempo límite")
    assert outcome["seconds"] < 2
    loops_inside = student("def exterior(f):\n    return f(1)\n", "exterior")
    outcome = within(10, lambda: loops_inside(student(ENDLESS, "atascada")))
    assert str(outcome.get("error", "")).startswith("exterior(atascada) no terminó dentro del tiempo límite")
    assert busy(3 * selfcheck.CALL_LIMIT) is None
