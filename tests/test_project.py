"""Project-level promises: pins, Binder, README commands, Spanish CLI, lint."""

import ast
import graphlib
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.course import ROOT
from gradientes import lab_setup


def pins(path):
    """``{package: version}`` from a requirements file, ignoring comments, options and local versions."""
    found = {}
    for line in (ROOT / path).read_text("utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line or line.startswith("-"):
            continue
        name, _, version = line.partition("==")
        assert version, f"{path}: «{line}» no fija una versión exacta"
        found[name.lower().replace("_", "-")] = version.split("+")[0]
    return found


def test_every_requirement_is_pinned_and_torch_is_the_cpu_release():
    requirements = pins("requirements.txt")
    assert requirements["torch"] == "2.13.0"
    assert requirements["nbgrader"] == "0.9.6"
    for needed in ("jupyterlab", "jupyterlab-language-pack-es-es", "torchviz", "graphviz", "matplotlib", "ipywidgets"):
        assert needed in requirements


def test_binder_installs_the_students_environment_with_cpu_torch():
    """Binder opens the student edition, whose requirements.txt is the student package's (estudiante/)."""
    binder = (ROOT / "binder" / "requirements.txt").read_text("utf-8").split()
    assert binder[-2:] == ["-r", "../requirements.txt"]
    assert "torch==2.13.0+cpu" in binder and "https://download.pytorch.org/whl/cpu" in binder
    assert "torch>=2.13,<2.15" in (ROOT / "estudiante" / "requirements.txt").read_text("utf-8").split()
    assert (ROOT / "binder" / "apt.txt").read_text("utf-8").split() == ["graphviz"]
    assert (ROOT / "binder" / "runtime.txt").read_text("utf-8").strip() == "python-3.11"
    post_build = (ROOT / "binder" / "postBuild").read_text("utf-8")
    assert "pip install --no-deps --no-build-isolation .\n" in post_build
    assert "python -P -m gradientes.lab_setup --estudiante" in post_build


def test_the_students_pins_are_the_instructors_versions():
    """The student environment is the one the instructor's tests run in (less the instructor's tools)."""
    instructor = pins("requirements.txt")
    student = {
        name: version
        for line in (ROOT / "estudiante" / "requirements.txt").read_text("utf-8").splitlines()
        if "==" in line
        for name, version in [line.split("#")[0].strip().lower().replace("_", "-").split("==")]
    }
    assert len(student) > 100 and set(student) <= set(instructor)
    assert {name: instructor[name] for name in student} == student


def test_student_setup_names_real_nbgrader_extensions():
    bundle = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader" / "static"
    code = "".join(path.read_text("utf-8", "ignore") for path in bundle.glob("*.js"))
    for plugin in lab_setup.INSTRUCTOR_LAB_PLUGINS:
        assert f'"{plugin}"' in code, plugin
    for extension in lab_setup.INSTRUCTOR_SERVER_EXTENSIONS:
        importlib.import_module(extension)


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one_verbatim():
    readme = (ROOT / "README.md").read_text("utf-8")
    commands = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    assert "make lab" in commands and "make test" in commands
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()]
    assert "make test" in ci, "CI runs the README's test command verbatim"
    assert any(line.startswith("make prueba-corta PYTHON=/usr/bin/python3 ") for line in ci), "and Debian 12's Python"
    makefile = (ROOT / "Makefile").read_text("utf-8")
    lab = makefile.split("\nlab:")[1].split("\n\n")[0]
    assert "jupyter lab" in lab and "notebooks/indice.md" in lab
    assert "pytest" in makefile.split("\ntest:")[1].split("\n\n")[0]
    assert "mybinder.org/v2/gh/" in readme and "urlpath=lab/tree/notebooks/indice.md" in readme


def test_cli_help_is_spanish():
    result = subprocess.run([sys.executable, "-m", "autograder.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout.startswith("uso: curso")
    for word in ("órdenes", "generar", "calificar", "demo", "muestra esta ayuda"):
        assert word in result.stdout
    assert "usage" not in result.stdout and "show this help" not in result.stdout


def test_cli_errors_are_spanish(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(["calificar"])
    assert "faltan argumentos obligatorios" in capsys.readouterr().err
    assert cli.main(["calificar", str(tmp_path / "no_existe")]) == 1
    assert "no existe" in capsys.readouterr().out
    assert cli.main(["generar", "99_no_existe"]) == 1
    assert "No existe la lección" in capsys.readouterr().out


def test_ruff_is_clean():
    for command in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def import_graph(package_dir):
    """``{module: modules of the same package it imports}``, every import counted (inside functions too)."""
    files = {p: p.relative_to(package_dir.parent).with_suffix("") for p in package_dir.rglob("*.py")}
    modules = {".".join(rel.parts).removesuffix(".__init__"): path for path, rel in files.items()}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(f"{target}."):  # (a package's own __init__)
                    found.add(target)
        graph[name] = found
    return graph


@pytest.mark.parametrize("package", ["autograder", "estudiante/gradientes"])
def test_no_import_circle_inside_a_package(package):
    graph = import_graph(ROOT / package)
    assert len(graph) > 5
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        pytest.fail(f"importación circular en {package}: {' → '.join(error.args[1])}")


def test_the_circle_test_finds_a_circle(tmp_path):
    package = tmp_path / "paquete"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from paquete import b\n")
    (package / "b.py").write_text("def f():\n    from paquete.a import g\n")
    with pytest.raises(graphlib.CycleError):
        graphlib.TopologicalSorter(import_graph(package)).prepare()
