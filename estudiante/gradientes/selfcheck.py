"""``%%comprobar``: a test cell run in the student's own kernel, for immediate feedback.

Every test cell starts with this cell magic; each lesson's imports cell imports this
module. In the student's notebook it runs the cell with each of the student's functions
wrapped: a call that raises becomes one Spanish line, an untouched template says the
answer is not written yet, and a call that runs
longer than ``CALL_LIMIT`` seconds is stopped. (When grading, the same cell runs outside
the student's process, in :mod:`autograder.grading.verdict`, with the same messages.)

The time limit works the same on every system (Windows has no POSIX signals): a timer thread raises
``_TooSlow`` in the calling thread with CPython's ``PyThreadState_SetAsyncExc``. The interpreter checks for
it between bytecodes, as for a signal handler, so a call blocked in one long C function (``time.sleep``, a
huge tensor operation) stops only when that function returns. Only the outermost student call is timed: a
student function that calls another one (given by the test) runs within the first one's limit.
"""

import ctypes
import threading
import types

import torch

from gradientes import graphs
from gradientes.checks import (
    CALL_LIMIT,
    CheckFailure,
    answer_unusable,
    call_text,
    fail,
    student_raised,
    student_too_slow,
)
from gradientes.reading.cell_sources import record_raised


class _TooSlow(BaseException):
    """Raised inside the student's function when its time is up (not an Exception: no ``except Exception`` eats it)."""


def _raise_in(thread_id, exception):
    """Make ``thread_id`` raise ``exception`` at its next bytecode; ``None`` withdraws one it has not raised yet."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), None if exception is None else ctypes.py_object(exception)
    )


_expiry = threading.Lock()  # a deadline expires or is cancelled, never both at once
_calls = threading.local()  # ``deadline``: the outermost wrapped call's, in this thread


class _Deadline:
    """Raises ``_TooSlow`` once in the thread that made it, unless cancelled within ``seconds`` of ``start``."""

    def __init__(self, seconds):
        self.thread_id, self.running, self.expired = threading.get_ident(), True, False
        self.timer = threading.Timer(seconds, self._expire)
        self.timer.daemon = True

    def start(self):
        self.timer.start()

    def _expire(self):
        with _expiry:
            if self.running:
                self.running, self.expired = False, True
                _raise_in(self.thread_id, _TooSlow)

    def cancel(self):
        """No ``_TooSlow`` comes after this returns."""
        self.timer.cancel()
        with _expiry:
            self.running = False
            if self.expired:  # sent before the lock was ours: the interpreter may not have raised it yet
                _raise_in(self.thread_id, None)


class LocalStudentFunction:
    """A function the student wrote, called with a time limit and Spanish errors."""

    def __init__(self, function, name=None):
        # the name the test cell asked for (the function's own ``__name__`` can be written)
        self.function, self.__name__ = function, name or function.__name__

    def __call__(self, *args, **kwargs):
        outer = getattr(_calls, "deadline", None)
        if outer is not None and outer.running:  # inside another student function's call: its limit holds
            return self._call(args, kwargs)
        grad_enabled = torch.is_grad_enabled()
        deadline = _calls.deadline = _Deadline(CALL_LIMIT)
        try:  # _TooSlow may come from start() to the end of cancel(): all inside ``except _TooSlow``
            try:
                deadline.start()
                return self._call(args, kwargs)
            finally:
                deadline.cancel()
        except _TooSlow:
            # Stopped anywhere, even inside the exit of a ``with torch.no_grad()``: grad mode as it was.
            torch.set_grad_enabled(grad_enabled)
            student_too_slow(call_text(self.__name__, args, kwargs))
        finally:
            _calls.deadline = None

    def _call(self, args, kwargs):
        try:
            return self.function(*args, **kwargs)
        except CheckFailure:
            raise
        except (Exception, SystemExit) as error:
            student_raised(call_text(self.__name__, args, kwargs), type(error).__name__, error)


class _Namespace(dict):
    """The test cell's globals: the student's functions come wrapped, everything else as it is."""

    def __init__(self, user_ns):
        super().__init__()
        self.user_ns = user_ns

    def __missing__(self, name):
        value = self.user_ns[name]
        if isinstance(value, types.FunctionType) and value.__module__ == "__main__":
            value = LocalStudentFunction(value, name)
        return value


def comprobar(line, cell):
    """Run a test cell with the student's functions wrapped; whatever it raises is one Spanish line."""
    missing = broken = None
    try:
        exec(compile(cell, "<comprobación>", "exec"), _Namespace(get_ipython().user_ns))
    except CheckFailure:
        raise
    except NameError as error:
        missing = error.name
    except Exception as error:  # the student's answer broke the test code (a wrong type, say)
        broken = (type(error).__name__, error)
    # Raised outside the except blocks: the student reads one line, never the test code's traceback.
    if missing is not None:
        fail(f"la comprobación no encuentra {missing!r}.", "¿ejecutaste la celda donde se define?")
    if broken is not None:
        answer_unusable(*broken)


def load_ipython_extension(shell):
    """IPython extension hook: ``lab_setup`` loads this module in every kernel of the course's environment.

    Besides ``%%comprobar``, a graph shown without Graphviz installed says how to install it (:mod:`.graphs`), and
    each cell that stops at an exception is recorded for the reader, which the grader tells the same way.
    """
    shell.register_magic_function(comprobar, magic_kind="cell", magic_name="comprobar")
    graphs.register(shell)
    if record_raised not in shell.events.callbacks["post_run_cell"]:  # the reader tells the cells that raised
        shell.events.register("post_run_cell", record_raised)


def register():
    """Make ``%%comprobar`` available in the running IPython kernel (done when this module is imported)."""
    try:
        shell = get_ipython()
    except NameError:
        return
    if shell is not None:
        load_ipython_extension(shell)


register()
