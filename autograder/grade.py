"""Autograde collected submissions with nbgrader and write Spanish feedback.

Each submission is graded on its own: whatever one does (crash its kernel, loop,
break its JSON) is reported for that student and the batch goes on.
"""

import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.course import nbgrader_api

FEEDBACK_LABELS = {
    "(Score: ": "(Puntuación: ",
    "Score: ": "Puntuación: ",
    ">Test cell<": ">Celda de pruebas<",
    ">Coding free-response<": ">Respuesta de código<",
    ">Written response<": ">Respuesta escrita<",
    ">Task<": ">Tarea<",
    ">Comment<": ">Comentario<",
    "Late submission penalty": "Penalización por entrega tardía",
    "Student's answer": "Respuesta del estudiante",
    "Student's task": "Tarea del estudiante",
    "Grade cell: ": "Celda calificada: ",
    "Task: ": "Tarea: ",
    "<b>Comments:</b>": "<b>Comentarios:</b>",
    "(Top)": "(Arriba)",
    "<html>": '<html lang="es">',
}


@dataclass
class Outcome:
    """What happened to one submission."""

    student: str
    lesson: str
    graded: bool
    message: str = ""


def translate_feedback(html_path):
    """Put nbgrader's English feedback labels into Spanish, in place."""
    text = Path(html_path).read_text(encoding="utf-8")
    for english, spanish in FEEDBACK_LABELS.items():
        text = text.replace(english, spanish)
    Path(html_path).write_text(text, encoding="utf-8")


def _failure(result):
    detail = (result.get("error") or result.get("log") or "").strip().splitlines()
    return detail[-1] if detail else "error desconocido"


def prepare(workspace, lesson_ids):
    """Record each lesson's cells (with hidden tests) in the workspace gradebook."""
    with tempfile.TemporaryDirectory(prefix="curso-release-") as release:
        api = nbgrader_api(workspace, release=release)
        for lesson_id in lesson_ids:
            result = api.generate_assignment(lesson_id, force=True, create=True)
            if not result["success"]:
                raise RuntimeError(f"no se pudo preparar la lección {lesson_id}: {_failure(result)}")


def grade_one(workspace, student, lesson_id):
    """Autograde one submission and write its feedback; never raises."""
    api = nbgrader_api(workspace)
    try:
        result = api.autograde(lesson_id, student, force=True, create=True)
        if not result["success"]:
            return Outcome(student, lesson_id, False, f"nbgrader no pudo calificarla: {_failure(result)}")
        result = api.generate_feedback(lesson_id, student, force=True)
        if not result["success"]:
            return Outcome(student, lesson_id, True, f"calificada, pero sin retroalimentación: {_failure(result)}")
        for html in (Path(workspace) / "feedback" / student / lesson_id).glob("*.html"):
            translate_feedback(html)
        return Outcome(student, lesson_id, True)
    except Exception as error:  # a grading failure must not stop the batch
        return Outcome(student, lesson_id, False, f"error inesperado al calificar: {error}")
