"""Compara la velocidad de `curso calificar` con la de nbgrader sin cambios, sobre el mismo lote.

Uso: .venv/bin/python scripts/comparar_velocidad.py [--entregas 16] [--directorio /tmp/velocidad]

Crea N entregas de la lección 01 (correctas, en blanco y con valores escritos a mano), las
califica con `curso` (kernels sellados, en paralelo, con retroalimentación) y con
`nbgrader autograde` tal cual (un kernel nuevo por entrega, en serie), comprueba que cada
alumno recibe la misma nota automática y escribe los dos tiempos y su cociente.
"""

import argparse
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from traitlets.config import Config

from autograder import batch
from autograder.course import SOLUTIONS, find_lesson, gradebook_url
from autograder.demo import SCENARIOS, build_demo

LESSON = "01_tensores_y_requires_grad"
KINDS = ("ana", "beto", "carla")  # correcta, en blanco, valores escritos a mano


def build_batch(folder, count):
    """``count`` entregas: alumno_00, alumno_01... cada una copia de uno de los tres escenarios."""
    lesson = find_lesson(LESSON)
    samples = Path(tempfile.mkdtemp(prefix="muestras-"))
    build_demo(samples, [lesson], list(KINDS))
    for number in range(count):
        kind = KINDS[number % len(KINDS)]
        target = folder / f"alumno_{number:02d}" / LESSON
        target.mkdir(parents=True)
        shutil.copy(samples / kind / LESSON / lesson.notebook_name, target)
    shutil.rmtree(samples)


def plain_nbgrader(workspace, students):
    """nbgrader con su configuración por omisión: su preprocesador Execute, un kernel por entrega."""
    config = Config()
    config.CourseDirectory.root = str(workspace)
    config.CourseDirectory.source_directory = str(SOLUTIONS)
    config.CourseDirectory.release_directory = str(workspace / "release")
    config.Application.log_level = logging.ERROR
    api = NbGraderAPI(config=config)
    assert api.generate_assignment(LESSON, force=True, create=True)["success"]
    started = time.perf_counter()
    for student in students:
        result = api.autograde(LESSON, student, force=True, create=True)
        assert result["success"], result.get("error")
    return time.perf_counter() - started


def automatic_scores(workspace, students):
    with Gradebook(gradebook_url(workspace)) as gradebook:
        scores = {}
        for student in students:
            notebook = gradebook.find_submission_notebook(LESSON, LESSON, student)
            scores[student] = sum(g.auto_score or 0.0 for g in notebook.grades if g.auto_score is not None)
        return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entregas", type=int, default=16, help="cuántas entregas (por defecto 16)")
    parser.add_argument(
        "--procesos", type=int, default=None, help="entregas a la vez en curso (por defecto, una por núcleo)"
    )
    parser.add_argument("--directorio", type=Path, default=None, help="carpeta de trabajo (por defecto, temporal)")
    args = parser.parse_args()
    root = args.directorio or Path(tempfile.mkdtemp(prefix="velocidad-"))
    shutil.rmtree(root, ignore_errors=True)
    build_batch(root / "entregas", args.entregas)
    students = sorted(p.name for p in (root / "entregas").iterdir())

    ours = root / "curso"
    started = time.perf_counter()
    batch.run(root / "entregas", ours, LESSON, workers=args.procesos)
    curso_seconds = time.perf_counter() - started

    plain = root / "nbgrader"
    (plain / "submitted").mkdir(parents=True)
    for student in students:
        shutil.copytree(root / "entregas" / student, plain / "submitted" / student)
    nbgrader_seconds = plain_nbgrader(plain, students)

    ours_scores, plain_scores = automatic_scores(ours, students), automatic_scores(plain, students)
    different = {s: (ours_scores[s], plain_scores[s]) for s in students if ours_scores[s] != plain_scores[s]}
    cores = os.cpu_count()
    workers = args.procesos or cores
    print(f"Entregas de {LESSON}: {len(students)} ({', '.join(SCENARIOS[k][0] for k in KINDS)})")
    print(f"Núcleos: {cores}; curso califica {workers} a la vez")
    print(f"curso calificar (con retroalimentación e informes): {curso_seconds:.1f} s")
    print(f"nbgrader autograde sin cambios (solo calificación): {nbgrader_seconds:.1f} s")
    print(
        f"Por entrega: curso {curso_seconds / len(students):.2f} s, nbgrader {nbgrader_seconds / len(students):.2f} s"
    )
    print(f"Cociente: curso es {nbgrader_seconds / curso_seconds:.1f} veces más rápido")
    if different:
        print(f"¡Notas automáticas distintas! alumno: (curso, nbgrader) {different}")
        raise SystemExit(1)
    print("Todas las notas automáticas coinciden.")


if __name__ == "__main__":
    main()
