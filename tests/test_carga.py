"""The same answer gets the same mark however busy the machine is: limits count the kernel's CPU time."""

import os
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from helpers import autograded_tests, points, read, row

from autograder.course import find_lesson
from autograder.course.demo import answered, blank, loops
from autograder.grading import batch, cpu_time

pytestmark = pytest.mark.maquina_entera  # it loads every core on purpose: run alone (see the Makefile)

LESSON = find_lesson("06_desactivar_el_seguimiento")
SLOW = 2.5  # seconds of CPU the slow answer spends in its first call (the limit of a call is 5)
# Its first call burns CPU before answering: correct, slow, under the limit when counted in CPU time.
BURN = (
    "import time as _tiempo\n_gastado = []\n\n"
    "def _gastar_cpu():\n"
    "    if not _gastado:\n"
    "        _gastado.append(True)\n"
    f"        _fin = _tiempo.process_time() + {SLOW}\n"
    "        while _tiempo.process_time() < _fin:\n"
    "            pass\n\n"
)


def _slow(lesson):
    notebook = answered(lesson)
    cell = next(c for c in notebook.cells if "def gradiente_dentro(" in c.source)
    cell.source = BURN + cell.source.replace('    """\n', '    """\n    _gastar_cpu()\n', 1)
    return notebook


STUDENTS = {"correcta": answered, "lenta": _slow, "bucle": loops, "en_blanco": blank}


def _write(folder):
    for student, build in STUDENTS.items():
        path = folder / student / LESSON.id / LESSON.notebook_name
        path.parent.mkdir(parents=True)
        nbformat.write(build(LESSON), path)


def _hogs(count):
    """``count`` processes that spin, each in a session of its own (the scheduler shares the CPU per session)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(count)]


def _wall_time_of_cpu_seconds(seconds):
    code = f"import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass"
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", code], start_new_session=True, check=True)
    return time.monotonic() - started


def _grades(result):
    return {student: row(result, LESSON, student)["puntos_automaticos"] for student in STUDENTS}


@pytest.fixture(scope="module")
def graded_quiet_and_loaded(tmp_path_factory):
    quiet = tmp_path_factory.mktemp("tranquila")
    _write(quiet / "entregas")
    alone = batch.run(quiet / "entregas", quiet, workers=2)
    loaded = tmp_path_factory.mktemp("cargada")
    _write(loaded / "entregas")
    hogs = _hogs(3 * (os.cpu_count() or 1))
    try:
        stretch = _wall_time_of_cpu_seconds(0.5) / 0.5
        busy = batch.run(loaded / "entregas", loaded, workers=2)
    finally:
        for hog in hogs:
            hog.send_signal(signal.SIGKILL)
            hog.wait()
    return alone, busy, stretch


def test_the_machine_was_busy_enough_to_change_a_wall_clock_verdict(graded_quiet_and_loaded):
    _, _, stretch = graded_quiet_and_loaded
    # The slow answer's first call took longer than a call's limit (5 s) in wall-clock time.
    assert SLOW * stretch > 5, f"la carga solo alargó el tiempo {stretch:.1f} veces"


def test_every_answer_gets_the_same_mark_with_the_machine_busy(graded_quiet_and_loaded):
    alone, busy, _ = graded_quiet_and_loaded
    full = points(autograded_tests(read(LESSON.source)))
    assert _grades(alone) == _grades(busy)
    assert _grades(busy)["lenta"] == _grades(busy)["correcta"] == full
    assert _grades(busy)["bucle"] < full and _grades(busy)["en_blanco"] == 0


def test_a_sleeping_call_still_ends_at_the_wall_clock_backstop():
    clock = cpu_time.CpuClock(os.getpid())
    waited = cpu_time.patience(clock, 0.2, time.monotonic() + 0.2 * cpu_time.WALL_FACTOR)
    time.sleep(0.3)  # no CPU used: more time is granted, up to the backstop
    assert waited() > 0
    expired = cpu_time.patience(clock, 0.2, time.monotonic() - 1)
    assert expired() == 0


def test_the_clock_counts_this_process_cpu_time_not_its_sleep():
    clock = cpu_time.CpuClock(os.getpid())
    before = clock()
    time.sleep(0.3)
    slept = clock() - before
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    assert slept < 0.1 and clock() - before >= 0.25
