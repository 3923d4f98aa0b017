"""The speed comparison runs and both graders agree (its figures are printed, never asserted)."""

import subprocess
import sys

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
