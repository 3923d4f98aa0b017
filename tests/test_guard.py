"""The guard that undoes a submission's changes to the course's own files."""

from autograder import guard


def test_changed_added_and_deleted_files_are_put_back(tmp_path, monkeypatch):
    course = tmp_path / "autograder"
    course.mkdir()
    (course / "checks.py").write_text("original\n")
    (course / "temario.toml").write_text("lecciones\n")
    monkeypatch.setattr(guard, "GUARDED", (course,))
    monkeypatch.setattr(guard, "ROOT", tmp_path)

    files = guard.CourseFiles()
    (course / "checks.py").write_text("original\n# modificado\n")
    (course / "temario.toml").unlink()
    (course / "nuevo.py").write_text("x = 1\n")
    (course / ".ipynb_checkpoints").mkdir()
    (course / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text("{}")

    assert files.restore() == ["autograder/checks.py", "autograder/nuevo.py", "autograder/temario.toml"]
    assert (course / "checks.py").read_text() == "original\n"
    assert (course / "temario.toml").read_text() == "lecciones\n"
    assert not (course / "nuevo.py").exists()
    assert (course / ".ipynb_checkpoints" / "a-checkpoint.ipynb").exists(), "JupyterLab's own files are left alone"
    assert files.restore() == []
