"""Flag, for a human to look at, student code that reaches for the grading machinery.

This is not a defence: verdicts are made outside the student's process (see
:mod:`autograder.grading.verdict`), so such code cannot raise a score. A list of words only tells
the instructor which submissions deserve a second look.
"""

import re

import nbformat
from nbgrader.utils import is_locked, is_solution

PATTERNS = {
    r"\bget_ipython\b|\b_ih\b|\b_oh\b": "usa get_ipython() o el historial de IPython",
    r"\bautograder\b": "toca el módulo autograder (el de las comprobaciones)",
    r"_getframe|\binspect\b|\bgc\.|\bsettrace\b|\bsetprofile\b": "inspecciona la pila de llamadas o la memoria",
    r"\bsys\.modules\b|\bimportlib\b|__import__|__builtins__|\bbuiltins\b": "manipula módulos o funciones integradas",
    r"(?<![.\w])(exec|eval|compile)\s*\(": "ejecuta código construido como texto",
    r"\brandom\.seed\b|\bsetstate\b": "fija el azar de las pruebas",
}


def _student_code(submitted, released):
    """Code cells the student wrote or changed (answer cells and any cell not in the release)."""
    original = {cell.source for cell in released.cells if cell.cell_type == "code"}
    # Grading runs the lesson's own locked cells, test cells among them (from the gradebook), whatever the
    # submission's say: an edition's imports cell, with its GitHub repository written in, is the lesson's.
    restored = {cell.metadata.nbgrader.grade_id for cell in released.cells if is_locked(cell)}
    for cell in submitted.cells:
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade_id") in restored:
            continue
        if is_solution(cell) or cell.source not in original:
            yield cell.source


def findings(submitted_path, released_path):
    """Spanish descriptions of every suspicious construct in the student's code."""
    submitted = nbformat.read(submitted_path, as_version=4)
    released = nbformat.read(released_path, as_version=4)
    code = "\n".join(_student_code(submitted, released))
    return [reason for pattern, reason in PATTERNS.items() if re.search(pattern, code)]
