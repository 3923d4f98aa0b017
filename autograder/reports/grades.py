"""Grades tables (one column per exercise), CSV files and a per-exercise plot."""

import json
import re
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from nbgrader.api import Gradebook, MissingEntry

from autograder.course import find_lesson

GRADED = "calificada"
PENDING = "falta calificar a mano {count} respuesta(s) de reflexión: el total aún no es definitivo"


def _score(grade):
    return grade.manual_score if grade.manual_score is not None else grade.auto_score


def _grades(gradebook, lesson_id, student):
    """``{grade_id: score}`` of a student's submission (None: an answer nobody has graded yet)."""
    try:
        submitted = gradebook.find_submission_notebook(lesson_id, lesson_id, student)
    except MissingEntry:
        return {}
    return {grade.name: _score(grade) for grade in submitted.grades}


def exercise_label(grade_id):
    """How a report names a graded cell: «Ejercicio 3» for ``ej3_pruebas``, «Reflexión 1» for ``reflexion_1``."""
    number = re.search(r"\d+", grade_id)
    number = number.group() if number else grade_id
    return f"Reflexión {number}" if grade_id.startswith("reflexion") else f"Ejercicio {number}"


def lesson_table(db_url, lesson_id, statuses):
    """One row per student (graded now or before) with a score per exercise and a Spanish status."""
    cells = find_lesson(lesson_id).graded_cells()
    names = [name for name, _, _ in cells]
    automatic = [name for name, _, auto in cells if auto]
    with Gradebook(db_url) as gradebook:
        try:
            graded = {s.student.id for s in gradebook.assignment_submissions(lesson_id)}
        except MissingEntry:
            graded = set()
        students = sorted(graded | set(statuses))
        rows = [{"alumno": student, **_grades(gradebook, lesson_id, student)} for student in students]
    table = pd.DataFrame(rows, columns=["alumno", *names])
    manual = [name for name in names if name not in automatic]
    submitted = table[names].notna().any(axis=1)
    table["puntos_automaticos"] = table[automatic].fillna(0).sum(axis=1)
    table["maximo_automatico"] = sum(points for _, points, auto in cells if auto)
    table["total"] = table[names].fillna(0).sum(axis=1)
    table["maximo"] = sum(points for _, points, _ in cells)
    # An answer graded by hand that nobody has graded yet is empty in its column (never 0) and counted here.
    table["pendientes_de_revision"] = (table[manual].isna().sum(axis=1) * submitted).astype(int)
    table["estado"] = [
        _status(statuses.get(student), pending)
        for student, pending in zip(students, table["pendientes_de_revision"], strict=True)
    ]
    return table


def _status(status, pending):
    """A submission's Spanish status, saying so when answers still wait for the instructor."""
    notes = [text for text in (status, PENDING.format(count=pending) if pending else None) if text and text != GRADED]
    return "; ".join(notes) or GRADED


def plot_exercises(table, lesson_id, path):
    """Bar chart: share of the graded class with full marks in each autograded exercise."""
    lesson = find_lesson(lesson_id)
    automatic = [(name, points) for name, points, auto in lesson.graded_cells() if auto]
    graded = table.dropna(subset=[name for name, _ in automatic], how="all")
    shares = [100 * (graded[name] == points).mean() if len(graded) else 0 for name, points in automatic]
    figure = Figure(figsize=(max(5, 1.2 * len(automatic)), 4))
    ax = figure.subplots()
    ax.bar([exercise_label(name) for name, _ in automatic], shares, color="#4c72b0")
    ax.set_ylim(0, 100)
    ax.set_title(f"{lesson.titulo}: ¿qué ejercicios aprobó la clase?")
    ax.set_xlabel("Ejercicio")
    ax.set_ylabel("Alumnos con la puntuación completa (%)")
    ax.tick_params(axis="x", rotation=30)
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def kept_statuses(folder, lesson_id):
    """The statuses that earlier batches kept in ``estados_<id>.json`` (see
    :func:`autograder.reports.class_reports.write_reports`)."""
    kept = Path(folder) / f"estados_{lesson_id}.json"
    return json.loads(kept.read_text("utf-8")) if kept.exists() else {}
