"""Hostile submissions get no undeserved point, change nothing outside their sandbox and
harm no other student; honest edge cases keep their marks."""

import hashlib
import re
import subprocess

import nbformat
import pytest
from helpers import autograded_tests, points, read, row

from autograder.course import PACKAGE_DIR, ROOT, SOLUTIONS, find_lesson
from autograder.course.demo import answered, blank
from autograder.course.publish import STUDENT_PACKAGE
from autograder.grading import batch, execute
from autograder.reports import feedback as feedback_module

PACKAGES = {"autograder": PACKAGE_DIR, "gradientes": STUDENT_PACKAGE, "solutions": SOLUTIONS}

LESSON = find_lesson("01_tensores_y_requires_grad")
LESSON_03 = find_lesson("03_backward_y_regla_de_la_cadena")
MARKER = "curso-proceso-huerfano-7431"

# Code prepended to the first answer cell of a blank notebook: none of it computes an answer.
TAMPERING = {
    "subclases": (
        "for _k in ().__class__.__base__.__subclasses__():\n"
        "    if _k.__name__ == 'CheckFailure':\n"
        "        _m = __import__(_k.__module__, fromlist=['x'])\n"
        "        for _n in dir(_m):\n"
        "            if _n.startswith('check') or _n in ('fail', '_compare', '_mismatch'):\n"
        "                setattr(_m, _n, lambda *a, **k: None)\n"
    ),
    "base64": (
        "import base64\n"
        "_b = globals()['__builtins__']\n"
        "_f = _b['exec'] if isinstance(_b, dict) else getattr(_b, 'exec')\n"
        "_f(base64.b64decode('aW1wb3J0IHRvcmNoCnRvcmNoLmFsbGNsb3NlID0gbGFtYmRhICphLCAqKms6IFRydWU=').decode())\n"
    ),
    "transformador": (
        "_ip = [v for v in globals().values() if type(v).__name__.endswith('InteractiveShell')]\n"
        "_ip = _ip[0] if _ip else __import__('IPython').get_ipython()\n"
        "_ip.input_transformers_cleanup.append(lambda lineas: ['pass\\n'])\n"
    ),
    "modo_torch": (
        "import torch\nfrom torch.overrides import TorchFunctionMode\n"
        "class _Siempre(TorchFunctionMode):\n"
        "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
        "        if getattr(func, '__name__', '') in ('allclose', 'isclose', 'equal'):\n"
        "            return True\n"
        "        return func(*args, **(kwargs or {}))\n"
        "_Siempre().__enter__()\n"
    ),
    "copia_soluciones": (
        "import json, glob\n"
        f"for _ruta in glob.glob('{SOLUTIONS}/*/*.ipynb') + glob.glob('{ROOT}/**/gradebook.db', recursive=True):\n"
        "    _nb = json.load(open(_ruta))\n"
        "    for _c in _nb['cells']:\n"
        "        if 'solution' in str(_c.get('metadata')) and _c['cell_type'] == 'code':\n"
        "            exec(''.join(_c['source']))\n"
    ),
    "copia_companero": (
        "import glob, json\n"
        "for _ruta in glob.glob('/**/submitted/*/*/*.ipynb', recursive=True):\n"
        "    for _c in json.load(open(_ruta))['cells']:\n"
        "        if _c['cell_type'] == 'code' and 'def ' in ''.join(_c['source']):\n"
        "            exec(''.join(_c['source']))\n"
    ),
}

# Code that tries to harm whoever is graded after it, appended to a blank notebook.
HARM = (
    "import os, site, subprocess, sys\n"
    "_hecho = []\n"
    "for _dir in site.getsitepackages() + [os.path.dirname(os.__file__)]:\n"
    "    try:\n"
    "        open(os.path.join(_dir, 'zzz_trampa.pth'), 'w').write('import os\\n')\n"
    "        _hecho.append(_dir)\n"
    "    except OSError:\n"
    "        pass\n"
    f"for _ruta in ['{PACKAGE_DIR}/cli.py', '{STUDENT_PACKAGE}/checks.py', '{ROOT}/gradebook.db', '/tmp/compartido']:\n"
    "    try:\n"
    "        open(_ruta, 'a').write('# trampa\\n')\n"
    "    except OSError:\n"
    "        pass\n"
    f"subprocess.Popen(['sh', '-c', 'sleep 600; : {MARKER}'], start_new_session=True)\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    import time\n"
    "    while True:\n"
    "        time.sleep(1)\n"
)

# nbgrader metadata a student may forge to make a cell of theirs look like a test cell.
FORGED_TESTS = [
    {"grade": True, "solution": False, "locked": True, "points": 8, "grade_id": "inventada", "schema_version": 3},
    {"grade": True, "solution": False, "locked": False, "points": 8, "schema_version": 3},
    {"grade": True, "solution": False, "locked": False, "points": 0, "grade_id": "ej1_solucion", "schema_version": 3},
]

PRINTS_A_LOT = "\nprint('x' * 200_000)\nfor _i in range(2000):\n    print('línea', _i)\n"

# A last cell that ignores SIGINT and never ends (like C code that never returns): only a kill stops it.
UNINTERRUPTIBLE = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(1)\n"

# Answers that return a 60-million-character string (below), and 40 cells that print 99 K characters each.
FLOOD = "print('y' * 99_000)"
# Cells that sleep (no CPU) under the cell limit, for longer than the whole submission may take.
SLEEPS = "import time\ntime.sleep(8)"
SUBMISSION_LIMIT = 20  # seconds, for this batch (instead of the real 300 s)
# A cell that Python cannot even compile (RecursionError), between two test cells.
TOO_DEEP = "valor = " + " + ".join(["1"] * 20_000)

AUTOGRAD_GRAD = '''
def gradiente(f, x):
    """El mismo gradiente, con torch.autograd.grad en lugar de backward()."""
    x = x.detach().clone().requires_grad_(True)
    (derivada,) = torch.autograd.grad(f(x), x)
    return derivada
'''


def _first_answer(notebook):
    return next(c for c in notebook.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))


def _write(folder, student, lesson, notebook):
    path = folder / student / lesson.id / lesson.notebook_name
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, path)


def _digest(folder):
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One batch: the hostile submissions, then honest students graded after them."""
    workspace = tmp_path_factory.mktemp("hostil")
    folder = workspace / "entregas"
    for name, code in TAMPERING.items():
        notebook = blank(LESSON)
        _first_answer(notebook).source = code + "\n" + _first_answer(notebook).source
        _write(folder, name, LESSON, notebook)
    notebook = blank(LESSON)
    _first_answer(notebook).source = HARM
    _write(folder, "dano", LESSON, notebook)
    notebook = blank(LESSON)
    for number, meta in enumerate(FORGED_TESTS):  # cells of its own, marked as test cells
        code = f"open({str(workspace / f'celda_falsa_{number}')!r}, 'w').write('en el calificador')"
        notebook.cells.insert(3, nbformat.v4.new_code_cell(code, metadata={"nbgrader": meta}))
    _write(folder, "celda_falsa", LESSON, notebook)
    notebook = answered(LESSON)
    _first_answer(notebook).source += PRINTS_A_LOT
    _write(folder, "zz_imprime_mucho", LESSON, notebook)
    for number in range(2):
        _write(folder, f"zz_honesto_{number}", LESSON, answered(LESSON))
    notebook = answered(LESSON)
    notebook.cells.append(nbformat.v4.new_code_cell(UNINTERRUPTIBLE))
    _write(folder, "zz_se_bloquea_al_final", LESSON, notebook)
    notebook = answered(LESSON_03)
    _first_answer(notebook).source = AUTOGRAD_GRAD
    _write(folder, "zz_autograd_grad", LESSON_03, notebook)
    notebook = blank(LESSON)
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            names = re.findall(r"^def (\w+)", cell.source, re.M)
            cell.source = "".join(f"\ndef {n}(*args, **kwargs):\n    return 'x' * 60_000_000\n" for n in names)
    notebook.cells.extend(nbformat.v4.new_code_cell(FLOOD) for _ in range(40))
    _write(folder, "enorme", LESSON, notebook)
    notebook = blank(LESSON)
    notebook.cells.append(nbformat.v4.new_code_cell("x = '" + "<" * 8_000_000 + "'"))  # each < is &lt; in HTML
    notebook.cells.extend(nbformat.v4.new_code_cell("print('\\x1b[31m<' * 45_000)") for _ in range(40))
    _write(folder, "pagina_enorme", LESSON, notebook)
    notebook = answered(LESSON)
    third_test = notebook.cells.index(autograded_tests(notebook)[2])
    for _ in range(3):  # 24 s of sleep before the third test cell: the first two keep their points
        notebook.cells.insert(third_test, nbformat.v4.new_code_cell(SLEEPS))
    _write(folder, "dormilon", LESSON, notebook)
    notebook = answered(LESSON)
    third_test = notebook.cells.index(autograded_tests(notebook)[2])
    notebook.cells.insert(third_test, nbformat.v4.new_code_cell(TOO_DEEP))
    _write(folder, "zz_no_compila", LESSON, notebook)
    before = {
        "autograder": _digest(PACKAGE_DIR),
        "gradientes": _digest(STUDENT_PACKAGE),
        "solutions": _digest(SOLUTIONS),
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(execute, "SUBMISSION_LIMIT", SUBMISSION_LIMIT)  # the workers are forked with it
        result = batch.run(folder, workspace, workers=2)
    return result, before


@pytest.mark.parametrize("student", [*TAMPERING, "dano", "celda_falsa", "enorme"])
def test_tampering_earns_nothing(graded, student):
    result, _ = graded
    assert row(result, LESSON, student)["puntos_automaticos"] == 0


def test_honest_students_after_the_attacks_keep_full_marks(graded):
    result, _ = graded
    full = points(autograded_tests(read(LESSON.source)))
    for student in ("zz_honesto_0", "zz_honesto_1", "zz_imprime_mucho", "zz_se_bloquea_al_final"):
        assert row(result, LESSON, student)["puntos_automaticos"] == full, student
    assert "el kernel se detuvo" in row(result, LESSON, "zz_se_bloquea_al_final")["estado"]
    assert row(result, LESSON_03, "zz_autograd_grad")["puntos_automaticos"] == points(
        autograded_tests(read(LESSON_03.source))
    )


def test_nothing_outside_the_sandbox_changed(graded):
    result, before = graded
    assert {name: _digest(folder) for name, folder in PACKAGES.items()} == before
    assert not list(ROOT.glob(".venv/lib/python*/site-packages/zzz_trampa.pth"))
    assert not (result.workspace / "gradebook.db").read_bytes().endswith(b"# trampa\n")


def test_a_cell_marked_as_a_test_by_the_student_runs_sealed(graded):
    result, _ = graded
    assert not list(result.workspace.glob("celda_falsa_*")), "a forged test cell ran in the grader"
    assert "no son de la lección" in row(result, LESSON, "celda_falsa")["estado"]


def test_no_process_outlives_its_grading(graded):
    found = subprocess.run(["pgrep", "-f", MARKER], capture_output=True, text=True)
    assert found.stdout == "", found.stdout


def test_the_kernel_cannot_read_the_course(graded):
    result, _ = graded
    notebook = read(result.workspace / "autograded" / "copia_soluciones" / LESSON.id / LESSON.notebook_name)
    # The glob found nothing to copy, so the untouched templates raised NotImplementedError.
    errors = [o.evalue for c in notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert any("todavía no has escrito tu respuesta" in e for e in errors), errors


def test_a_submission_cannot_flood_the_grader_with_output(graded):
    result, _ = graded
    autograded = result.workspace / "autograded" / "enorme" / LESSON.id / LESSON.notebook_name
    feedback = result.workspace / "feedback" / "enorme" / LESSON.id / f"{LESSON.id}.html"
    assert autograded.stat().st_size < 4 * 1024**2, autograded.stat().st_size
    assert feedback.stat().st_size < 8 * 1024**2, feedback.stat().st_size  # MathJax alone is about 2.6 MB
    text = autograded.read_text("utf-8")
    assert "salida recortada" in text and "x" * 1000 not in text


@pytest.mark.parametrize("student", ["enorme", "pagina_enorme"])
def test_the_feedback_page_has_a_hard_size_bound(graded, student):
    result, _ = graded
    feedback = result.workspace / "feedback" / student / LESSON.id / f"{LESSON.id}.html"
    mathjax = len(feedback_module.mathjax_source().encode())
    assert feedback.stat().st_size <= feedback_module.PAGE_LIMIT + mathjax, feedback.stat().st_size
    page = feedback.read_text("utf-8")
    assert "recortado en esta página" in page and "Celda de pruebas" in page  # the graded cells stay


def test_a_submission_that_sleeps_stops_at_its_total_time_and_keeps_what_it_earned(graded):
    result, _ = graded
    student = row(result, LESSON, "dormilon")
    assert 0 < student["puntos_automaticos"] < points(autograded_tests(read(LESSON.source)))
    notebook = read(result.workspace / "autograded" / "dormilon" / LESSON.id / LESSON.notebook_name)
    errors = [o.evalue for c in notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert any(f"tiempo total de {SUBMISSION_LIMIT} s" in e for e in errors), errors


def test_a_cell_the_kernel_cannot_compile_is_an_error_of_that_cell_and_the_rest_is_graded(graded):
    """Before, the whole submission was left ungraded. Now the cell shows its error and every observed exercise keeps
    its points; the prediction, read from the code, fails closed (the reader cannot parse that cell either)."""
    result, _ = graded
    student, honest = row(result, LESSON, "zz_no_compila"), row(result, LESSON, "zz_honesto_0")
    tests = [column for column in honest.index if column.endswith("_pruebas")]
    assert [t for t in tests if student[t] != honest[t]] == ["ej6_pruebas"], student
    notebook = read(result.workspace / "autograded" / "zz_no_compila" / LESSON.id / LESSON.notebook_name)
    errors = [o.evalue for c in notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert any("la celda no se pudo ejecutar" in e for e in errors), errors
    assert any("tan anidada que no se puede leer" in e for e in errors), errors
