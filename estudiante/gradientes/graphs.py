"""Graphviz drawings in a notebook (torchviz's ``make_dot``, the lessons' own graphs) when ``dot`` is not on PATH.

Drawing needs Graphviz's ``dot`` program, which pip does not install. Without it, showing a graph raised
graphviz's English traceback and stopped «Ejecutar todas las celdas»; ``register`` makes the kernel look for
it where Graphviz's Windows installer puts it and, if it is not there either, show one Spanish message on how
to install Graphviz instead, and the lesson goes on.
"""

import os
import shutil
from pathlib import Path

MISSING = """\
No se puede dibujar este grafo: falta Graphviz, el programa que dibuja los grafos (su orden `dot`). \
El resto de la lección funciona sin él. Para ver los grafos, instálalo y vuelve a ejecutar la celda:

- Windows: `winget install graphviz`, o el instalador de graphviz.org. Si eliges una carpeta distinta de la que \
propone, añade su carpeta `bin` al PATH y vuelve a abrir la terminal y JupyterLab.
- macOS: `brew install graphviz`
- Debian, Ubuntu o WSL: `sudo apt-get install graphviz`
- conda: `conda install graphviz`
- Google Colab ya lo trae instalado.
"""


def find_windows_graphviz():
    """Put Graphviz's folder on PATH if it is where its Windows installer puts it, which a silent install (as
    ``winget install graphviz``) does not add to PATH; whether it was there."""
    for variable in ("ProgramFiles", "ProgramFiles(x86)"):
        folder = str(Path(os.environ.get(variable, ""), "Graphviz", "bin"))
        if variable in os.environ and shutil.which("dot", path=folder):
            os.environ["PATH"] = os.pathsep.join([folder, os.environ.get("PATH", "")])
            return True
    return False


def picture(graph):
    """The graph drawn for IPython, or ``MISSING`` if Graphviz's ``dot`` cannot be found."""
    from graphviz import ExecutableNotFound  # already imported: ``graph`` is a graphviz object

    try:
        return graph._repr_mimebundle_()
    except ExecutableNotFound:
        if find_windows_graphviz():
            return graph._repr_mimebundle_()
        return {"text/markdown": MISSING, "text/plain": MISSING}


def register(shell):
    """Show graphviz objects in ``shell`` with ``picture`` (``Digraph``, ``Source``: all are ``JupyterIntegration``)."""
    shell.display_formatter.mimebundle_formatter.for_type_by_name(
        "graphviz.jupyter_integration", "JupyterIntegration", picture
    )
