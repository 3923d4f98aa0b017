"""The student edition: what students get, with no solution, no hidden test and no grading tool.

``curso publicar`` builds it from the instructor's repository into a folder and, optionally,
into a git branch (``estudiantes``) of the same repository, ready to push: the Binder badge
of the README and the Colab badge of each lesson point at that branch, so a public link never
serves ``solutions/``. The edition is the student package (``estudiante/``: the package, its
README, requirements, launcher and Makefile) plus the lessons, ``binder/`` and the licence.
"""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import nbformat
from nbgrader.utils import compute_checksum

from autograder.course import NOTEBOOKS, ROOT

# The student package (estudiante/): what the lessons import, the set-up of JupyterLab, and what turns it
# into the edition's folder (README.md, requirements.txt, abrir_curso.py, Makefile).
STUDENT_PROJECT = ROOT / "estudiante"
STUDENT_PACKAGE = STUDENT_PROJECT / "gradientes"
NOT_PUBLISHED = shutil.ignore_patterns("__pycache__", "locale", "*.egg-info", "build", ".ipynb_checkpoints", ".venv")
COPIED = ["LICENSE", "binder"]
GITIGNORE = ".venv/\n__pycache__/\n*.egg-info/\nbuild/\n.ipynb_checkpoints/\n"
# Where the README's Binder badge and each lesson's Colab badge and Colab installation point until
# ``curso publicar`` knows the GitHub repository of the edition.
PLACEHOLDER = "USUARIO/REPOSITORIO"
GITHUB_REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+")
GITHUB_REMOTE = re.compile(
    r"(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([^/]+/[^/]+?)(?:\.git)?/?"
)


def build(destination, repository=None):
    """Write the student edition into ``destination`` (replaced if it exists); return its path.

    With ``repository`` (``owner/name`` on GitHub), the Binder and Colab links point at it.
    """
    destination = Path(destination).resolve()
    if destination == ROOT or ROOT in destination.parents:
        raise ValueError(
            f"la edición del estudiante se escribe fuera del repositorio del curso, no en «{destination}»."
        )
    if repository is not None and not GITHUB_REPOSITORY.fullmatch(repository):
        raise ValueError(f"«{repository}» no es un repositorio de GitHub: escríbelo como USUARIO/REPOSITORIO.")
    shutil.rmtree(destination, ignore_errors=True)
    shutil.copytree(STUDENT_PROJECT, destination, ignore=NOT_PUBLISHED)
    shutil.copytree(NOTEBOOKS, destination / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for name in COPIED:
        source, target = ROOT / name, destination / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    (destination / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    if repository is not None:
        fill_repository(destination, repository)
    return destination


def fill_repository(edition, repository):
    """Point the README's Binder badge and each lesson's Colab badge and installation at ``repository``."""
    readme = edition / "README.md"
    readme.write_text(readme.read_text("utf-8").replace(PLACEHOLDER, repository), encoding="utf-8")
    for path in sorted((edition / "notebooks").glob("*/*.ipynb")):
        fill_notebook(path, repository)


def fill_notebook(path, repository):
    """Write ``repository`` in place of ``PLACEHOLDER`` in the lesson at ``path``.

    A cell that changes gets its nbgrader checksum again: nbgrader's «Validar» compares it with the cell. (Grading
    runs the lesson's own locked cells, from the gradebook, whatever the submission's say.)
    """
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if PLACEHOLDER in cell.source:
            cell.source = cell.source.replace(PLACEHOLDER, repository)
            if "checksum" in cell.metadata.get("nbgrader", {}):
                cell.metadata.nbgrader.checksum = compute_checksum(cell)
    nbformat.write(notebook, path)


def github_repository(repo=ROOT):
    """``owner/name`` of the GitHub repository that ``origin`` of ``repo`` is, or None."""
    result = subprocess.run(["git", "-C", str(repo), "remote", "get-url", "origin"], capture_output=True, text=True)
    found = GITHUB_REMOTE.fullmatch(result.stdout.strip()) if result.returncode == 0 else None
    return found[1] if found else None


def _git(repo, *args, env=None):
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} falló: {result.stderr.strip()}")
    return result.stdout.strip()


def commit_to_branch(edition, branch, repo=ROOT):
    """Commit the edition folder as the next commit of ``branch`` of ``repo`` (created if missing).

    The instructor's working tree and index are not touched. Returns the new commit's hash.
    """
    with tempfile.TemporaryDirectory(prefix="curso-publicar-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if not (_has_config(repo, "user.name") and _has_config(repo, "user.email")):
            env.update(GIT_AUTHOR_NAME="Gradientes en PyTorch", GIT_COMMITTER_NAME="Gradientes en PyTorch")
            env.update(GIT_AUTHOR_EMAIL="curso@localhost", GIT_COMMITTER_EMAIL="curso@localhost")
        _git(repo, "--work-tree", str(edition), "add", "-A", ".", env=env)
        tree = _git(repo, "write-tree", env=env)
        parent = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"refs/heads/{branch}"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        source = _git(repo, "rev-parse", "--short", "HEAD")
        message = f"Edición del estudiante, generada desde {source} con «curso publicar»"
        commit = _git(repo, "commit-tree", tree, *(["-p", parent] if parent else []), "-m", message, env=env)
        _git(repo, "update-ref", f"refs/heads/{branch}", commit)
        return commit


def _has_config(repo, key):
    return subprocess.run(["git", "-C", str(repo), "config", key], capture_output=True).returncode == 0
