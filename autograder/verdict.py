"""The verdict: test cells run in the grader's process, never in the student's.

nbgrader restores each test cell from the gradebook; here its code (visible checks and
hidden tests alike) runs with the grader's own torch and check helpers. The names it
takes from the notebook (the student's functions and answers) come from the sealed
kernel through :mod:`autograder.remote`: a function becomes a proxy that sends its
arguments as plain data and brings back plain data. The random inputs are drawn here,
the references are computed here and the comparison is made here, so nothing the
student's code does in its own process can change a verdict without computing the
answers; and no hidden test or reference ever reaches that process.
"""

import builtins
import contextlib
import io
import time

from nbformat.v4 import new_output

from autograder.checks import CheckFailure
from autograder.remote import ProtocolError, Recorder, RemoteError, Timeout, Unsendable

CALL_LIMIT = 10  # seconds for one call to a student's function
CELL_LIMIT = 60  # seconds for all the calls of one test cell


class StudentNames(dict):
    """A test cell's globals: what the cell does not define is looked up in the student's kernel."""

    def __init__(self, kernel):
        super().__init__()
        self.kernel = kernel

    def __missing__(self, name):
        if name in vars(builtins) or name.startswith("__"):
            raise KeyError(name)
        value = self.kernel.peer.get(name)
        self[name] = value
        return value


def _error(ename, evalue):
    line = f"\x1b[1;31m✗ {evalue}\x1b[0m" if ename == "CheckFailure" else f"{ename}: {evalue}"
    return new_output("error", ename=ename, evalue=evalue, traceback=[line])


def run_test_cell(source, kernel, name="celda de pruebas"):
    """Run a test cell against a sealed kernel; return its outputs (a failure is an error output)."""
    printed = io.StringIO()
    kernel.deadline = time.monotonic() + CELL_LIMIT
    kernel.call_limit = CALL_LIMIT
    error = None
    try:
        code = compile(source, f"<{name}>", "exec")
        with contextlib.redirect_stdout(printed), Recorder():
            exec(code, StudentNames(kernel))
    except CheckFailure as failure:
        error = _error("CheckFailure", str(failure))
    except Timeout as failure:
        error = _error("TiempoAgotado", f"una llamada a tu código {failure}.")
    except NameError as failure:
        error = _error("NameError", f"{failure} (¿ejecutaste la celda donde se define?)")
    except RemoteError as failure:
        error = _error(failure.kind, str(failure))
    except (ProtocolError, Unsendable) as failure:
        error = _error(type(failure).__name__, str(failure))
    except Exception as failure:  # the student's answer broke the test code (a wrong type, say)
        error = _error(type(failure).__name__, str(failure))
    finally:
        kernel.deadline = None
    outputs = []
    if printed.getvalue():
        outputs.append(new_output("stream", name="stdout", text=printed.getvalue()))
    if error is not None:
        outputs.append(error)
    return outputs
