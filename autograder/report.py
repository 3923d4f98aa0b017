"""Grades tables (one column per exercise), CSV files and a per-exercise plot."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import nbformat
import pandas as pd
from nbgrader.api import Gradebook, MissingEntry

from autograder.course import find_lesson


def grade_cells(lesson):
    """``(grade_id, autograded)`` for every graded cell of the lesson, in notebook order."""
    notebook = nbformat.read(lesson.source, as_version=4)
    cells = []
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            cells.append((meta["grade_id"], not meta.get("solution", False)))
    return cells


def _score(grade):
    if grade.manual_score is not None:
        return grade.manual_score
    return grade.auto_score


def lesson_table(db_url, lesson_id, statuses):
    """One row per student with a grade per exercise; ``statuses`` maps student → Spanish status."""
    cells = grade_cells(find_lesson(lesson_id))
    automatic = [name for name, auto in cells if auto]
    rows = []
    with Gradebook(db_url) as gradebook:
        max_scores = {}
        for student in sorted(statuses):
            row = {"alumno": student}
            try:
                submitted = gradebook.find_submission_notebook(lesson_id, lesson_id, student)
            except MissingEntry:
                submitted = None
            grades = {grade.name: grade for grade in submitted.grades} if submitted else {}
            for name, _ in cells:
                grade = grades.get(name)
                row[name] = _score(grade) if grade else None
                if grade:
                    max_scores[name] = grade.max_score
            rows.append(row)
    table = pd.DataFrame(rows, columns=["alumno", *(name for name, _ in cells)])
    table["puntos_automaticos"] = table[automatic].fillna(0).sum(axis=1)
    table["maximo_automatico"] = sum(max_scores.get(name, 0) for name in automatic)
    table["total"] = table[[name for name, _ in cells]].fillna(0).sum(axis=1)
    table["maximo"] = sum(max_scores.values())
    table["estado"] = [statuses[student] for student in table["alumno"]]
    return table


def plot_exercises(table, lesson_id, path):
    """Bar chart: share of the graded class with full marks in each autograded exercise."""
    lesson = find_lesson(lesson_id)
    automatic = [name for name, auto in grade_cells(lesson) if auto]
    graded = table.dropna(subset=automatic, how="all")
    shares = [100 * (graded[name] > 0).mean() if len(graded) else 0 for name in automatic]
    figure, ax = plt.subplots(figsize=(max(5, 1.2 * len(automatic)), 4))
    ax.bar(automatic, shares, color="#4c72b0")
    ax.set_ylim(0, 100)
    ax.set_title(f"{lesson.titulo}: ¿qué ejercicios aprobó la clase?")
    ax.set_xlabel("Ejercicio")
    ax.set_ylabel("Alumnos que lo aprobaron (%)")
    ax.tick_params(axis="x", rotation=30)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_reports(db_url, lesson_id, statuses, folder):
    """Write ``calificaciones_<id>.csv`` and ``ejercicios_<id>.png`` into ``folder``; return the table."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = lesson_table(db_url, lesson_id, statuses)
    table.to_csv(folder / f"calificaciones_{lesson_id}.csv", index=False, encoding="utf-8")
    plot_exercises(table, lesson_id, folder / f"ejercicios_{lesson_id}.png")
    return table
