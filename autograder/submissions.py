"""Collect submissions from a folder or an LMS zip into nbgrader's ``submitted/`` layout.

Accepted layouts (also inside a zip, under any wrapping folders):
``<alumno>/<leccion>/<leccion>.ipynb`` (nbgrader), ``<alumno>/<archivo>.ipynb`` (Moodle:
``Nombre Apellido_123_assignsubmission_file_/.../<archivo>.ipynb``) and Canvas's flat
``apellidonombre_<id>_<id>_<archivo>.ipynb``.
"""

import errno
import json
import re
import shutil
import tempfile
import unicodedata
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints"}
MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assign(?:submission|ment)\w*$")
LMS_IDS = re.compile(r"_\d+.*$")
CANVAS_NAME = re.compile(r"^(?P<student>[a-z]+)_(?:late_)?\d+_\d+_")


@dataclass
class Submission:
    """One student's notebook for one lesson, or the reason it cannot be graded."""

    student: str
    lesson: str | None
    original: Path
    problems: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    @property
    def gradable(self):
        return self.lesson is not None and not self.problems


def student_id(name):
    """An ASCII snake_case id from a folder or file name; Moodle's participant number keeps it unique
    ("Ana Núñez_12_assignsubmission_file_" → "ana_nunez_12")."""
    moodle = MOODLE_FOLDER.match(name)
    if moodle:
        name = f"{moodle['name']}_{moodle['id']}"
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "_", ascii_name.lower()).strip("_")
    return slug or "alumno_sin_nombre"


@contextmanager
def opened(source):
    """Yield a folder with the submissions: ``source`` itself, or a zip extracted to a temp dir."""
    source = Path(source)
    if source.is_dir():
        yield source
        return
    if not source.exists():
        raise FileNotFoundError(errno.ENOENT, "no existe", str(source))
    if not zipfile.is_zipfile(source):
        raise ValueError(f"«{source}» no es una carpeta ni un archivo .zip.")
    with tempfile.TemporaryDirectory(prefix="curso-entregas-") as tmp, zipfile.ZipFile(source) as archive:
        archive.extractall(tmp)  # ZipFile drops absolute paths and ".." from member names
        yield Path(tmp)


def _notebook_files(folder):
    files = [p for p in folder.rglob("*.ipynb") if not IGNORED_PARTS & set(p.parts)]
    return sorted(p.relative_to(folder) for p in files)


def _lesson_from_name(stem, lesson_ids):
    matches = [lesson for lesson in lesson_ids if lesson in stem]
    if len(matches) == 1:
        return matches[0]
    number = re.match(r"(?:.*[_\- ])?(\d{2})(?:[_\- ]|$)", stem)
    by_number = [lesson for lesson in lesson_ids if number and lesson.startswith(number.group(1) + "_")]
    return by_number[0] if len(by_number) == 1 else None


def identify(relative, lesson_ids, default_lesson=None):
    """Work out student and lesson for one notebook path relative to the submissions folder."""
    folders, stem = relative.parts[:-1], relative.stem
    lesson = next((part for part in folders if part in lesson_ids), None)
    if lesson is not None:
        index = folders.index(lesson)
        student = folders[index - 1] if index > 0 else LMS_IDS.sub("", stem)
    else:
        moodle = [part for part in folders if MOODLE_FOLDER.match(part)]
        canvas = CANVAS_NAME.match(relative.name)
        if moodle:
            student = moodle[-1]
        elif canvas:
            student = canvas["student"]
        else:
            student = folders[-1] if folders else LMS_IDS.sub("", stem)
        lesson = _lesson_from_name(stem, lesson_ids) or default_lesson
    submission = Submission(student_id(student), lesson, relative)
    if lesson is None:
        known = ", ".join(lesson_ids)
        submission.problems.append(
            f"no se reconoce la lección de «{relative}»: el archivo debe llamarse como la lección ({known})."
        )
    elif relative.name != f"{lesson}.ipynb":
        submission.warnings.append(f"el archivo se llamaba «{relative.name}»; se calificó como {lesson}.ipynb.")
    return submission


def load(path, submission, expected_ids=None):
    """Read and validate a submitted notebook; record problems and return it (or ``None``).

    ``expected_ids`` are the lesson's nbgrader cell ids: a notebook sharing none of them
    belongs to another lesson, and duplicated ones (a copied test cell) are kept once.
    """
    try:
        content = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        where = f" (línea {error.lineno}, columna {error.colno})" if hasattr(error, "lineno") else ""
        submission.problems.append(
            f"el archivo no es un cuaderno de Jupyter válido: su JSON está dañado{where}; "
            "¿se guardó a medias o se editó fuera de Jupyter?"
        )
        return None
    try:
        notebook = nbformat.from_dict(content)
        nbformat.validate(notebook)
    except Exception:  # any schema violation
        submission.problems.append(
            "el archivo no es un cuaderno de Jupyter válido: es JSON, pero no tiene el formato de un cuaderno."
        )
        return None
    seen = set()
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is None:
            continue
        if grade_id in seen:
            del cell.metadata["nbgrader"]
            submission.warnings.append(f"la celda {grade_id} estaba repetida; se calificó la primera.")
        seen.add(grade_id)
    if expected_ids and not seen & expected_ids:
        submission.problems.append(
            f"el cuaderno no tiene ninguna celda de {submission.lesson}: ¿es el de otra lección?"
        )
        return None
    return notebook


def _deduplicate(submissions):
    """Keep one notebook per student and lesson, preferring the correctly named one."""
    kept, seen = [], {}
    for submission in sorted(submissions, key=lambda s: bool(s.warnings)):
        key = (submission.student, submission.lesson)
        if submission.lesson is not None and key in seen:
            seen[key].warnings.append(f"había más de un cuaderno; se ignoró «{submission.original}».")
            continue
        seen[key] = submission
        kept.append(submission)
    return kept


def collect(source, submitted_dir, lesson_ids, default_lesson=None, expected_ids=None):
    """Copy every recognisable submission under ``submitted_dir``; return them all, problems included.

    ``expected_ids`` maps a lesson id to its nbgrader cell ids (see :func:`load`).
    """
    submitted_dir = Path(submitted_dir)
    expected_ids = expected_ids or {}
    with opened(source) as folder:
        submissions = _deduplicate([identify(rel, lesson_ids, default_lesson) for rel in _notebook_files(folder)])
        for submission in submissions:
            notebook = load(folder / submission.original, submission, expected_ids.get(submission.lesson))
            if submission.gradable:
                target = submitted_dir / submission.student / submission.lesson
                shutil.rmtree(target, ignore_errors=True)
                target.mkdir(parents=True)
                nbformat.write(notebook, target / f"{submission.lesson}.ipynb")
    return submissions
