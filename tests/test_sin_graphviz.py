"""Kernels whose PATH lacks Graphviz's ``dot`` (pip does not install it): a graph shows one Spanish message on how
to install Graphviz and the next cells run, or it is drawn if Graphviz is where its Windows installer puts it."""

import os
import shutil

import nbformat
from helpers import LESSONS, autograded_tests, read
from nbclient import NotebookClient
from test_respuestas_erroneas import CHECK, error_text, shown_text, spanish_problems

from gradientes.figures import PREFIX
from gradientes.graphs import MISSING

WITHOUT_DOT = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if not shutil.which("dot", path=d))
# A lesson that draws torchviz graphs, as a cell's value and with display().
GRAPHS_LESSON = "02_grafo_computacional"


def execute(notebook, folder, **env):
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    client.execute(env={**os.environ, "PATH": WITHOUT_DOT, **env})
    return notebook


def graph_cells(*cells):
    """A notebook whose second cell shows a torchviz graph as its value, the third a Digraph with display(), then
    ``cells``."""
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(source)
            for source in (
                "import torch\nfrom torchviz import make_dot\n\nx = torch.tensor(2.0, requires_grad=True)",
                "make_dot(x * x, params={'x': x})",
                "import graphviz\nfrom IPython.display import display\n\ndisplay(graphviz.Digraph(body=['a -> b']))",
                *cells,
            )
        ]
    )


def test_the_message_says_how_to_install_graphviz_on_every_system_in_spanish():
    for command in ("winget install graphviz", "brew install graphviz", "sudo apt-get install graphviz"):
        assert f"`{command}`" in MISSING
    assert "`conda install graphviz`" in MISSING and "Colab" in MISSING and "graphviz.org" in MISSING
    assert not spanish_problems(MISSING)


def test_a_graph_without_dot_shows_the_message_and_the_next_cell_runs(tmp_path):
    notebook = execute(graph_cells("import shutil\n\nprint('sigue', shutil.which('dot'))"), tmp_path)
    assert not error_text([o for cell in notebook.cells for o in cell.outputs])
    for cell in notebook.cells[1:3]:
        assert [o["data"] for o in cell.outputs] == [{"text/markdown": MISSING, "text/plain": MISSING}]
    assert shown_text(notebook.cells[3].outputs) == "sigue None\n"


def test_graphviz_where_its_windows_installer_puts_it_draws_without_being_on_path(tmp_path):
    """A silent install (``winget install graphviz``) leaves PATH alone: the kernel looks in Program Files."""
    folder = tmp_path / "Archivos de programa" / "Graphviz" / "bin"
    folder.mkdir(parents=True)
    (folder / "dot").symlink_to(shutil.which("dot"))
    notebook = execute(graph_cells(), tmp_path, ProgramFiles=str(tmp_path / "Archivos de programa"))
    for cell in notebook.cells[1:3]:
        assert [list(o["data"]) for o in cell.outputs] == [["image/svg+xml", "text/plain"]]


def test_a_lesson_that_draws_graphs_runs_whole_without_dot():
    lesson = next(lesson for lesson in LESSONS if lesson.id == GRAPHS_LESSON)
    notebook = execute(read(lesson.source), lesson.source.parent)
    errors = [error_text([o]) for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [text for text in errors if text], errors
    assert all(CHECK in shown_text(cell.outputs) for cell in autograded_tests(notebook))
    drawing = [c for c in notebook.cells if c.cell_type == "code" and "make_dot(" in c.source]
    # Each graph's description is still shown under the message: it tells what the graph would show.
    shown = [o for cell in drawing for o in cell.outputs if "data" in o]
    graphs = [o for o in shown if not o["data"].get("text/plain", "").startswith(PREFIX)]
    assert len(shown) == 2 * len(graphs)
    assert graphs and all(o["data"] == {"text/markdown": MISSING, "text/plain": MISSING} for o in graphs)
