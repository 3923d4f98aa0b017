"""The student edition: the student package and the lessons, with no answers and no instructor tool; its lessons
run with their visible checks, its links point at its GitHub repository, and its launcher installs and opens it."""

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from helpers import HIDDEN, LESSONS, SOLUTION, chromium, read
from nbclient import NotebookClient
from nbgrader.utils import compute_checksum

from autograder import cli
from autograder.course import ROOT, publish
from autograder.course.demo import answered, build_demo
from autograder.grading import suspicious

# What the instructor's tools need and a student must never have to install.
INSTRUCTOR_ONLY = ("jupyterhub", "nbgrader", "psycopg", "pytest", "selenium", "ruff", "pandas")


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
    assert not any(n.startswith(("solutions/", "tests/", ".ci/", "autograder/", "scripts/")) for n in names)
    assert {"README.md", "pyproject.toml", "requirements.txt", "abrir_curso.py", "Makefile", "LICENSE"} <= names
    assert {"gradientes/checks.py", "binder/postBuild", "notebooks/indice.md"} <= names
    assert "mybinder.org/v2/gh/USUARIO/REPOSITORIO/estudiantes" in (edition / "README.md").read_text("utf-8")


def requirement_names(text):
    """The projects a requirements file or a pyproject's dependencies name (lowercase)."""
    return {m.lower() for m in re.findall(r"^\s*\"?([A-Za-z0-9][A-Za-z0-9._-]*)\s*[=<>~!;\"]", text, re.M)}


def test_the_edition_needs_nothing_of_the_instructor(edition):
    requirements = requirement_names((edition / "requirements.txt").read_text("utf-8"))
    dependencies = requirement_names(
        (edition / "pyproject.toml").read_text("utf-8").split("dependencies = [")[1].split("]")[0]
    )
    assert {"torch", "jupyterlab", "torchviz", "matplotlib", "ipywidgets"} <= requirements & dependencies
    for name in INSTRUCTOR_ONLY:
        assert not {n for n in requirements | dependencies if n.startswith(name)}, name
    assert requirement_names(f"{INSTRUCTOR_ONLY[0]}==1\n") == {INSTRUCTOR_ONLY[0]}  # the reading finds a pin
    # Exact pins, but PyTorch: the releases the course is proven on, as the package says.
    torch = re.search(r"^torch(\S*)", (edition / "requirements.txt").read_text("utf-8"), re.M)[1]
    assert torch == ">=2.13,<2.15" and f'"torch{torch}"' in (edition / "pyproject.toml").read_text("utf-8")
    binder = (edition / "binder" / "requirements.txt").read_text("utf-8").split()
    assert binder[-2:] == ["-r", "../requirements.txt"] and "torch==2.13.0+cpu" in binder
    assert "--no-deps" in (edition / "binder" / "postBuild").read_text("utf-8")


def test_make_lab_runs_the_launcher(edition):
    outer_make = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")  # under `make test`, make -n would also print its directory
    env = {key: value for key, value in os.environ.items() if key not in outer_make}
    result = subprocess.run(["make", "-n", "lab"], cwd=edition, capture_output=True, text=True, check=True, env=env)
    assert result.stdout.split() == ["python3", "abrir_curso.py", "--cpu"]  # Linux: PyTorch for CPU only


def test_the_edition_readme_lists_every_lesson_with_its_colab_link():
    from autograder.course import syllabus

    readme = (publish.STUDENT_PROJECT / "README.md").read_text("utf-8")
    for number, lesson in enumerate(syllabus(), start=1):
        colab = f"https://colab.research.google.com/github/{publish.PLACEHOLDER}/blob/estudiantes/notebooks/{lesson.id}"
        row = f"| {number} | {lesson.titulo} | [abrir]({colab}/{lesson.notebook_name}) |"
        assert row in readme
    for command in (
        "py abrir_curso.py",
        "python3 abrir_curso.py --cpu",
        "winget install graphviz",
        "brew install graphviz",
    ):
        assert command in readme


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


# --- Binder and Colab: the links point at the edition's GitHub repository ----------------------------------------


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The edition as ``curso publicar --repositorio ana/gradientes`` writes it."""
    folder = tmp_path_factory.mktemp("publicado") / "con-repositorio"
    assert cli.main(["publicar", str(folder), "--repositorio", "ana/gradientes"]) == 0
    return folder


def test_publishing_with_a_repository_fills_the_binder_and_colab_links(published):
    readme = (published / "README.md").read_text("utf-8")
    assert "https://mybinder.org/v2/gh/ana/gradientes/estudiantes?urlpath=lab/tree/notebooks/indice.md" in readme
    for lesson in LESSONS:
        url = f"https://colab.research.google.com/github/ana/gradientes/blob/estudiantes/notebooks/{lesson.id}/{lesson.id}.ipynb"
        assert f"[abrir]({url})" in readme
        notebook = read(published / "notebooks" / lesson.id / lesson.notebook_name)
        assert notebook.cells[0].source == f"[Abrir esta lección en Google Colab]({url})"
        imports = next(cell for cell in notebook.cells if cell.cell_type == "code")
        assert '"gradientes-pytorch @ git+https://github.com/ana/gradientes@estudiantes"' in imports.source
        for cell in notebook.cells:  # nbgrader's «Validar» compares each locked cell with its checksum
            if "checksum" in cell.metadata.get("nbgrader", {}):
                assert cell.metadata.nbgrader.checksum == compute_checksum(cell), cell.metadata.nbgrader.grade_id
    left = [p for p in published.rglob("*") if p.is_file() and publish.PLACEHOLDER in p.read_text("utf-8", "replace")]
    assert not left, left


def test_the_repository_comes_from_a_github_origin_or_a_spanish_note_says_what_to_do(tmp_path, capsys, monkeypatch):
    clone = tmp_path / "clon"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    assert publish.github_repository(clone) is None
    for url in (
        "https://github.com/ana/gradientes.git",
        "git@github.com:ana/gradientes.git",
        "https://github.com/ana/gradientes",
    ):
        subprocess.run(["git", "-C", str(clone), "remote", "remove", "origin"], capture_output=True)
        subprocess.run(["git", "-C", str(clone), "remote", "add", "origin", url], check=True)
        assert publish.github_repository(clone) == "ana/gradientes", url
    subprocess.run(["git", "-C", str(clone), "remote", "set-url", "origin", "https://gitlab.com/ana/gradientes.git"])
    assert publish.github_repository(clone) is None
    with pytest.raises(ValueError, match="USUARIO/REPOSITORIO"):
        publish.build(tmp_path / "mal", "ana/gradientes/estudiantes")

    monkeypatch.setattr(publish, "github_repository", lambda: None)  # as in a repository with no GitHub origin
    assert cli.main(["publicar", str(tmp_path / "sin-repositorio")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Los enlaces de Binder y de Colab dicen USUARIO/REPOSITORIO" in out and "--repositorio" in out


def test_a_lesson_from_the_published_edition_is_graded_as_the_instructors_one(tmp_path):
    """Its imports cell names the repository: grading runs the lesson's own and flags nothing."""
    lesson = LESSONS[0]
    demo = build_demo(tmp_path / "demo", [lesson], ["ana"])
    shutil.copytree(demo / "ana", demo / "bea")
    bea = demo / "bea" / lesson.id / lesson.notebook_name
    publish.fill_notebook(bea, "ana/gradientes")
    assert "ana/gradientes" in bea.read_text("utf-8")
    assert suspicious.findings(bea, lesson.released) == []
    assert cli.main(["calificar", str(demo), "--directorio", str(tmp_path / "curso")]) == 0
    table = pd.read_csv(
        tmp_path / "curso" / "informes" / f"calificaciones_{lesson.id}.csv", keep_default_na=False
    ).set_index("alumno")
    assert table.loc["ana", "puntos_automaticos"] == table.loc["ana", "maximo_automatico"] > 0
    assert table.loc["bea"].to_dict() == table.loc["ana"].to_dict()


def test_code_in_a_cell_of_its_own_is_still_flagged(tmp_path):
    """Only the lesson's locked cells (put back by grading) are left out of the suspicious-code scan."""
    lesson = LESSONS[0]
    notebook = answered(lesson)
    imports = next(cell for cell in notebook.cells if cell.cell_type == "code")
    notebook.cells.append(nbformat.v4.new_code_cell(imports.source))  # the same code, in a cell of the student's
    nbformat.write(notebook, tmp_path / lesson.notebook_name)
    assert suspicious.findings(tmp_path / lesson.notebook_name, lesson.released) == []  # a copy of the lesson's
    notebook.cells[-1].source = imports.source.replace("importlib.util.find_spec", "importlib.import_module")
    nbformat.write(notebook, tmp_path / lesson.notebook_name)
    assert suspicious.findings(tmp_path / lesson.notebook_name, lesson.released) == [
        "manipula módulos o funciones integradas"
    ]


# --- abrir_curso.py: the edition installs and opens itself, with or without make ----------------------------------

LAUNCHER = publish.STUDENT_PROJECT / "abrir_curso.py"
# Debian 12's own Python (3.11.2), the oldest the course accepts.
DEBIAN_PYTHON = Path("/usr/bin/python3") if Path("/usr/bin/python3").exists() else Path(sys.executable)
ADDRESS = re.compile(r"http://localhost:\d+/lab/tree/notebooks/indice\.md\?token=\w+")
FIRST_INSTALL_LIMIT = 1200  # seconds: a fresh environment with PyTorch


def launcher():
    """``abrir_curso.py`` as a module."""
    spec = importlib.util.spec_from_file_location("abrir_curso", LAUNCHER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_launcher_accepts_python_3_11_2_to_3_13_and_only_warns_after(capsys):
    abrir = launcher()
    for version in ((3, 11, 2), (3, 12, 0), (3, 13, 5)):
        abrir.check_python(version)
    assert capsys.readouterr().out == ""
    abrir.check_python((3, 14, 0))
    assert "Aviso: el curso está probado con Python 3.11, 3.12 y 3.13" in capsys.readouterr().out
    for version in ((3, 11, 1), (3, 10, 12)):
        with pytest.raises(abrir.Stop, match=r"el curso necesita Python 3\.11\.2 o posterior"):
            abrir.check_python(version)


def test_the_launcher_says_in_spanish_what_failed(tmp_path, monkeypatch):
    abrir = launcher()
    monkeypatch.setattr(abrir, "VENV", tmp_path / ".venv")
    without_venv = types.SimpleNamespace(util=types.SimpleNamespace(find_spec=lambda name: None))
    monkeypatch.setattr(abrir, "importlib", without_venv)
    with pytest.raises(abrir.Stop, match=r"le falta el módulo venv.*sudo apt-get install python3-venv"):
        abrir.create_venv()
    (tmp_path / ".venv").mkdir()
    with pytest.raises(abrir.Stop, match=r"No se pudo completar este paso: las bibliotecas del curso.*internet"):
        abrir.run([sys.executable, "-c", "raise SystemExit(1)"], "las bibliotecas del curso")


def test_the_launcher_installs_pytorch_for_cpu_first_when_asked():
    abrir = launcher()
    [(what, command), *_] = abrir.install_steps(Path("python"), cpu=True)
    assert what == "PyTorch solo para CPU"
    assert command[-3:] == ["torch>=2.13,<2.15", "--index-url", "https://download.pytorch.org/whl/cpu"]
    assert not any("--index-url" in command for _, command in abrir.install_steps(Path("python"), cpu=False))


@contextmanager
def open_course(edition, env):
    """Run ``abrir_curso.py --sin-navegador`` in ``edition``; yield the address it prints and its output so far,
    then stop it with Ctrl + C (as a student does). Its whole output is left in the list."""
    course = subprocess.Popen(
        [str(DEBIAN_PYTHON), "abrir_curso.py", "--sin-navegador"],
        cwd=edition,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: Ctrl + C reaches it and JupyterLab, as in a terminal
    )
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(course.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + FIRST_INSTALL_LIMIT
        while not any(ADDRESS.search(line) for line in lines):
            assert course.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines[-40:])
            time.sleep(0.5)
        yield next(ADDRESS.search(line)[0] for line in lines if ADDRESS.search(line)), lines
    finally:
        if course.poll() is None:
            os.killpg(course.pid, signal.SIGINT)
        assert course.wait(timeout=60) == 0, "".join(lines[-40:])
        reader.join(timeout=10)


def test_the_launcher_installs_the_edition_and_its_address_opens_the_index(tmp_path):
    edition = publish.build(tmp_path / "curso")
    constraints = tmp_path / "restricciones.txt"
    constraints.write_text("torch==2.13.0\n")  # the release the course is proven on (its CPU build, if pip has it)
    env = {**os.environ, "PIP_CONSTRAINT": str(constraints)}
    started = time.monotonic()
    with open_course(edition, env) as (address, output):
        installed = time.monotonic() - started
        with urllib.request.urlopen(address, timeout=30) as response:
            page = response.read().decode()
        assert "<title>JupyterLab" in page and '"treePath": "notebooks/indice.md"' in page
        with chromium(tmp_path / "chromium") as driver:
            from selenium.webdriver.common.by import By
            from selenium.webdriver.support.ui import WebDriverWait

            driver.get(address)
            heading = WebDriverWait(driver, 120).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-MarkdownViewer .jp-RenderedMarkdown h1")
            )[0]
            assert heading.text.startswith("Gradientes en PyTorch")
            menus = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel")]
            assert "Archivo" in menus and "Ejecutar" in menus, menus  # set up in Spanish
    text = "".join(output)
    assert "Creando el entorno virtual del curso" in text and "JupyterLab se cerró" in text
    python = edition / ".venv" / "bin" / "python"
    where = subprocess.run(
        [str(python), "-P", "-c", "import gradientes.selfcheck, torch, torchviz; print(gradientes.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(edition / ".venv") in where, "the package is installed, not read from the edition's folder"
    size = subprocess.run(["du", "-sh", str(edition / ".venv")], capture_output=True, text=True).stdout.split()[0]
    print(f"\nPrimera instalación: {installed:.0f} s; .venv: {size}")

    started = time.monotonic()
    with open_course(edition, env) as (again, output):  # the second time, nothing to install
        assert time.monotonic() - started < 60
        assert "El curso ya está instalado" in "".join(output) and again != address  # a new token


# --- Colab: the first code cell installs the package, only there ------------------------------------------------

# Run by the throwaway environment's Python: the lesson's first code cell in IPython, and what it left.
RUN_FIRST_CELL = """
import importlib.metadata, json, sys
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
result = shell.run_cell(open(sys.argv[1], encoding="utf-8").read())
checked = shell.run_cell("%%comprobar\\nprint('comprobación disponible')") if result.success else None
installed = {d.metadata["Name"].lower(): d.version for d in importlib.metadata.distributions()}
print(json.dumps({
    "ok": result.success,
    "error": repr(result.error_in_exec),
    "gradientes": getattr(sys.modules.get("gradientes"), "__file__", None),
    "comprobar": bool(checked and checked.success),
    "installed": installed,
}))
"""


def test_the_first_cell_installs_the_package_in_colab_and_nothing_elsewhere(tmp_path):
    """In a throwaway environment with what Colab has (PyTorch, matplotlib, IPython...) but not the course's
    package nor torchviz. Outside Colab the cell installs nothing; with a ``google.colab`` module (as in Colab) it
    installs the package from ``GRADIENTES_PAQUETE`` (a wheel built here) and torchviz, and leaves PyTorch alone."""
    lesson = LESSONS[0]
    venv = tmp_path / "entorno"
    subprocess.run([str(DEBIAN_PYTHON), "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    constraints = tmp_path / "restricciones.txt"
    constraints.write_text("torch==2.13.0\n")
    colab_has = ["torch", "numpy", "matplotlib", "ipython", "ipywidgets", "graphviz"]
    pins = ["-c", str(publish.STUDENT_PROJECT / "requirements.txt"), "-c", str(constraints)]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins, *colab_has], check=True)
    wheels = tmp_path / "paquete"
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
    subprocess.run([*build, str(publish.STUDENT_PROJECT)], check=True)
    [wheel] = wheels.glob("gradientes_pytorch-*.whl")
    cell = tmp_path / "primera_celda.py"
    cell.write_text(next(c.source for c in read(lesson.released).cells if c.cell_type == "code"), "utf-8")
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "MPLBACKEND": "agg"}
    env["GRADIENTES_PAQUETE"] = str(wheel)

    def first_cell(extra_env):
        result = subprocess.run(
            [str(python), "-c", RUN_FIRST_CELL, str(cell)],
            cwd=tmp_path,
            env={**env, **extra_env},
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(result.stdout.strip().splitlines()[-1])

    elsewhere = first_cell({})
    assert not elsewhere["ok"] and "No module named 'gradientes'" in elsewhere["error"]
    assert "gradientes-pytorch" not in elsewhere["installed"] and "torchviz" not in elsewhere["installed"]

    stub = tmp_path / "colab" / "google" / "colab"
    stub.mkdir(parents=True)
    (stub.parent / "__init__.py").write_text("")
    (stub / "__init__.py").write_text('"""Como el módulo de Google Colab."""\n')
    colab = first_cell({"PYTHONPATH": str(stub.parent.parent)})
    assert colab["ok"], colab["error"]
    assert colab["gradientes"].startswith(str(venv)) and colab["comprobar"]
    assert colab["installed"]["gradientes-pytorch"] and colab["installed"]["torchviz"]
    assert colab["installed"]["torch"] == elsewhere["installed"]["torch"], "Colab's PyTorch is not touched"
