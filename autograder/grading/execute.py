"""nbgrader's execution step, done in a sealed kernel with the verdicts outside it.

:class:`SandboxedExecute` takes the place of nbgrader's ``Execute`` preprocessor: the
student's cells run in a :class:`~autograder.sealed.sandbox.SealedKernel`, the test cells run
in the grader (:mod:`autograder.grading.verdict`), and the outputs land in the notebook for
nbgrader to score, save and turn into feedback as usual. Which cells are tests, and their
code, come from the gradebook, never from the submission: a cell the student marked as a
test with nbgrader metadata is still the student's code, and runs in the sealed kernel.
A cell that runs too long is interrupted; a kernel that dies keeps the points of the
tests before it.
"""

import atexit
import functools
import time

import nbformat
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_solution
from traitlets import Bool, Integer

from autograder.course import find_lesson
from autograder.grading.preprocessors import KERNEL_DIED_NAME, TIMEOUT_NAME
from autograder.grading.verdict import answer_names, printable, run_test_cell
from autograder.sealed.runner import OUTPUT_LIMIT
from autograder.sealed.sandbox import KernelDied, Sandbox
from gradientes.reading import RaisedCell
from gradientes.remote_errors import ProtocolError, RemoteError, Timeout

KERNEL_DIED = (
    "El kernel se detuvo al ejecutar esta celda (¿os._exit, un fallo de memoria o un bucle que "
    "agotó la RAM?). Las celdas siguientes no se ejecutaron."
)
SUBMISSION_LIMIT = 300  # seconds of wall-clock time for a whole submission (sleeping costs no CPU)
SUBMISSION_OUTPUT = 2 * 1024**2  # characters of output kept for a whole submission
OUT_OF_TIME = (
    "La entrega superó su tiempo total de {limit} s: esta celda no se ejecutó, ni las siguientes. "
    "¿Alguna celda espera o repite un cálculo sin necesidad?"
)
OUT_OF_OUTPUT = "[la entrega ya imprimió todo lo que se guarda: salida recortada]\n"
NOT_RUN = "Esta celda no se ejecutó porque el kernel se detuvo en una celda anterior."
OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}

_sandboxes = {}
# The slow first uses this process's sandboxes warm (see ``autograder.sealed.kernel.FIRST_USES``): None, all of them; a
# grading worker sets the ones of its batch's lessons.
kernel_uses = None


def sandbox(sealed=True):
    """This process's sandbox (started on first use, started again if a submission killed it)."""
    current = _sandboxes.get(sealed)
    if current is None or not current.alive():
        if current is not None:
            current.close()
        current = _sandboxes[sealed] = Sandbox(sealed=sealed, uses=kernel_uses)
    return current


@atexit.register
def _close_sandboxes():
    for current in _sandboxes.values():
        current.close()


def _text(value, limit=100_000):
    """A text the notebook can hold: at most ``limit`` characters, a lone surrogate (``"\\ud800"``) as «?»."""
    return printable(value[:limit]) if isinstance(value, str) else ""


def to_outputs(raw, count, budget=OUTPUT_LIMIT):
    """nbformat outputs from what a kernel sent, and the characters they take: only known types and
    plain text survive, up to ``budget`` characters in all (the kernel is supposed to cut them, but it
    is not trusted)."""
    outputs = []
    left = budget = min(budget, OUTPUT_LIMIT)
    for item in raw if isinstance(raw, list) else []:
        left -= len(str(item)) if isinstance(item, dict) else 0
        if left < 0:
            outputs.append(new_output("stream", name="stdout", text="[salida recortada]\n"))
            left = 0
            break
        kind = item.get("output_type") if isinstance(item, dict) else None
        if kind not in OUTPUT_TYPES:
            continue
        if kind == "stream":
            name = "stderr" if item.get("name") == "stderr" else "stdout"
            outputs.append(new_output("stream", name=name, text=_text(item.get("text"))))
        elif kind == "error":
            lines = item.get("traceback")
            lines = [_text(line, 10_000) for line in lines[:200]] if isinstance(lines, list) else []
            ename, evalue = _text(item.get("ename"), 200), _text(item.get("evalue"), 10_000)
            outputs.append(new_output("error", ename=ename, evalue=evalue, traceback=lines))
        else:
            extra = {"execution_count": count} if kind == "execute_result" else {}
            outputs.append(new_output(kind, data={"text/plain": _text(item.get("text"))}, **extra))
    return outputs, budget - left


def _error(ename, message):
    message = printable(message)
    return new_output("error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])


def lesson_cells(resources):
    """``{grade_id: code}`` of the lesson's test cells (from the gradebook), and the names that the
    answer cells of the instructor's solution define (the only names a test cell takes from the kernel)."""
    info = resources["nbgrader"]
    source = find_lesson(info["assignment"]).source
    return _lesson_cells(info["db_url"], info["assignment"], info["notebook"], source, source.stat().st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _lesson_cells(db_url, assignment, notebook_name, source, _modified):
    """Read once per lesson in a grading process (every submission of a batch has the same test cells)."""
    with Gradebook(db_url) as gradebook:
        notebook = gradebook.find_notebook(notebook_name, assignment)
        answers = {cell.name for cell in notebook.solution_cells}
        graded = {cell.name for cell in notebook.grade_cells if cell.cell_type == "code"} - answers
        tests = {cell.name: cell.source for cell in notebook.source_cells if cell.name in graded}
    solution = nbformat.read(source, as_version=4)
    code = [cell.source for cell in solution.cells if is_solution(cell) and cell.cell_type == "code"]
    return tests, frozenset().union(*map(answer_names, code))


class SandboxedExecute(NbGraderPreprocessor):
    """Run a submission in a sealed kernel; test cells are judged in the grader."""

    timeout = Integer(30, help="Segundos que puede tardar una celda del estudiante.").tag(config=True)
    sealed = Bool(True, help="Aislar el código del estudiante con bubblewrap.").tag(config=True)

    def preprocess(self, nb, resources):
        tests, self.answer_names = lesson_cells(resources)
        try:
            kernel = sandbox(self.sealed).new_kernel()
        except ProtocolError:  # the previous submission took the whole sandbox down: start another
            _sandboxes.pop(self.sealed).close()
            kernel = sandbox(self.sealed).new_kernel()
        self.sources = []  # the student's code cells run so far (test cells read what they use)
        self.output_left = SUBMISSION_OUTPUT
        kernel.ends = time.monotonic() + SUBMISSION_LIMIT
        try:
            count = 0
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                count += 1
                cell.execution_count = count
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                cell.outputs = self._run(cell, kernel, count, tests.get(grade_id))
        finally:
            kernel.close()
        return nb, resources

    def _run(self, cell, kernel, count, test_code):
        """Run one cell: ``test_code`` (from the gradebook) in the grader, or the cell's own code in the kernel."""
        if kernel.dead:
            return [_error(KERNEL_DIED_NAME, NOT_RUN) if not kernel.out_of_time else _error(TIMEOUT_NAME, NOT_RUN)]
        left = kernel.ends - time.monotonic()
        if left <= 0:
            kernel.out_of_time = True
            kernel.kill()
            return [_error(TIMEOUT_NAME, OUT_OF_TIME.format(limit=SUBMISSION_LIMIT))]
        if test_code is not None:
            outputs = run_test_cell(test_code, kernel, self.answer_names, cell.metadata.nbgrader.grade_id, self.sources)
        else:
            self.sources.append(RaisedCell(cell.source))  # every cell the student ran (a copy of a test cell too)
            raw = []
            try:
                raw = kernel.run(cell.source, min(self.timeout, left))
                if self.output_left <= 0:
                    outputs = [new_output("stream", name="stdout", text=OUT_OF_OUTPUT)]
                else:
                    outputs, used = to_outputs(raw, count, self.output_left)
                    self.output_left -= used
            except Timeout as error:
                outputs = [_error(TIMEOUT_NAME, f"la celda {error}")]
            except ProtocolError as error:
                kernel.kill()
                outputs = [_error("ProtocolError", f"el kernel envió una respuesta no válida: {error}")]
            except RemoteError as error:  # the kernel could not run the cell at all (a RecursionError compiling it)
                outputs = [_error(error.kind, f"la celda no se pudo ejecutar: {error}")]
            except KernelDied:
                outputs = []
            else:
                if not any(isinstance(item, dict) and item.get("output_type") == "error" for item in raw or []):
                    self.sources[-1] = cell.source  # it ran to its end: what it binds holds
        if kernel.dead:
            outputs.append(_error(KERNEL_DIED_NAME, KERNEL_DIED))
        return outputs
