"""Prueba corta de una instalación: una lección sin interfaz y una calificación aislada.

La usa la integración continua con el Python de Debian 12 (3.11.2), además de ``make test``:
``make prueba-corta PYTHON=/usr/bin/python3 VENV=/tmp/curso-debian``.
"""

import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from rich.console import Console

from autograder.course import available_lessons
from autograder.course.demo import build_demo
from autograder.grading import batch


def main():
    console = Console()
    lesson = available_lessons()[0]
    console.print(f"Python {sys.version.split()[0]} ({sys.executable})")
    with tempfile.TemporaryDirectory(prefix="prueba-corta-") as folder:
        folder = Path(folder)
        notebook = nbformat.read(lesson.source, as_version=4)
        started = time.perf_counter()
        resources = {"metadata": {"path": str(folder)}}
        NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources).execute()
        errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        if errors:
            console.print(f"[red]✗ {lesson.id} dio errores al ejecutarse:[/red] {errors[0].get('evalue')}")
            return 1
        console.print(f"[green]✔[/green] {lesson.id} se ejecuta sin interfaz ({time.perf_counter() - started:.1f} s)")
        build_demo(folder / "entregas", [lesson], ["ana", "beto"])
        result = batch.run(folder / "entregas", folder / "calificacion", console=console, workers=1)
        table = result.tables[lesson.id].set_index("alumno")
        ana, beto = table.loc["ana"], table.loc["beto"]
        if ana["puntos_automaticos"] != ana["maximo_automatico"] or beto["total"] != 0:
            console.print(f"[red]✗ calificación inesperada:[/red] ana {ana.to_dict()}, beto {beto.to_dict()}")
            return 1
        feedback = folder / "calificacion" / "feedback" / "ana" / lesson.id / f"{lesson.id}.html"
        if "Puntuación" not in feedback.read_text("utf-8"):
            console.print(f"[red]✗ falta la retroalimentación en español:[/red] {feedback}")
            return 1
        console.print(
            f"[green]✔[/green] calificación aislada: ana {ana['puntos_automaticos']:g}/{ana['maximo_automatico']:g}, "
            f"beto {beto['total']:g}, con su retroalimentación en español"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
