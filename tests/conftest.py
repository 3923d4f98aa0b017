"""Fixtures shared by the test suite."""

import time

import pytest
from helpers import LESSONS, read
from nbclient import NotebookClient

# The modules whose set-up is longest run first: with ``--dist loadfile`` each one runs on a single worker, and one
# that starts last is the tail of the whole run.
SLOW_FIRST = ("test_respuestas_erroneas", "test_despliegue", "test_observacion_09_11", "test_enunciados")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(SLOW_FIRST)))


@pytest.fixture(params=LESSONS, ids=[lesson.id for lesson in LESSONS])
def lesson(request):
    return request.param


_EXECUTED = {}  # lesson id -> (executed notebook, seconds) or the exception its execution raised


@pytest.fixture
def executed_solution(lesson):
    """The lesson's solution notebook executed headless once per test session, and how long it took; the tests
    that read its outputs share it."""
    if lesson.id not in _EXECUTED:
        notebook = read(lesson.source)
        started = time.perf_counter()
        try:
            NotebookClient(
                notebook,
                timeout=120,
                kernel_name="python3",
                resources={"metadata": {"path": str(lesson.source.parent)}},
            ).execute()
            _EXECUTED[lesson.id] = (notebook, time.perf_counter() - started)
        except Exception as error:  # every test that needs it fails with the same error, without running it again
            _EXECUTED[lesson.id] = error
    if isinstance(_EXECUTED[lesson.id], Exception):
        raise _EXECUTED[lesson.id]
    return _EXECUTED[lesson.id]
