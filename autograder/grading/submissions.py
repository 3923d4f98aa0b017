"""Collect submissions from a folder or an LMS zip into nbgrader's ``submitted/`` layout.

Accepted layouts (also inside a zip, under any wrapping folders):
``<alumno>/<leccion>/<leccion>.ipynb`` (nbgrader), ``<alumno>/<archivo>.ipynb`` (a folder per
student), Moodle's folders ``Nombre Apellido_123_assignsubmission_file_/.../<archivo>.ipynb``
and its flat files ``Nombre Apellido_123_assignsubmission_file_<archivo>.ipynb``, and Canvas's
``apellidonombre_<usuario>_<entrega>_<archivo>.ipynb`` (``apellidonombre_LATE_…`` when late).
The LMS's own participant or user number stays in the id, so namesakes never collide, and a
late mark becomes a status instead of part of the id.
"""

import copy
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
MOODLE_FILE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?:file|onlinetext)_(?P<file>.+)$")
LMS_IDS = re.compile(r"_\d+.*$")
CANVAS_NAME = re.compile(r"^(?P<student>[a-z]+)_(?P<late>late_)?(?P<id>\d+)_\d+_(?P<file>.+)$", re.IGNORECASE)
LATE = "entrega tardía (según el LMS)"
# A zip that expands past these is refused (a zip bomb, or not a batch of notebooks).
ZIP_LIMITS = {"bytes": 2 * 1024**3, "files": 20_000, "ratio": 200}
# A notebook past these is not graded (a lesson's has about 150 cells and, with its figures, a few MB): reading it
# would cost the grader minutes and gigabytes.
NOTEBOOK_BYTES, NOTEBOOK_CELLS = 50 * 1024**2, 3_000


@dataclass
class Submission:
    """One student's notebook for one lesson, or the reason it cannot be graded."""

    student: str
    lesson: str | None
    original: Path
    problems: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    name: str = ""  # as the LMS or the folder writes it («Ana Núñez»), for the formgrader

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
        _refuse_bombs(source, archive)
        for info in archive.infolist():
            info.filename = member_name(info)
            archive.extract(info, tmp)  # ZipFile drops absolute paths and ".." from member names
        yield Path(tmp)


def member_name(info):
    """A zip member's real name. Without the UTF-8 flag, zipfile reads names as cp437, but the
    common tools on Linux and macOS write UTF-8 there («Ana NuÃ±ez» is «Ana Núñez»), and
    Windows in Spanish writes its OEM code page, cp850 (which has «Á», unlike cp437)."""
    if info.flag_bits & 0x800:
        return info.filename
    raw = info.filename.encode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp850")


def _refuse_bombs(source, archive):
    members = archive.infolist()
    expanded = sum(info.file_size for info in members)
    packed = max(1, sum(info.compress_size for info in members))
    if len(members) > ZIP_LIMITS["files"] or expanded > ZIP_LIMITS["bytes"] or expanded / packed > ZIP_LIMITS["ratio"]:
        raise ValueError(
            f"«{source}» se expandiría a {expanded / 1024**2:.0f} MiB en {len(members)} archivos "
            f"(comprimido ocupa {packed / 1024**2:.1f} MiB): no parece un lote de cuadernos, así que no se abre. "
            "Descarga de nuevo las entregas del LMS o descomprímelas tú en una carpeta y califica la carpeta."
        )


def _notebook_files(folder):
    files = [p for p in folder.rglob("*.ipynb") if not IGNORED_PARTS & set(p.parts)]
    return sorted(p.relative_to(folder) for p in files)


def _links_outside(folder, relative):
    """Whether a submitted path is a symbolic link, passes through one, or resolves outside ``folder``."""
    path = folder
    for part in relative.parts:
        path = path / part
        if path.is_symlink():
            return True
    return not (folder / relative).resolve().is_relative_to(folder.resolve())


def _lesson_from_name(stem, lesson_ids):
    matches = [lesson for lesson in lesson_ids if lesson in stem]
    if len(matches) == 1:
        return matches[0]
    number = re.match(r"(?:.*[_\- ])?(\d{2})(?:[_\- ]|$)", stem)
    by_number = [lesson for lesson in lesson_ids if number and lesson.startswith(number.group(1) + "_")]
    return by_number[0] if len(by_number) == 1 else None


def _student_index(relative, lesson_ids):
    """Where the student's folder would be in this path (-1 for a file with no folder of its own)."""
    folders = relative.parts[:-1]
    lesson = next((part for part in folders if part in lesson_ids), None)
    return folders.index(lesson) - 1 if lesson is not None else len(folders) - 1


def student_depth(files, lesson_ids):
    """How many wrapping folders (a zip's «Tarea 1/») sit above the students' folders in this batch.

    The shallowest student folder of the batch sets it: a folder a student nests inside their own
    (``ana/beto/01_…/01_….ipynb``) is deeper, so it never becomes another student's identity.
    """
    indexes = [_student_index(f, lesson_ids) for f in files if not any(map(MOODLE_FOLDER.match, f.parts[:-1]))]
    return min((i for i in indexes if i >= 0), default=0)


def identify(relative, lesson_ids, default_lesson=None, depth=0):
    """Work out student and lesson for one notebook path relative to the submissions folder.

    The student is the LMS's own entry (the outermost Moodle folder, Moodle's or Canvas's file name) or
    the folder at ``depth`` (see :func:`student_depth`): never a folder inside what the student uploaded.
    """
    folders, stem = relative.parts[:-1], relative.stem
    lesson = next((part for part in folders if part in lesson_ids), None)
    moodle = [part for part in folders if MOODLE_FOLDER.match(part)]
    late = False
    if moodle:
        student = moodle[0]
        lesson = lesson or _lesson_from_name(stem, lesson_ids) or default_lesson
    elif lesson is not None:
        index = folders.index(lesson)
        student = folders[min(depth, index - 1)] if index > 0 else LMS_IDS.sub("", stem)
    else:
        moodle_file = MOODLE_FILE.match(relative.name)
        canvas = CANVAS_NAME.match(relative.name)
        if len(folders) > depth:
            student = folders[depth]
        elif moodle_file:
            student, stem = f"{moodle_file['name']}_{moodle_file['id']}", Path(moodle_file["file"]).stem
        elif canvas:
            student, stem = f"{canvas['student']}_{canvas['id']}", Path(canvas["file"]).stem
            late = bool(canvas["late"])
        else:
            student = LMS_IDS.sub("", stem)
        lesson = _lesson_from_name(stem, lesson_ids) or default_lesson
    named = MOODLE_FOLDER.match(student) or MOODLE_FILE.match(student + "_assignsubmission_file_x")
    submission = Submission(student_id(student), lesson, relative, name=(named["name"] if named else student).strip())
    if late:
        submission.warnings.append(LATE)
    if lesson is None:
        known = ", ".join(lesson_ids)
        submission.problems.append(
            f"no se reconoce la lección de «{relative}»: el archivo debe llamarse como la lección ({known})."
        )
    elif stem != lesson:
        submission.warnings.append(f"el archivo se llamaba «{relative.name}»; se calificó como {lesson}.ipynb.")
    return submission


def load(path, submission, expected_cells=None):
    """Read and validate a submitted notebook; record problems and return it (or ``None``).

    ``expected_cells`` maps each nbgrader cell id of the lesson to its metadata in the source
    notebook. A notebook sharing none of them belongs to another lesson. Every cell's nbgrader
    metadata is taken from the lesson, never from the submission: a known id gets the lesson's
    metadata (once: a copied test cell is kept once), and any other nbgrader metadata is dropped,
    so a student cannot turn a cell of theirs into a test cell or change what a cell is worth.
    """
    if path.stat().st_size > NOTEBOOK_BYTES:
        submission.problems.append(
            f"el cuaderno ocupa {path.stat().st_size / 1024**2:.0f} MB, más de los {NOTEBOOK_BYTES // 1024**2} MB que "
            "se califican: ¿guardaste salidas enormes? Borra las salidas de todas las celdas y vuelve a entregarlo."
        )
        return None
    try:
        content = json.loads(path.read_bytes())
        text = json.dumps(content, ensure_ascii=False)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # (a 5 000-digit number, 100 000 nested lists)
        where = f" (línea {error.lineno}, columna {error.colno})" if hasattr(error, "lineno") else ""
        submission.problems.append(
            f"el archivo no es un cuaderno de Jupyter válido: su JSON está dañado{where}; "
            "¿se guardó a medias o se editó fuera de Jupyter?"
        )
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # ``"\ud800"``: an escape that JSON accepts and no text file can hold
        content = json.loads(text.encode("utf-8", "replace"))
        submission.warnings.append("el cuaderno tenía caracteres que no son texto válido; se cambiaron por «?».")
    try:
        notebook = nbformat.from_dict(content)
        nbformat.validate(notebook)
    except Exception:  # any schema violation
        submission.problems.append(
            "el archivo no es un cuaderno de Jupyter válido: es JSON, pero no tiene el formato de un cuaderno."
        )
        return None
    if len(notebook.cells) > NOTEBOOK_CELLS:
        submission.problems.append(
            f"el cuaderno tiene {len(notebook.cells)} celdas, más de las {NOTEBOOK_CELLS} que se califican "
            "(una lección tiene unas 150)."
        )
        return None
    seen = set()
    for cell in notebook.cells:
        if "nbgrader" not in cell.metadata:
            continue
        metadata = cell.metadata["nbgrader"]
        grade_id = metadata.get("grade_id") if isinstance(metadata, dict) else None
        grade_id = grade_id if isinstance(grade_id, str) else None  # (a list or a dict cannot name a cell)
        if grade_id in seen:
            submission.warnings.append(f"la celda {grade_id} estaba repetida; se calificó la primera.")
        elif expected_cells is not None and grade_id not in expected_cells:
            submission.warnings.append(
                "una celda llevaba marcas de nbgrader que no son de la lección; se trató como una celda normal."
            )
        else:
            seen.add(grade_id)
            if expected_cells is not None:
                cell.metadata["nbgrader"] = copy.deepcopy(expected_cells[grade_id])
            continue
        del cell.metadata["nbgrader"]
    if expected_cells and not seen & set(expected_cells):
        submission.problems.append(
            f"el cuaderno no tiene ninguna celda de {submission.lesson}: ¿es el de otra lección?"
        )
        return None
    submission.warnings[:] = list(dict.fromkeys(submission.warnings))
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


def collect(source, submitted_dir, lesson_ids, default_lesson=None, expected_cells=None):
    """Copy every recognisable submission under ``submitted_dir``; return them all, problems included.

    ``expected_cells`` maps a lesson id to its nbgrader cells' metadata (see :func:`load`).
    """
    submitted_dir = Path(submitted_dir)
    expected_cells = expected_cells or {}
    with opened(source) as folder:
        files = _notebook_files(folder)
        depth = student_depth(files, lesson_ids)
        submissions = _deduplicate([identify(rel, lesson_ids, default_lesson, depth) for rel in files])
        for submission in submissions:
            if _links_outside(folder, submission.original):
                submission.problems.append(
                    f"«{submission.original}» es un enlace simbólico, o está dentro de uno: no se califica. "
                    "Solo se califican cuadernos que estén de verdad en la carpeta de entregas."
                )
                continue
            notebook = load(folder / submission.original, submission, expected_cells.get(submission.lesson))
            if submission.gradable:
                target = submitted_dir / submission.student / submission.lesson
                shutil.rmtree(target, ignore_errors=True)
                target.mkdir(parents=True)
                nbformat.write(notebook, target / f"{submission.lesson}.ipynb")
    return submissions
