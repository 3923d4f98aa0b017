"""The student package with another Python (3.12, 3.13…), as a student and as Google Colab would use it.

1. In a fresh virtual environment of that Python, the package built from ``estudiante/`` is installed with
   its dependencies (torch as pip gives it), and lesson 01 runs with every one of its checks.
2. Colab: the package is uninstalled and, with no course extension in Jupyter, every lesson runs from its
   first cell, which (as in Colab, emulated by a ``google.colab`` module) installs the package from the local
   build instead of the network (``GRADIENTES_PAQUETE``) and then passes every check.

Usage: ``.venv/bin/python scripts/probar_estudiante.py --python /ruta/a/python3.13 [--lecciones 01 …]``.
The environment is kept in ``--entorno`` (torch is installed once per environment).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run by the environment's own Python: a lesson executed as a notebook, each test cell's outcome printed.
RUN_LESSON = """
import json, sys
import nbformat
from nbclient import NotebookClient

notebook = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=True,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
report = []
for cell in notebook.cells:
    if cell.cell_type != "code":
        continue
    meta = cell.metadata.get("nbgrader", {})
    text = "".join(o.get("text", "") for o in cell.outputs)
    errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
    report.append({"id": meta.get("grade_id"), "test": bool(meta.get("grade")) and not meta.get("solution"),
                   "passed": "✔" in text, "errors": errors})
print(json.dumps(report))
"""


def run(*command, **options):
    return subprocess.run([str(part) for part in command], check=True, **options)


def build_wheel(folder):
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        folder,
        ROOT / "estudiante",
    )
    return next(Path(folder).glob("gradientes_pytorch-*.whl"))


def lesson_notebooks(prefixes):
    lessons = sorted(ROOT.glob("solutions/*/*.ipynb"))
    return [path for path in lessons if not prefixes or path.parent.name[:2] in prefixes]


def run_lesson(python, notebook, env):
    started = time.monotonic()
    result = run(python, "-c", RUN_LESSON, notebook, notebook.parent, capture_output=True, text=True, env=env)
    cells = json.loads(result.stdout.strip().splitlines()[-1])
    failed = [cell for cell in cells if cell["errors"] or (cell["test"] and not cell["passed"])]
    tests = sum(cell["test"] for cell in cells)
    print(f"  {notebook.parent.name}: {tests} comprobaciones, {time.monotonic() - started:.0f} s", flush=True)
    for cell in failed:
        print(f"    ✗ {cell['id'] or 'celda'}: {'; '.join(cell['errors']) or 'sin ✔'}", flush=True)
    return not failed and tests > 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="el Python con el que se prueba (3.12, 3.13…)")
    parser.add_argument("--entorno", type=Path, help="carpeta del entorno virtual (por defecto, una temporal)")
    parser.add_argument("--lecciones", nargs="*", default=[], help="números de lección para Colab (por defecto, todas)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="curso-estudiante-") as tmp:
        venv = args.entorno or Path(tmp) / "entorno"
        python = venv / "bin" / "python"
        wheel = build_wheel(Path(tmp) / "paquete")
        if not python.exists():
            run(args.python, "-m", "venv", venv)
        started = time.monotonic()
        run(python, "-m", "pip", "install", "--quiet", wheel)
        version = run(
            python,
            "-c",
            "import sys, torch; print(sys.version.split()[0], torch.__version__)",
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(f"Paquete del estudiante instalado en {time.monotonic() - started:.0f} s (Python y torch: {version}).")
        env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": tmp, "MPLBACKEND": "agg"}
        print("Lección 01 con el paquete instalado:")
        ok = run_lesson(python, lesson_notebooks(["01"])[0], env)

        print("Como en Colab (el paquete lo instala la primera celda de cada lección):")
        run(python, "-m", "pip", "uninstall", "--quiet", "-y", "gradientes-pytorch", "torchviz")
        stub = Path(tmp) / "colab" / "google" / "colab"
        stub.mkdir(parents=True)
        (stub.parent / "__init__.py").write_text("")
        (stub / "__init__.py").write_text('"""Como el módulo de Google Colab: las lecciones saben dónde están."""\n')
        colab = {**env, "PYTHONPATH": str(stub.parent.parent), "GRADIENTES_PAQUETE": str(wheel)}
        for notebook in lesson_notebooks(args.lecciones):
            ok = run_lesson(python, notebook, colab) and ok
    print("Todo correcto." if ok else "Hay lecciones con comprobaciones que fallan.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
