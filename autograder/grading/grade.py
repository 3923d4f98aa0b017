"""Autograde collected submissions with nbgrader and write Spanish feedback.

Each submission is graded on its own: whatever one does (crash its kernel, loop,
break its JSON) is reported for that student and the batch goes on.
"""

import resource
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from autograder.course import find_lesson, gradebook_url, is_test_cell, nbgrader_api, workspace_notebook
from autograder.grading import suspicious
from autograder.grading.execute import KERNEL_DIED
from autograder.grading.preprocessors import KERNEL_DIED_NAME, RESTORED_MARK, TIMEOUT_NAME
from autograder.grading.verdict import REVIEW
from autograder.sealed.kernel import LIMITS


@dataclass
class Outcome:
    """What happened to one submission."""

    student: str
    lesson: str
    graded: bool
    message: str = ""


def technical_log(result, workspace, name):
    """Keep a failed nbgrader step's technical log in ``informes/registros/`` and say where it is, in Spanish."""
    workspace = Path(workspace).resolve()
    log = workspace / "informes" / "registros" / f"{name}.txt"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"{result.get('log') or ''}\n{result.get('error') or ''}", encoding="utf-8")
    return f"el detalle técnico está en {log.relative_to(workspace)}"


def execution_notes(notebook_path):
    """Spanish notes on what went wrong while running an autograded notebook."""
    notebook = nbformat.read(notebook_path, as_version=4)
    notes = []
    for number, cell in enumerate(notebook.cells, start=1):
        if RESTORED_MARK in cell.source.split("\n", 1)[0]:
            notes.append(f"se restauró la celda de pruebas {cell.metadata.nbgrader.grade_id}, que faltaba")
        for output in cell.get("outputs", []):
            if output.output_type != "error":
                continue
            if output.ename == KERNEL_DIED_NAME and output.evalue == KERNEL_DIED:
                notes.append(f"el kernel se detuvo en la celda {number}; las siguientes no se ejecutaron")
            elif output.ename == TIMEOUT_NAME or "tiempo límite" in output.evalue:
                notes.append(f"la celda {number} superó el tiempo límite (¿un bucle infinito?)")
            elif output.ename == "MemoryError" or "can't allocate memory" in output.evalue:
                memory = LIMITS[resource.RLIMIT_AS] // 1024**3
                notes.append(f"la celda {number} se quedó sin memoria (límite de {memory} GiB)")
    return list(dict.fromkeys(notes))


def review_notes(notebook_path):
    """What the test cells could not observe and left for the instructor (``gradientes.checks.flag``), as
    ``ejN: …``; only test cells' outputs count, and the grader writes all of those."""
    notebook = nbformat.read(notebook_path, as_version=4)
    notes = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or not is_test_cell(cell):
            continue
        exercise = cell.metadata.nbgrader.grade_id.split("_")[0]
        for output in cell.get("outputs", []):
            note = output.get("metadata", {}).get("gradientes", {}).get(REVIEW)
            if output.output_type == "display_data" and isinstance(note, str):
                notes.append(f"{exercise}: {note}")
    return list(dict.fromkeys(notes))


def prepare(workspace, lesson_ids, students):
    """Record each lesson's cells (with hidden tests) and every student in the workspace gradebook.

    ``students`` maps each id to the name the LMS gives («Ana Núñez»), which the formgrader shows.
    The students are added here, once, so that workers grading two lessons of one student at
    the same time do not both try to create the same student.
    """
    with tempfile.TemporaryDirectory(prefix="curso-release-") as release:
        api = nbgrader_api(workspace, release=release)
        for lesson_id in lesson_ids:
            result = api.generate_assignment(lesson_id, force=True, create=True)
            if not result["success"]:
                failure = technical_log(result, workspace, f"preparar_{lesson_id}")
                raise RuntimeError(f"nbgrader no pudo preparar la lección {lesson_id}; {failure}")
    with Gradebook(gradebook_url(workspace)) as gradebook:
        for student, name in dict(students).items():
            first, _, last = (name or student).partition(" ")
            gradebook.update_or_create_student(student, first_name=first, last_name=last or None)


def forget(workspace, student, lesson_id):
    """Drop an earlier submission of this student that a new, ungradable one replaces."""
    workspace = Path(workspace)
    for step in ("submitted", "autograded", "feedback"):
        shutil.rmtree(workspace / step / student / lesson_id, ignore_errors=True)
    url = gradebook_url(workspace)
    if not url.startswith("sqlite") or (workspace / "gradebook.db").exists():
        with Gradebook(url) as gradebook:
            try:
                gradebook.remove_submission(lesson_id, student)
            except MissingEntry:
                pass


def grade_one(workspace, student, lesson_id, sealed=True):
    """Autograde one submission in its sealed kernel and write its feedback; never raises."""
    api = nbgrader_api(workspace, sealed=sealed)
    try:
        result = api.autograde(lesson_id, student, force=True, create=True)
        if not result["success"]:
            failure = technical_log(result, workspace, f"{student}_{lesson_id}")
            return Outcome(student, lesson_id, False, f"nbgrader no pudo calificarla; {failure}")
        notes = []
        submitted = workspace_notebook(workspace, "submitted", student, lesson_id)
        reasons = suspicious.findings(submitted, find_lesson(lesson_id).released)
        if reasons:
            notes.append(f"para revisar a mano: su código {'; '.join(reasons)}")
        result = api.generate_feedback(lesson_id, student, force=True)
        if not result["success"]:
            failure = technical_log(result, workspace, f"{student}_{lesson_id}")
            return Outcome(student, lesson_id, True, f"calificada, pero sin retroalimentación; {failure}")
        graded = workspace_notebook(workspace, "autograded", student, lesson_id)
        flagged = review_notes(graded)
        if flagged:
            notes.append(f"para revisar a mano: {'; '.join(flagged)}")
        return Outcome(student, lesson_id, True, "; ".join(notes + execution_notes(graded)))
    except Exception as error:  # a grading failure must not stop the batch
        return Outcome(student, lesson_id, False, f"error inesperado al calificar: {error}")
