"""The verdict: test cells run in the grader's process, never in the student's.

nbgrader restores each test cell from the gradebook; here its code (visible checks and
hidden tests alike) runs with the grader's own torch and check helpers. The names it
takes from the notebook (the student's functions and answers) come from the sealed
kernel through :mod:`autograder.bridge`: a function becomes a proxy that sends its
arguments as plain data and brings back plain data. The random inputs are drawn here,
the references are computed here and the comparison is made here, so nothing the
student's code does in its own process can change a verdict without computing the
answers; and no hidden test or reference ever reaches that process.
"""

import ast
import builtins
import contextlib
import io
import time

import torch
from nbformat.v4 import new_output

from autograder.bridge.autograd import Recorder
from autograder.bridge.values import RemoteCallable
from autograder.bridge.wire import TooLarge, Unsendable
from autograder.grading.cpu_time import WALL_FACTOR
from autograder.sealed.sandbox import KernelDied
from gradientes.checks import (
    CALL_LIMIT,
    FLAG_MARK,
    FLAGS,
    CheckFailure,
    answer_unusable,
    call_text,
    fail,
    student_raised,
    student_too_slow,
)
from gradientes.reading import SOURCES
from gradientes.remote_errors import ProtocolError, RemoteError, Timeout

MAGIC = "%%comprobar"  # in the student's kernel, the cell magic of gradientes.selfcheck
REVIEW = "revisar"  # the key, under "gradientes" in an output's metadata, of a test cell's note for the instructor
CELL_LIMIT = 60  # seconds (of the kernel's CPU time) for all the calls of one test cell
FORGET_LIMIT = 5  # seconds for the kernel to drop what a test cell sent it


class StudentFunction:
    """A student's function seen from the grader: whatever it raises becomes one Spanish line."""

    def __init__(self, proxy, name):
        self.proxy, self.__name__ = proxy, name  # the name it was asked for: the kernel's ``__name__`` may lie

    def __call__(self, *args, **kwargs):
        try:
            return self.proxy(*args, **kwargs)
        except TooLarge as error:
            fail(
                f"{call_text(self.__name__, args, kwargs)} devolvió un valor demasiado grande (más de {error}).",
                "¿devuelve tu función lo que pide el enunciado, o algo mucho más grande?",
            )
        except Timeout:
            student_too_slow(call_text(self.__name__, args, kwargs))
        except RemoteError as error:
            student_raised(call_text(self.__name__, args, kwargs), error.kind, error)

    def __repr__(self):
        return f"<función {self.__name__}>"


def answer_names(source):
    """The names an answer cell defines at its top level (functions, classes, variables, imports)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


class StudentNames(dict):
    """A test cell's globals: the names the lesson's answer cells define come from the student's kernel.

    Only those (``allowed``): a name the test cell forgot to import is an error, never the
    student's object of that name.
    """

    def __init__(self, kernel, allowed):
        super().__init__()
        self.kernel, self.allowed = kernel, allowed

    def __missing__(self, name):
        if name not in self.allowed or name in vars(builtins):
            raise KeyError(name)
        value = self.kernel.peer.get(name)
        if isinstance(value, RemoteCallable):
            value = StudentFunction(value, name)
        self[name] = value
        return value


def printable(text):
    """``text`` as UTF-8 can write it: a lone surrogate a student's value or output carries becomes «?»."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _error(ename, evalue):
    evalue = printable(evalue)
    line = f"\x1b[1;31m✗ {evalue}\x1b[0m" if ename == "CheckFailure" else f"{ename}: {evalue}"
    return new_output("error", ename=ename, evalue=evalue, traceback=[line])


def _kernel_state(kernel, grad_enabled=None):
    """Start or end a test cell in step with the kernel: drop what earlier cells exchanged (on both sides)
    and share grad mode, global state as in one process; returns the kernel's grad mode (True if it is dead).

    ``grad_enabled`` (at the end of a cell) is the mode the test cell left, which the kernel takes.
    """
    kernel.peer.forget()
    message = {"op": "forget"} if grad_enabled is None else {"op": "forget", "grad_enabled": grad_enabled}
    if not kernel.dead:
        with contextlib.suppress(ProtocolError, RemoteError, KernelDied):
            reply = kernel.peer.request(message, FORGET_LIMIT)
            return reply.get("grad_enabled") is not False
    return True


def run_test_cell(source, kernel, allowed, name="celda de pruebas", sources=()):
    """Run a test cell against a sealed kernel; return its outputs (a failure is an error output).

    ``allowed`` are the names the cell may take from the kernel (see :func:`answer_names`);
    ``sources`` the student's code cells run before it (what :func:`~gradientes.checks.check_statement` reads).
    """
    source = "\n".join(line for line in source.split("\n") if line.strip() != MAGIC)
    printed = io.StringIO()
    # Limits in the kernel's CPU seconds (the same mark however busy the machine), wall-clock time as a backstop.
    kernel.deadline = min(time.monotonic() + CELL_LIMIT * WALL_FACTOR, kernel.ends)
    kernel.call_limit, kernel.cell_cpu_ends = CALL_LIMIT, kernel.clock() + CELL_LIMIT
    error = None
    token, flags = SOURCES.set(list(sources)), FLAGS.set([])
    mode = {"grad_enabled": _kernel_state(kernel)}
    try:
        code = compile(source, f"<{name}>", "exec")
        # The cell runs in the kernel's grad mode, as in the lab, and leaves the kernel in the one it ends with.
        with contextlib.redirect_stdout(printed), Recorder(), torch.set_grad_enabled(mode["grad_enabled"]):
            try:
                exec(code, StudentNames(kernel, allowed))
            finally:
                mode["grad_enabled"] = torch.is_grad_enabled()
    except CheckFailure as failure:
        error = _error("CheckFailure", str(failure))
    except Timeout as failure:
        error = _error("TiempoAgotado", f"una llamada a tu código {failure}.")
    except TooLarge as failure:
        error = _error("CheckFailure", f"tu código envió un valor demasiado grande (más de {failure}).")
    except NameError as failure:
        error = _error("NameError", f"{failure} (¿ejecutaste la celda donde se define?)")
    except RemoteError as failure:
        error = _error(failure.kind, str(failure))
    except (ProtocolError, Unsendable) as failure:
        error = _error(type(failure).__name__, str(failure))
    except Exception as failure:  # the student's answer broke the test code (a wrong type, say)
        try:
            answer_unusable(type(failure).__name__, failure)
        except CheckFailure as spanish:
            error = _error("CheckFailure", str(spanish))
    finally:
        kernel.deadline = None
        notes = FLAGS.get()
        SOURCES.reset(token)
        FLAGS.reset(flags)
        _kernel_state(kernel, mode["grad_enabled"])
    outputs = []
    if printed.getvalue():
        outputs.append(new_output("stream", name="stdout", text=printed.getvalue()))
    # What the cell could not observe, for the instructor (see gradientes.checks.flag); never an error.
    for note in dict.fromkeys(notes):
        text = f"{FLAG_MARK} Para revisar a mano: {note}\n"
        outputs.append(new_output("display_data", data={"text/plain": text}, metadata={"gradientes": {REVIEW: note}}))
    if error is not None:
        outputs.append(error)
    return outputs
