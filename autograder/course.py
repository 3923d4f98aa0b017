"""Where the course lives, its syllabus, and nbgrader wired to both."""

import logging
import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.apps import NbGraderAPI
from traitlets.config.loader import PyFileConfigLoader

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"


@dataclass(frozen=True)
class Lesson:
    """One syllabus entry; ``id`` is also the nbgrader assignment and notebook name."""

    id: str
    titulo: str
    resumen: str

    @property
    def source(self):
        return SOLUTIONS / self.id / f"{self.id}.ipynb"

    @property
    def notebook_name(self):
        return f"{self.id}.ipynb"

    def graded_cells(self):
        """``(grade_id, points, autograded)`` of every graded cell, in notebook order."""
        cells = []
        for cell in nbformat.read(self.source, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade"):
                cells.append((meta["grade_id"], float(meta["points"]), not meta.get("solution", False)))
        return cells

    def cell_ids(self):
        """Every nbgrader cell id of the lesson (solutions, tests, read-only cells)."""
        notebook = nbformat.read(self.source, as_version=4)
        return {cell.metadata["nbgrader"]["grade_id"] for cell in notebook.cells if "nbgrader" in cell.metadata}


def syllabus():
    """All lessons of the syllabus, in order."""
    data = tomllib.loads((PACKAGE_DIR / "temario.toml").read_text(encoding="utf-8"))
    return [Lesson(**entry) for entry in data["leccion"]]


def available_lessons():
    """Lessons whose source notebook exists."""
    return [lesson for lesson in syllabus() if lesson.source.exists()]


def find_lesson(lesson_id):
    """The lesson with this id, or a ValueError in Spanish."""
    for lesson in available_lessons():
        if lesson.id == lesson_id:
            return lesson
    known = ", ".join(lesson.id for lesson in available_lessons())
    raise ValueError(f"No existe la lección «{lesson_id}». Lecciones disponibles: {known}.")


def nbgrader_config():
    """The course's nbgrader configuration (``autograder/nbgrader_config.py``)."""
    # nbgrader runs helper programs (alembic) by name: find them even in a venv that is not activated.
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([scripts, os.environ.get("PATH", "")])
    return PyFileConfigLoader("nbgrader_config.py", path=str(PACKAGE_DIR)).load_config()


def nbgrader_api(root, release=NOTEBOOKS):
    """An NbGraderAPI for a grading workspace ``root`` that reads lessons from ``solutions/``."""
    config = nbgrader_config()
    config.CourseDirectory.root = str(Path(root).resolve())
    config.CourseDirectory.source_directory = str(SOLUTIONS)
    config.CourseDirectory.release_directory = str(Path(release).resolve())
    config.Application.log_level = logging.WARNING
    return NbGraderAPI(config=config)
