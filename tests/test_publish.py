"""The student edition has no answers, and its lessons run with their visible checks."""

import os
import subprocess

import nbformat
import pytest
from helpers import HIDDEN, LESSONS, SOLUTION, read
from nbclient import NotebookClient

from autograder import publish
from autograder.course import ROOT
from autograder.demo import answered


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    return publish.build(tmp_path_factory.mktemp("publicado") / "estudiantes")


def _secret_lines():
    """Lines of the solutions and hidden tests that no released notebook and no public check helper contains."""
    public = {line.strip() for m in publish.STUDENT_PACKAGE.rglob("*.py") for line in m.read_text("utf-8").splitlines()}
    public |= {
        line.strip() for lesson in LESSONS for c in read(lesson.released).cells for line in c.source.splitlines()
    }
    secrets = set()
    for lesson in LESSONS:
        for cell in read(lesson.source).cells:
            for region in [*SOLUTION.findall(cell.source), *HIDDEN.findall(cell.source)]:
                secrets |= {line.strip() for line in region.splitlines() if len(line.strip()) >= 20}
    return secrets - public


def test_the_edition_has_no_solution_no_hidden_test_and_no_grading_tool(edition):
    secrets = _secret_lines()
    assert len(secrets) > 50  # the scan has something to look for
    files = [p for p in edition.rglob("*") if p.is_file()]
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            text = "\n".join(cell.source for cell in read(path).cells)
        found = {line.strip() for line in text.splitlines()} & secrets
        assert not found, f"{path.relative_to(edition)} contiene {sorted(found)[:3]}"
        assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text
    names = {str(p.relative_to(edition)) for p in files}
    assert not any(n.startswith(("solutions/", "tests/", ".ci/")) for n in names)
    assert not {"autograder/verdict.py", "autograder/sandbox.py", "autograder/cli.py"} & names
    assert "mybinder.org/v2/gh/USUARIO/REPOSITORIO/estudiantes" in (edition / "README.md").read_text("utf-8")


@pytest.mark.parametrize("lesson", [LESSONS[0], LESSONS[-1]], ids=lambda lesson: lesson.id)
def test_a_lesson_runs_in_the_edition_with_its_own_checks(edition, lesson):
    notebook = answered(lesson)
    notebook.cells.append(nbformat.v4.new_code_cell("import gradientes.checks\nprint(gradientes.checks.__file__)"))
    env = {**os.environ, "PYTHONPATH": str(edition)}
    folder = edition / "notebooks" / lesson.id
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.km = client.create_kernel_manager()
    client.start_new_kernel(env=env)
    client.start_new_kernel_client()
    with client.setup_kernel(env=env):
        client.execute(cleanup_kc=False)
    printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert printed.count("✔") >= 5
    assert str(edition / "gradientes" / "checks.py") in printed


def test_the_edition_is_committed_to_a_branch_without_touching_the_working_tree(edition, tmp_path):
    clone = tmp_path / "clon"
    subprocess.run(["git", "clone", "-q", "--local", str(ROOT), str(clone)], check=True)
    first = publish.commit_to_branch(edition, "estudiantes", repo=clone)
    again = publish.commit_to_branch(edition, "estudiantes", repo=clone)
    listed = subprocess.run(
        ["git", "-C", str(clone), "ls-tree", "-r", "--name-only", "estudiantes"], capture_output=True, text=True
    ).stdout.split()
    assert "notebooks/indice.md" in listed and not any(n.startswith("solutions/") for n in listed)
    parent = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", f"{again}^"], capture_output=True, text=True
    ).stdout.strip()
    assert parent == first
    status = subprocess.run(["git", "-C", str(clone), "status", "--porcelain"], capture_output=True, text=True).stdout
    assert status == ""
