"""What an answer's source can reach: the grader's own, complete reading of the code behind a student's answer.

An exercise's statement may forbid an API (``torch.autograd.functional``), or ask for a prediction made of plain
Python. :func:`read` reads every code cell the student ran (the grader has them; in the lab, IPython's input
history), in full: the names bound at the top level of a cell, inside ``if``/``try``/``with``/``for``/``while``,
by a walrus or by a ``global`` inside a function, imports anywhere (an import inside a function is resolved too),
decorators, default arguments and class bodies. From the answer's name it follows, transitively, every name the
code can reach: all the bindings of each notebook name, and every statement that stores into it, calls one of its
methods or hands it to another function. A name it cannot resolve, and any dynamic access anywhere in the notebook
(``getattr``, ``eval``, ``globals()``, a dunder attribute, ``sys.modules``, an IPython magic that runs code it
cannot read, a module attribute replaced…), makes the reading *unknown*: the checks built on it fail closed.

The reading lists what the code reaches (dotted names with aliases resolved: ``F.jacobian`` after ``import
torch.autograd.functional as F`` is ``torch.autograd.functional.jacobian``) and, for predictions, whether it stays
inside an allowlist of plain Python (:attr:`Reading.not_plain`).
"""

from gradientes.reading.answer import PLAIN_MODULES, PLAIN_NODES, Reading, read, untouched
from gradientes.reading.cell_sources import SOURCES, RaisedCell, student_sources
from gradientes.reading.notebook_index import Notebook, notebook_reading

__all__ = [
    "PLAIN_MODULES", "PLAIN_NODES", "SOURCES", "Notebook", "RaisedCell", "Reading", "notebook_reading", "read",
    "student_sources", "untouched",
]  # fmt: skip
