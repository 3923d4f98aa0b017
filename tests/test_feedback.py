"""The feedback page: the course's Spanish template, formulas without internet, reflections pending until graded."""

import html
import re
import shutil

import nbformat
import pytest
from helpers import chromium, read
from nbgrader.api import Gradebook

from autograder.course import find_lesson, gradebook_url, nbgrader_api
from autograder.course.demo import build_demo
from autograder.grading import batch

LESSON = find_lesson("03_backward_y_regla_de_la_cadena")  # $$y = 5x^3 + ...$$ and inline $...$
REFLECTIONS = [grade_id for grade_id, _, autograded in LESSON.graded_cells() if not autograded]
ACTIVE_HTML = (
    "<script>alert('texto')</script><img src=x onerror=\"alert('imagen')\"><a href=\"javascript:alert('enlace')\">a</a>"
    "<details><summary>Más</summary>**mi** respuesta</details>"
)
ACTIVE_OUTPUTS = (
    "from IPython.display import HTML, Javascript, display\n\n"
    "display(HTML(\"<script>alert('salida')</script><b>negrita</b>\"))\ndisplay(Javascript(\"alert('js')\"))\n"
)
ENGLISH = ["Score", "Test cell", "Written response", "Student's answer", "Comments", "(Top)", "No response", "In&nbsp;"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """Lesson 03 graded for a correct submission (ana, reflections answered) and a blank one (beto)."""
    workspace = tmp_path_factory.mktemp("retroalimentacion")
    build_demo(workspace / "entregas", [LESSON], ["ana", "beto"])
    hostile = workspace / "entregas" / "carla" / LESSON.id / LESSON.notebook_name  # ana's, with HTML that acts
    notebook = read(workspace / "entregas" / "ana" / LESSON.id / LESSON.notebook_name)
    reflection = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == REFLECTIONS[0])
    reflection.source = ACTIVE_HTML
    notebook.cells.append(nbformat.v4.new_code_cell(ACTIVE_OUTPUTS))
    hostile.parent.mkdir(parents=True)
    nbformat.write(notebook, hostile)
    batch.run(workspace / "entregas", workspace)
    return workspace


def page(workspace, student):
    return (workspace / "feedback" / student / LESSON.id / f"{LESSON.id}.html").read_text("utf-8")


def toc_entry(text, grade_id):
    """What the table of contents says of one graded cell: «Respuesta escrita (Puntuación: ...)»."""
    entry = re.search(rf'<li><a href="#{grade_id}">(.*?)</li>', text, re.S)
    assert entry, grade_id
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", entry.group(1))).split())


def test_the_page_is_the_course_template_in_spanish_and_loads_nothing_from_outside(workspace):
    text = page(workspace, "ana")
    assert text.startswith("<!DOCTYPE html>") and '<html lang="es">' in text
    for label in ("Puntuación", "Celda de pruebas", "Respuesta escrita", "Tu respuesta"):
        assert label in text, label
    for label in ENGLISH:
        assert label not in text, label
    # Links in the lesson may point outside; nothing the page loads does.
    assert not re.findall(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=[\"']?(?:https?:)?//", text)
    assert "MathJax" in text and "cdnjs" not in text


def test_an_unreviewed_reflection_is_pending_and_a_blank_one_scores_zero(workspace):
    assert len(REFLECTIONS) >= 2
    answered, blank = page(workspace, "ana"), page(workspace, "beto")
    for grade_id in REFLECTIONS:
        assert "pendiente de revisión" in toc_entry(answered, grade_id)
        assert "0 / 1" not in toc_entry(answered, grade_id) and "0.0" not in toc_entry(answered, grade_id)
        # Left as released, an answer is graded 0 by nbgrader at once: nothing to wait for.
        assert toc_entry(blank, grade_id).endswith("(Puntuación: 0 / 1)")
    assert f"falta que tu instructor revise {len(REFLECTIONS)} respuestas" in answered
    assert "pendiente de revisión" not in blank and "Puntuación provisional" not in blank
    assert "Sin respuesta." in blank


def test_a_reflection_graded_by_hand_shows_its_score_and_comment(workspace, tmp_path):
    copy = tmp_path / "copia"
    shutil.copytree(workspace, copy)
    graded, *still_pending = REFLECTIONS
    with Gradebook(gradebook_url(copy)) as gradebook:
        # What the formgrader saves when the instructor grades a written answer.
        grade = gradebook.find_grade(graded, LESSON.id, LESSON.id, "ana")
        grade.manual_score, grade.needs_manual_grade = 0.5, False
        gradebook.find_comment(graded, LESSON.id, LESSON.id, "ana").manual_comment = "Bien razonado; falta un ejemplo."
        gradebook.db.commit()
    # The same call as the formgrader's «Generate Feedback» button.
    assert nbgrader_api(copy).generate_feedback(LESSON.id, "ana", force=True)["success"]
    text = page(copy, "ana")
    assert toc_entry(text, graded) == "Respuesta escrita (Puntuación: 0,5 / 1)"
    assert "Bien razonado; falta un ejemplo." in text
    for grade_id in still_pending:
        assert "pendiente de revisión" in toc_entry(text, grade_id)
    assert f"falta que tu instructor revise {len(still_pending)} respuesta" in text


def test_formulas_render_in_a_browser_with_no_network(workspace, tmp_path):
    # The zip of one student's folder, opened somewhere else: the page needs nothing beside it.
    alone = tmp_path / "solo" / f"{LESSON.id}.html"
    alone.parent.mkdir()
    alone.write_text(page(workspace, "ana"), encoding="utf-8")
    notebook = read(workspace / "autograded" / "ana" / LESSON.id / LESSON.notebook_name)
    source_formulas = sum(cell.source.count("$$") // 2 for cell in notebook.cells if cell.cell_type == "markdown")
    assert source_formulas >= 1
    # Every request outside the machine goes to a closed port, and fails.
    offline = ("--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>")
    with chromium(tmp_path / "chromium", *offline) as driver:
        from selenium.webdriver.support.ui import WebDriverWait

        driver.get(alone.as_uri())
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return Boolean(window.MathJax && MathJax.startup && MathJax.startup.promise)")
        )
        driver.execute_async_script("MathJax.startup.promise.then(arguments[arguments.length - 1])")
        rendered = driver.execute_script("return document.querySelectorAll('mjx-container svg').length")
        display = driver.execute_script("return document.querySelectorAll('mjx-container[display=\"true\"]').length")
        errors = driver.execute_script("return document.querySelectorAll('mjx-merror, [data-mjx-error]').length")
        visible = driver.execute_script("return document.body.innerText")
        loaded = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        driver.save_screenshot(str(tmp_path / "retroalimentacion.png"))
    assert display >= source_formulas and rendered > display, (display, rendered)
    assert errors == 0
    assert "$$" not in visible and "5x^3" not in visible
    assert not [url for url in loaded if not url.startswith(("file:", "data:", "blob:"))], loaded


def test_the_students_html_cannot_act_in_the_page_the_instructor_opens(workspace):
    """A reflection and an output written to run a script: the page keeps their text, not what would run."""
    text = page(workspace, "carla")
    assert not re.findall(r"<[a-z][^>]*\son\w+\s*=", text)  # no handler (MathJax's own code has one, in a script)
    assert not re.findall(r"\b(?:href|src)\s*=\s*[\"']?\s*javascript:", text)
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", text, re.S)
    assert not [s for s in scripts for mine in ("salida", "js", "texto") if f"alert('{mine}')" in s]
    assert "&lt;script&gt;alert('texto')" in text  # shown as text
    assert "<details><summary>Más</summary>" in text  # what the lessons' own texts use stays
