"""``%%comprobar``: a test cell run in the student's own kernel, for immediate feedback.

Every test cell starts with this cell magic; each lesson's imports cell imports this
module. In the student's notebook it runs the cell with each of the student's functions
wrapped: a call that raises becomes one Spanish line, an untouched template says the
answer is not written yet, and a call that runs
longer than ``CALL_LIMIT`` seconds is stopped. (When grading, the same cell runs outside
the student's process, in :mod:`autograder.verdict`, with the same messages.)
"""

import signal
import types

import torch

from gradientes.checks import (
    CALL_LIMIT,
    CheckFailure,
    answer_unusable,
    call_text,
    fail,
    student_raised,
    student_too_slow,
)


class _TooSlow(BaseException):
    """Raised inside the student's function when its time is up (not an Exception: no ``except`` eats it)."""


def _time_is_up(signum, frame):
    raise _TooSlow


class LocalStudentFunction:
    """A function the student wrote, called with a time limit and Spanish errors."""

    def __init__(self, function):
        self.function, self.__name__ = function, function.__name__

    def __call__(self, *args, **kwargs):
        grad_enabled = torch.is_grad_enabled()
        previous = signal.signal(signal.SIGALRM, _time_is_up)
        signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT)
        try:
            return self.function(*args, **kwargs)
        except _TooSlow:
            # Stopped anywhere, even inside the exit of a ``with torch.no_grad()``: grad mode as it was.
            torch.set_grad_enabled(grad_enabled)
            student_too_slow(call_text(self.__name__, args, kwargs))
        except CheckFailure:
            raise
        except (Exception, SystemExit) as error:
            student_raised(call_text(self.__name__, args, kwargs), type(error).__name__, error)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


class _Namespace(dict):
    """The test cell's globals: the student's functions come wrapped, everything else as it is."""

    def __init__(self, user_ns):
        super().__init__()
        self.user_ns = user_ns

    def __missing__(self, name):
        value = self.user_ns[name]
        if isinstance(value, types.FunctionType) and value.__module__ == "__main__":
            value = LocalStudentFunction(value)
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
    """IPython extension hook: ``lab_setup`` loads this module in every kernel of the course's environment."""
    shell.register_magic_function(comprobar, magic_kind="cell", magic_name="comprobar")


def register():
    """Make ``%%comprobar`` available in the running IPython kernel (done when this module is imported)."""
    try:
        shell = get_ipython()
    except NameError:
        return
    if shell is not None:
        load_ipython_extension(shell)


register()
