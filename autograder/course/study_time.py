"""How long a lesson takes a student, estimated from what it asks them to read, run, write and explain.

The rates come from students who tried six lessons and from a review of all of them (about 16 hours for the
course): reading at 160 words a minute, 40 seconds for each example cell (run it, look at what it shows), 4 minutes
for each exercise plus 2 for each of its points (harder exercises are worth more), and 4 minutes for each
reflection. A lesson's «Tiempo estimado» states a range around that figure (``stated_range``); the tests require
that the range holds it, so a lesson that grows must say so.
"""

import re

import nbformat

WORDS_PER_MINUTE = 160
MINUTES_PER_EXAMPLE = 2 / 3
MINUTES_PER_EXERCISE = 4
MINUTES_PER_POINT = 2
MINUTES_PER_REFLECTION = 4
_SOLUTION = re.compile(r"### BEGIN SOLUTION.*?### END SOLUTION", re.S)
_STATED = re.compile(r"\*\*Tiempo estimado:\*\*\s*(?:entre\s*)?(\d+)\s*(?:y|–|-|a)\s*(\d+)\s*minutos")


def estimated_minutes(notebook):
    """The minutes a student needs for ``notebook`` (the instructor's, with solutions and nbgrader metadata)."""
    words = examples = exercises = points = reflections = 0
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id", "")
        if cell.cell_type == "markdown":
            words += len(_SOLUTION.sub("", cell.source).split())
        elif not grade_id:
            examples += 1
        if grade_id.endswith("_pruebas"):
            exercises, points = exercises + 1, points + meta.get("points", 0)
        if grade_id.startswith("reflexion"):
            reflections += 1
    return round(
        words / WORDS_PER_MINUTE
        + examples * MINUTES_PER_EXAMPLE
        + exercises * MINUTES_PER_EXERCISE
        + points * MINUTES_PER_POINT
        + reflections * MINUTES_PER_REFLECTION
    )


def stated_range(notebook):
    """``(low, high)`` minutes of the lesson's «Tiempo estimado», or None if it states none."""
    for cell in notebook.cells:
        found = _STATED.search(cell.source) if cell.cell_type == "markdown" else None
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def lesson_minutes(lesson):
    """The estimate for one lesson of the syllabus."""
    return estimated_minutes(nbformat.read(lesson.source, as_version=4))
