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


def describe_graph(output, params=None):
    """In Spanish, the graph that torchviz's ``make_dot(output, params=params)`` draws: each node of the backward
    pass with the nodes whose arrows reach it, from the output to the leaves (``params`` names the leaves)."""
    names = {id(tensor): name for name, tensor in (params or {}).items()}
    nodes, seen, pending = [], set(), [output.grad_fn]
    while pending:  # breadth first, from the output
        node = pending.pop(0)
        if node is not None and id(node) not in seen:
            seen.add(id(node))
            nodes.append(node)
            pending.extend(child for child, _ in node.next_functions)
    inner = [node for node in nodes if not hasattr(node, "variable")]
    kinds = [type(node).__name__ for node in inner]

    def name(node):
        leaf = getattr(node, "variable", None)
        if leaf is not None:
            shape = f"forma {tuple(leaf.shape)}" if leaf.dim() else "escalar"
            return f"AccumulateGrad de la hoja {names.get(id(leaf), 'sin nombre')} ({shape})"
        kind = type(node).__name__
        if kinds.count(kind) == 1:
            return kind
        same = [other for other in inner if type(other).__name__ == kind]
        return f"{kind} número {next(i for i, other in enumerate(same, 1) if other is node)}"

    parts = []
    for node in inner:
        sources = [name(child) for child, _ in node.next_functions if child is not None]
        sources = ", ".join(sources[:-1]) + " y " + sources[-1] if len(sources) > 1 else "".join(sources)
        parts.append(f"a {name(node)} llegan flechas de {sources}")
    return (
        "Lo dibuja torchviz: arriba, las hojas (cajas azules, con su nombre y su forma), cada una con una flecha a "
        "su nodo AccumulateGrad; abajo, la salida (caja verde); en medio, los nodos del paso hacia atrás (cajas "
        "grises). Las flechas van hacia la salida. De la salida a las hojas: " + "; ".join(parts) + "."
    )


def register(shell):
    """Show graphviz objects in ``shell`` with ``picture`` (``Digraph``, ``Source``: all are ``JupyterIntegration``)."""
    shell.display_formatter.mimebundle_formatter.for_type_by_name(
        "graphviz.jupyter_integration", "JupyterIntegration", picture
    )
