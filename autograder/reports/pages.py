"""The instructor's pages after grading: a lesson's class page, its similar pairs, and the course page.

Each page is one HTML file in Spanish with nothing outside it (no CSS or JavaScript to download,
the plots inside as ``data:`` URIs), so it looks the same offline, attached to an e-mail or moved
to another folder. The templates are in ``plantillas/informes/``.
"""

import base64
import datetime
import io
from pathlib import Path

import jinja2
from matplotlib.figure import Figure

from autograder.reports import similarity
from autograder.reports.diagnoses import EXCEPTION, NOT_RUN, TIMEOUT, UNANSWERED
from autograder.reports.grades import GRADED, exercise_label

TEMPLATES = Path(__file__).resolve().parent / "plantillas" / "informes"
SHOWN_DIAGNOSES = 5  # per exercise on the class page; the CSV file has them all
SHOWN_ON_COURSE = 3  # per lesson on the course page
# How a page labels the failures that are not a diagnosis of their own (see autograder.reports.diagnoses).
KINDS = {
    UNANSWERED: "sin responder",
    EXCEPTION: "excepción",
    TIMEOUT: "tiempo agotado",
    NOT_RUN: "kernel detenido",
}


def files(lesson_id):
    """The names of a lesson's report files in ``informes/``."""
    return {
        "calificaciones": f"calificaciones_{lesson_id}.csv",
        "ejercicios": f"ejercicios_{lesson_id}.png",
        "errores": f"errores_{lesson_id}.csv",
        "clase": f"clase_{lesson_id}.html",
        "similitud": f"similitud_{lesson_id}.html",
        "similitud_csv": f"similitud_{lesson_id}.csv",
    }


COURSE_PAGE = "curso.html"


def number(value):
    """A number as Spanish writes it: «7,5», «10»."""
    return f"{round(float(value), 2):g}".replace(".", ",")


_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True
)
_environment.filters["numero"] = number


def _render(template, path, **values):
    now = datetime.datetime.now().strftime("%d/%m/%Y a las %H:%M")
    html = _environment.get_template(template).render(generated=now, kinds=KINDS, **values)
    Path(path).write_text(html, encoding="utf-8")


def data_uri(png):
    """A PNG (its bytes, or a matplotlib figure) as a ``data:`` URI that an ``<img>`` shows offline."""
    if isinstance(png, Figure):
        buffer = io.BytesIO()
        png.savefig(buffer, format="png", dpi=100)
        png = buffer.getvalue()
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def graded_rows(table, lesson):
    """The rows of a grades table whose submission was autograded (some automatic score exists)."""
    automatic = [name for name, _, auto in lesson.graded_cells() if auto]
    return table.dropna(subset=automatic, how="all")


def summary(lesson, table):
    """The figures at the top of a lesson's page (and in its row of the course page)."""
    graded = graded_rows(table, lesson)
    maximum = sum(points for _, points, _ in lesson.graded_cells())
    full = graded["puntos_automaticos"] == graded["maximo_automatico"]
    return {
        "calificadas": len(graded),
        "sin_calificar": len(table) - len(graded),
        "media": float(graded["total"].mean()) if len(graded) else 0.0,
        "maximo": maximum,
        "completas": int(full.sum()),
        "pendientes": int((table["pendientes_de_revision"] > 0).sum()),
        "atencion": int((table["estado"] != GRADED).sum()),
    }


def totals_plot(table, lesson):
    """Histogram of the graded students' totals."""
    totals = graded_rows(table, lesson)["total"]
    maximum = sum(points for _, points, _ in lesson.graded_cells())
    figure = Figure(figsize=(6, 3.2))
    ax = figure.subplots()
    bins = [edge - 0.5 for edge in range(int(maximum) + 2)] if maximum <= 40 else 20
    ax.hist(totals, bins=bins, color="#4c72b0", edgecolor="white")
    ax.set_title(f"{lesson.titulo}: notas de la clase")
    ax.set_xlabel(f"Nota total (de {number(maximum)})")
    ax.set_ylabel("Alumnos")
    ax.yaxis.get_major_locator().set_params(integer=True)
    figure.tight_layout()
    return figure


def _diagnoses(errors, cell, limit):
    rows = errors[errors["celda"] == cell].to_dict("records")
    for row in rows:
        row["alumnos"] = row["alumnos"].split("; ")
    return rows[:limit], max(0, len(rows) - limit)


def write_lesson_page(folder, lesson, table, errors, flagged=None):
    """``clase_<id>.html``: pass rate per exercise, its most frequent diagnoses, the totals, who needs a look.

    ``flagged`` is the number of similar pairs (None: not compared).
    """
    names = files(lesson.id)
    graded = graded_rows(table, lesson)
    exercises = []
    for cell, points, auto in lesson.graded_cells():
        if not auto:
            continue
        shown, more = _diagnoses(errors, cell, SHOWN_DIAGNOSES)
        passed = int((graded[cell] == points).sum())
        exercises.append(
            {
                "label": exercise_label(cell),
                "cell": cell,
                "points": points,
                "passed": passed,
                "graded": len(graded),
                "diagnoses": shown,
                "more": more,
            }
        )
    plot = Path(folder) / names["ejercicios"]
    attention = table[table["estado"] != GRADED]
    _render(
        "clase.html.j2",
        Path(folder) / names["clase"],
        lesson=lesson,
        counts=summary(lesson, table),
        exercise_plot=data_uri(plot.read_bytes()) if plot.exists() else None,
        totals_plot=data_uri(totals_plot(table, lesson)) if len(graded) else None,
        exercises=exercises,
        attention=[{"alumno": row.alumno, "motivos": [row.estado]} for row in attention.itertuples()],
        similar=None if flagged is None else {"flagged": flagged},
        files=names,
    )


def write_similarity_page(folder, lesson, pairs, students):
    """``similitud_<id>.html``: the flagged pairs with their shared lines side by side, then the next ones."""
    flagged = [pair for pair in pairs if pair.flagged]
    others = [pair for pair in pairs if not pair.flagged][:20]
    _render(
        "similitud.html.j2",
        Path(folder) / files(lesson.id)["similitud"],
        lesson=lesson,
        students=students,
        flagged=flagged,
        others=others,
        threshold=similarity.THRESHOLD,
        min_shared=similarity.MIN_SHARED,
    )


def course_plot(rows):
    """Bar chart: the class's mean total in each lesson, as a percentage of its maximum."""
    figure = Figure(figsize=(max(5, 0.9 * len(rows)), 3.5))
    ax = figure.subplots()
    shares = [100 * row["media"] / row["maximo"] if row["maximo"] else 0 for row in rows]
    ax.bar([row["id"][:2] for row in rows], shares, color="#4c72b0")
    ax.set_ylim(0, 100)
    ax.set_title("Nota media de la clase en cada lección")
    ax.set_xlabel("Lección")
    ax.set_ylabel("Nota media (% del máximo)")
    figure.tight_layout()
    return figure


def write_course_page(folder, lessons):
    """``curso.html``: every lesson graded in the workspace, what failed most in each, and every student's notes.

    ``lessons`` holds ``(lesson, grades table, errors table, number of flagged pairs or None)`` in syllabus order.
    """
    rows, grid = [], {}
    for lesson, table, errors, flagged in lessons:
        top = errors.sort_values("cuantos", ascending=False, kind="stable").head(SHOWN_ON_COURSE)
        graded = set(graded_rows(table, lesson)["alumno"])
        rows.append(
            {
                "id": lesson.id,
                "titulo": lesson.titulo,
                "page": files(lesson.id)["clase"],
                "parejas": flagged,
                "top": top.to_dict("records"),
                **summary(lesson, table),
            }
        )
        for row in table.itertuples():
            cell = {"total": row.total, "pending": row.pendientes_de_revision > 0} if row.alumno in graded else None
            grid.setdefault(row.alumno, {})[lesson.id] = cell
    for cells in grid.values():
        for lesson, *_ in lessons:
            cells.setdefault(lesson.id, None)
    _render(
        "curso.html.j2",
        Path(folder) / COURSE_PAGE,
        lessons=rows,
        students=sorted(grid),
        grid=grid,
        pending=sum(row["pendientes"] for row in rows),
        attention=sum(row["atencion"] for row in rows),
        plot=data_uri(course_plot(rows)) if rows else None,
    )
