"""A corpus of typical wrong answers: each gets a Spanish diagnosis and no ✔, and nothing hangs.

``tests/respuestas_erroneas/<lesson_id>.toml`` lists, for each answer cell (its ``grade_id``),
realistic wrong answers with a Spanish substring (``mensaje``) that their failure message must
contain, and one unusual but correct answer (``correcta = true``) that must pass everything.

Variant ``k`` of a lesson is the released notebook with every answer cell replaced by the ``k``-th
entry of that cell's list (the instructor's solution where the list is shorter), so a few notebooks
cover the whole corpus. Every variant is checked twice, as the student and the instructor see it:

- in a normal kernel (the student's notebook: the visible self-checks of ``%%comprobar``). To keep
  this fast, one kernel serves all the variants of a lesson: the first runs the whole notebook, the
  others only their answer and test cells, after a cell that deletes the previous answers' names;
- through ``autograder.grading.batch.run`` (sealed, with the hidden tests), one call for every lesson.

``pytest -s -k cifras tests/test_respuestas_erroneas.py`` prints the figures of each lesson.
"""

import asyncio
import copy
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from helpers import autograded_notebook, nbgrader_meta, read, row
from nbclient import NotebookClient

from autograder.course import is_test_cell, syllabus
from autograder.course.demo import answered
from autograder.grading import batch
from autograder.grading.verdict import answer_names

CORPUS = Path(__file__).resolve().parent / "respuestas_erroneas"
KEYS = {"caso", "mensaje", "codigo", "correcta"}
CHECK = "✔"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
RAW_TRACEBACK = ("Traceback (most recent call last)", 'File "', "----> ")
# An English exception line with nothing Spanish before it ("TypeError: unsupported operand...").
ENGLISH_START = re.compile(r"^\s*(✗\s*)?[A-Z]\w*(Error|Exception|Warning)?:\s+[A-Za-z]")
SPANISH_WORDS = re.compile(
    r"\b(de|del|la|el|los|las|tu|que|en|con|no|se|un|una|es|debía|esperaba|obtuvo|llegó|lanzó|todavía|pista|"
    r"comprobación|función)\b",
    re.IGNORECASE,
)
STUDENT_KERNELS = 2  # lessons whose student kernels run at once (the course's CI has two cores)


def _lessons():
    """``(lesson_id, lesson or None)`` for every corpus file (None: not in the syllabus)."""
    by_id = {lesson.id: lesson for lesson in syllabus()}
    return [(path.stem, by_id.get(path.stem)) for path in sorted(CORPUS.glob("*.toml"))]


def _present(lesson):
    return lesson is not None and lesson.source.exists()


def _skip(lesson_id, lesson):
    return [] if _present(lesson) else [pytest.mark.skip(reason=f"la lección {lesson_id} no existe todavía")]


def _load(lesson_id):
    return tomllib.loads((CORPUS / f"{lesson_id}.toml").read_text(encoding="utf-8"))


def _entry_params():
    """``(lesson_id, grade_id, index)`` of every corpus entry, for parametrizing."""
    params = []
    for lesson_id, lesson in _lessons():
        for grade_id, entries in _load(lesson_id).items():
            for index in range(len(entries) if isinstance(entries, list) else 0):
                name = f"{lesson_id[:2]}-{grade_id}-{index}"
                params.append(pytest.param(lesson_id, grade_id, index, marks=_skip(lesson_id, lesson), id=name))
    return params


def _lesson_params():
    return [pytest.param(lesson_id, id=lesson_id, marks=_skip(lesson_id, lesson)) for lesson_id, lesson in _lessons()]


def plain(text):
    return ANSI.sub("", text)


def error_text(outputs):
    """The text of a cell's error outputs: ``evalue`` and the traceback lines, without colours."""
    parts = []
    for output in outputs:
        if output.output_type == "error":
            parts += [output.get("evalue", ""), *output.get("traceback", [])]
    return plain("\n".join(parts))


def shown_text(outputs):
    return plain("".join(o.get("text", "") for o in outputs if o.output_type == "stream"))


def spanish_problems(text):
    """Why ``text`` does not read as one Spanish message (an empty list if it does)."""
    problems = [f"traza de Python en crudo ({marker!r})" for marker in RAW_TRACEBACK if marker in text]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if lines and ENGLISH_START.match(lines[0]):
        problems.append(f"empieza en inglés: {lines[0][:80]!r}")
    if len({word.lower() for word in SPANISH_WORDS.findall(text)}) < 3:
        problems.append("no parece español")
    return problems


@dataclass
class Entry:
    lesson_id: str
    grade_id: str  # the answer cell
    index: int
    caso: str
    codigo: str
    mensaje: str | None
    correcta: bool
    test_id: str = ""  # the exercise's test cell
    student: dict = field(default_factory=dict)  # the student's notebook: "shown" (✔ lines), "error"
    grader: dict = field(default_factory=dict)  # grading: "points", "maximum", "error"

    @property
    def label(self):
        return f"{self.lesson_id} {self.grade_id}[{self.index}] «{self.caso}»"


def corpus(lesson_id):
    """The lesson's entries, ``{grade_id: [Entry, ...]}``, with a readable error for a malformed file."""
    result = {}
    for grade_id, items in _load(lesson_id).items():
        assert isinstance(items, list), f"{lesson_id}: escribe las entradas de {grade_id} como [[{grade_id}]]"
        result[grade_id] = []
        for index, item in enumerate(items):
            assert set(item) <= KEYS, f"{lesson_id} {grade_id}[{index}]: claves desconocidas {set(item) - KEYS}"
            result[grade_id].append(
                Entry(
                    lesson_id,
                    grade_id,
                    index,
                    caso=item.get("caso", ""),
                    codigo=item.get("codigo", ""),
                    mensaje=item.get("mensaje"),
                    correcta=bool(item.get("correcta", False)),
                )
            )
    return result


def exercise_tests(lesson):
    """``{answer grade_id: grade_id of the test cell after it}``, from the instructor's notebook."""
    pairs, pending = {}, []
    for cell in read(lesson.source).cells:
        meta = nbgrader_meta(cell)
        if meta.get("solution") and cell.cell_type == "code":
            pending.append(meta["grade_id"])
        elif is_test_cell(cell):
            pairs.update({answer: meta["grade_id"] for answer in pending})
            pending = []
    return pairs


def _is_answer(cell):
    return nbgrader_meta(cell).get("solution") and cell.cell_type == "code"


def variants(lesson, entries):
    """Notebooks where answer cell ``g`` holds ``entries[g][k]`` (the solution where the list is shorter)."""
    base = answered(lesson)
    notebooks = []
    for k in range(max(len(items) for items in entries.values())):
        notebook = copy.deepcopy(base)
        for cell in notebook.cells:
            items = entries.get(nbgrader_meta(cell).get("grade_id"), [])
            if _is_answer(cell) and k < len(items):
                cell.source = items[k].codigo.strip("\n")
        notebooks.append(notebook)
    return notebooks


def _test_outputs(cells):
    return {nbgrader_meta(c)["grade_id"]: c.outputs for c in cells if is_test_cell(c)}


def student_notebook(notebooks):
    """One notebook that runs every variant in turn in the same kernel, and where each variant's cells are in it.

    The first variant runs whole (the lesson's own cells define what a student's kernel holds); the
    others run their answer and test cells (and the read-only imports) after a cell that deletes the
    names the previous answers defined, so no answer can borrow a function from another variant.
    """
    names = sorted(set().union(*(answer_names(c.source) for nb in notebooks for c in nb.cells if _is_answer(c))))
    # Plain ``del`` statements: a ``globals()`` in the student's history would leave their code unreadable.
    forget = nbformat.v4.new_code_cell("\n".join(f"if {name!r} in dir():\n    del {name}" for name in names))
    cells = copy.deepcopy(notebooks[0].cells)
    positions = [range(len(cells))]
    for notebook in notebooks[1:]:
        graded = [copy.deepcopy(c) for c in notebook.cells if c.cell_type == "code" and nbgrader_meta(c)]
        cells.append(copy.deepcopy(forget))
        positions.append(range(len(cells), len(cells) + len(graded)))
        cells += graded
    for number, cell in enumerate(cells):
        cell["id"] = f"celda-{number}"  # the variants repeat the lesson's cell ids
    return nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(notebooks[0].metadata)), positions


async def _execute_all(notebooks, folder):
    gate = asyncio.Semaphore(STUDENT_KERNELS)

    async def execute(notebook):
        async with gate:
            client = NotebookClient(
                notebook,
                timeout=120,
                kernel_name="python3",
                allow_errors=True,
                resources={"metadata": {"path": str(folder)}},
            )
            await client.async_execute()

    await asyncio.gather(*(execute(notebook) for notebook in notebooks))


@dataclass
class LessonRun:
    lesson: object
    entries: dict  # {grade_id: [Entry]}
    notebooks: list  # the variants
    seconds_student: float = 0.0
    seconds_grader: float = 0.0
    error: BaseException | None = None

    def all(self):
        return [entry for items in self.entries.values() for entry in items]


def prepare(lesson):
    entries = corpus(lesson.id)
    tests = exercise_tests(lesson)
    for grade_id, items in entries.items():
        for entry in items:
            entry.test_id = tests.get(grade_id, "")
    return LessonRun(lesson, entries, variants(lesson, entries))


def run_students(runs, folder):
    """The student's path for several lessons at once (two kernels at a time)."""
    started = time.perf_counter()
    combined = {run.lesson.id: student_notebook(run.notebooks) for run in runs}
    folder.mkdir(parents=True, exist_ok=True)
    asyncio.run(_execute_all([notebook for notebook, _ in combined.values()], folder))
    seconds = (time.perf_counter() - started) / max(1, len(runs))
    for run in runs:
        run.seconds_student = seconds  # the lessons ran together: each gets its share
        notebook, positions = combined[run.lesson.id]
        for k, where in enumerate(positions):
            outputs = _test_outputs([notebook.cells[i] for i in where])
            for entry in _entries_of_variant(run, k):
                found = outputs.get(entry.test_id, [])
                entry.student = {"shown": shown_text(found), "error": error_text(found)}


def _entries_of_variant(run, k):
    return [items[k] for items in run.entries.values() if k < len(items)]


def run_grader(runs, workspace):
    """Every variant of the lessons graded in one batch (sealed and in parallel, with the hidden tests): one pool of
    warm sandboxes serves them all."""
    started = time.perf_counter()
    folder = workspace / "entregas"
    for run in runs:
        for k, notebook in enumerate(run.notebooks):
            path = folder / f"variante{k}" / run.lesson.id / run.lesson.notebook_name
            path.parent.mkdir(parents=True)
            nbformat.write(notebook, path)
    result = batch.run(folder, workspace, lesson_id=runs[0].lesson.id if len(runs) == 1 else None)
    seconds = (time.perf_counter() - started) / len(runs)  # the lessons were graded together: each gets its share
    for run in runs:
        run.seconds_grader = seconds
        lesson = run.lesson
        maxima = {grade_id: points for grade_id, points, autograded in lesson.graded_cells() if autograded}
        for k in range(len(run.notebooks)):
            student = f"variante{k}"
            outputs = _test_outputs(autograded_notebook(result, lesson, student).cells)
            grades = row(result, lesson, student)
            for entry in _entries_of_variant(run, k):
                entry.grader = {
                    "points": float(grades[entry.test_id]),
                    "maximum": maxima[entry.test_id],
                    "error": error_text(outputs.get(entry.test_id, [])),
                }


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    """Both paths for every lesson that the selected tests need, done once for the module."""
    wanted = {
        item.callspec.params["lesson_id"]
        for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec") and "lesson_id" in item.callspec.params
    }
    lessons = [lesson for lesson_id, lesson in _lessons() if lesson_id in wanted and _present(lesson)]
    done = {lesson.id: prepare(lesson) for lesson in lessons}
    run_students(list(done.values()), tmp_path_factory.mktemp("alumno"))
    try:
        if done:
            run_grader(list(done.values()), tmp_path_factory.mktemp("calificador"))
    except Exception as error:  # every test of the corpus fails with it, not with a missing grade
        for run in done.values():
            run.error = error
    return done


def _run(runs, lesson_id):
    run = runs[lesson_id]
    if run.error is not None:
        raise run.error
    return run


def _entry(runs, lesson_id, grade_id, index):
    return _run(runs, lesson_id).entries[grade_id][index]


# -- the corpus itself ------------------------------------------------------------------------


@pytest.mark.parametrize("lesson_id", _lesson_params())
def test_the_corpus_covers_every_exercise(lesson_id):
    lesson = dict(_lessons())[lesson_id]
    entries = corpus(lesson_id)
    answers = set(exercise_tests(lesson))
    assert set(entries) == answers, f"celdas de respuesta sin corpus o desconocidas: {set(entries) ^ answers}"
    for grade_id, items in entries.items():
        wrong = [entry for entry in items if not entry.correcta]
        right = [entry for entry in items if entry.correcta]
        assert len(wrong) >= 3, f"{grade_id}: al menos tres respuestas erróneas"
        assert len(right) == 1, f"{grade_id}: exactamente una respuesta correcta poco habitual"
        for entry in items:
            assert entry.caso and entry.codigo.strip(), f"{entry.label}: faltan caso o codigo"
            assert entry.correcta or entry.mensaje, f"{entry.label}: una respuesta errónea necesita mensaje"
            assert not (entry.correcta and entry.mensaje), f"{entry.label}: una respuesta correcta no lleva mensaje"
            compile(entry.codigo, entry.label, "exec")
    loops = [e for items in entries.values() for e in items if "tiempo límite" in (e.mensaje or "")]
    assert loops, "al menos un bucle infinito por lección"


# -- the student's notebook -------------------------------------------------------------------


@pytest.mark.parametrize(("lesson_id", "grade_id", "index"), _entry_params())
def test_in_the_students_notebook(runs, lesson_id, grade_id, index):
    entry = _entry(runs, lesson_id, grade_id, index)
    shown, error = entry.student["shown"], entry.student["error"]
    if entry.correcta:
        assert CHECK in shown and not error, f"{entry.label}: una respuesta correcta debe ver ✔\n{error}"
        return
    assert CHECK not in shown, f"{entry.label}: una respuesta errónea ve ✔\n{shown}"
    assert error, f"{entry.label}: sin mensaje de error\n{shown}"
    assert entry.mensaje.lower() in error.lower(), f"{entry.label}: el mensaje no dice «{entry.mensaje}»:\n{error}"
    assert not spanish_problems(error), f"{entry.label}: {spanish_problems(error)}\n{error}"


# -- grading ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("lesson_id", "grade_id", "index"), _entry_params())
def test_when_graded(runs, lesson_id, grade_id, index):
    entry = _entry(runs, lesson_id, grade_id, index)
    points, maximum, error = entry.grader["points"], entry.grader["maximum"], entry.grader["error"]
    if entry.correcta:
        assert points == maximum and not error, f"{entry.label}: {points} de {maximum}\n{error}"
        return
    assert points == 0, f"{entry.label}: una respuesta errónea obtiene {points} de {maximum}"
    assert entry.mensaje.lower() in error.lower(), f"{entry.label}: el mensaje no dice «{entry.mensaje}»:\n{error}"
    assert not spanish_problems(error), f"{entry.label}: {spanish_problems(error)}\n{error}"


# -- the same verdict in the lab and in the grader ------------------------------------------------


def _first_line(text):
    lines = [line.strip().removeprefix("✗").strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else ""


@pytest.mark.parametrize(("lesson_id", "grade_id", "index"), _entry_params())
def test_the_lab_and_the_grader_agree(runs, lesson_id, grade_id, index):
    """The ✔ a student sees and the mark the grader gives agree, and a failure reads the same in both."""
    entry = _entry(runs, lesson_id, grade_id, index)
    passed_in_lab = CHECK in entry.student["shown"] and not entry.student["error"]
    full_marks = entry.grader["points"] == entry.grader["maximum"] and not entry.grader["error"]
    assert passed_in_lab == full_marks, f"{entry.label}: ✔ en el cuaderno {passed_in_lab}, nota completa {full_marks}"
    if not passed_in_lab:
        lab, graded = _first_line(entry.student["error"]), _first_line(entry.grader["error"])
        # What a reading names may be more in the lab, which reads every cell of the kernel's history.
        named = re.compile(r"«[^»]*»(, «[^»]*»)*")
        same = named.sub("«…»", lab) == named.sub("«…»", graded)
        more = set(re.findall(r"«[^»]*»", graded)) <= set(re.findall(r"«[^»]*»", lab))
        assert same and more, f"{entry.label}: el cuaderno dice\n  {lab}\ny el calificador\n  {graded}"


# -- the figures --------------------------------------------------------------------------------


def figures(run):
    """Counts for the lesson's wrong answers and its unusual correct ones."""
    wrong = [e for e in run.all() if not e.correcta]
    right = [e for e in run.all() if e.correcta]

    def said(entry, path):
        return entry.mensaje.lower() in path["error"].lower()

    def spanish(path):
        return bool(path["error"]) and not spanish_problems(path["error"])

    return {
        "erroneas": len(wrong),
        "visible": sum(CHECK not in e.student["shown"] and bool(e.student["error"]) for e in wrong),
        "calificador": sum(e.grader["points"] == 0 and bool(e.grader["error"]) for e in wrong),
        "diagnostico": sum(said(e, e.student) and said(e, e.grader) for e in wrong),
        "espanol": sum(spanish(e.student) and spanish(e.grader) for e in wrong),
        "con_pista": sum("Pista:" in e.student["error"] and "Pista:" in e.grader["error"] for e in wrong),
        "correctas": len(right),
        "correctas_aprueban": sum(
            CHECK in e.student["shown"] and not e.student["error"] and e.grader["points"] == e.grader["maximum"]
            for e in right
        ),
        "por_ejercicio": {g: len(items) for g, items in run.entries.items()},
        "segundos": (round(run.seconds_student, 1), round(run.seconds_grader, 1)),
    }


@pytest.mark.parametrize("lesson_id", _lesson_params())
def test_cifras(runs, lesson_id):
    numbers = figures(_run(runs, lesson_id))
    print(
        f"\n{lesson_id}: {numbers['erroneas']} respuestas erróneas; atrapadas por la comprobación visible "
        f"{numbers['visible']}, por el calificador (con las pruebas ocultas) {numbers['calificador']}; con el "
        f"diagnóstico esperado {numbers['diagnostico']}; en español {numbers['espanol']}; con pista "
        f"{numbers['con_pista']}; correctas poco habituales que aprueban {numbers['correctas_aprueban']} de "
        f"{numbers['correctas']}; entradas por ejercicio {numbers['por_ejercicio']}; segundos (alumno, "
        f"calificador) {numbers['segundos']}"
    )
    assert numbers["visible"] == numbers["calificador"] == numbers["espanol"] == numbers["erroneas"]
    assert numbers["correctas_aprueban"] == numbers["correctas"]
