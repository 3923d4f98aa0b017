"""Every hostile or broken sample submission gets the grade it deserves and a clear reason."""

import pandas as pd
import pytest
from helpers import (
    LESSONS,
    autograded_notebook,
    autograded_tests,
    nbgrader_meta,
    points,
    read,
    row,
    solution_code_cells,
)
from nbclient import NotebookClient

from autograder.course import ROOT
from autograder.course.demo import SCENARIOS, build_demo
from autograder.grading import batch

FULL = LESSONS[0]


def released_layout(lesson):
    """Test cells and the index (in the released notebook) of each solution code cell."""
    notebook = read(lesson.released)
    tests = autograded_tests(notebook)
    solutions = [notebook.cells.index(cell) for cell in solution_code_cells(notebook)]
    return notebook, tests, solutions


# Correct, blank and hard-coded submissions of every lesson are in test_grading_lessons.py.
STUDENTS = [student for student in SCENARIOS if student not in ("beto", "carla")]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every other scenario, on the first lesson."""
    workspace = tmp_path_factory.mktemp("calificacion")
    build_demo(workspace / "entregas", [FULL], STUDENTS)
    return batch.run(workspace / "entregas", workspace)


def test_a_user_warning_costs_nothing(graded):
    assert row(graded, FULL, "dani")["puntos_automaticos"] == points(autograded_tests(read(FULL.source)))
    # The scenario is real: run as submitted, its test cells do print a UserWarning on stderr.
    notebook = read(graded.workspace / "entregas" / "dani" / FULL.id / FULL.notebook_name)
    path = {"metadata": {"path": str(FULL.source.parent)}}
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True, resources=path).execute()
    stderr = [
        o.text
        for c in autograded_tests(notebook)
        for o in c.outputs
        if o.output_type == "stream" and o.name == "stderr"
    ]
    assert any("UserWarning" in text for text in stderr)


def test_a_deleted_test_cell_is_restored(graded):
    assert row(graded, FULL, "eva")["puntos_automaticos"] == points(autograded_tests(read(FULL.source)))
    assert "se restauró la celda de pruebas" in row(graded, FULL, "eva")["estado"]


def test_edited_test_cells_are_restored(graded):
    assert row(graded, FULL, "lalo")["total"] == 0
    restored = autograded_tests(autograded_notebook(graded, FULL, "lalo"))
    assert all("passed(" in cell.source for cell in restored)


def test_broken_json_is_reported_and_scores_zero(graded):
    fede = row(graded, FULL, "fede")
    assert fede["total"] == 0 and "JSON está dañado" in fede["estado"]


def test_a_wrong_file_name_is_graded_with_a_note(graded):
    gabi = row(graded, FULL, "gabi")
    assert gabi["puntos_automaticos"] == row(graded, FULL, "ana")["puntos_automaticos"]
    assert "mi_entrega.ipynb" in gabi["estado"]


def test_a_kernel_crash_keeps_the_points_earned_before_it(graded):
    notebook, tests, solutions = released_layout(FULL)
    before = [cell for cell in tests if notebook.cells.index(cell) < solutions[1]]
    hugo = row(graded, FULL, "hugo")
    assert hugo["puntos_automaticos"] == points(before) > 0
    assert "el kernel se detuvo" in hugo["estado"]


@pytest.mark.parametrize(("student", "note"), [("ines", "tiempo límite"), ("kike", "sin memoria")])
def test_an_infinite_loop_or_a_memory_hog_only_costs_its_exercise(graded, student, note):
    notebook, tests, solutions = released_layout(FULL)
    first_exercise = [cell for cell in tests if solutions[0] < notebook.cells.index(cell) < solutions[1]]
    graded_row = row(graded, FULL, student)
    assert graded_row["puntos_automaticos"] == points(tests) - points(first_exercise)
    assert note in graded_row["estado"]


def test_monkeypatching_torch_in_the_kernel_does_not_reach_the_verdict(graded):
    assert row(graded, FULL, "jose")["puntos_automaticos"] == 0
    tests = autograded_tests(autograded_notebook(graded, FULL, "jose"))
    failures = [o.evalue for c in tests for o in c.outputs if o.output_type == "error"]
    assert failures and any("no coincide con lo esperado" in text for text in failures)


def test_code_that_reaches_into_the_grader_earns_nothing_and_is_flagged(graded):
    mara = row(graded, FULL, "mara")
    assert mara["puntos_automaticos"] == 0
    assert "para revisar a mano" in mara["estado"] and "get_ipython" in mara["estado"]


def test_a_submission_cannot_rewrite_course_files(graded):
    nico = row(graded, FULL, "nico")
    assert nico["puntos_automaticos"] == points(autograded_tests(read(FULL.source)))
    assert "modificado por una entrega" not in (ROOT / "estudiante" / "gradientes" / "checks.py").read_text("utf-8")
    outputs = [o for c in autograded_notebook(graded, FULL, "nico").cells for o in c.get("outputs", [])]
    assert any(o.output_type == "error" and o.ename in ("PermissionError", "OSError") for o in outputs)


def test_csv_has_one_column_per_exercise_and_a_row_per_student(graded):
    source = read(FULL.source)
    graded_ids = [nbgrader_meta(c)["grade_id"] for c in source.cells if nbgrader_meta(c).get("grade")]
    table = pd.read_csv(graded.workspace / "informes" / f"calificaciones_{FULL.id}.csv")
    assert list(table.columns) == [
        "alumno",
        *graded_ids,
        "puntos_automaticos",
        "maximo_automatico",
        "total",
        "maximo",
        "pendientes_de_revision",
        "estado",
    ]
    assert sorted(table["alumno"]) == sorted(STUDENTS)
    assert (graded.workspace / "informes" / f"ejercicios_{FULL.id}.png").stat().st_size > 5000


def test_answers_waiting_for_the_instructor_are_pending_never_zero(graded):
    source = read(FULL.source)
    reflections = [nbgrader_meta(c)["grade_id"] for c in source.cells if nbgrader_meta(c).get("solution")]
    reflections = [grade_id for grade_id in reflections if grade_id.startswith("reflexion")]
    table = pd.read_csv(graded.workspace / "informes" / f"calificaciones_{FULL.id}.csv").set_index("alumno")
    ana = table.loc["ana"]  # a full answer, never graded by hand
    assert ana["pendientes_de_revision"] == len(reflections) > 0
    assert all(pd.isna(ana[grade_id]) for grade_id in reflections), "pending is empty, never 0"
    assert "falta calificar a mano" in ana["estado"] and "calificada" not in ana["estado"]
