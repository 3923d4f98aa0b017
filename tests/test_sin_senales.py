"""The course as on Windows, whose ``signal`` module has no POSIX timers: kernels where a ``sitecustomize``
deletes them before anything else is imported (the course's extension included).

Every lesson's own checks pass there, as in tests/test_lessons.py; and wrong answers of the corpus
(tests/respuestas_erroneas, an endless loop among them) get the same Spanish verdicts there as in a kernel
with signals, run side by side.
"""

import asyncio
import copy
import os

import nbformat
import pytest
from helpers import LESSONS, autograded_tests, nbgrader_meta, read
from nbclient import NotebookClient
from test_limite_de_tiempo import POSIX_TIMERS
from test_respuestas_erroneas import CHECK, corpus, error_text, exercise_tests, shown_text, variants

from autograder.course import is_test_cell

# What the kernel's ``signal`` module still has of POSIX_TIMERS (the last cell of every notebook here).
REMAINING = f"import signal\n\nprint([name for name in {POSIX_TIMERS!r} if hasattr(signal, name)])"
# Lessons whose wrong answers run in both kernels: the first and the last (the scalar engine, Valor).
CORPUS_LESSONS = ["01_tensores_y_requires_grad", "11_tu_propio_autograd"]


@pytest.fixture(scope="module")
def windows_like(tmp_path_factory):
    """The environment of a kernel whose ``signal`` module has no POSIX timers."""
    folder = tmp_path_factory.mktemp("sin_senales")
    (folder / "sitecustomize.py").write_text(
        f"import signal\n\nfor _name in {POSIX_TIMERS!r}:\n    delattr(signal, _name)\n", encoding="utf-8"
    )
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}


async def execute(notebook, folder, env):
    """Run ``notebook`` in a kernel with ``env``, going on after errors, and say what ``signal`` lacked there."""
    notebook.cells.append(nbformat.v4.new_code_cell(REMAINING))
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    await client.async_execute(env=env)
    return notebook.cells.pop().outputs[0]["text"].strip()


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_every_check_of_the_lesson_passes_without_posix_signals(lesson, windows_like):
    notebook = read(lesson.source)
    assert asyncio.run(execute(notebook, lesson.source.parent, windows_like)) == "[]"
    errors = [error_text([o]) for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [text for text in errors if text], errors
    failed = [nbgrader_meta(c)["grade_id"] for c in autograded_tests(notebook) if CHECK not in shown_text(c.outputs)]
    assert not failed, f"sin ✔ sin señales: {failed}"


def _verdicts(notebook):
    """``{grade_id of a test cell: (what it printed, its error)}``."""
    tests = [cell for cell in notebook.cells if is_test_cell(cell)]
    return {nbgrader_meta(c)["grade_id"]: (shown_text(c.outputs), error_text(c.outputs)) for c in tests}


@pytest.mark.parametrize(
    "lesson", [lesson for lesson in LESSONS if lesson.id in CORPUS_LESSONS], ids=lambda lesson: lesson.id
)
def test_wrong_answers_get_the_same_verdicts_without_posix_signals(lesson, windows_like, tmp_path):
    """The corpus's variant with the endless loop: in every other exercise, its answer at the same place."""
    entries = corpus(lesson.id)
    loop = next(e for items in entries.values() for e in items if "tiempo límite" in (e.mensaje or ""))
    notebook = variants(lesson, entries)[loop.index]
    windows = copy.deepcopy(notebook)

    async def side_by_side():
        return await asyncio.gather(
            execute(notebook, tmp_path, dict(os.environ)), execute(windows, tmp_path, windows_like)
        )

    assert asyncio.run(side_by_side()) == [repr(list(POSIX_TIMERS)), "[]"]
    verdicts, tests = _verdicts(windows), exercise_tests(lesson)
    assert verdicts == _verdicts(notebook), "otros veredictos sin señales"
    for entry in (items[loop.index] for items in entries.values() if loop.index < len(items)):
        shown, error = verdicts[tests[entry.grade_id]]
        if entry.correcta:
            assert CHECK in shown and not error, f"{entry.label}: sin ✔ sin señales\n{error}"
        else:
            assert CHECK not in shown and entry.mensaje.lower() in error.lower(), f"{entry.label}:\n{error}"
