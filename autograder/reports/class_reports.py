"""After grading: what the class got wrong, which submissions look alike, and the pages that show both.

For a lesson (:func:`write_lesson`, called by :func:`write_reports` at the end of every
``curso calificar``) it writes into ``informes/``: ``errores_<id>.csv``, ``similitud_<id>.csv``,
``similitud_<id>.html`` and ``clase_<id>.html``. For the workspace (:func:`write_course`) it writes
``curso.html``, which covers every lesson graded there. Both run through :func:`within_budget`: a report that
fails or takes too long costs that report, never the grades written before it.
"""

import json
import multiprocessing
from pathlib import Path

import nbformat
import pandas as pd
from nbgrader.api import Gradebook

from autograder.course import available_lessons, find_lesson, gradebook_url, workspace_notebook
from autograder.reports import diagnoses, grades, lms, pages, similarity
from autograder.reports.spreadsheets import write_csv

BUDGET = 120  # seconds a report may take (students' text is read into it); then it is stopped
WARNING = "Aviso: no se pudo generar {what}: {why}; las calificaciones y la retroalimentación están guardadas."


def _build(sender, build, args):
    try:
        build(*args)
    except Exception as error:
        sender.send(f"falló ({type(error).__name__}: {' '.join(str(error).split())[:200]})")
    else:
        sender.send(None)


def within_budget(build, *args):
    """``build(*args)`` in a child process, killed after :data:`BUDGET` seconds; returns why it failed, in
    Spanish, or None. What it leaves is the files it wrote."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_build, args=(sender, build, args), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(BUDGET):
            child.kill()
            return f"superó el tiempo límite de {BUDGET:g} s"
        return receiver.recv()
    except EOFError:  # the child died without a word: os._exit, memory exhausted
        return "su proceso terminó de golpe (¿la memoria agotada?)"
    finally:
        child.join()
        receiver.close()


def autograded_notebooks(workspace, lesson_id, students):
    """``{student: autograded notebook}`` of those ``students`` whose submission was autograded."""
    found = {}
    for student in sorted(students):
        path = workspace_notebook(workspace, "autograded", student, lesson_id)
        if path.exists():
            # Written by nbgrader itself: read as it is, without validating it against the schema again.
            found[student] = nbformat.v4.reads(path.read_text(encoding="utf-8"))
    return found


def write_lesson(workspace, lesson_id, table, folder, spanish_csv=False):
    """The errors, the similar pairs and the class page of a lesson whose grades ``table`` is written;
    returns the errors table and the pairs."""
    lesson, folder, names = find_lesson(lesson_id), Path(folder), pages.files(lesson_id)
    notebooks = autograded_notebooks(workspace, lesson_id, table["alumno"])
    errors = diagnoses.lesson_errors(lesson_id, notebooks)
    write_csv(errors, folder / names["errores"], spanish_csv)
    released = nbformat.read(lesson.released, as_version=4)
    solution = nbformat.read(lesson.source, as_version=4)
    pairs = similarity.similar_pairs(notebooks, released, solution)
    write_csv(similarity.pairs_table(pairs), folder / names["similitud_csv"], spanish_csv)
    pages.write_similarity_page(folder, lesson, pairs, len(notebooks))
    flagged = sum(pair.flagged for pair in pairs)
    pages.write_lesson_page(folder, lesson, table, errors, flagged)
    return errors, pairs


def graded_lessons(workspace):
    """The syllabus's lessons with at least one submission in the workspace's gradebook, in order."""
    with Gradebook(gradebook_url(workspace)) as gradebook:
        graded = {assignment.name for assignment in gradebook.assignments if assignment.num_submissions}
    return [lesson for lesson in available_lessons() if lesson.id in graded]


def _read_written(path):
    """A CSV file that :func:`write_csv` wrote, in either format."""
    with open(path, encoding="utf-8-sig") as file:
        spanish = ";" in file.readline()
    options = {"sep": ";", "decimal": ","} if spanish else {}
    return pd.read_csv(path, encoding="utf-8-sig", keep_default_na=False, **options)


def lesson_tables(workspace):
    """``(lesson, grades table)`` of every lesson graded in the workspace, with the grades given by hand so far
    and the statuses of every batch."""
    folder = Path(workspace) / "informes"
    url = gradebook_url(workspace)
    return [
        (lesson, grades.lesson_table(url, lesson.id, grades.kept_statuses(folder, lesson.id)))
        for lesson in graded_lessons(workspace)
    ]


def write_course(workspace, tables=None):
    """``curso.html``: every lesson graded in the workspace (``tables``: from :func:`lesson_tables`)."""
    folder = Path(workspace) / "informes"
    entries = []
    for lesson, table in tables if tables is not None else lesson_tables(workspace):
        names = pages.files(lesson.id)
        errors = (
            _read_written(folder / names["errores"])
            if (folder / names["errores"]).exists()
            else pd.DataFrame(columns=diagnoses.COLUMNS)
        )
        pairs_file = folder / names["similitud_csv"]
        flagged = int((_read_written(pairs_file)["revisar"] == "sí").sum()) if pairs_file.exists() else None
        entries.append((lesson, table, errors, flagged))
    folder.mkdir(parents=True, exist_ok=True)
    pages.write_course_page(folder, entries)
    return folder / pages.COURSE_PAGE


def student_names(workspace):
    """``{student id: the name the LMS gave}`` from the workspace's gradebook (see
    :func:`autograder.grading.grade.prepare`)."""
    with Gradebook(gradebook_url(workspace)) as gradebook:
        return {s.id: " ".join(filter(None, (s.first_name, s.last_name))) for s in gradebook.students}


def export_lms(workspace, formats, spanish_csv=False, tables=None):
    """The LMS files of every lesson graded in the workspace (see :mod:`autograder.reports.lms`), in ``informes/``;
    returns their paths and the grades they leave out, ``[(lesson, student, why)]``."""
    tables = tables if tables is not None else lesson_tables(workspace)
    paths = lms.export(Path(workspace) / "informes", tables, student_names(workspace), formats, spanish_csv)
    return paths, lms.not_exported(tables)


def write_reports(db_url, lesson_id, statuses, folder, spanish_csv=False, say=print):
    """Write a lesson's reports into ``folder`` (the workspace's ``informes/``); return the grades table.

    ``calificaciones_<id>.csv`` and ``ejercicios_<id>.png`` here; what the class got wrong, the similar
    pairs and the class page here (:func:`write_lesson`), within its time budget (if they cannot be
    made, ``say`` gets one Spanish line saying why). Statuses are kept in ``estados_<id>.json``
    so that a later batch does not lose them. ``spanish_csv``: CSV files as a spreadsheet in Spanish reads
    them (see :mod:`autograder.reports.spreadsheets`).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    all_statuses = grades.kept_statuses(folder, lesson_id)
    all_statuses.update(statuses)
    kept = folder / f"estados_{lesson_id}.json"
    kept.write_text(json.dumps(all_statuses, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
    table = grades.lesson_table(db_url, lesson_id, all_statuses)
    write_csv(table, folder / f"calificaciones_{lesson_id}.csv", spanish_csv)
    grades.plot_exercises(table, lesson_id, folder / f"ejercicios_{lesson_id}.png")
    why = within_budget(write_lesson, folder.parent, lesson_id, table, folder, spanish_csv)
    if why:
        say(WARNING.format(what=f"el informe de la clase de {lesson_id}", why=why))
    return table
