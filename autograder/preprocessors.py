"""nbgrader preprocessors that make grading robust to hostile submissions."""

from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import ClearHiddenTests, Execute
from nbgrader.utils import is_grade, is_solution

KERNEL_DIED = (
    "El kernel se detuvo al ejecutar esta celda (¿os._exit, un fallo de memoria o un bucle que "
    "agotó la RAM?). Las celdas siguientes no se ejecutaron."
)
KERNEL_DIED_NAME = "KernelMuerto"
# nbgrader puts this (as a comment) on top of a test cell it restores into a submission.
RESTORED_MARK = "Esta celda (id: "
RESTORED_CELL = RESTORED_MARK + "{cell_id}) faltaba en la entrega y se restauró para calificar.\n"
NOT_RUN = "Esta celda no se ejecutó porque el kernel se detuvo en una celda anterior."


def _error(ename, message):
    return new_output("error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])


class ResilientExecute(Execute):
    """Execute that survives a dead kernel: later cells fail, earlier grades stay."""

    def preprocess(self, nb, resources=None, km=None):
        self._kernel_dead = False
        try:
            return super().preprocess(nb, resources, km)
        except DeadKernelError:
            # Raised again while shutting down the dead kernel; every cell is already marked.
            self.log.warning("El kernel murió durante la ejecución")
            return self.nb, self.resources

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if self._kernel_dead:
            cell.outputs = [_error(KERNEL_DIED_NAME, NOT_RUN)]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._kernel_dead = True
            cell.outputs.append(_error(KERNEL_DIED_NAME, KERNEL_DIED))
            return cell, resources


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
