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
