"""The student edition: what students get, with no solution, no hidden test and no grading tool.

``curso publicar`` builds it from the instructor's repository into a folder and, optionally,
into a git branch (``estudiantes``) of the same repository, ready to push: the Binder badge
of the README points at that branch, so a public link never serves ``solutions/``.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from autograder.course import NOTEBOOKS, PACKAGE_DIR, ROOT

# The student package (estudiante/): what the lessons import, and the set-up of JupyterLab.
STUDENT_PROJECT = ROOT / "estudiante"
STUDENT_PACKAGE = STUDENT_PROJECT / "gradientes"
NOT_PUBLISHED = shutil.ignore_patterns("__pycache__", "locale", "*.egg-info", "build", ".ipynb_checkpoints")
COPIED = [
    "LICENSE",
    "requirements.txt",
    "binder",
    "scripts/instalar-sistema.sh",
    "scripts/comprobar-python.sh",
]
TEMPLATES = PACKAGE_DIR / "edicion"
GITIGNORE = ".venv/\n__pycache__/\n*.egg-info/\n.ipynb_checkpoints/\n/gradientes/idioma/locale/\n"


def build(destination):
    """Write the student edition into ``destination`` (replaced if it exists); return its path."""
    destination = Path(destination).resolve()
    if destination == ROOT or ROOT in destination.parents:
        raise ValueError(
            f"la edición del estudiante se escribe fuera del repositorio del curso, no en «{destination}»."
        )
    shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True)
    shutil.copytree(NOTEBOOKS, destination / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for name in COPIED:
        source, target = ROOT / name, destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    shutil.copytree(STUDENT_PACKAGE, destination / "gradientes", ignore=NOT_PUBLISHED)
    shutil.copy2(STUDENT_PROJECT / "pyproject.toml", destination / "pyproject.toml")
    for name in ("README.md", "Makefile"):
        shutil.copy2(TEMPLATES / name, destination / name)
    (destination / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    return destination


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
