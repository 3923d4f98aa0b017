"""What nbgrader's steps do differently here: hidden tests kept out of feedback, one validation per notebook; and
the marks the grader leaves in autograded notebooks (a restored test cell, a cell it stopped)."""

from nbconvert.exporters import NotebookExporter
from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.utils import is_grade, is_solution

# nbgrader puts this (as a comment) on top of a test cell it restores into a submission.
RESTORED_MARK = "Esta celda (id: "
RESTORED_CELL = RESTORED_MARK + "{cell_id}) faltaba en la entrega y se restauró para calificar.\n"
# The error names of a cell that the grader stopped: its kernel died, or its time ran out.
KERNEL_DIED_NAME = "KernelMuerto"
TIMEOUT_NAME = "TiempoAgotado"


class HideHiddenTests(ClearHiddenTests):
    """For feedback: drop hidden tests from test cells and tracebacks that would quote them."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not is_grade(cell) or is_solution(cell):
            return cell, resources
        self._remove_hidden_test_region(cell)
        for output in cell.outputs:
            if output.output_type == "error" and output.ename != "CheckFailure":
                output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


class ValidatedOnce:
    """An exporter that validates the notebook when it is read and written, not after every preprocessor:
    nbconvert's validation after each of nbgrader's steps took a tenth of a second per submission."""

    def _validate_preprocessor(self, nbc, preprocessor):
        pass


class AutogradeExporter(ValidatedOnce, NotebookExporter):
    """The exporter of ``curso calificar``'s autograde steps."""
