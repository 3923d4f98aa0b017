"""¿Cuánto tiempo añaden a un lote los informes de después de calificar?

Copia las entregas ya calificadas de un espacio de trabajo hasta tener N alumnos (sin calificar
nada de nuevo) y mide lo que se añade al final de ``curso calificar`` para una lección: qué falló
la clase (errores_<id>.csv), las entregas parecidas (similitud_<id>.csv y .html), la página de la
clase, la del curso, y los archivos para Moodle y Canvas.

    .venv/bin/python scripts/medir_informes.py ESPACIO LECCION [--alumnos 100]

ESPACIO es un espacio de trabajo donde ya se calificó LECCION (por ejemplo, el de ``curso demo``).
Las copias repiten el código de unas pocas entregas, así que la comparación de parecidos encuentra
muchas parejas idénticas: es el peor caso, no el habitual.
"""

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd

from autograder.course import find_lesson, gradebook_url
from autograder.reports import class_reports, grades, lms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("espacio", type=Path)
    parser.add_argument("leccion")
    parser.add_argument("--alumnos", type=int, default=100)
    args = parser.parse_args()
    lesson = find_lesson(args.leccion)
    source = args.espacio.resolve()
    graded = grades.lesson_table(gradebook_url(source), lesson.id, grades.kept_statuses(source / "informes", lesson.id))
    originals = [s for s in graded["alumno"] if (source / "autograded" / s / lesson.id).is_dir()]
    with tempfile.TemporaryDirectory(prefix="medir-informes-") as tmp:
        workspace = Path(tmp)
        rows = []
        for k in range(args.alumnos):
            original = originals[k % len(originals)]
            student = f"alumno_{k:03d}_{100 + k}"
            shutil.copytree(
                source / "autograded" / original / lesson.id, workspace / "autograded" / student / lesson.id
            )
            rows.append(graded[graded["alumno"] == original].assign(alumno=student))
        table = pd.concat(rows, ignore_index=True)
        folder = workspace / "informes"
        folder.mkdir()
        grades.plot_exercises(table, lesson.id, folder / f"ejercicios_{lesson.id}.png")  # already there in a batch
        steps = {}
        started = time.perf_counter()
        errors, pairs = class_reports.write_lesson(workspace, lesson.id, table, folder)
        steps["errores, parecidos y página de la clase"] = time.perf_counter() - started
        started = time.perf_counter()
        class_reports.write_course(workspace, [(lesson, table)])
        steps["página del curso"] = time.perf_counter() - started
        started = time.perf_counter()
        lms.export(folder, [(lesson, table)], {}, ["moodle", "canvas"])
        steps["archivos de Moodle y Canvas"] = time.perf_counter() - started
    print(f"{args.alumnos} entregas de {lesson.id} (copias de {len(originals)}):")
    for what, seconds in steps.items():
        print(f"  {what}: {seconds:.2f} s")
    print(f"  en total: {sum(steps.values()):.2f} s")
    print(
        f"  ({len(errors)} filas de errores, {sum(p.flagged for p in pairs)} parejas marcadas de {len(pairs)} listadas)"
    )


if __name__ == "__main__":
    main()
