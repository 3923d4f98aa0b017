"""Final grades in the files that Moodle and Canvas import, keyed by the LMS's own number.

A student's id keeps the number the LMS put in its download (:mod:`autograder.grading.submissions`):
``ana_nunez_101`` from Moodle, ``nunezana_123`` from Canvas; that trailing number is what each LMS
matches. A grade goes into the file only when it is final: a submission with reflection answers
still to grade by hand, or one that could not be graded, gets an empty cell (never a 0), and the
instructor is told which ones and why.

**Moodle.** The number in a Moodle download (``Nombre_101_assignsubmission_file_``) is the
assignment's *participant identifier* (``assign_user_mapping``), not the user id, the username,
the ID number nor the e-mail that the gradebook's CSV import (Grades › Import › CSV file) can match;
and it differs from one assignment to another. What matches it is the assignment's own *offline
grading worksheet* (Assignment › «Subir hoja de calificaciones» / «Upload grading worksheet», with
«Hoja de calificación fuera de línea» enabled as a feedback type), so one file per lesson is written
with its documented columns, as Moodle's own worksheet names them in the language of the
instructor's Moodle interface: «Identificador» (``Participante 101``), «Nombre completo»,
«Calificación», «Calificación máxima» and «Última modificación (calificación)» (in English:
Identifier / Participant 101, Full name, Grade, Maximum grade, Last modified (grade)). Moodle skips a
row whose grade is empty (``mod/assign/feedback/offline``: «grade has no value»), reads a decimal
comma where its language uses one, and ignores any other column, such as «Estado en el curso» here.

**Canvas.** The number in a Canvas download (``apellidonombre_123_456_archivo``) is the Canvas user
id, which the Gradebook's «Importar» matches in the ``ID`` column. One file for the whole course:
``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section`` (Canvas's export writes these; its
importer only recognises ``SIS User ID`` when ``SIS Login ID`` follows it), then one column per lesson,
named by the lesson's title: Canvas matches it with the assignment of that name (or of the number in
``Título (número)``) and creates an assignment for a name it does not know. A second row,
``Points Possible``, gives each lesson's maximum. Canvas's importer also accepts «;» as separator
and a decimal comma. A column that is not an assignment cannot be added (Canvas would create one),
so the pending grades are listed on screen, not in the file.
"""

import datetime
import re
from pathlib import Path

import pandas as pd

from autograder.reports.grades import GRADED
from autograder.reports.spreadsheets import write_csv

LMS_NUMBER = re.compile(r"_(\d+)$")
FORMATS = ("moodle", "moodle-en", "canvas")
MOODLE_COLUMNS = {
    "moodle": {
        "id": "Identificador",
        "participant": "Participante",
        "name": "Nombre completo",
        "grade": "Calificación",
        "maximum": "Calificación máxima",
        "modified": "Última modificación (calificación)",
    },
    "moodle-en": {
        "id": "Identifier",
        "participant": "Participant",
        "name": "Full name",
        "grade": "Grade",
        "maximum": "Maximum grade",
        "modified": "Last modified (grade)",
    },
}
STATUS_COLUMN = "Estado en el curso"  # not a Moodle column name: its importer ignores it
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
NOT_GRADED = "no se pudo calificar; no se exporta la nota"
PENDING = "falta calificar a mano {count} respuesta(s) de reflexión; no se exporta la nota hasta entonces"


def lms_number(student):
    """The LMS's number kept at the end of a student id (``ana_nunez_101`` → ``"101"``), or ``""``."""
    match = LMS_NUMBER.search(student)
    return match[1] if match else ""


def final_grade(row, graded_cells):
    """``(grade or None, why it is not exported)`` of one row of a grades table (``graded_cells``: its columns
    with scores)."""
    if row[graded_cells].isna().all():
        return None, NOT_GRADED
    if row["pendientes_de_revision"] > 0:
        return None, PENDING.format(count=int(row["pendientes_de_revision"]))
    return float(row["total"]), ""


def _cells(lesson):
    return [name for name, _, _ in lesson.graded_cells()]


def moodle_table(lesson, table, names, language="moodle", now=None):
    """One lesson's grades as Moodle's offline grading worksheet (see the module's docstring).

    ``names`` maps each student id to the name the LMS gave («Ana Núñez»).
    """
    columns = MOODLE_COLUMNS[language]
    modified = (now or datetime.datetime.now()).strftime("%Y-%m-%d %H:%M")
    maximum = sum(points for _, points, _ in lesson.graded_cells())
    rows, cells = [], _cells(lesson)
    for _, row in table.iterrows():
        grade, why = final_grade(row, cells)
        number = lms_number(row["alumno"])
        status = why or ("" if row["estado"] == GRADED else row["estado"])
        rows.append(
            {
                columns["id"]: f"{columns['participant']} {number}" if number else "",
                columns["name"]: names.get(row["alumno"]) or row["alumno"],
                columns["grade"]: grade,
                columns["maximum"]: maximum,
                columns["modified"]: modified,
                STATUS_COLUMN: status if number else f"{status}; sin número del LMS".lstrip("; "),
            }
        )
    order = [columns[key] for key in ("id", "name", "grade", "maximum", "modified")]
    return pd.DataFrame(rows, columns=[*order, STATUS_COLUMN])


def canvas_table(tables, names):
    """Every lesson's grades as one Canvas Gradebook import (see the module's docstring).

    ``tables`` holds ``(lesson, grades table)`` pairs; ``names`` maps each student id to their LMS name.
    """
    headers = [lesson.titulo for lesson, _ in tables]
    grades = {}
    for lesson, table in tables:
        cells = _cells(lesson)
        for _, row in table.iterrows():
            grade, _ = final_grade(row, cells)
            grades.setdefault(row["alumno"], {})[lesson.titulo] = grade
    possible = {"Student": "Points Possible"} | {
        lesson.titulo: sum(points for _, points, _ in lesson.graded_cells()) for lesson, _ in tables
    }
    rows = [possible]
    for student in sorted(grades):
        who = {"Student": names.get(student) or student, "ID": lms_number(student)}
        rows.append(who | {header: grades[student].get(header) for header in headers})
    return pd.DataFrame(rows, columns=[*CANVAS_STUDENT_COLUMNS, *headers])


def not_exported(tables):
    """``[(lesson, student, why)]`` of every grade that the LMS files leave empty, and of ids without a number."""
    found = []
    for lesson, table in tables:
        cells = _cells(lesson)
        for _, row in table.iterrows():
            grade, why = final_grade(row, cells)
            if grade is None:
                found.append((lesson, row["alumno"], why))
            elif not lms_number(row["alumno"]):
                found.append((lesson, row["alumno"], "su id no lleva el número del LMS: búscalo a mano"))
    return found


def export(folder, tables, names, formats, spanish_csv=False):
    """Write the files of each LMS in ``formats`` into ``folder``; return their paths.

    Moodle: ``moodle_<lesson>.csv`` per lesson; Canvas: ``canvas_calificaciones.csv``.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in dict.fromkeys(formats):
        if name == "canvas":
            path = folder / "canvas_calificaciones.csv"
            write_csv(canvas_table(tables, names), path, spanish_csv)
            written.append(path)
        else:
            for lesson, table in tables:
                path = folder / f"{name.replace('-', '_')}_{lesson.id}.csv"
                write_csv(moodle_table(lesson, table, names, name), path, spanish_csv)
                written.append(path)
    return written
