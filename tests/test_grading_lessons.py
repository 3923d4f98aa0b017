"""Every lesson: correct, blank and hard-coded submissions, feedback, and later batches."""

import html
import re
import shutil

import pytest
from helpers import HIDDEN, LESSONS, autograded_notebook, autograded_tests, nbgrader_meta, points, read, row
from nbgrader.api import Gradebook

from autograder.course.demo import build_demo
from autograder.grading import batch


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("calificacion")
    build_demo(workspace / "entregas", LESSONS, ["ana", "beto", "carla"])
    return batch.run(workspace / "entregas", workspace)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_correct_gets_full_marks_blank_and_hard_coded_get_zero(graded, lesson):
    maximum = points(autograded_tests(read(lesson.source)))
    assert row(graded, lesson, "ana")["puntos_automaticos"] == maximum
    assert row(graded, lesson, "ana")["maximo_automatico"] == maximum
    assert row(graded, lesson, "beto")["total"] == 0
    assert row(graded, lesson, "carla")["puntos_automaticos"] == 0


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_hard_coded_answers_pass_the_visible_checks_and_fail_the_hidden_ones(graded, lesson):
    for cell in autograded_tests(autograded_notebook(graded, lesson, "carla")):
        shown = "".join(output.get("text", "") for output in cell.outputs)
        errors = [output for output in cell.outputs if output.output_type == "error"]
        assert "✔" in shown, f"{nbgrader_meta(cell)['grade_id']}: the visible self-check should pass"
        assert errors, f"{nbgrader_meta(cell)['grade_id']}: the hidden tests should fail"


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_feedback_is_spanish_and_never_shows_hidden_tests(graded, lesson):
    source = read(lesson.source)
    hidden_lines = {
        line.strip()
        for cell in autograded_tests(source)
        for region in HIDDEN.findall(cell.source)
        for line in region.splitlines()
        if len(line.strip()) > 25
    }
    # Lines that the lesson or a correct answer also contains are not secrets.
    hidden_lines -= {line.strip() for cell in source.cells for line in HIDDEN.sub("", cell.source).splitlines()}
    for student in ("ana", "beto", "carla"):
        page = (graded.workspace / "feedback" / student / lesson.id / f"{lesson.id}.html").read_text("utf-8")
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
        assert "Puntuación" in text and "Score" not in text
        assert "HIDDEN TESTS" not in text
        leaked = [line for line in hidden_lines if " ".join(line.split()) in text]
        assert not leaked, f"{student}: {leaked}"


def test_a_later_batch_keeps_earlier_grades_and_a_broken_resubmission_replaces_one(graded, tmp_path):
    lesson = LESSONS[-1]
    again = tmp_path / "otra_vez"
    shutil.copytree(graded.workspace / "entregas" / "ana" / lesson.id, again / "ana" / lesson.id)
    broken = again / "carla" / lesson.id / lesson.notebook_name
    broken.parent.mkdir(parents=True)
    broken.write_text("{", encoding="utf-8")
    result = batch.run(again, graded.workspace)
    table = result.tables[lesson.id].set_index("alumno")
    assert {"ana", "beto", "carla"} <= set(table.index), "students of earlier batches stay in the CSV"
    assert table.loc["ana", "puntos_automaticos"] == table.loc["ana", "maximo_automatico"], table.loc["ana"].to_dict()
    assert table.loc["carla", "total"] == 0 and "JSON está dañado" in table.loc["carla", "estado"]
    with Gradebook(f"sqlite:///{graded.workspace / 'gradebook.db'}") as gradebook:
        students = {s.student.id for s in gradebook.assignment_submissions(lesson.id)}
    assert "beto" in students and "carla" not in students
