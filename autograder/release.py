"""Regenerate the student notebooks (``notebooks/``) from ``solutions/`` with nbgrader."""

import shutil
import tempfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell, new_notebook

from autograder.course import NOTEBOOKS, PACKAGE_DIR, available_lessons, is_test_cell, nbgrader_api, syllabus

INDEX_NAME = "indice.ipynb"


class ReleaseError(RuntimeError):
    """nbgrader could not generate a lesson."""


def generate_lesson(lesson, release_dir, workspace):
    """Generate the student version of ``lesson`` into ``release_dir/<id>/``."""
    result = nbgrader_api(workspace, release=release_dir).generate_assignment(lesson.id, force=True, create=True)
    if not result["success"]:
        raise ReleaseError(f"nbgrader no pudo generar {lesson.id}:\n{result.get('error') or result.get('log')}")
    collapse_test_cells(Path(release_dir) / lesson.id / lesson.notebook_name)


def collapse_test_cells(path):
    """Show each test cell folded: the student reads its verdict, and opens its code only if curious."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if is_test_cell(cell):
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    nbformat.write(notebook, path)


def index_notebook():
    """The course index: every syllabus lesson, linked when it is available."""
    ready = {lesson.id for lesson in available_lessons()}
    lines = []
    for number, lesson in enumerate(syllabus(), start=1):
        if lesson.id in ready:
            title = f"[{lesson.titulo}]({lesson.id}/{lesson.notebook_name})"
        else:
            title = f"{lesson.titulo} *(próximamente)*"
        lines.append(f"{number}. **{title}**. {lesson.resumen}")
    text = (PACKAGE_DIR / "indice.md").read_text(encoding="utf-8").replace("{lecciones}", "\n".join(lines))
    cell = new_markdown_cell(text.strip())
    cell.id = "indice"
    notebook = new_notebook(cells=[cell])
    notebook.metadata.kernelspec = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.metadata.language_info = {"name": "python"}
    return notebook


def generate(release_dir=NOTEBOOKS, lessons=None):
    """Regenerate ``release_dir`` (index plus each lesson); return the lessons generated."""
    release_dir = Path(release_dir)
    lessons = lessons or available_lessons()
    release_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="curso-generar-") as workspace:
        for lesson in lessons:
            shutil.rmtree(release_dir / lesson.id, ignore_errors=True)
            generate_lesson(lesson, release_dir, workspace)
        nbformat.write(index_notebook(), release_dir / INDEX_NAME)
    return lessons
