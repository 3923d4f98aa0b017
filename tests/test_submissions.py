"""Collecting submissions from folders and LMS zips, and reporting what cannot be graded."""

import json
import zipfile

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import ROOT
from autograder.grading.submissions import collect, student_id

LESSONS = ["01_tensores_y_requires_grad", "02_grafo_computacional"]


def write_notebook(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1")]), path)
    return path


def by_student(found):
    return {(s.student, s.lesson): s for s in found}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Ana Núñez_12345_assignsubmission_file_", "ana_nunez_12345"),
        ("  José  María ", "jose_maria"),
        ("ÑOÑO-99", "nono_99"),
        ("???", "alumno_sin_nombre"),
    ],
)
def test_student_ids_are_ascii_snake_case(name, expected):
    assert student_id(name) == expected


def test_nbgrader_layout_is_copied_into_submitted(tmp_path):
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "beto" / LESSONS[1] / f"{LESSONS[1]}.ipynb")
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    assert set(found) == {("ana", LESSONS[0]), ("beto", LESSONS[1])}
    assert all(s.gradable and not s.warnings for s in found.values())
    assert (tmp_path / "submitted" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb").exists()


def test_moodle_zip_with_a_wrapping_folder(tmp_path):
    source = tmp_path / "moodle"
    write_notebook(source / "Ana Núñez_1_assignsubmission_file_" / f"{LESSONS[0]}.ipynb")
    write_notebook(source / "Beto Paz_2_assignsubmission_file_" / f"mi_trabajo_{LESSONS[0]}.ipynb")
    archive = tmp_path / "descarga.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in source.rglob("*.ipynb"):
            zf.write(path, "Tarea 1/" + str(path.relative_to(source)))
    found = by_student(collect(archive, tmp_path / "submitted", LESSONS))
    assert set(found) == {("ana_nunez_1", LESSONS[0]), ("beto_paz_2", LESSONS[0])}
    assert found[("beto_paz_2", LESSONS[0])].warnings, "a renamed file is graded with a warning"
    assert (tmp_path / "submitted" / "beto_paz_2" / LESSONS[0] / f"{LESSONS[0]}.ipynb").exists()


def test_moodle_namesakes_and_subfolders_stay_apart(tmp_path):
    write_notebook(tmp_path / "in" / "Ana Núñez_11_assignsubmission_file_" / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "Ana Nunez_22_assignsubmission_file_" / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "Beto Paz_33_assignsubmission_file_" / "entrega" / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "Carla Ruiz_44_assignsubmission_file_" / "entrega" / f"{LESSONS[0]}.ipynb")
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    assert {student for student, _ in found} == {"ana_nunez_11", "ana_nunez_22", "beto_paz_33", "carla_ruiz_44"}
    assert all(s.gradable and not s.warnings for s in found.values())


def test_a_wrong_file_name_inside_the_lesson_folder_is_graded_with_a_warning(tmp_path):
    write_notebook(tmp_path / "in" / "gabi" / LESSONS[0] / "Untitled.ipynb")
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS)
    assert submission.gradable
    assert "Untitled.ipynb" in submission.warnings[0]


def test_an_unrecognisable_lesson_is_a_clear_problem(tmp_path):
    write_notebook(tmp_path / "in" / "hugo" / "tarea.ipynb")
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS)
    assert not submission.gradable
    assert "no se reconoce la lección" in submission.problems[0]
    assert not (tmp_path / "submitted" / "hugo").exists()


def test_the_default_lesson_resolves_ambiguous_names(tmp_path):
    write_notebook(tmp_path / "in" / "hugo" / "tarea.ipynb")
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS, default_lesson=LESSONS[1])
    assert submission.gradable and submission.lesson == LESSONS[1]


def test_broken_json_is_reported_and_does_not_stop_the_others(tmp_path):
    broken = tmp_path / "in" / "fede" / LESSONS[0] / f"{LESSONS[0]}.ipynb"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"cells": [', encoding="utf-8")
    wrong_schema = tmp_path / "in" / "eva" / LESSONS[0] / f"{LESSONS[0]}.ipynb"
    wrong_schema.parent.mkdir(parents=True)
    wrong_schema.write_text(json.dumps({"hola": 1}), encoding="utf-8")
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    for student in ("fede", "eva"):
        assert not found[(student, LESSONS[0])].gradable
        assert "no es un cuaderno de Jupyter válido" in found[(student, LESSONS[0])].problems[0]
    assert found[("ana", LESSONS[0])].gradable


TEST_CELL = {"grade": True, "solution": False, "locked": True, "points": 2, "schema_version": 3}
EXPECTED = {LESSONS[0]: {"ej1": {**TEST_CELL, "grade_id": "ej1"}, "ej2": {**TEST_CELL, "grade_id": "ej2"}}}


def graded_notebook(path, grade_ids):
    cells = [new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": gid, "grade": True}}) for gid in grade_ids]
    cells += [new_code_cell("y = 2"), new_code_cell("z = 3")]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=cells), path)


def test_a_duplicated_test_cell_is_graded_once(tmp_path):
    graded_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb", ["ej1", "ej1", "ej2"])
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS, expected_cells=EXPECTED)
    assert submission.gradable and "ej1 estaba repetida" in submission.warnings[0]
    stored = nbformat.read(tmp_path / "submitted" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb", 4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in stored.cells]
    assert ids == ["ej1", None, "ej2", None, None]


def test_nbgrader_marks_come_from_the_lesson_never_from_the_submission(tmp_path):
    path = tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb"
    graded_notebook(path, ["ej1", "inventada"])
    notebook = nbformat.read(path, 4)
    notebook.cells[0].metadata.nbgrader.update(points=100, solution=False, locked=False)
    notebook.cells[2].metadata["nbgrader"] = {"grade": True, "solution": False, "points": 5}  # no id at all
    nbformat.write(notebook, path)
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS, expected_cells=EXPECTED)
    assert submission.gradable and "no son de la lección" in " ".join(submission.warnings)
    stored = nbformat.read(tmp_path / "submitted" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb", 4)
    assert stored.cells[0].metadata.nbgrader == EXPECTED[LESSONS[0]]["ej1"]
    assert ["nbgrader" in c.metadata for c in stored.cells] == [True, False, False, False]


def test_a_notebook_from_another_lesson_is_a_problem(tmp_path):
    graded_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb", ["otra_1", "otra_2"])
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS, expected_cells=EXPECTED)
    assert not submission.gradable and "¿es el de otra lección?" in submission.problems[0]


def test_duplicates_keep_the_correctly_named_notebook(tmp_path):
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / "copia.ipynb")
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / ".ipynb_checkpoints" / "x-checkpoint.ipynb")
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS)
    assert submission.original.name == f"{LESSONS[0]}.ipynb"
    assert "copia.ipynb" in submission.warnings[0]


def test_a_missing_source_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        collect(tmp_path / "no_existe", tmp_path / "submitted", LESSONS)
    text = tmp_path / "notas.txt"
    text.write_text("hola", encoding="utf-8")
    with pytest.raises(ValueError, match=r"no es una carpeta ni un archivo \.zip"):
        collect(text, tmp_path / "submitted", LESSONS)


def test_canvas_flat_names_keep_the_user_number_and_lateness_is_a_status(tmp_path):
    write_notebook(tmp_path / "in" / f"garciaana_LATE_123_456_{LESSONS[1]}.ipynb")
    write_notebook(tmp_path / "in" / f"pazbeto_124_457_{LESSONS[1]}-1.ipynb")
    write_notebook(tmp_path / "in" / f"pazbeto_125_458_{LESSONS[1]}.ipynb")  # a namesake
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    assert set(found) == {("garciaana_123", LESSONS[1]), ("pazbeto_124", LESSONS[1]), ("pazbeto_125", LESSONS[1])}
    assert found[("garciaana_123", LESSONS[1])].warnings == ["entrega tardía (según el LMS)"]
    assert not found[("pazbeto_125", LESSONS[1])].warnings


class _RawNameInfo(zipfile.ZipInfo):
    """A member whose name is written in ``encoding`` without the UTF-8 flag, as many zip tools do."""

    encoding = "utf-8"

    def _encodeFilenameFlags(self):
        return self.filename.encode(self.encoding), self.flag_bits & ~0x800


def lms_zip(path, names, encoding):
    notebook = nbformat.writes(new_notebook(cells=[new_code_cell("x = 1")]))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            info = _RawNameInfo(name)
            info.encoding = encoding
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, notebook)
    return path


@pytest.mark.parametrize("encoding", ["utf-8", "cp850"])
def test_zips_without_the_utf8_flag_keep_accents_and_numbers(tmp_path, encoding):
    names = [
        f"Ana Núñez_12345_assignsubmission_file_{LESSONS[0]}.ipynb",  # Moodle, flat
        f"Ana Núñez_12346_assignsubmission_file_{LESSONS[0]}.ipynb",  # her namesake
        f"María José Ávila_777_assignsubmission_file_/{LESSONS[0]}.ipynb",  # Moodle, a folder
        f"nunezjose_LATE_2222_3333_{LESSONS[0]}.ipynb",  # Canvas, late
    ]
    found = by_student(collect(lms_zip(tmp_path / "lms.zip", names, encoding), tmp_path / "submitted", LESSONS))
    assert set(found) == {
        ("ana_nunez_12345", LESSONS[0]),
        ("ana_nunez_12346", LESSONS[0]),
        ("maria_jose_avila_777", LESSONS[0]),
        ("nunezjose_2222", LESSONS[0]),
    }
    assert all(s.gradable for s in found.values())


def test_a_zip_bomb_is_refused_with_a_clear_message(tmp_path):
    bomb = tmp_path / "bomba.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"ana/{LESSONS[0]}.ipynb", b"0" * (300 * 1024**2))
    with pytest.raises(ValueError, match="no parece un lote de cuadernos"):
        collect(bomb, tmp_path / "submitted", LESSONS)
    assert not (tmp_path / "submitted").exists()


def test_a_folder_inside_a_moodle_upload_never_becomes_another_student(tmp_path):
    source = tmp_path / "moodle"
    write_notebook(source / "Beto Paz_2_assignsubmission_file_" / f"{LESSONS[0]}.ipynb")
    impostor = source / "Ana Núñez_1_assignsubmission_file_" / "Beto Paz_2_assignsubmission_file_"
    write_notebook(impostor / f"{LESSONS[0]}.ipynb")
    write_notebook(source / "Carla Ruiz_3_assignsubmission_file_" / "beto_paz_2" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    archive = tmp_path / "descarga.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in source.rglob("*.ipynb"):
            zf.write(path, "Tarea 1/" + str(path.relative_to(source)))
    found = by_student(collect(archive, tmp_path / "submitted", LESSONS))
    assert set(found) == {("ana_nunez_1", LESSONS[0]), ("beto_paz_2", LESSONS[0]), ("carla_ruiz_3", LESSONS[0])}
    assert found[("beto_paz_2", LESSONS[0])].original.parts[1] == "Beto Paz_2_assignsubmission_file_"


def test_a_folder_nested_in_a_students_own_folder_is_still_that_student(tmp_path):
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "beto" / "ana" / LESSONS[1] / f"{LESSONS[1]}.ipynb")
    write_notebook(tmp_path / "in" / "carla" / "ana" / f"{LESSONS[0]}.ipynb")
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    assert set(found) == {("ana", LESSONS[0]), ("beto", LESSONS[1]), ("carla", LESSONS[0])}


def test_two_notebooks_for_one_student_are_reported(tmp_path):
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / "copia.ipynb")
    (submission,) = collect(tmp_path / "in", tmp_path / "submitted", LESSONS)
    assert any("más de un cuaderno" in warning and "copia.ipynb" in warning for warning in submission.warnings)


def test_symbolic_links_are_refused_with_a_spanish_reason(tmp_path):
    solution = ROOT / "solutions" / LESSONS[0] / f"{LESSONS[0]}.ipynb"
    (tmp_path / "in" / "ana" / LESSONS[0]).mkdir(parents=True)
    (tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb").symlink_to(solution)
    (tmp_path / "in" / "beto").mkdir()
    (tmp_path / "in" / "beto" / LESSONS[0]).symlink_to(solution.parent, target_is_directory=True)
    write_notebook(tmp_path / "in" / "carla" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    assert found[("carla", LESSONS[0])].gradable
    ana = found[("ana", LESSONS[0])]
    assert not ana.gradable and "enlace simbólico" in ana.problems[0]
    assert not (tmp_path / "submitted" / "ana").exists()
    beto = found.get(("beto", LESSONS[0]))
    assert beto is None or not beto.gradable


def test_nbgraders_cell_metadata_check_still_refuses_broken_metadata():
    # The course checks nbgrader's metadata schema once per process instead of once per cell: still a check.
    from nbgrader.nbgraderformat import MetadataValidator, ValidationError

    from autograder.course import find_lesson

    notebook = nbformat.read(find_lesson("01_tensores_y_requires_grad").source, as_version=4)
    MetadataValidator().validate_nb(notebook)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade"))
    cell.metadata.nbgrader["points"] = "muchos"
    with pytest.raises(ValidationError, match="muchos"):
        MetadataValidator().validate_cell(cell)


def test_notebooks_that_json_accepts_and_nothing_else_can_hold_are_each_handled(tmp_path):
    """A lone surrogate, 100 000 nested lists, a 5 001-digit number, a list as a cell's id, 4 000 cells: each one
    is that student's problem (or a warning), never an error that stops the batch."""
    cell = {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "hola"}
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}
    texts = {
        "sustituto": json.dumps({**notebook, "cells": [{**cell, "source": "\ud800"}]}),
        "anidado": json.dumps(notebook)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "numero": json.dumps(notebook)[:-1] + ', "x": ' + "7" * 5_001 + "}",
        "grade_id": json.dumps({**notebook, "cells": [{**cell, "metadata": {"nbgrader": {"grade_id": ["ej1"]}}}]}),
        "celdas": json.dumps({**notebook, "cells": [{**cell, "id": f"c{i}"} for i in range(4_000)]}),
    }
    for student, text in texts.items():
        path = tmp_path / "in" / student / LESSONS[0] / f"{LESSONS[0]}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    write_notebook(tmp_path / "in" / "ana" / LESSONS[0] / f"{LESSONS[0]}.ipynb")
    found = by_student(collect(tmp_path / "in", tmp_path / "submitted", LESSONS))
    assert found[("ana", LESSONS[0])].gradable
    assert found[("sustituto", LESSONS[0])].gradable and "«?»" in found[("sustituto", LESSONS[0])].warnings[0]
    stored = tmp_path / "submitted" / "sustituto" / LESSONS[0] / f"{LESSONS[0]}.ipynb"
    assert nbformat.read(stored, 4).cells[0].source == "?"
    for student in ("anidado", "numero"):
        assert "JSON está dañado" in found[(student, LESSONS[0])].problems[0]
    assert found[("grade_id", LESSONS[0])].gradable
    assert "4000 celdas" in found[("celdas", LESSONS[0])].problems[0]
