"""Where the course lives, its syllabus, and nbgrader wired to both."""

import functools
import json
import logging
import os
import sys
import tomllib
import types
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import nbformat
import nbgrader.api
import nbgrader.nbgraderformat.common
import sqlalchemy
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from nbgrader.apps import NbGraderAPI
from nbgrader.utils import is_grade, is_solution
from traitlets.config.loader import PyFileConfigLoader

COURSE_DIR = Path(__file__).resolve().parent  # the syllabus and the student edition's index
PACKAGE_DIR = COURSE_DIR.parent
ROOT = PACKAGE_DIR.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"


@functools.cache
def _gradebook_schema():
    """The gradebook's schema version, read in-process: nbgrader starts a 3-second ``alembic`` process for it."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(Path(nbgrader.api.__file__).parent / "alembic"))
    return ScriptDirectory.from_config(config).get_current_head()


nbgrader.api.get_alembic_version = _gradebook_schema


@sqlalchemy.event.listens_for(sqlalchemy.engine.Engine, "connect")
def _fast_sqlite(connection, _):
    """A SQLite gradebook in write-ahead-log mode: each of nbgrader's many small commits stops waiting for
    the disk twice, and the workers' writes stop blocking the formgrader's reads (safe for a power cut
    too: at worst the last commit is lost, never the database)."""
    if type(connection).__module__ == "sqlite3":
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


_ENGINES = {}


def _engine_per_process(url, **options):
    """One engine per gradebook and process. nbgrader opens the gradebook about ten times for each
    submission, and a new engine compiles every query again (0.07 s per submission); after a fork the
    child makes its own, as it must."""
    key = (os.getpid(), str(url), tuple(sorted(options.items())))
    if key not in _ENGINES:
        _ENGINES[key] = sqlalchemy.create_engine(url, **options)
    return _ENGINES[key]


nbgrader.api.create_engine = _engine_per_process


@functools.cache
def _metadata_validator(schema):
    schema = json.loads(schema)
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema)


def _validate_metadata(instance, schema):
    """``jsonschema.validate`` for nbgrader's cell metadata, with its schema checked once per process: nbgrader
    checked the schema itself again for every cell of every notebook (a fortieth of a second per submission)."""
    _metadata_validator(json.dumps(schema, sort_keys=True)).validate(instance)


nbgrader.nbgraderformat.common.jsonschema = types.SimpleNamespace(validate=_validate_metadata)


def is_test_cell(cell):
    """An autograded test cell (graded, not an answer)."""
    return is_grade(cell) and not is_solution(cell)


# Gradebooks chosen with ``curso calificar --libro``, by workspace; they win over the workspace's configuration.
GRADEBOOKS = {}


def gradebook_url(workspace):
    """The nbgrader gradebook of a grading workspace.

    By default a SQLite file in the workspace (``gradebook.db``). A workspace whose own ``nbgrader_config.py``
    sets ``CourseDirectory.db_url`` (a JupyterHub course on PostgreSQL, see ``despliegue/``) uses that one,
    and ``curso calificar --libro URL`` wins over both.
    """
    workspace = Path(workspace).resolve()
    chosen = GRADEBOOKS.get(workspace) or configured_gradebook(workspace)
    if chosen:
        return chosen
    # Parallel workers write to it at once: each waits for the others' short transactions.
    return f"sqlite:///{workspace / 'gradebook.db'}?timeout=60"


def configured_gradebook(workspace):
    """``CourseDirectory.db_url`` of ``nbgrader_config.py`` in the workspace, or None."""
    return _workspace_setting(workspace, "db_url")


def gradebook_course(workspace):
    """The course id that the gradebook's assignments belong to.

    SQLite does not check it (the course's own gradebooks leave it empty); PostgreSQL requires an existing
    course: the workspace's ``CourseDirectory.course_id``, or nbgrader's ``default_course``.
    """
    configured = _workspace_setting(workspace, "course_id")
    if configured or gradebook_url(workspace).startswith("sqlite"):
        return configured or ""
    return "default_course"


def _workspace_setting(workspace, name):
    config = Path(workspace) / "nbgrader_config.py"
    if not config.is_file():
        return None
    return _course_directory_in(str(config), config.stat().st_mtime_ns).get(name) or None


@functools.cache
def _course_directory_in(path, _mtime):
    try:
        loaded = PyFileConfigLoader(Path(path).name, path=str(Path(path).parent)).load_config()
    except Exception as error:  # the instructor's own file: say what is wrong with it
        raise ValueError(f"no se pudo leer la configuración «{path}»: {type(error).__name__}: {error}") from None
    return dict(loaded.CourseDirectory)


def check_gradebook(url):
    """Open the gradebook's database once, or raise a ValueError in Spanish that says why not."""
    try:
        engine = sqlalchemy.create_engine(url)
    except (ImportError, sqlalchemy.exc.ArgumentError) as error:
        shown = without_password(url)
        raise ValueError(f"«{shown}» no es un libro de calificaciones que se pueda abrir: {error}") from None
    try:
        with engine.connect():
            pass
    except sqlalchemy.exc.SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise ValueError(
            f"no se pudo abrir el libro de calificaciones «{without_password(url)}»: {reason}. "
            "Comprueba que la base de datos está en marcha y que tu usuario puede entrar en ella."
        ) from None
    finally:
        engine.dispose()


def without_password(url):
    """The URL as written, with ``***`` in place of its password."""
    try:
        password = sqlalchemy.engine.make_url(url).password
    except sqlalchemy.exc.ArgumentError:
        return url
    return url.replace(f":{password}@", ":***@") if password else url


def workspace_notebook(workspace, step, student, lesson_id):
    """A student's notebook at one nbgrader step (``submitted``, ``autograded``...) of a workspace."""
    return Path(workspace) / step / student / lesson_id / f"{lesson_id}.ipynb"


@dataclass(frozen=True)
class Lesson:
    """One syllabus entry; ``id`` is also the nbgrader assignment and notebook name."""

    id: str
    titulo: str
    resumen: str

    @property
    def notebook_name(self):
        return f"{self.id}.ipynb"

    @property
    def source(self):
        """The instructor's notebook, with solutions and hidden tests."""
        return SOLUTIONS / self.id / self.notebook_name

    @property
    def released(self):
        """The student's notebook, generated by nbgrader."""
        return NOTEBOOKS / self.id / self.notebook_name

    def graded_cells(self):
        """``(grade_id, points, autograded)`` of every graded cell, in notebook order."""
        cells = []
        for cell in nbformat.read(self.source, as_version=4).cells:
            if is_grade(cell):
                meta = cell.metadata.nbgrader
                cells.append((meta.grade_id, float(meta.points), is_test_cell(cell)))
        return cells

    def cell_metadata(self):
        """``{grade_id: nbgrader metadata}`` of every nbgrader cell of the lesson (answers, tests, read-only cells)."""
        notebook = nbformat.read(self.source, as_version=4)
        cells = [cell for cell in notebook.cells if "nbgrader" in cell.metadata]
        return {cell.metadata["nbgrader"]["grade_id"]: dict(cell.metadata["nbgrader"]) for cell in cells}


def syllabus():
    """All lessons of the syllabus, in order."""
    data = tomllib.loads((COURSE_DIR / "temario.toml").read_text(encoding="utf-8"))
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


def nbgrader_api(root, release=NOTEBOOKS, sealed=True):
    """An NbGraderAPI for a grading workspace ``root`` that reads lessons from ``solutions/``.

    ``sealed=False`` runs student code without the sandbox (``curso calificar --sin-aislamiento``).
    """
    config = nbgrader_config()
    config.SandboxedExecute.sealed = sealed
    config.CourseDirectory.root = str(Path(root).resolve())
    config.CourseDirectory.db_url = gradebook_url(Path(root).resolve())
    config.CourseDirectory.course_id = gradebook_course(Path(root).resolve())
    config.CourseDirectory.source_directory = str(SOLUTIONS)
    config.CourseDirectory.release_directory = str(Path(release).resolve())
    config.Application.log_level = logging.WARNING
    return NbGraderAPI(config=config)
