"""What the instructor of a class on JupyterHub moves through nbgrader's exchange, with their own account.

``curso repartir``, ``curso recoger``, ``curso informes`` and ``curso devolver`` work in the instructor's
nbgrader workspace (its ``nbgrader_config.py`` names the exchange, the course and the gradebook; see
``despliegue/``). Each student's collected folder is renamed to the id that ``curso calificar`` gives them
(``ana.garcia`` → ``ana_garcia``): the gradebook, the CSV and the formgrader then name everyone the same
way. nbgrader finds each student's feedback by the secret of their submission, which ``devolver`` copies
next to it.

On a shared server a submission's owner is the operating system's account that made it: ``OwnerCheckedCollect``
(nbgrader's collect plugin, set by ``_api``) refuses an entry of the inbound folder whose name says another
student than the account that owns its files, and ``collect`` tells the instructor and lists it in
``informes/entregas_rechazadas.csv``. ``release`` sets the sticky bit on the inbound folder, so that nobody
renames or deletes an entry that is not theirs.
"""

import csv
import datetime
import logging
import os
import pwd
import shutil
import stat
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc
from traitlets.config.loader import PyFileConfigLoader

from autograder.course import find_lesson, gradebook_url, nbgrader_api, workspace_notebook
from autograder.grading.grade import technical_log
from autograder.grading.submissions import student_id
from autograder.reports import class_reports, grades

COLLECTED = "recogidas"
# What nbgrader needs beside a feedback page to give it to the student who submitted.
SUBMISSION_FILES = ("timestamp.txt", "submission_secret.txt")
# Every refused submission, for the instructor: one row per entry of the inbound folder, kept across runs.
REFUSED = Path("informes") / "entregas_rechazadas.csv"
REFUSED_COLUMNS = ["fecha", "leccion", "entrada", "a_nombre_de", "cuenta", "motivo"]


class ExchangeError(RuntimeError):
    """A step that could not be done (message in Spanish)."""


def _account(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def refusal(path):
    """Why the inbound entry ``path`` is not a submission of the account its name starts with (Spanish),
    or ``None``. Its name is nbgrader's ``account+lesson+timestamp[+random]``; it must be a folder of plain
    files and folders, all owned by that account and readable: a link could copy someone else's files, a
    pipe would block the collection, an unreadable folder or a name without a date would stop it for
    everyone."""
    parts = os.path.basename(path).rsplit("+", 3)
    try:
        parse_utc(parts[2])
    except (IndexError, ValueError, OverflowError):
        return "su nombre no tiene la fecha de una entrega"
    user = parts[0]
    try:
        uid = pwd.getpwnam(user).pw_uid
    except KeyError:
        return f"no existe la cuenta «{user}»"
    top = os.lstat(path)
    if top.st_uid != uid:
        return f"es de la cuenta «{_account(top.st_uid)}», no de «{user}»"
    if not stat.S_ISDIR(top.st_mode):
        return "no es una carpeta"
    try:
        for folder, names, files in os.walk(path, onerror=_raise):
            for name in names + files:
                entry = os.lstat(os.path.join(folder, name))
                if entry.st_uid != uid:
                    return f"contiene «{name}», de la cuenta «{_account(entry.st_uid)}»"
                if not (stat.S_ISDIR(entry.st_mode) or stat.S_ISREG(entry.st_mode)):
                    return f"contiene «{name}», que no es un archivo ni una carpeta (¿un enlace?)"
                if not os.access(os.path.join(folder, name), os.R_OK):
                    return f"contiene «{name}», que no se puede leer"
    except OSError as error:
        return f"no se puede leer: {error.strerror}"
    return None


def _raise(error):
    raise error


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, for a server shared by the class: an entry whose name and owner disagree (or
    that cannot be read as a plain submission, see :func:`refusal`) is never collected. It stays in the
    inbound folder, where ``collect`` reports it; the student's own latest submission is collected."""

    def _path_to_record(self, path):
        if refusal(path) is not None:  # grouped apart from every student, then left out
            return {"username": None, "filename": os.path.basename(path), "timestamp": datetime.datetime.min}
        return super()._path_to_record(path)

    def init_src(self):
        super().init_src()
        self.src_records = [record for record in self.src_records if record["username"] is not None]


def _api(workspace, **coursedir):
    """nbgrader's API with the workspace's own configuration: exchange, course id, gradebook."""
    workspace = Path(workspace)
    if not (workspace / "nbgrader_config.py").is_file():
        raise ExchangeError(
            f"«{workspace.resolve()}» no es el espacio de trabajo de una clase: le falta nbgrader_config.py (lo crea "
            "despliegue/preparar.py). Entra en él o dalo con --directorio."
        )
    config = PyFileConfigLoader("nbgrader_config.py", path=str(workspace)).load_config()
    if "root" not in config.get("Exchange", {}):
        raise ExchangeError(
            f"el nbgrader_config.py de «{workspace.resolve()}» no dice dónde está el intercambio (Exchange.root)."
        )
    for name, value in coursedir.items():
        config.CourseDirectory[name] = value
    config.Application.log_level = logging.INFO
    config.ExchangeFactory.collect = OwnerCheckedCollect
    return NbGraderAPI(config=config)


def _inbound(api):
    return Path(api.config.Exchange.root) / api.coursedir.course_id / "inbound"


def refused_submissions(inbound, lesson_id):
    """``{entry: (named student, owner, reason)}``: the entries of ``inbound`` for the lesson that
    ``OwnerCheckedCollect`` does not collect."""
    refused = {}
    for path in sorted(Path(inbound).glob(f"*+{lesson_id}+*")):
        reason = refusal(path)
        if reason is not None:
            refused[path.name] = (path.name.split("+", 1)[0], _account(path.lstat().st_uid), reason)
    return refused


def _note_refused(workspace, lesson_id, refused):
    """Add the refusals not yet listed to ``informes/entregas_rechazadas.csv``; return its path."""
    path = Path(workspace) / REFUSED
    path.parent.mkdir(parents=True, exist_ok=True)
    listed = set()
    if path.exists():
        with open(path, newline="", encoding="utf-8") as table:
            listed = {row["entrada"] for row in csv.DictReader(table)}
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as table:
        writer = csv.writer(table)
        if new:
            writer.writerow(REFUSED_COLUMNS)
        now = datetime.datetime.now().isoformat(timespec="seconds")
        for entry, (user, owner, reason) in refused.items():
            if entry not in listed:
                writer.writerow([now, lesson_id, entry, user, owner, reason])
    return path


def _check(result, workspace, what):
    """An nbgrader result that failed becomes a Spanish error; its technical log stays in informes/registros/."""
    if result["success"]:
        return result
    where = technical_log(result, workspace, f"intercambio_{what}")
    raise ExchangeError(f"nbgrader no pudo {what.replace('_', ' ')}; {where}")


def release(workspace, lesson_id, say=print):
    """Put a lesson in the exchange: each student sees it in their «Lista de lecciones» (nbgrader's Assignments)."""
    find_lesson(lesson_id)
    api = _api(workspace)
    _check(api.release_assignment(lesson_id), workspace, f"repartir_{lesson_id}")
    inbound = _inbound(api)
    inbound.chmod(inbound.stat().st_mode | stat.S_ISVTX)  # like /tmp: only its owner renames or deletes an entry
    say(f"Repartida {lesson_id}: cada alumno la ve en su «Lista de lecciones» (menú Nbgrader) y la descarga.")


def collect(workspace, lesson_id, say=print):
    """The latest submission of each student, in ``recogidas/<id>/<lesson>/``; returns the students."""
    find_lesson(lesson_id)
    folder = Path(workspace) / COLLECTED
    api = _api(workspace, submitted_directory=COLLECTED)
    refused = refused_submissions(_inbound(api), lesson_id)
    _check(api.collect(lesson_id, update=True), workspace, "recoger")
    if refused:
        where = _note_refused(workspace, lesson_id, refused)
        for entry, (user, _, reason) in refused.items():
            say(f"! Entrega rechazada, no se recoge: «{entry}» dice ser de {user}, pero {reason}.")
        say(
            f"{len(refused)} entregas rechazadas de {lesson_id}: se conservan las que cada alumno hizo con su cuenta. "
            f"Quedan anotadas en {where.relative_to(Path(workspace))} (el dueño de cada una es la cuenta que la hizo)."
        )
    for submission in sorted(folder.glob(f"*/{lesson_id}")):
        user = submission.parent.name
        student = student_id(user)
        if student != user:
            target = folder / student / lesson_id
            shutil.rmtree(target, ignore_errors=True)
            target.parent.mkdir(parents=True, exist_ok=True)
            submission.rename(target)
            if not any(submission.parent.iterdir()):
                submission.parent.rmdir()
    students = sorted(p.parent.name for p in folder.glob(f"*/{lesson_id}"))
    say(f"{len(students)} entregas de {lesson_id} en {folder}: {', '.join(students) or 'ninguna'}.")
    say(f"Califícalas con: curso calificar {COLLECTED} --directorio . --leccion {lesson_id}")
    return students


def reports(workspace, lesson_id, say=print):
    """The CSV and the plot again, with the grades given by hand in the formgrader; returns the table."""
    find_lesson(lesson_id)
    folder = Path(workspace) / "informes"
    table = class_reports.write_reports(gradebook_url(workspace), lesson_id, {}, folder)
    say(f"Calificaciones de {lesson_id}: {folder / f'calificaciones_{lesson_id}.csv'}")
    for row in table.itertuples():
        say(
            f"  {row.alumno}: {row.total:g} / {row.maximo:g}"
            + ("" if row.estado == grades.GRADED else f" ({row.estado})")
        )
    return table


def _feedback(workspace, lesson_id, say):
    """Each collected student's feedback page again (with the grades given by hand), beside their
    submission's secret; returns the students."""
    api = nbgrader_api(workspace)
    students = []
    for submission in sorted((Path(workspace) / COLLECTED).glob(f"*/{lesson_id}")):
        student = submission.parent.name
        if not workspace_notebook(workspace, "autograded", student, lesson_id).exists():
            say(f"! {student}: su entrega aún no está calificada (curso calificar).")
            continue
        _check(api.generate_feedback(lesson_id, student, force=True), workspace, f"retroalimentar_{student}")
        page = workspace_notebook(workspace, "feedback", student, lesson_id).with_suffix(".html")
        for name in SUBMISSION_FILES:
            if (submission / name).exists():
                shutil.copy2(submission / name, page.parent / name)
        students.append(student)
    return students


def give_back(workspace, lesson_id, say=print):
    """Feedback with every grade, the CSV, and each page to the exchange for its student; returns them."""
    find_lesson(lesson_id)
    students = _feedback(workspace, lesson_id, say)
    reports(workspace, lesson_id, say)
    api = _api(workspace)
    returned = []
    for student in students:
        feedback = workspace_notebook(workspace, "feedback", student, lesson_id).parent
        if not all((feedback / name).exists() for name in SUBMISSION_FILES):
            say(f"! {student}: no llegó por el intercambio; su retroalimentación está en {feedback}.")
            continue
        _check(api.release_feedback(lesson_id, student_id=student), workspace, f"devolver_{student}")
        returned.append(student)
    say(
        f"Retroalimentación de {lesson_id} devuelta a {len(returned)} alumnos: {', '.join(returned) or 'ninguno'}. "
        "La descargan en su «Lista de lecciones» («Descargar la retroalimentación»)."
    )
    return returned
