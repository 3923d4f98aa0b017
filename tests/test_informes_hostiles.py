"""The class reports against text a student crafted: they finish in time, or cost only themselves.

A failure message quotes what the student's code gave (a value, an exception's text, even a type's name),
and the reports read those messages back from the autograded notebooks. One submission of lesson 1 is
graded here with such answers, while its class report hangs; the tests then rebuild the reports from it.
"""

import io
import os
import shutil
import signal
import time
from contextlib import redirect_stdout
from types import SimpleNamespace

import nbformat
import pandas as pd
import pytest
from helpers import nbgrader_meta

from autograder import cli
from autograder.course import find_lesson
from autograder.course.demo import answered
from autograder.reports import class_reports, diagnoses

LESSON = find_lesson("01_tensores_y_requires_grad")
STUDENT = "zoe"
CRAFTED = {  # each one puts «(1 1 1 1 …» with no closing parenthesis into a failure message
    "ej1_solucion": 'def describir_tensor(t):\n    return "(" + "1 " * 5000\n',
    "ej3_solucion": 'def puede_requerir_gradiente(dtype):\n    raise ValueError("\\n  Pista: (" + "1 " * 5000)\n',
}
# The worst texts found for the expressions of autograder.reports.diagnoses, for n from a few thousand characters up.
WORST = {
    "números sin cerrar": lambda n: "(" + "1 " * n,
    "almohadillas sin cerrar": lambda n: "[" + "# " * n,
    "comas": lambda n: "(" + "#," * n,
    "un nombre muy largo": lambda n: "a." * n,
    "dtypes seguidos": lambda n: "torch.float" * (n // 5),
    "exponentes": lambda n: "1.e" * n,
    "llamadas sin cerrar": lambda n: "f(" * n,
    "llamadas anidadas": lambda n: "f(" * n + ")" * n,
}
TEXT_FUNCTIONS = {
    "normalise": diagnoses.normalise,
    "_collapse_calls": diagnoses._collapse_calls,
    "classify": lambda text: diagnoses.classify(STUDENT, "ej1_pruebas", "ValueError", text + diagnoses.HINT + text),
}


def run_cli(argv):
    """``curso …``: its exit status and what it printed."""
    out = io.StringIO()
    with redirect_stdout(out):
        status = cli.main(argv)
    return status, out.getvalue()


def warnings_in(out):
    return [line for line in out.splitlines() if line.startswith("Aviso:")]


def lesson_warning(why):
    return class_reports.WARNING.format(what=f"el informe de la clase de {LESSON.id}", why=why)


@pytest.fixture
def deadline():
    """A hang becomes a failure after 60 s."""

    def expire(*_):
        pytest.fail("no terminó en 60 s", pytrace=False)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def hung(tmp_path_factory):
    """``curso calificar`` of one crafted submission while the class report hangs, with a budget of 1 s."""
    root = tmp_path_factory.mktemp("hostiles")
    submission = answered(LESSON)
    for cell in submission.cells:
        cell.source = CRAFTED.get(nbgrader_meta(cell).get("grade_id"), cell.source)
    path = root / "entregas" / STUDENT / LESSON.id / LESSON.notebook_name
    path.parent.mkdir(parents=True)
    nbformat.write(submission, path)
    workspace, pid = root / "curso", root / "pid"

    def stuck(*_):
        pid.write_text(str(os.getpid()))
        time.sleep(600)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(class_reports, "BUDGET", 1)
        patch.setattr(class_reports, "write_lesson", stuck)
        started = time.perf_counter()
        status, out = run_cli(
            ["calificar", str(root / "entregas"), "--directorio", str(workspace), "--leccion", LESSON.id]
        )
    seconds = time.perf_counter() - started
    return SimpleNamespace(workspace=workspace, status=status, out=out, seconds=seconds, pid=int(pid.read_text()))


def copy_of(hung, tmp_path):
    return shutil.copytree(hung.workspace, tmp_path / "curso")


def grades(workspace):
    return pd.read_csv(workspace / "informes" / f"calificaciones_{LESSON.id}.csv")


def feedback(workspace):
    return workspace / "feedback" / STUDENT / LESSON.id / f"{LESSON.id}.html"


@pytest.mark.parametrize("function", TEXT_FUNCTIONS)
@pytest.mark.parametrize("worst", WORST)
def test_the_text_functions_take_linear_time_on_crafted_text(worst, function, deadline):
    def seconds(text):
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            TEXT_FUNCTIONS[function](text)
            best = min(best, time.perf_counter() - started)
        return best

    small, large = WORST[worst](2000), WORST[worst](32_000)
    assert len(large) >= 16 * len(small) - 16
    # Sixteen times the text: a linear function takes about 16 times as long, a quadratic one 256 times.
    assert seconds(large) <= 3 * 16 * seconds(small) + 0.05


def test_a_report_that_hangs_is_stopped_and_the_batch_is_kept(hung):
    assert hung.status == 0, hung.out
    assert warnings_in(hung.out) == [lesson_warning("superó el tiempo límite de 1 s")], hung.out
    assert hung.seconds < 60, "the report was given up after its budget, not waited for"
    with pytest.raises(ProcessLookupError):
        os.kill(hung.pid, 0)  # stopped, not left behind
    reports = hung.workspace / "informes"
    assert grades(hung.workspace)["alumno"].tolist() == [STUDENT] and feedback(hung.workspace).exists()
    assert (reports / "curso.html").exists() and not (reports / f"clase_{LESSON.id}.html").exists()


def test_crafted_failure_texts_make_their_report_in_time(hung, tmp_path, monkeypatch):
    workspace = copy_of(hung, tmp_path)
    path = workspace / "autograded" / STUDENT / LESSON.id / LESSON.notebook_name
    notebook = nbformat.read(path, as_version=4)
    # What a student's kernel can leave in an error output: any name, any text, of any length.
    planted = nbformat.v4.new_output("error", ename="Z" * 50_000, evalue=WORST["números sin cerrar"](50_000))
    planted.traceback = []
    cell = next(cell for cell in notebook.cells if nbgrader_meta(cell).get("grade_id") == "ej2_pruebas")
    cell.outputs.append(planted)
    nbformat.write(notebook, path)
    monkeypatch.setattr(class_reports, "BUDGET", 30)
    started = time.perf_counter()
    status, out = run_cli(["resumen", "--directorio", str(workspace)])
    assert status == 0 and not warnings_in(out), out
    assert time.perf_counter() - started < 30
    errors = pd.read_csv(workspace / "informes" / f"errores_{LESSON.id}.csv")
    raised = errors[errors["celda"] == "ej3_pruebas"].iloc[0]
    assert raised["tipo"] == "excepcion" and "ValueError" in raised["diagnostico"], errors
    assert "(1 1 1" in errors[errors["celda"] == "ej1_pruebas"].iloc[0]["ejemplo"]
    planted_row = errors[errors["celda"] == "ej2_pruebas"].iloc[0]
    assert len(planted_row["ejemplo"]) <= diagnoses.TEXT_LIMIT and len(planted_row["diagnostico"]) < 10_000
    assert "ValueError" in (workspace / "informes" / f"clase_{LESSON.id}.html").read_text(encoding="utf-8")


def test_a_report_that_fails_costs_only_that_report(hung, tmp_path, monkeypatch):
    workspace = copy_of(hung, tmp_path)
    before = grades(workspace)

    def broken(*_):
        raise RuntimeError("[red]roto[/red]\n  en dos líneas")

    monkeypatch.setattr(class_reports, "write_lesson", broken)
    status, out = run_cli(["resumen", "--directorio", str(workspace)])
    assert status == 0, out
    assert warnings_in(out) == [lesson_warning("falló (RuntimeError: [red]roto[/red] en dos líneas)")], out
    assert "Informe del curso" in out and (workspace / "informes" / "curso.html").exists()
    pd.testing.assert_frame_equal(grades(workspace), before)
    assert feedback(workspace).exists()


def test_a_report_whose_process_dies_says_so():
    assert class_reports.within_budget(os._exit, 3) == "su proceso terminó de golpe (¿la memoria agotada?)"
    assert class_reports.within_budget(print, "") is None
