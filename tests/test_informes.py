"""After a batch: what the class got wrong, grades for the LMS, and submissions that look copied.

One batch of lesson 1, downloaded from Moodle, with realistic submissions built from the wrong-answer
corpus (``tests/respuestas_erroneas/``): a correct one, a blank one, three students who share some
mistakes (on different random inputs), an infinite loop, an exception, two independent unusual but
correct answers, and a copy of one of them with renamed variables and reformatted code.
"""

import re
import shutil
import tomllib
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from helpers import chromium, nbgrader_meta
from nbgrader.api import Gradebook

from autograder import cli
from autograder.course import find_lesson
from autograder.course.demo import answered, blank
from autograder.grading import batch
from autograder.reports import class_reports, diagnoses, similarity

LESSON = find_lesson("01_tensores_y_requires_grad")
CORPUS = tomllib.loads(
    (Path(__file__).resolve().parent / "respuestas_erroneas" / f"{LESSON.id}.toml").read_text(encoding="utf-8")
)
STUDENTS = {  # LMS name and participant number → id
    "Ana Núñez_101": "ana_nunez_101",
    "Beto Ruiz_102": "beto_ruiz_102",
    "Carla Díaz_103": "carla_diaz_103",
    "Dani Gómez_104": "dani_gomez_104",
    "Eva Peña_105": "eva_pena_105",
    "Fabi López_106": "fabi_lopez_106",
    "Gabi Martín_107": "gabi_martin_107",
    "Hugo Sáez_108": "hugo_saez_108",
}
SUM = ("ej5_solucion", "suma en lugar de media")
DOUBLE = ("ej2_solucion", "divide entre h en lugar de 2h")
LOOP = ("ej2_solucion", "bucle infinito: olvida incrementar el contador")
RANK = ("ej1_solucion", "el rango cuenta elementos")
FLOAT32 = ("ej4_solucion", "float32 en lugar de float64")
RAISES = "def puede_requerir_gradiente(dtype):\n    return {torch.float64: True}[dtype]\n"
# Correct answers written independently of the solution and of the corpus's unusual ones.
OTHER_CORRECT = {
    "ej1_solucion": "def describir_tensor(t):\n    ejes = list(t.shape)\n"
    "    return len(ejes), tuple(ejes), t.dtype, t.device.type\n",
    "ej2_solucion": "def derivada_central(f, x, h=1e-5):\n    adelante = f(x + h)\n    atras = f(x - h)\n"
    "    return (adelante - atras) / (2 * h)\n",
    "ej5_solucion": "def perdida_cuadratica(w, x, y):\n    errores = w * x - y\n"
    "    return (errores * errores).sum() / errores.numel()\n",
}
RENAMED = {"forma": "dims", "n": "k", "s": "signo", "hoja": "es_hoja"}


def entry(grade_id, caso):
    """The corpus's code and diagnosis (``mensaje``) for one of its cases."""
    found = [item for item in CORPUS[grade_id] if item["caso"] == caso]
    assert found, f"el corpus de {LESSON.id} ya no tiene «{caso}» en {grade_id}: elige otro caso"
    return found[0]["codigo"].strip("\n"), found[0].get("mensaje")


def unusual_correct():
    return {grade_id: next(i["codigo"] for i in items if i.get("correcta")) for grade_id, items in CORPUS.items()}


def disguised(code):
    """A copy as a student hides it: other variable names, comments, spacing, two-space indents, blank lines."""
    for old, new in RENAMED.items():
        code = re.sub(rf"(?<![.\w]){old}\b", new, code)
    lines = ["# lo hice yo"]
    for line in code.strip("\n").splitlines():
        indent = len(line) - len(line.lstrip())
        lines += [" " * (indent // 2) + line.strip().replace(", ", ",").replace(" = ", "=") + "  # paso", ""]
    return "\n".join(lines)


def notebook(answers):
    """The lesson's notebook answered with the solution, but for ``answers`` (``{grade_id: code}``)."""
    result = answered(LESSON)
    for cell in result.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if cell.cell_type == "code" and grade_id in answers:
            cell.source = answers[grade_id]
    return result


def submissions():
    """``{Moodle folder: notebook}`` of the batch."""
    correct = unusual_correct()
    code = {case: entry(*case)[0] for case in (SUM, DOUBLE, LOOP, RANK, FLOAT32)}
    answers = {
        "Ana Núñez_101": {},
        "Carla Díaz_103": {"ej1_solucion": code[RANK], "ej2_solucion": code[DOUBLE], "ej5_solucion": code[SUM]},
        "Dani Gómez_104": {"ej2_solucion": code[LOOP], "ej3_solucion": RAISES, "ej5_solucion": code[SUM]},
        "Eva Peña_105": {"ej2_solucion": code[DOUBLE], "ej4_solucion": code[FLOAT32], "ej5_solucion": code[SUM]},
        "Fabi López_106": correct,
        "Gabi Martín_107": {grade_id: disguised(source) for grade_id, source in correct.items()},
        "Hugo Sáez_108": OTHER_CORRECT,
    }
    built = {folder: notebook(chosen) for folder, chosen in answers.items()}
    built["Beto Ruiz_102"] = blank(LESSON)
    return built


def manual_grade(workspace, student, score):
    """Grade every reflection of a student by hand, as the formgrader does."""
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gradebook:
        for name, _, auto in LESSON.graded_cells():
            if not auto:
                grade = gradebook.find_grade(name, LESSON.id, LESSON.id, student)
                grade.manual_score = score
        gradebook.db.commit()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The batch graded (two at a time), its reports kept as the batch left them, then some reflections graded."""
    root = tmp_path_factory.mktemp("informes")
    folder = root / "descarga_moodle"
    for name, content in submissions().items():
        path = folder / f"{name}_assignsubmission_file_" / LESSON.notebook_name
        path.parent.mkdir(parents=True)
        nbformat.write(content, path)
    workspace = root / "curso"
    result = batch.run(folder, workspace, lesson_id=LESSON.id, workers=2)
    shutil.copytree(workspace / "informes", root / "tras_calificar")
    manual_grade(workspace, "ana_nunez_101", 1)
    manual_grade(workspace, "carla_diaz_103", 0.5)
    return result, root / "tras_calificar"


@pytest.fixture(scope="module")
def exported(graded):
    """``curso resumen`` with Moodle and Canvas files, then again for a spreadsheet in Spanish."""
    workspace = graded[0].workspace
    command = ["resumen", "--directorio", str(workspace), "--formato-lms", "moodle", "--formato-lms", "canvas"]
    assert cli.main(command) == 0
    reports = workspace / "informes"
    plain = {
        "moodle": pd.read_csv(reports / f"moodle_{LESSON.id}.csv", dtype={"Identificador": str}),
        "canvas": pd.read_csv(reports / "canvas_calificaciones.csv", dtype={"ID": str}),
        "calificaciones": pd.read_csv(reports / f"calificaciones_{LESSON.id}.csv"),
    }
    assert cli.main([*command, "--csv-es"]) == 0
    spanish = {
        "canvas": pd.read_csv(reports / "canvas_calificaciones.csv", sep=";", decimal=",", dtype={"ID": str}),
        "calificaciones": pd.read_csv(reports / f"calificaciones_{LESSON.id}.csv", sep=";", decimal=","),
        "text": (reports / f"calificaciones_{LESSON.id}.csv").read_text(encoding="utf-8-sig"),
    }
    return plain, spanish, workspace


def errors_table(graded):
    return pd.read_csv(graded[1] / f"errores_{LESSON.id}.csv")


def the_row(errors, test_cell, **where):
    """The only row of ``errores_<id>.csv`` for this test cell whose columns contain what ``where`` says."""
    rows = errors[errors["celda"] == test_cell]
    for column, text in where.items():
        rows = rows[rows[column].str.contains(text, regex=False)]
    assert len(rows) == 1, f"{test_cell} {where}: {len(rows)} filas\n{errors[errors['celda'] == test_cell]}"
    return rows.iloc[0]


def test_every_mistake_of_the_class_is_counted_once(graded):
    errors = errors_table(graded)
    assert set(errors["de"]) == {8}
    sum_row = the_row(errors, "ej5_pruebas", ejemplo=entry(*SUM)[1])
    assert sum_row["tipo"] == "diagnostico" and sum_row["cuantos"] == 3, "three students, three random inputs"
    assert sum_row["alumnos"] == "carla_diaz_103; dani_gomez_104; eva_pena_105"
    double = the_row(errors, "ej2_pruebas", ejemplo=entry(*DOUBLE)[1])
    assert (double["cuantos"], double["alumnos"]) == (2, "carla_diaz_103; eva_pena_105")
    assert the_row(errors, "ej1_pruebas", ejemplo=entry(*RANK)[1])["alumnos"] == "carla_diaz_103"
    assert the_row(errors, "ej4_pruebas", ejemplo=entry(*FLOAT32)[1])["alumnos"] == "eva_pena_105"
    loop = the_row(errors, "ej2_pruebas", tipo="tiempo_agotado")
    assert (loop["cuantos"], loop["alumnos"]) == (1, "dani_gomez_104")
    raised = the_row(errors, "ej3_pruebas", tipo="excepcion")
    assert raised["alumnos"] == "dani_gomez_104" and "KeyError" in raised["diagnostico"]
    blank_rows = errors[errors["tipo"] == "sin_responder"]
    assert list(blank_rows["celda"]) == [f"ej{n}_pruebas" for n in range(1, 7)]
    assert set(blank_rows["alumnos"]) == {"beto_ruiz_102"}
    # Nothing else failed: the correct, the unusual, the copied and the independent answers pass.
    assert len(errors) == 12 and errors["cuantos"].sum() == 3 + 2 + 1 + 1 + 1 + 1 + 6
    assert sum_row["id"].startswith("diagnostico:") and set(blank_rows["id"]) == {"sin_responder"}, "stable ids"


def test_the_class_page_reads_in_a_browser_offline(graded, tmp_path):
    page = tmp_path / "solo" / f"clase_{LESSON.id}.html"
    page.parent.mkdir()
    shutil.copy(graded[1] / page.name, page)  # alone, somewhere else: it needs nothing beside it
    offline = ("--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>")
    with chromium(tmp_path / "chromium", *offline) as driver:
        driver.get(page.as_uri())
        text = " ".join(driver.execute_script("return document.body.innerText").split())
        images = driver.execute_script("return [...document.images].map(i => i.complete && i.naturalWidth)")
        loaded = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        driver.save_screenshot(str(tmp_path / "clase.png"))
    hint = the_row(errors_table(graded), "ej5_pruebas", ejemplo=entry(*SUM)[1])["diagnostico"]
    assert f"3 de 8 {' '.join(hint.split())}" in text, text
    assert "Ejercicio 2" in text and "2 de 8" in text and "tiempo agotado" in text and "sin responder" in text
    assert "Entregas que necesitan tu atención" in text and "falta calificar a mano" in text
    assert "Distribución de las notas" in text and "1 pareja de entregas muy parecidas" in text
    assert len(images) == 2 and all(images), images
    assert not [url for url in loaded if not url.startswith(("file:", "data:"))], loaded


def test_moodle_worksheet_keys_by_participant_and_leaves_pending_grades_empty(exported):
    plain, _, _ = exported
    moodle = plain["moodle"].set_index("Identificador")
    assert list(plain["moodle"].columns) == [
        "Identificador",
        "Nombre completo",
        "Calificación",
        "Calificación máxima",
        "Última modificación (calificación)",
        "Estado en el curso",
    ]
    assert sorted(moodle.index) == [f"Participante {n}" for n in range(101, 109)]
    assert moodle.loc["Participante 101", "Nombre completo"] == "Ana Núñez"
    grades = plain["calificaciones"].set_index("alumno")
    assert moodle.loc["Participante 101", "Calificación"] == grades.loc["ana_nunez_101", "total"] == 14
    assert moodle.loc["Participante 103", "Calificación"] == grades.loc["carla_diaz_103", "total"]
    assert moodle.loc["Participante 102", "Calificación"] == 0, "a blank notebook is graded: 0"
    for pending in (104, 105, 106, 107, 108):
        row = moodle.loc[f"Participante {pending}"]
        assert pd.isna(row["Calificación"]), "a grade still waiting for its reflections is never exported as 0"
        assert "falta calificar a mano" in row["Estado en el curso"]
    assert set(moodle["Calificación máxima"]) == {14}


def test_canvas_import_keys_by_user_id_with_one_column_per_lesson(exported):
    plain, _, _ = exported
    canvas = plain["canvas"]
    assert list(canvas.columns) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", LESSON.titulo]
    assert canvas.loc[0, "Student"] == "Points Possible" and canvas.loc[0, LESSON.titulo] == 14
    students = canvas.iloc[1:].set_index("ID")
    assert sorted(students.index) == [str(n) for n in range(101, 109)]
    assert students.loc["101", "Student"] == "Ana Núñez" and students.loc["101", LESSON.titulo] == 14
    assert students.loc[["104", "105", "106", "107", "108"], LESSON.titulo].isna().all()


def test_spanish_spreadsheet_csv(exported):
    plain, spanish, _ = exported
    assert spanish["text"].splitlines()[0].startswith("alumno;")
    carla = spanish["calificaciones"].set_index("alumno").loc["carla_diaz_103", "total"]
    assert carla == plain["calificaciones"].set_index("alumno").loc["carla_diaz_103", "total"]
    assert carla % 1 == 0.5 and f"{carla:g}".replace(".", ",") in spanish["text"], "a decimal comma"
    assert spanish["canvas"].set_index("ID").loc["103", LESSON.titulo] == carla


def test_the_course_page_covers_the_lesson(exported):
    page = (exported[2] / "informes" / "curso.html").read_text(encoding="utf-8")
    assert LESSON.titulo in page and f"clase_{LESSON.id}.html" in page and "pendiente" in page


def test_a_disguised_copy_is_found_and_independent_answers_are_not(graded):
    pairs = pd.read_csv(graded[1] / f"similitud_{LESSON.id}.csv")
    flagged = {(row.alumno_a, row.alumno_b) for row in pairs.itertuples() if row.revisar == "sí"}
    assert flagged == {("fabi_lopez_106", "gabi_martin_107")}, pairs
    # Not flagged because they differ, not because there was nothing of their own to compare.
    notebooks = class_reports.autograded_notebooks(graded[0].workspace, LESSON.id, ["fabi_lopez_106", "hugo_saez_108"])
    known = similarity.known_code(nbformat.read(LESSON.released, 4), nbformat.read(LESSON.source, 4))
    own = similarity.own_lines(notebooks, known)
    assert min(len(lines) for lines in own.values()) >= similarity.MIN_SHARED, own
    copy = pairs[(pairs["alumno_a"] == "fabi_lopez_106") & (pairs["alumno_b"] == "gabi_martin_107")].iloc[0]
    assert copy["similitud"] == 1 and copy["lineas_compartidas"] >= 4
    page = (graded[1] / f"similitud_{LESSON.id}.html").read_text(encoding="utf-8")
    assert "dims" in page and "forma" in page, "the shared lines, side by side, as each student wrote them"
    assert "no cambia ninguna nota" in page


def test_the_same_mistake_on_other_inputs_is_one_diagnosis():
    first = diagnoses.classify(
        "ana",
        "ej5_pruebas",
        "CheckFailure",
        "perdida_cuadratica(w = tensor(-1.9618), x = tensor([-1.6407, 0.4878]), y = tensor([0.5, 1.])) no coincide "
        "con lo esperado: se esperaba tensor(9.4545), pero se obtuvo tensor(18.909).\n"
        "  Pista: tu pérdida es 2 veces lo esperado: ¿sumaste donde había que promediar?",
    )
    second = diagnoses.classify(
        "beto",
        "ej5_pruebas",
        "CheckFailure",
        "perdida_cuadratica(w = tensor(0.25), x = tensor([1., 2., 3., 4., 5.]), y = tensor([0., 0., 0., 0., 1.])) no "
        "coincide con lo esperado: se esperaba tensor(0.7), pero se obtuvo tensor(3.5).\n"
        "  Pista: tu pérdida es 5 veces lo esperado: ¿sumaste donde había que promediar?",
    )
    other = diagnoses.classify("eva", "ej5_pruebas", "CheckFailure", "algo.\n  Pista: ¿elevaste al cuadrado?")
    assert (first.kind, first.key) == (second.kind, second.key) != (other.kind, other.key)
    shapes = [
        diagnoses.classify(
            "x", "ej4", "CheckFailure", f"crear_hoja({values}) debía tener forma ({n},), pero tiene forma {s}."
        )
        for values, n, s in (("[1, 2]", 2, "(1, 2)"), ("[-2.9, 2, 3]", 3, "(3, 1)"))
    ]
    assert shapes[0].key == shapes[1].key and shapes[0].kind == "diagnostico"


def test_renaming_and_reformatting_do_not_change_the_statements():
    code = entry(*SUM)[0]
    assert [line.code for line in similarity.statements(code)] == [
        line.code for line in similarity.statements(disguised(code))
    ]
    assert similarity.statements("x = [1,\n     2]  # dos\n")[0].code == "_ = [ 1 , 2 ]"
    assert similarity.statements("y = t.grad.zero_()")[0].code == "_ = _ . grad . zero_ ( )"


def test_the_command_line_options_are_in_spanish(capsys):
    args = cli.parser().parse_args(
        ["calificar", "e.zip", "--formato-lms", "moodle", "--formato-lms", "canvas", "--csv-es"]
    )
    assert (args.formato_lms, args.csv_es) == (["moodle", "canvas"], True)
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["resumen", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "uso: curso resumen" in help_text and "nunca 0" in help_text and "coma decimal" in help_text
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["resumen", "--formato-lms", "blackboard"])
    assert "opción no válida" in capsys.readouterr().err
