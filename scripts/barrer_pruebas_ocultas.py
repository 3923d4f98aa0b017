"""¿Suspenden alguna vez las pruebas ocultas una respuesta correcta?

Las pruebas ocultas eligen sus entradas al azar: un caso raro (un punto donde dos gradientes valen lo
mismo, un denominador casi nulo) puede suspender una respuesta correcta de vez en cuando. Este barrido
ejecuta una vez el cuaderno fuente de cada lección, con sus soluciones, y después sus celdas de pruebas
N veces, con entradas nuevas cada vez, y cuenta las que fallan. Una lección sana da 0.

    .venv/bin/python scripts/barrer_pruebas_ocultas.py [--veces 100] [--leccion 03 08]
"""

import argparse
import collections
import contextlib
import io
import sys
from pathlib import Path

import matplotlib
import nbformat

matplotlib.use("agg")

import matplotlib.pyplot as plt
from IPython.core.interactiveshell import InteractiveShell

from autograder.course import available_lessons, is_test_cell


def sweep(notebook_path, passes):
    """``{grade_id: (failures, last message)}`` of the test cells of ``notebook_path`` over ``passes`` runs."""
    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    cells = [cell for cell in nbformat.read(notebook_path, as_version=4).cells if cell.cell_type == "code"]
    failures = collections.Counter()
    messages = {}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for cell in cells:
            shell.run_cell(cell.source, store_history=True)
        for _ in range(passes):
            for cell in filter(is_test_cell, cells):
                result = shell.run_cell(cell.source, store_history=True)
                if not result.success:
                    grade_id = cell.metadata.nbgrader.grade_id
                    failures[grade_id] += 1
                    messages[grade_id] = str(result.error_in_exec).splitlines()[0][:300]
            plt.close("all")
    return {grade_id: (count, messages[grade_id]) for grade_id, count in failures.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--veces", type=int, default=100, help="cuántas veces se ejecutan las pruebas (100)")
    parser.add_argument("--leccion", nargs="+", default=[], help="lecciones, por número o id (todas)")
    parser.add_argument("--cuaderno", type=Path, help="un cuaderno fuente cualquiera, en lugar de las lecciones")
    args = parser.parse_args()
    if args.cuaderno:
        targets = [(args.cuaderno.stem, args.cuaderno)]
    else:
        wanted = args.leccion
        chosen = [lesson for lesson in available_lessons() if not wanted or lesson.id.startswith(tuple(wanted))]
        targets = [(lesson.id, lesson.source) for lesson in chosen]
    total = 0
    for name, path in targets:
        failed = sweep(path, args.veces)
        total += sum(count for count, _ in failed.values())
        print(f"{name}: {args.veces} pasadas, " + ("ningún fallo" if not failed else f"fallos en {len(failed)} celdas"))
        for grade_id, (count, message) in sorted(failed.items()):
            print(f"  {grade_id}: {count} de {args.veces} — {message}")
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
