"""Checks of lesson 10 (tu propio autograd): the engine is judged by what it computes and by all it can reach.

The grader cannot hold the student's ``Valor`` objects (only data crosses from the sealed kernel), so the
engine is observed through the values the lesson's helpers return on programs the test chooses: exact
where the arithmetic is exact (dyadic inputs, where finite differences cannot land on the exact number),
through the children each output records, and with gradients other passes left behind. What the engine
may use is read by :func:`check_statement`, which fails closed: every name followed, and no module but
``math`` and ``collections``.
"""

from gradientes.checks import check_statement

ENGINE_MODULES = ("math", "collections")


def check_engine_code(answer, hint=None):
    """The engine behind ``answer`` (a name of the notebook) uses only Python, ``math`` and ``collections``."""
    check_statement(
        answer,
        modules=ENGINE_MODULES,
        hint=hint or "tu motor calcula con números de Python y math (y collections, si te sirve), nada más.",
    )
