"""Sample submissions, built from the current lessons, that show every case the grader handles.

Each scenario is a student: the correct answer, a blank notebook, hard-coded values,
a warning on stderr, a deleted or emptied test cell, broken JSON, a wrong file name, a
kernel crash, an infinite loop, a memory hog, a monkeypatched torch, tests neutered
through IPython and a rewritten check helper.
"""

import ast
import re
import tomllib
from pathlib import Path

import nbformat
from nbgrader.utils import is_solution

from autograder.course import available_lessons, is_test_cell

HARDCODED = Path(__file__).resolve().parent / "valores_fijos"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
PREDICTION = re.compile(r"check_prediction_is_plain\((\w+)\)")


def _solution_cells(notebook):
    """The code cells where the student writes answers."""
    return [c for c in notebook.cells if is_solution(c) and c.cell_type == "code"]


def _function_names(source):
    return [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]


def answered(lesson):
    """The released notebook with every answer cell filled in from the instructor's solution."""
    source = nbformat.read(lesson.source, as_version=4)
    answers = {
        cell.metadata.nbgrader.grade_id: "\n".join(
            line for line in cell.source.splitlines() if line.strip() not in MARKERS
        )
        for cell in source.cells
        if is_solution(cell)
    }
    notebook = blank(lesson)
    for cell in notebook.cells:
        if is_solution(cell):
            cell.source = answers[cell.metadata.nbgrader.grade_id]
    return notebook


def hardcoded(lesson):
    """Answers that write by hand the values the lesson prints (they pass only the visible checks)."""
    values = tomllib.loads((HARDCODED / f"{lesson.id}.toml").read_text(encoding="utf-8"))
    notebook = answered(lesson)
    for cell in _solution_cells(notebook):
        cell.source = values[cell.metadata.nbgrader.grade_id]
    return notebook


def _wrap_functions(cell, template, skip=()):
    names = [name for name in _function_names(cell.source) if name not in skip]
    cell.source += "\n\n" + "\n".join(template.format(name=name) for name in names)


def _predictions(notebook):
    """The answers that the tests read as predictions (plain Python only: a warning would make them code)."""
    return {name for cell in _tests(notebook) for name in PREDICTION.findall(cell.source)}


WARN = (
    "import warnings as _w\n_f_{name} = {name}\n"
    "def {name}(*args, **kwargs):\n"
    "    _w.warn('este aviso no debe costar puntos', UserWarning)\n"
    "    return _f_{name}(*args, **kwargs)\n"
)
LOOP = "def {name}(*args, **kwargs):\n    while True:\n        pass\n"
HOG = "def {name}(*args, **kwargs):\n    import torch\n    return torch.ones(10**10)  # 40 GB de una vez\n"
PATCH = "import torch\ntorch.allclose = lambda *args, **kwargs: True\ntorch.isclose = lambda *args, **kwargs: True\n\n"


def blank(lesson):
    """The released notebook, untouched."""
    return nbformat.read(lesson.released, as_version=4)


def _tests(notebook):
    return [c for c in notebook.cells if is_test_cell(c)]


def emptied_tests(lesson):
    notebook = blank(lesson)
    for cell in _tests(notebook):
        cell.source = "pass"
    return notebook


def warns(lesson):
    notebook = answered(lesson)
    predictions = _predictions(notebook)
    for cell in _solution_cells(notebook):
        _wrap_functions(cell, WARN, skip=predictions)
    return notebook


def deleted_test(lesson):
    notebook = answered(lesson)
    notebook.cells.remove(_tests(notebook)[0])
    return notebook


def broken_json(lesson):
    return '{"cells": [{"cell_type": "code", "source": "import torch'


def crashes(lesson):
    notebook = answered(lesson)
    _solution_cells(notebook)[1].source += "\n\nimport os\nos._exit(1)\n"
    return notebook


def loops(lesson):
    notebook = answered(lesson)
    _wrap_functions(_solution_cells(notebook)[0], LOOP)
    return notebook


def hogs_memory(lesson):
    notebook = answered(lesson)
    _wrap_functions(_solution_cells(notebook)[0], HOG)
    return notebook


def patches_torch(lesson):
    notebook = hardcoded(lesson)
    first = _solution_cells(notebook)[0]
    first.source = PATCH + first.source
    return notebook


def neuters_tests(lesson):
    notebook = blank(lesson)
    first = _solution_cells(notebook)[0]
    first.source = "get_ipython().input_transformers_cleanup.append(lambda lineas: ['pass\\n'])\n" + first.source
    return notebook


def rewrites_checks(lesson):
    notebook = answered(lesson)
    first = _solution_cells(notebook)[0]
    first.source += (
        "\n\nimport gradientes.checks as _checks\n"
        "with open(_checks.__file__, 'a') as _archivo:\n"
        "    _archivo.write('\\n# modificado por una entrega\\n')\n"
    )
    return notebook


# student: (what the submission does, how to build it)
SCENARIOS = {
    "ana": ("correcta", answered),
    "beto": ("en blanco", blank),
    "carla": ("valores escritos a mano", hardcoded),
    "dani": ("correcta, pero emite un UserWarning", warns),
    "eva": ("correcta, pero borró una celda de pruebas", deleted_test),
    "fede": ("JSON dañado", broken_json),
    "gabi": ("correcta, con otro nombre de archivo", answered),
    "hugo": ("hace que el kernel muera en el segundo ejercicio", crashes),
    "ines": ("bucle infinito en el primer ejercicio", loops),
    "jose": ("valores a mano y reemplaza torch.allclose en su kernel", patches_torch),
    "kike": ("pide 40 GB de memoria en el primer ejercicio", hogs_memory),
    "lalo": ("en blanco, pero vació las celdas de pruebas", emptied_tests),
    "mara": ("en blanco, pero convierte las pruebas en `pass` con get_ipython()", neuters_tests),
    "nico": ("correcta, pero intenta reescribir estudiante/gradientes/checks.py", rewrites_checks),
}


# Students who save their notebook under another name.
FILE_NAMES = {"gabi": "mi_entrega.ipynb"}


def build_demo(folder, lessons=None, students=None):
    """Write ``<alumno>/<leccion>/<leccion>.ipynb`` for every scenario under ``folder``."""
    folder = Path(folder)
    for lesson in lessons or available_lessons():
        for student in students or SCENARIOS:
            name = FILE_NAMES.get(student, lesson.notebook_name)
            path = folder / student / lesson.id / name
            path.parent.mkdir(parents=True, exist_ok=True)
            content = SCENARIOS[student][1](lesson)
            if isinstance(content, str):
                path.write_text(content, encoding="utf-8")
            else:
                nbformat.write(content, path)
    return folder
