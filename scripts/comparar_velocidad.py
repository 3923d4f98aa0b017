"""Compara la velocidad de `curso calificar` con la de nbgrader sin cambios, sobre el mismo lote y el mismo trabajo.

Uso: .venv/bin/python scripts/comparar_velocidad.py [--leccion 01 08] [--entregas 16] [--directorio /tmp/velocidad]

Para cada lección, crea N entregas (correctas, en blanco y con valores escritos a mano, o solo de los
tipos que pida --tipos) y hace con ellas el mismo trabajo de dos formas: `curso calificar` (kernels
sellados, en paralelo) y nbgrader tal cual (su preprocesador Execute, un kernel nuevo por entrega, en
serie): calificar y escribir la retroalimentación de cada alumno. Comprueba que cada alumno recibe la
misma nota automática y escribe los dos tiempos y su cociente. Con --solo-curso mide solo `curso
calificar`, para lotes del tamaño de una clase (--entregas 125), y al final suma todas las lecciones.
"""

import argparse
import logging
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import nbgrader.api
import sqlalchemy
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from traitlets.config import Config

from autograder import course
from autograder.course import SOLUTIONS, available_lessons, find_lesson, gradebook_url
from autograder.course.demo import SCENARIOS, build_demo
from autograder.grading import batch

KINDS = ("ana", "beto", "carla")  # correcta, en blanco, valores escritos a mano


def build_batch(folder, lesson, count, kinds=KINDS):
    """``count`` entregas: alumno_00, alumno_01... cada una copia de uno de los escenarios ``kinds``, por turno."""
    samples = Path(tempfile.mkdtemp(prefix="muestras-"))
    build_demo(samples, [lesson], list(kinds))
    for number in range(count):
        kind = kinds[number % len(kinds)]
        target = folder / f"alumno_{number:02d}" / lesson.id
        target.mkdir(parents=True)
        shutil.copy(samples / kind / lesson.id / lesson.notebook_name, target)
    shutil.rmtree(samples)


@contextmanager
def stock_gradebook():
    """nbgrader's gradebook as installed, without what importing the course changes in this process: an
    engine per gradebook and process, SQLite in WAL mode. (The schema version stays read in-process: nbgrader
    would start a 3-second process for it once, when it creates the gradebook.)"""
    shared = nbgrader.api.create_engine
    nbgrader.api.create_engine = sqlalchemy.create_engine
    sqlalchemy.event.remove(sqlalchemy.engine.Engine, "connect", course._fast_sqlite)
    try:
        yield
    finally:
        sqlalchemy.event.listen(sqlalchemy.engine.Engine, "connect", course._fast_sqlite)
        nbgrader.api.create_engine = shared


def plain_nbgrader(workspace, lesson_id, students):
    """nbgrader con su configuración por omisión: su preprocesador Execute, un kernel por entrega,
    y su retroalimentación (como hace ``curso calificar``)."""
    config = Config()
    config.CourseDirectory.root = str(workspace)
    config.CourseDirectory.source_directory = str(SOLUTIONS)
    config.CourseDirectory.release_directory = str(workspace / "release")
    config.Application.log_level = logging.ERROR
    api = NbGraderAPI(config=config)
    assert api.generate_assignment(lesson_id, force=True, create=True)["success"]
    started = time.perf_counter()
    with stock_gradebook():
        for student in students:
            result = api.autograde(lesson_id, student, force=True, create=True)
            assert result["success"], result.get("error")
            result = api.generate_feedback(lesson_id, student, force=True)
            assert result["success"], result.get("error")
    return time.perf_counter() - started


def automatic_scores(workspace, lesson_id, students):
    with Gradebook(gradebook_url(workspace)) as gradebook:
        scores = {}
        for student in students:
            notebook = gradebook.find_submission_notebook(lesson_id, lesson_id, student)
            scores[student] = sum(g.auto_score or 0.0 for g in notebook.grades if g.auto_score is not None)
        return scores


def grade_with_curso(root, lesson, workers):
    """``curso calificar`` on the batch in ``root/entregas``: its seconds."""
    started = time.perf_counter()
    batch.run(root / "entregas", root / "curso", lesson.id, workers=workers)
    return time.perf_counter() - started


def compare(root, lesson, count, workers, kinds):
    """Both ways on the same batch of one lesson: the seconds of each, or exit if the scores differ."""
    build_batch(root / "entregas", lesson, count, kinds)
    students = sorted(p.name for p in (root / "entregas").iterdir())

    ours = root / "curso"
    curso_seconds = grade_with_curso(root, lesson, workers)

    plain = root / "nbgrader"
    (plain / "submitted").mkdir(parents=True)
    for student in students:
        shutil.copytree(root / "entregas" / student, plain / "submitted" / student)
    nbgrader_seconds = plain_nbgrader(plain, lesson.id, students)

    ours_scores = automatic_scores(ours, lesson.id, students)
    plain_scores = automatic_scores(plain, lesson.id, students)
    different = {s: (ours_scores[s], plain_scores[s]) for s in students if ours_scores[s] != plain_scores[s]}
    print(f"{lesson.id}: {len(students)} entregas ({', '.join(SCENARIOS[k][0] for k in kinds)})")
    print(f"  curso calificar (notas, retroalimentación e informes): {curso_seconds:.1f} s")
    print(f"  nbgrader sin cambios (autograde y generate_feedback): {nbgrader_seconds:.1f} s")
    print(f"  por entrega: curso {curso_seconds / count:.2f} s, nbgrader {nbgrader_seconds / count:.2f} s")
    print(f"  cociente: curso es {nbgrader_seconds / curso_seconds:.1f} veces más rápido")
    if different:
        print(f"  ¡notas automáticas distintas! alumno: (curso, nbgrader) {different}")
        raise SystemExit(1)
    print("  todas las notas automáticas coinciden")
    return curso_seconds, nbgrader_seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leccion", nargs="+", default=["01"], help="lecciones, por número o id (por omisión 01)")
    parser.add_argument("--entregas", type=int, default=16, help="cuántas entregas por lección (por omisión 16)")
    parser.add_argument(
        "--procesos", type=int, default=None, help="entregas a la vez en curso (por omisión, una por núcleo)"
    )
    parser.add_argument("--directorio", type=Path, default=None, help="carpeta de trabajo (por omisión, temporal)")
    kinds = ", ".join(f"{kind} ({SCENARIOS[kind][0]})" for kind in KINDS)
    parser.add_argument("--tipos", nargs="+", choices=KINDS, default=list(KINDS), help=f"tipos de entrega: {kinds}")
    parser.add_argument("--solo-curso", action="store_true", help="mide solo curso calificar, sin nbgrader")
    args = parser.parse_args()
    root = args.directorio or Path(tempfile.mkdtemp(prefix="velocidad-"))
    shutil.rmtree(root, ignore_errors=True)
    print(f"Núcleos: {os.cpu_count()}; curso califica {args.procesos or os.cpu_count()} a la vez")
    lessons = [
        next((item for item in available_lessons() if item.id.startswith(wanted)), None) or find_lesson(wanted)
        for wanted in args.leccion
    ]
    if not args.solo_curso:
        for lesson in lessons:
            compare(root / lesson.id, lesson, args.entregas, args.procesos, args.tipos)
        return
    total = 0.0
    for lesson in lessons:
        build_batch(root / lesson.id / "entregas", lesson, args.entregas, args.tipos)
        seconds = grade_with_curso(root / lesson.id, lesson, args.procesos)
        total += seconds
        print(f"{lesson.id}: {args.entregas} entregas en {seconds:.1f} s, {seconds / args.entregas:.2f} s por entrega")
    count = args.entregas * len(lessons)
    print(f"En total: {count} entregas en {total:.0f} s ({total / 60:.1f} min), {total / count:.2f} s por entrega")


if __name__ == "__main__":
    main()
