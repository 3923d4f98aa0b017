"""`curso calificar` end to end on an LMS zip, as an instructor runs it."""

import zipfile

import pandas as pd
from helpers import LESSONS
from nbgrader.api import Gradebook

from autograder import cli
from autograder.course.demo import build_demo


def test_grading_a_moodle_zip_from_the_command_line(tmp_path, capsys):
    lesson = LESSONS[-1]
    demo = build_demo(tmp_path / "demo", [lesson], ["ana", "fede"])
    archive = tmp_path / "descarga_moodle.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(
            demo / "ana" / lesson.id / lesson.notebook_name, f"Ana Núñez_101_assignsubmission_file_/{lesson.id}.ipynb"
        )
        zf.write(
            demo / "fede" / lesson.id / lesson.notebook_name, f"Fede Paz_102_assignsubmission_file_/{lesson.id}.ipynb"
        )
    workspace = tmp_path / "curso"
    assert cli.main(["calificar", str(archive), "--directorio", str(workspace)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Se calificó 1 entrega" in out and "JSON está dañado" in out
    assert f"1/1 calificada: ana_nunez_101 ({lesson.id})" in out, "without a terminal, progress goes to the log"
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gradebook:
        ana = gradebook.find_student("ana_nunez_101")
        assert (ana.first_name, ana.last_name) == ("Ana", "Núñez"), "the formgrader shows the LMS's name"
    table = pd.read_csv(workspace / "informes" / f"calificaciones_{lesson.id}.csv")
    assert list(table["alumno"]) == ["ana_nunez_101", "fede_paz_102"]
    assert table.loc[0, "puntos_automaticos"] == table.loc[0, "maximo_automatico"] > 0
    assert table.loc[1, "total"] == 0
    assert (workspace / "feedback" / "ana_nunez_101" / lesson.id / f"{lesson.id}.html").exists()
    assert not (workspace / "feedback" / "fede_paz_102").exists()


def test_grading_without_bubblewrap_says_how_to_install_it_in_one_line(tmp_path, capsys, monkeypatch):
    demo = build_demo(tmp_path / "demo", [LESSONS[0]], ["ana"])
    monkeypatch.setenv("PATH", str(tmp_path / "sin-bwrap"))
    assert cli.main(["calificar", str(demo), "--directorio", str(tmp_path / "curso")]) == 3
    out = capsys.readouterr().out
    assert "no se encontró bubblewrap" in out and "apt-get install bubblewrap" in out
    assert "Traceback" not in out and "process pool" not in out
    assert not (tmp_path / "curso" / "gradebook.db").exists()
