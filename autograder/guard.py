"""Keep the course's own files safe from the code being graded.

Student code runs with the grader's permissions, so it could rewrite the check
helpers or the lessons for the students graded after it. While a submission runs,
the files are kept in memory and put back afterwards; whoever changed them is
reported. A lock makes concurrent gradings take turns, so that a change is always
blamed on the submission that made it.
"""

import fcntl
from contextlib import contextmanager

from autograder.course import NOTEBOOKS, PACKAGE_DIR, ROOT, SOLUTIONS

GUARDED = (PACKAGE_DIR, SOLUTIONS, NOTEBOOKS)
# Python's bytecode and JupyterLab's checkpoints are written by the tools themselves.
UNGUARDED = {"__pycache__", ".ipynb_checkpoints"}
LOCK = ROOT / ".calificando.lock"


def _files():
    for folder in GUARDED:
        for path in folder.rglob("*"):
            if path.is_file() and not UNGUARDED & set(path.parts):
                yield path


class CourseFiles:
    """A snapshot of the course's files that can restore itself."""

    def __init__(self):
        self.snapshot = {path: path.read_bytes() for path in _files()}

    def restore(self):
        """Put back every changed, deleted or added file; return their paths relative to the course."""
        touched = []
        for path, content in self.snapshot.items():
            if not path.is_file() or path.read_bytes() != content:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
                touched.append(path)
        for path in set(_files()) - set(self.snapshot):
            path.unlink()
            touched.append(path)
        return sorted(str(path.relative_to(ROOT)) for path in touched)


@contextmanager
def exclusive():
    """Hold the course's lock: other gradings and regenerations wait."""
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextmanager
def guarded():
    """Run student code with the course files snapshotted, holding the course's lock."""
    with exclusive():
        yield CourseFiles()
