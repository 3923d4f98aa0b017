"""What the class got wrong: the diagnosis behind each failed test cell, grouped over a batch.

Every failed check leaves an error output in the autograded notebook whose text reads
«✗ message» and, on a second line, «  Pista: hint» (see :class:`gradientes.checks.CheckFailure`
and :mod:`autograder.grading.verdict`). The hint names the misconception («¿promedias (no sumas)…?»), so
students are grouped by it; the values in the text (random inputs, tensors, shapes) are replaced
by placeholders first, so the same mistake made on different inputs is one row. Templates nobody
touched, exceptions and time-outs get rows of their own.
"""

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass

import pandas as pd

from autograder.course import find_lesson, is_test_cell
from autograder.grading.preprocessors import KERNEL_DIED_NAME, TIMEOUT_NAME
from autograder.reports.grades import exercise_label

HINT = "\n  Pista: "
# Characters of an error output that a report reads: its text can come from the student's kernel, of any length,
# and every expression here runs over it.
TEXT_LIMIT = 4000
COLUMNS = ["ejercicio", "celda", "tipo", "id", "diagnostico", "cuantos", "de", "alumnos", "ejemplo"]
# The kinds of failure that are not a diagnosis of their own, and how a report words them.
UNANSWERED = "sin_responder"
EXCEPTION = "excepcion"
TIMEOUT = "tiempo_agotado"
NOT_RUN = "no_ejecutada"
DIAGNOSIS = "diagnostico"
FIXED_TEXTS = {
    UNANSWERED: "todavía no había escrito su respuesta (la plantilla sin tocar)",
    TIMEOUT: "su código no terminó dentro del tiempo límite (¿un bucle que no acaba?)",
    NOT_RUN: "el kernel se detuvo antes de terminar esta comprobación (¿os._exit, la memoria agotada?)",
}
RAISED = re.compile(r"\blanzó (?P<kind>[A-Za-z_][\w.]*)")
# A name and «(»: tried only where a run of [\w.] starts (a start inside the run rescans it: quadratic over a
# long run); digits, dots or accented letters before the name's first ASCII letter are part of the match.
CALL = re.compile(r"(?<![\w.])(?:[^\W_A-Za-z]|\.)*[A-Za-z_][\w.]*\(")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?", re.IGNORECASE)
# «# , #  #,» and the like: what ``(?:\s*#\s*,?)+`` matches, written so that each character has one way to match
# (that one backtracked exponentially over «(1 1 1 …» with no closing parenthesis).
_HASHES = r"\s*#[\s#]*(?:,\s*#[\s#]*)*,?"
NUMBERS_IN_PARENTHESES = re.compile(rf"\({_HASHES}\)|\[{_HASHES}\]")
DTYPE = re.compile(r"torch\.(?:b?float|u?int|complex|bool|half|double|long|short|cfloat|cdouble)\d*\b")


@dataclass
class Failure:
    """One failed test cell of one student."""

    student: str
    cell: str  # the test cell's grade_id
    kind: str
    key: str  # what groups it with the same diagnosis of other students
    text: str  # how a report words it
    full: str  # the whole message the student read


def _collapse_calls(text):
    """``name(any, args)`` → ``name(…)``, with nested parentheses (an empty call stays as it is)."""
    parts, start = [], 0
    for match in CALL.finditer(text):
        if match.start() < start:
            continue
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        inner = text[match.end() : end - 1 if depth == 0 else end]
        parts += [text[start : match.end()], "…" if inner.strip() else "", ")" if depth == 0 else ""]
        start = end
    return "".join(parts) + text[start:]


def normalise(text):
    """The text of a diagnosis without the values that change from one student (or input) to another."""
    text = _collapse_calls(text)
    text = DTYPE.sub("torch.<tipo>", text)
    text = NUMBER.sub("#", text)
    text = NUMBERS_IN_PARENTHESES.sub("(…)", text)
    return " ".join(text.split()).rstrip(".").lower()


def _stable_id(kind, key):
    return kind if kind in FIXED_TEXTS else f"{kind}:{hashlib.sha1(key.encode()).hexdigest()[:8]}"


def classify(student, cell, ename, evalue):
    """The :class:`Failure` an error output of a test cell stands for."""
    message, _, hint = evalue.partition(HINT)
    message, hint = message.strip(), hint.strip()
    raised = RAISED.search(message)
    if ename == KERNEL_DIED_NAME:
        kind, key, text = NOT_RUN, "", FIXED_TEXTS[NOT_RUN]
    elif ename == TIMEOUT_NAME or "tiempo límite" in message:
        kind, key, text = TIMEOUT, "", FIXED_TEXTS[TIMEOUT]
    elif "todavía no has escrito tu respuesta" in message:
        kind, key, text = UNANSWERED, "", FIXED_TEXTS[UNANSWERED]
    elif raised:  # the student's code raised: grouped by the exception's type
        kind, key = EXCEPTION, f"{raised['kind']} {normalise(hint)}"
        text = f"su código lanzó {raised['kind']}" + (f"; pista: {hint}" if hint else "")
    elif ename not in ("CheckFailure", ""):  # the test cell could not go on (a name the kernel lacks, say)
        kind, key, text = EXCEPTION, f"{ename} {normalise(hint or message)}", f"{ename}: {hint or message}"
    else:
        kind, key, text = DIAGNOSIS, normalise(hint or message), hint or message
    return Failure(student, cell, kind, key, text, evalue.strip())


def failures(notebook, student):
    """Every failed test cell of one autograded notebook."""
    found = []
    for cell in notebook.cells:
        if not is_test_cell(cell):
            continue
        errors = [output for output in cell.get("outputs", []) if output.output_type == "error"]
        if errors:
            error = errors[-1]  # a test cell stops at its first failed check: one error output
            ename, evalue = error.get("ename", "")[:TEXT_LIMIT], error.get("evalue", "")[:TEXT_LIMIT]
            found.append(classify(student, cell.metadata.nbgrader.grade_id, ename, evalue))
    return found


def lesson_errors(lesson_id, notebooks):
    """One row per exercise and diagnosis: how many of the students got it, and which.

    ``notebooks`` maps each student to their autograded notebook of the lesson. Rows follow the lesson's
    exercises in order and, within each, the most frequent diagnosis first.
    """
    groups = defaultdict(list)
    for student, notebook in notebooks.items():
        for failure in failures(notebook, student):
            groups[(failure.cell, failure.kind, failure.key)].append(failure)
    order = [name for name, _, auto in find_lesson(lesson_id).graded_cells() if auto]
    rows = []
    for (cell, kind, key), found in groups.items():
        found.sort(key=lambda failure: failure.student)
        rows.append(
            {
                "ejercicio": exercise_label(cell),
                "celda": cell,
                "tipo": kind,
                "id": _stable_id(kind, key),
                "diagnostico": found[0].text,
                "cuantos": len(found),
                "de": len(notebooks),
                "alumnos": "; ".join(failure.student for failure in found),
                "ejemplo": found[0].full,
            }
        )
    table = pd.DataFrame(rows, columns=COLUMNS)
    if rows:
        table["_orden"] = [order.index(cell) if cell in order else len(order) for cell in table["celda"]]
        table = table.sort_values(["_orden", "cuantos", "diagnostico"], ascending=[True, False, True])
        table = table.drop(columns="_orden").reset_index(drop=True)
    return table
