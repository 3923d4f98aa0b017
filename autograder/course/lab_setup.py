"""Configure the instructor's JupyterLab: the student's set-up (:mod:`gradientes.lab_setup`) and this course's
nbgrader config, so that the formgrader finds the course from any working directory.

Run as ``python -m autograder.course.lab_setup`` (``make instalar`` does).
"""

import sys
from pathlib import Path

from autograder.course import PACKAGE_DIR, ROOT
from gradientes import lab_setup

EXCHANGE = ROOT / "intercambio"  # nbgrader's exchange when the whole course is on one machine
LOCAL_COURSE = "gradientes"


def install_nbgrader_config(prefix=Path(sys.prefix)):
    """Point nbgrader (and its formgrader) at this course from any working directory.

    On one machine the exchange is a folder of the repository (``intercambio/``), and the course has an id:
    without them the formgrader warns, in English, that «release» and «collect» will not work. (On a class
    server, the workspace's own ``nbgrader_config.py`` gives both; ``curso`` reads the id from there.)
    """
    target = prefix / "etc" / "jupyter" / "nbgrader_config.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    EXCHANGE.mkdir(exist_ok=True)
    target.write_text(
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(PACKAGE_DIR / 'nbgrader_config.py')!r})  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(ROOT)!r}\n"
        f"c.CourseDirectory.course_id = {LOCAL_COURSE!r}\n"
        f"c.Exchange.root = {str(EXCHANGE)!r}\n",
        encoding="utf-8",
    )
    return target


def main():
    lab_setup.setup(student=False)
    print(f"Configuración de nbgrader: {install_nbgrader_config()}")


if __name__ == "__main__":
    main()
