"""Submissions that look copied: pairs of students whose own code is unusually alike.

Only what a student wrote counts: the lines of their answer cells that are not in the released
notebook (the template, its starter code, the lesson's examples), nor in the instructor's solution,
nor written alike by a good part of the class. Lines are compared as Python's tokenizer reads them:
names become «_» (attributes and builtins stay: ``_.grad.zero_()``), comments, blank lines and
spacing disappear and a statement split over several lines is one line, so renaming the variables
or reformatting the code does not hide a copy. RapidFuzz scores every pair; difflib lines up the
lines they share. This only points a person at a pair: it never changes a grade.
"""

import builtins
import difflib
import io
import keyword
import tokenize
from collections import Counter
from dataclasses import dataclass, field

import pandas as pd
from nbgrader.utils import is_solution
from rapidfuzz import fuzz, process

from autograder.reports.grades import exercise_label

THRESHOLD = 0.85  # similarity (0 to 1) of two students' own code from which a pair is flagged...
MIN_SHARED = 4  # ...if they also share at least this many of their own lines
MIN_TOKENS = 4  # shorter lines («return _», «else :») are written alike by everyone
COMMON_SHARE = 0.25  # a line written by more than this share of the class (and by 3 or more) is no evidence
LISTED = 0.6  # pairs from this similarity on go into the CSV file, flagged or not, for context
KEPT_NAMES = set(dir(builtins)) | {"torch", "nn", "F", "math", "np", "numpy", "plt"}
SKIPPED_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
COLUMNS = ["alumno_a", "alumno_b", "similitud", "lineas_compartidas", "lineas_a", "lineas_b", "ejercicios", "revisar"]


@dataclass(frozen=True)
class Line:
    """One statement: as the tokenizer sees it (``code``), as written (``text``) and the cell it is in."""

    code: str
    text: str
    cell: str = ""


@dataclass
class Pair:
    """Two students, how alike their own code is, and the lines they share (``(line of a, line of b)``)."""

    a: str
    b: str
    score: float
    shared: list = field(default_factory=list)
    lines: tuple = (0, 0)

    @property
    def flagged(self):
        return self.score >= THRESHOLD and len(self.shared) >= MIN_SHARED

    @property
    def exercises(self):
        return list(dict.fromkeys(exercise_label(line.cell) for line, _ in self.shared if line.cell))


def _name(token, previous):
    if keyword.iskeyword(token) or token in KEPT_NAMES or previous == ".":
        return token
    return "_"


def statements(source, cell=""):
    """The statements of a piece of code, normalised (see the module's docstring)."""
    written = source.splitlines()
    found, current, first, previous = [], [], None, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in SKIPPED_TOKENS:
                continue
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if current:
                    text = "\n".join(written[first - 1 : token.start[0]]).strip()
                    found.append(Line(" ".join(current), text, cell))
                current, first = [], None
                continue
            first = first or token.start[0]
            current.append(_name(token.string, previous) if token.type == tokenize.NAME else token.string)
            previous = token.string
    except (tokenize.TokenError, SyntaxError):  # code that does not parse: line by line, as written
        lines = [line.split("#")[0].strip() for line in written]
        return [Line(" ".join(line.split()), line, cell) for line in lines if line]
    return found


def _code_cells(notebook, answers_only):
    for cell in notebook.cells:
        if cell.cell_type == "code" and (is_solution(cell) or not answers_only):
            yield cell


def student_lines(notebook):
    """The statements of a notebook's answer cells, each with its cell's grade_id."""
    return [
        line
        for cell in _code_cells(notebook, answers_only=True)
        for line in statements(cell.source, cell.metadata.nbgrader.grade_id)
    ]


def known_code(released, solution):
    """What no student's copy is told by: every code cell of the released notebook and the solution's answers."""
    cells = [*_code_cells(released, answers_only=False), *_code_cells(solution, answers_only=True)]
    return {line.code for cell in cells for line in statements(cell.source)}


def _long_enough(line):
    return len(line.code.split()) >= MIN_TOKENS


def own_lines(notebooks, known):
    """``{student: [Line]}``: each student's statements minus the known ones, the short ones and the common ones."""
    lines = {
        student: [line for line in student_lines(notebook) if line.code not in known and _long_enough(line)]
        for student, notebook in notebooks.items()
    }
    writers = Counter(code for found in lines.values() for code in {line.code for line in found})
    common = {code for code, count in writers.items() if count >= 3 and count > COMMON_SHARE * len(lines)}
    return {student: [line for line in found if line.code not in common] for student, found in lines.items()}


def shared_lines(lines_a, lines_b):
    """The statements two students share, in order, as ``(line of a, line of b)``."""
    matcher = difflib.SequenceMatcher(None, [x.code for x in lines_a], [x.code for x in lines_b], autojunk=False)
    blocks = matcher.get_matching_blocks()
    return [(lines_a[block.a + k], lines_b[block.b + k]) for block in blocks for k in range(block.size)]


def similar_pairs(notebooks, released, solution):
    """Every pair of students from :data:`LISTED` similarity on that shares a line, the most alike first.

    ``notebooks`` maps each student to their notebook of the lesson; ``released`` and ``solution`` are the
    lesson's student and instructor notebooks.
    """
    lines = own_lines(notebooks, known_code(released, solution))
    students = sorted(student for student, found in lines.items() if found)
    texts = ["\n".join(line.code for line in lines[student]) for student in students]
    scores = process.cdist(texts, texts, scorer=fuzz.ratio, score_cutoff=100 * LISTED) if texts else []
    pairs = []
    for i, a in enumerate(students):
        for j in range(i + 1, len(students)):
            if scores[i][j] >= 100 * LISTED:
                b = students[j]
                pair = Pair(a, b, round(float(scores[i][j]) / 100, 3), lines=(len(lines[a]), len(lines[b])))
                pair.shared = shared_lines(lines[a], lines[b])
                if pair.shared:  # alike only in the characters of different lines: nothing to show
                    pairs.append(pair)
    return sorted(pairs, key=lambda pair: (-pair.flagged, -pair.score, pair.a, pair.b))


def pairs_table(pairs):
    """The CSV file's rows: one per pair, flagged or not."""
    rows = [
        {
            "alumno_a": pair.a,
            "alumno_b": pair.b,
            "similitud": pair.score,
            "lineas_compartidas": len(pair.shared),
            "lineas_a": pair.lines[0],
            "lineas_b": pair.lines[1],
            "ejercicios": "; ".join(pair.exercises),
            "revisar": "sí" if pair.flagged else "no",
        }
        for pair in pairs
    ]
    return pd.DataFrame(rows, columns=COLUMNS)
