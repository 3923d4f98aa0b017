"""Helpers shared by the tests."""

import re

import nbformat

from autograder.course import available_lessons

LESSONS = available_lessons()
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


def autograded_tests(notebook):
    """Autograded test cells (grade, not solution), in order."""
    return [c for c in notebook.cells if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")]


def solution_code_cells(notebook):
    return [c for c in notebook.cells if nbgrader_meta(c).get("solution") and c.cell_type == "code"]


def read(path):
    return nbformat.read(path, as_version=4)


def points(cells):
    return sum(nbgrader_meta(cell)["points"] for cell in cells)


def row(result, lesson, student):
    """One student's row of a batch's grades table for a lesson."""
    table = result.tables[lesson.id]
    return table[table["alumno"] == student].iloc[0]


def autograded_notebook(result, lesson, student):
    return read(result.workspace / "autograded" / student / lesson.id / lesson.notebook_name)
