"""What the instructor of a class on JupyterHub moves through nbgrader's exchange, with their own account.

``curso repartir``, ``curso recoger``, ``curso informes`` and ``curso devolver`` work in the instructor's
nbgrader workspace (its ``nbgrader_config.py`` names the exchange, the course and the gradebook; see
``despliegue/``). Each student's collected folder is renamed to the id that ``curso calificar`` gives them
(``ana.garcia`` → ``ana_garcia``): the gradebook, the CSV and the formgrader then name everyone the same
way. nbgrader finds each student's feedback by the secret of their submission, which ``devolver`` copies
next to it.
"""

import logging
import shutil
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from traitlets.config.loader import PyFileConfigLoader

from autograder import report
from autograder.course import find_lesson, gradebook_url, nbgrader_api, workspace_notebook
from autograder.grade import technical_log
from autograder.submissions import student_id

COLLECTED = "recogidas"
# What nbgrader needs beside a feedback page to give it to the student who submitted.
SUBMISSION_FILES = ("timestamp.txt", "submission_secret.txt")


class ExchangeError(RuntimeError):
    """A step that could not be done (message in Spanish)."""


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
    return NbGraderAPI(config=config)


def _check(result, workspace, what):
    """An nbgrader result that failed becomes a Spanish error; its technical log stays in informes/registros/."""
    if result["success"]:
        return result
    where = technical_log(result, workspace, f"intercambio_{what}")
    raise ExchangeError(f"nbgrader no pudo {what.replace('_', ' ')}; {where}")


def release(workspace, lesson_id, say=print):
    """Put a lesson in the exchange: each student sees it in their «Lista de lecciones» (nbgrader's Assignments)."""
    find_lesson(lesson_id)
    _check(_api(workspace).release_assignment(lesson_id), workspace, f"repartir_{lesson_id}")
    say(f"Repartida {lesson_id}: cada alumno la ve en su «Lista de lecciones» (menú Nbgrader) y la descarga.")


def collect(workspace, lesson_id, say=print):
    """The latest submission of each student, in ``recogidas/<id>/<lesson>/``; returns the students."""
    find_lesson(lesson_id)
    folder = Path(workspace) / COLLECTED
    _check(_api(workspace, submitted_directory=COLLECTED).collect(lesson_id, update=True), workspace, "recoger")
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
    table = report.write_reports(gradebook_url(workspace), lesson_id, {}, folder)
    say(f"Calificaciones de {lesson_id}: {folder / f'calificaciones_{lesson_id}.csv'}")
    for row in table.itertuples():
        say(
            f"  {row.alumno}: {row.total:g} / {row.maximo:g}"
            + ("" if row.estado == report.GRADED else f" ({row.estado})")
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
