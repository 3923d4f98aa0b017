"""Fixtures shared by the test suite."""

import json
import os
import time

import nbformat
import pytest
from filelock import FileLock
from helpers import LESSONS, read
from nbclient import NotebookClient

# The modules whose set-up is longest run first: with ``--dist loadfile`` each one runs on a single worker, and one
# that starts last is the tail of the whole run (``make test`` passes ``--no-loadscope-reorder``, or xdist would
# send the modules with the most tests first). The server guide waits on JupyterHub more than it computes: it runs
# beside the corpus, the heaviest.
SLOW_FIRST = ("test_respuestas_erroneas", "test_despliegue", "test_enunciados", "test_observacion_09_11")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(SLOW_FIRST)))


@pytest.fixture(params=LESSONS, ids=[lesson.id for lesson in LESSONS])
def lesson(request):
    return request.param


@pytest.fixture(scope="session")
def executions(tmp_path_factory):
    """The folder where each notebook is executed once for the whole run, shared by every xdist worker."""
    root = tmp_path_factory.getbasetemp()
    folder = (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "ejecutados"
    folder.mkdir(exist_ok=True)
    return folder


def executed(folder, name, path):
    """``(notebook, seconds)``: the notebook at ``path`` executed headless once per test run, by whichever worker asks
    first (the others wait and read it); if its execution failed, every test that needs it fails with that error."""
    record = folder / f"{name}.json"
    with FileLock(folder / f"{name}.lock"):
        if not record.exists():
            notebook = read(path)
            started = time.perf_counter()
            try:
                client = NotebookClient(
                    notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
                )
                client.execute()
                done = {"notebook": notebook, "seconds": time.perf_counter() - started}
            except Exception as error:
                done = {"error": f"{type(error).__name__}: {error}"}
            record.write_text(json.dumps(done), encoding="utf-8")
    done = json.loads(record.read_text(encoding="utf-8"))
    if "error" in done:
        raise RuntimeError(done["error"])
    return nbformat.from_dict(done["notebook"]), done["seconds"]


@pytest.fixture
def executed_solution(lesson, executions):
    """The lesson's solution notebook executed headless, and how long it took; the tests that read its outputs share
    it."""
    return executed(executions, f"solucion_{lesson.id}", lesson.source)


@pytest.fixture
def executed_release(lesson, executions):
    """The student's notebook, unanswered, executed as JupyterLab's «Run All» does (a cell tagged raises-exception
    may fail and the rest runs)."""
    return executed(executions, f"alumno_{lesson.id}", lesson.released)
