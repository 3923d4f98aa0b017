"""Regenerate the student notebooks (``notebooks/``) from ``solutions/`` with nbgrader."""

import ast
import shutil
import tempfile
from pathlib import Path

import nbformat
from nbgrader.utils import is_solution

from autograder.course import COURSE_DIR, NOTEBOOKS, available_lessons, is_test_cell, nbgrader_api, syllabus
from autograder.course.study_time import lesson_minutes
from gradientes import lab_setup

# The index is Markdown, not a notebook: JupyterLab shows it rendered (``defaultViewers`` in
# assets/jupyterlab/overrides.json) and starts no kernel for it, which it does for any notebook.
INDEX_NAME = "indice.md"
OLD_INDEX_NAME = "indice.ipynb"
# What JupyterLab writes into a notebook when its kernel starts: the lessons carry it already, so that
# opening one does not mark it as modified (closing an untouched lesson would ask to save it).
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
# A cell so tagged does not stop JupyterLab's «Run All» (nor nbclient) when it fails: the kernel goes on with
# the next cells instead of dropping them.
MAY_FAIL = "raises-exception"


class ReleaseError(RuntimeError):
    """nbgrader could not generate a lesson."""


def generate_lesson(lesson, release_dir, workspace):
    """Generate the student version of ``lesson`` into ``release_dir/<id>/``."""
    result = nbgrader_api(workspace, release=release_dir).generate_assignment(lesson.id, force=True, create=True)
    if not result["success"]:
        raise ReleaseError(f"nbgrader no pudo generar {lesson.id}:\n{result.get('error') or result.get('log')}")
    path = Path(release_dir) / lesson.id / lesson.notebook_name
    notebook = nbformat.read(path, as_version=4)
    collapse_test_cells(notebook)
    tag_what_fails_unanswered(notebook)
    notebook.metadata.kernelspec = dict(KERNELSPEC)
    notebook.metadata.language_info = lab_setup.language_info()
    nbformat.write(notebook, path)


def collapse_test_cells(notebook):
    """Show each test cell folded: the student reads its verdict, and opens its code only if curious."""
    for cell in notebook.cells:
        if is_test_cell(cell):
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True


def tag_what_fails_unanswered(notebook):
    """Tag ``MAY_FAIL`` the cells that fail while an exercise is unanswered: its answer and test cells, and every
    cell that uses a name an answer (or such a cell) defines, wherever it is (a function defined above an answer
    may call it). «Run All» then runs a whole lesson with its exercises unanswered: each test cell shows its ✗ and
    the rest of the lesson runs.

    Grading is not affected: nbgrader and the grader run every cell whatever it raises.
    """
    cells = [(cell, *_names(cell.source)) for cell in notebook.cells if cell.cell_type == "code"]
    tagged, from_answers = [], set()
    while True:
        found = [
            (cell, defined)
            for cell, read, defined in cells
            if cell not in tagged and (is_solution(cell) or is_test_cell(cell) or read & from_answers)
        ]
        if not found:
            break
        for cell, defined in found:
            tagged.append(cell)
            if not is_test_cell(cell):  # a test cell runs in a namespace of its own (%%comprobar)
                from_answers |= defined
    for cell in tagged:
        tags = cell.metadata.setdefault("tags", [])
        if MAY_FAIL not in tags:
            tags.append(MAY_FAIL)


def _names(source):
    """The names a cell reads, and those it defines at its top level (IPython's magic lines left out)."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
    tree = ast.parse(code)
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    defined = set()
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(statement.name)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            defined |= {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
        else:
            defined |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return read, defined


def index_text():
    """The course index (Markdown): every syllabus lesson, linked when it is available."""
    ready = {lesson.id for lesson in available_lessons()}
    lines, total = [], 0
    for number, lesson in enumerate(syllabus(), start=1):
        if lesson.id in ready:
            minutes = lesson_minutes(lesson)
            total += minutes
            title = f"[{lesson.titulo}]({lesson.id}/{lesson.notebook_name})"
            lines.append(f"{number}. **{title}**. {lesson.resumen} *Unos {5 * round(minutes / 5)} minutos.*")
        else:
            lines.append(f"{number}. **{lesson.titulo} *(próximamente)***. {lesson.resumen}")
    lines.append(f"\nEn total, unas {round(total / 60)} horas, a tu ritmo: cada lección dice su tiempo al principio.")
    text = (COURSE_DIR / "indice.md").read_text(encoding="utf-8").replace("{lecciones}", "\n".join(lines))
    return text.strip() + "\n"


def generate(release_dir=NOTEBOOKS, lessons=None):
    """Regenerate ``release_dir`` (index plus each lesson); return the lessons generated."""
    release_dir = Path(release_dir)
    lessons = lessons or available_lessons()
    release_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="curso-generar-") as workspace:
        for lesson in lessons:
            shutil.rmtree(release_dir / lesson.id, ignore_errors=True)
            generate_lesson(lesson, release_dir, workspace)
        (release_dir / INDEX_NAME).write_text(index_text(), encoding="utf-8")
        (release_dir / OLD_INDEX_NAME).unlink(missing_ok=True)
    return lessons
