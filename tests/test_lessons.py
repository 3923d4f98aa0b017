"""Every lesson: runs headless, validates, releases cleanly, and matches the spec's structure."""

import re

import nbformat
import pytest
from helpers import HIDDEN, LESSONS, SOLUTION, autograded_tests, nbgrader_meta, read, solution_code_cells
from nbclient import NotebookClient
from nbgrader.preprocessors import CheckCellMetadata
from nbgrader.validator import Validator
from traitlets import List

from autograder.course import NOTEBOOKS, ROOT, is_test_cell, nbgrader_config, release, syllabus

COLAB_INSTALL = """import importlib.util
import os

# Solo en Google Colab: instala el paquete del curso y torchviz; el PyTorch que trae Colab no se toca.
if importlib.util.find_spec("google") and importlib.util.find_spec("google.colab"):
    paquete = os.environ.get(
        "GRADIENTES_PAQUETE", "gradientes-pytorch @ git+https://github.com/USUARIO/REPOSITORIO@estudiantes"
    )
    %pip install --quiet --no-deps "{paquete}" torchviz

"""


def test_syllabus_ids_follow_the_course_spec():
    ids = [lesson.id for lesson in syllabus()]
    assert ids[:3] == ["01_tensores_y_requires_grad", "02_grafo_computacional", "03_backward_y_regla_de_la_cadena"]
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+", lesson_id) for lesson_id in ids)
    assert [lesson.id for lesson in LESSONS][:3] == ids[:3], "lessons 01-03 must exist"


def test_solution_runs_headless(lesson, executed_solution):
    notebook, elapsed = executed_solution
    print(f"{lesson.id}: {elapsed:.1f} s")
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    mimes = {key for c in notebook.cells if c.cell_type == "code" for o in c.outputs for key in o.get("data", {})}
    assert mimes & {"image/png", "image/svg+xml"}, "every lesson shows at least one picture"
    if lesson.id.startswith(("02_", "03_")):
        assert "image/svg+xml" in mimes, "lessons 02 and 03 draw torchviz graphs"
    sliders = [c for c in notebook.cells if c.cell_type == "code" and "tangent_slider(" in c.source]
    for cell in sliders:  # a widget whose initial plot lives in the widget state; without widgets, a picture
        bundles = [o.get("data", {}) for o in cell.outputs]
        assert any(
            {"application/vnd.jupyter.widget-view+json", "image/png"} <= set(data)
            and "widgets están desactivados" in data.get("text/plain", "")
            for data in bundles
        ), bundles
    if sliders:
        state = str(notebook.metadata.widgets)
        assert "FloatSliderModel" in state and "image/png" in state
    passed = "".join(o.get("text", "") for c in autograded_tests(notebook) for o in c.outputs)
    assert passed.count("✔") >= len(autograded_tests(notebook)), "each visible self-check reports success"


def test_the_course_has_a_tangent_plot_and_a_slider():
    sources = ["\n".join(c.source for c in read(lesson.source).cells) for lesson in LESSONS]
    assert any("plot_tangent(" in text for text in sources)
    assert any("tangent_slider(" in text for text in sources)


class ValidatorOfExecuted(Validator):
    """``nbgrader validate`` on a notebook that has already run: nbgrader's checks of its cells, without running it
    again (the run is the one the other tests of the lesson read)."""

    preprocessors = List([CheckCellMetadata])


def validated(notebook, folder, **options):
    path = folder / "validar.ipynb"
    nbformat.write(notebook, path)
    return ValidatorOfExecuted(config=nbgrader_config(), **options).validate(str(path))


def test_solution_passes_nbgrader_validate(executed_solution, tmp_path):
    assert validated(executed_solution[0], tmp_path) == {}


def test_blank_release_fails_every_test(executed_release, tmp_path):
    results = validated(executed_release[0], tmp_path, invert=True)
    assert results == {}, f"these tests pass on a blank notebook: {results}"


def test_lesson_structure(lesson):
    notebook = read(lesson.source)
    tests = autograded_tests(notebook)
    assert len(tests) >= 3, "at least 3 autograded exercises"
    assert all(HIDDEN.search(cell.source) for cell in tests), "every test cell has hidden tests"
    assert all("passed(" in HIDDEN.sub("", cell.source) for cell in tests), "every test has a visible self-check"
    manual = [c for c in notebook.cells if c.cell_type == "markdown" and nbgrader_meta(c).get("solution")]
    assert manual and all(nbgrader_meta(c).get("grade") for c in manual), "at least one reflection question"
    first_code = next(c for c in notebook.cells if c.cell_type == "code")
    assert nbgrader_meta(first_code).get("locked") and "gradientes.selfcheck" in first_code.source
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "## Resumen" in text and "Objetivos" in text
    colab = f"https://colab.research.google.com/github/USUARIO/REPOSITORIO/blob/estudiantes/notebooks/{lesson.id}"
    # A link, not a badge: nothing a lesson shows is loaded from outside (its feedback page works offline).
    assert notebook.cells[0].source == f"[Abrir esta lección en Google Colab]({colab}/{lesson.notebook_name})", (
        "each lesson starts with its link to Colab (curso publicar writes the repository)"
    )
    assert notebook.cells[1].source.startswith(f"# Lección {int(lesson.id[:2])}")
    # In Colab (only there), the first code cell installs the student package and torchviz, and nothing else.
    assert first_code.source.startswith(COLAB_INSTALL), first_code.source[: len(COLAB_INSTALL)]


def test_release_has_no_solutions_or_hidden_tests(lesson):
    source, student = read(lesson.source), read(lesson.released)
    text = "\n".join(cell.source for cell in student.cells)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    secret_lines = set()
    for cell in source.cells:
        for region in SOLUTION.findall(cell.source) + HIDDEN.findall(cell.source):
            secret_lines |= {line.strip() for line in region.splitlines() if len(line.strip()) > 25}
    # A line may legitimately appear elsewhere in the lesson (an example the lesson shows).
    public = {
        line.strip() for cell in source.cells for line in SOLUTION.sub("", HIDDEN.sub("", cell.source)).splitlines()
    }
    leaked = {line for line in secret_lines - public if line in text}
    assert not leaked, leaked


def test_no_answer_line_is_shown_anywhere_in_the_students_notebook(lesson):
    # Stricter than the test above: an example or a check that repeats a line of the answer gives it
    # away even if the lesson shows it on purpose. Only a broken function to repair (``def *_rota``)
    # may share lines with its fixed version.
    answer_lines = {
        line.strip()
        for cell in read(lesson.source).cells
        for region in SOLUTION.findall(cell.source)
        for line in region.splitlines()
        if len(line.strip()) > 25
    }
    shown = [
        line.strip()
        for cell in read(lesson.released).cells
        if not re.search(r"^def \w+_rota\(", cell.source, re.M)
        for line in cell.source.splitlines()
    ]
    assert not answer_lines & set(shown), sorted(answer_lines & set(shown))


def test_the_stated_time_holds_the_estimate(lesson):
    """«Tiempo estimado» is a range around what the lesson asks of a student (autograder/course/study_time.py)."""
    from autograder.course.study_time import estimated_minutes, stated_range

    notebook = read(lesson.source)
    stated, minutes = stated_range(notebook), estimated_minutes(notebook)
    assert stated is not None, "la lección no dice su «Tiempo estimado: entre X y Y minutos»"
    assert stated[0] <= minutes <= stated[1], f"{lesson.id}: dice {stated}, y lo que pide son unos {minutes} minutos"


def test_hard_coded_demo_answers_cover_every_exercise(lesson):
    import tomllib

    values = tomllib.loads(
        (ROOT / "autograder" / "course" / "demo" / "valores_fijos" / f"{lesson.id}.toml").read_text("utf-8")
    )
    ids = {nbgrader_meta(cell)["grade_id"] for cell in solution_code_cells(read(lesson.source))}
    assert set(values) == ids


@pytest.mark.parametrize(
    "path", sorted(ROOT.glob("solutions/**/*.ipynb")) + sorted(ROOT.glob("notebooks/**/*.ipynb")), ids=str
)
def test_notebooks_are_stored_without_outputs(path):
    notebook = read(path)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: celda con salidas"


def test_notebooks_folder_equals_a_fresh_regeneration(tmp_path):
    release.generate(tmp_path)
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.ipynb"))
    committed = sorted(
        p.relative_to(NOTEBOOKS) for p in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )
    assert fresh == committed
    for relative in fresh:
        assert nbformat.reads((tmp_path / relative).read_text("utf-8"), 4) == read(NOTEBOOKS / relative), (
            f"notebooks/{relative} está desactualizado: ejecuta `curso generar`"
        )
    index = (tmp_path / release.INDEX_NAME).read_text("utf-8")
    assert (NOTEBOOKS / release.INDEX_NAME).read_text("utf-8") == index, "el índice está desactualizado: curso generar"


def test_the_self_check_magic_works_in_a_new_kernel_before_any_import():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%%comprobar\nprint('disponible')")])
    NotebookClient(notebook, timeout=60, kernel_name="python3").execute()
    assert notebook.cells[0].outputs[0]["text"] == "disponible\n"


def test_the_release_shows_test_cells_folded(lesson):
    cells = read(lesson.released).cells
    hidden = [c.metadata.get("jupyter", {}).get("source_hidden", False) for c in cells]
    tests = [bool(nbgrader_meta(c).get("grade")) and not nbgrader_meta(c).get("solution") for c in cells]
    assert hidden == tests, "exactly the test cells are folded in the student's notebook"


def test_run_all_runs_an_unanswered_lesson_to_the_end(executed_release):
    """As JupyterLab's «Run All» does: each unanswered exercise shows its ✗ and the rest of the lesson runs."""
    notebook, _ = executed_release  # nbclient stops at a failing cell, as JupyterLab does, unless it is tagged
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code)
    for cell in filter(is_test_cell, code):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert errors and "todavía no has escrito tu respuesta" in errors[0].evalue, (nbgrader_meta(cell), errors)
    tagged = [cell for cell in code if release.MAY_FAIL in cell.metadata.get("tags", [])]
    assert release.MAY_FAIL not in code[0].metadata.get("tags", []), "the imports cell must not fail"
    assert len(tagged) < len(code)


def test_what_fails_unanswered_is_tagged():
    """Answer and test cells, and whatever uses what an answer defines, even a function defined above the answer."""
    answer = {"solution": True, "grade": False, "grade_id": "ej1", "locked": False, "schema_version": 3}
    test = {"solution": False, "grade": True, "grade_id": "prueba1", "points": 1, "locked": True, "schema_version": 3}
    cells = [
        nbformat.v4.new_code_cell("import torch\nx = torch.ones(2)"),
        nbformat.v4.new_code_cell("def usar(v):\n    return respuesta(v) + 1"),
        nbformat.v4.new_code_cell("def respuesta(v):\n    raise NotImplementedError()", metadata={"nbgrader": answer}),
        nbformat.v4.new_code_cell("%%comprobar\ny = respuesta(x)", metadata={"nbgrader": test}),
        nbformat.v4.new_code_cell("print(x, torch.zeros(1))\n%matplotlib inline"),
        nbformat.v4.new_code_cell("z = usar(x)"),
        nbformat.v4.new_code_cell("print(z)"),
        nbformat.v4.new_code_cell("print(y)"),  # y of the test cell lives in the test's own namespace
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    release.tag_what_fails_unanswered(notebook)
    tagged = [release.MAY_FAIL in cell.metadata.get("tags", []) for cell in notebook.cells]
    assert tagged == [False, True, True, True, False, True, True, False]
