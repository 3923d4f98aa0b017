"""The speed comparison runs and both graders agree (its figures are printed, never asserted); the sweep of
hidden tests counts their failures."""

import subprocess
import sys

import nbformat

from autograder.course import ROOT


def test_the_speed_comparison_gives_every_student_the_same_score(tmp_path):
    script = ROOT / "scripts" / "comparar_velocidad.py"
    command = [sys.executable, str(script), "--entregas", "3", "--directorio", str(tmp_path / "velocidad")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cociente: curso es" in result.stdout
    assert "todas las notas automáticas coinciden" in result.stdout


def test_the_class_sized_measure_grades_with_curso_only(tmp_path):
    script = ROOT / "scripts" / "comparar_velocidad.py"
    command = [sys.executable, str(script), "--solo-curso", "--entregas", "2", "--tipos", "ana", "--directorio"]
    result = subprocess.run([*command, str(tmp_path / "v")], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "01_tensores_y_requires_grad: 2 entregas en " in result.stdout
    assert "En total: 2 entregas en " in result.stdout and "cociente" not in result.stdout
    assert not (tmp_path / "v" / "01_tensores_y_requires_grad" / "nbgrader").exists()


def test_the_sweep_counts_the_hidden_tests_that_fail_a_right_answer(tmp_path):
    def notebook(test_source):
        meta = {"grade": True, "solution": False, "locked": True, "grade_id": "pruebas", "points": 1}
        cells = [
            nbformat.v4.new_code_cell("def respuesta():\n    return 2\n"),
            nbformat.v4.new_code_cell(test_source, metadata={"nbgrader": {**meta, "schema_version": 3}}),
        ]
        path = tmp_path / f"{len(list(tmp_path.iterdir()))}.ipynb"
        nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
        return path

    script = ROOT / "scripts" / "barrer_pruebas_ocultas.py"
    command = [sys.executable, str(script), "--veces", "5", "--cuaderno"]
    sound = subprocess.run([*command, str(notebook("assert respuesta() == 2"))], capture_output=True, text=True)
    assert sound.returncode == 0 and "5 pasadas, ningún fallo" in sound.stdout, sound.stdout + sound.stderr
    flaky = "import random\nassert respuesta() == 2 and random.random() < 2\nassert respuesta() == 3, 'mal'"
    broken = subprocess.run([*command, str(notebook(flaky))], capture_output=True, text=True)
    assert broken.returncode == 1 and "pruebas: 5 de 5 — mal" in broken.stdout, broken.stdout + broken.stderr
