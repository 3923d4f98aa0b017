"""Configure JupyterLab in this environment: Spanish interface and the course's nbgrader config.

Run as ``python -m autograder.lab_setup`` (``--estudiante`` also turns off the
instructor-only nbgrader extensions, as on Binder).
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

# Also part of the student edition (``curso publicar``), which has no ``autograder.course``.
PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent
OVERRIDES = ROOT / "assets" / "jupyterlab" / "overrides.json"
INSTRUCTOR_LAB_PLUGINS = [
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
    "@jupyter/nbgrader:assignment-list",
    "@jupyter/nbgrader:menu",
]
INSTRUCTOR_SERVER_EXTENSIONS = [
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.course_list",
    "nbgrader.server_extensions.assignment_list",
]


def install_overrides(prefix=Path(sys.prefix)):
    """Copy the settings overrides (Spanish locale) into JupyterLab's application folder."""
    target = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OVERRIDES, target)
    return target


def install_nbgrader_config(prefix=Path(sys.prefix)):
    """Point nbgrader (and its formgrader) at this course from any working directory."""
    target = prefix / "etc" / "jupyter" / "nbgrader_config.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(PACKAGE_DIR / 'nbgrader_config.py')!r})  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(ROOT)!r}\n",
        encoding="utf-8",
    )
    return target


def install_kernel_extension(prefix=Path(sys.prefix)):
    """Load ``autograder.selfcheck`` in every kernel: ``%%comprobar`` works even before the imports cell."""
    target = prefix / "etc" / "ipython" / "ipython_kernel_config.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        "c = get_config()  # noqa: F821\nc.InteractiveShellApp.extensions = ['autograder.selfcheck']\n",
        encoding="utf-8",
    )
    return target


def disable_instructor_extensions():
    """Hide nbgrader's instructor tools (formgrader, create assignment...) from students."""
    jupyter = str(Path(sys.executable).with_name("jupyter"))
    for plugin in INSTRUCTOR_LAB_PLUGINS:
        subprocess.run([jupyter, "labextension", "disable", "--level=sys_prefix", plugin], check=True)
    for extension in INSTRUCTOR_SERVER_EXTENSIONS:
        subprocess.run([jupyter, "server", "extension", "disable", "--sys-prefix", extension], check=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Configura JupyterLab para el curso.")
    parser.add_argument("--estudiante", action="store_true", help="desactiva las extensiones del instructor")
    args = parser.parse_args(argv)
    print(f"Interfaz en español: {install_overrides()}")
    if (PACKAGE_DIR / "nbgrader_config.py").exists():  # the instructor's repository
        print(f"Configuración de nbgrader: {install_nbgrader_config()}")
    print(f"Comprobaciones en cada kernel: {install_kernel_extension()}")
    if args.estudiante:
        disable_instructor_extensions()
        print("Extensiones del instructor desactivadas.")


if __name__ == "__main__":
    main()
