"""The student's cells as the reader receives them: the grader's copy or IPython's history, parsed, with the
Python that IPython runs for a magic."""

import ast
import builtins
import contextvars
import functools
import keyword
import re

from gradientes.reading import syntax

# The student's code cells, in the order they ran, while the grader runs a test cell.
SOURCES = contextvars.ContextVar("sources", default=None)

# The magic of the test cells: its text runs in a namespace of its own (names it binds stay there), seeing the
# notebook's names.
TEST_MAGIC = "comprobar"
# Magics whose code runs in a scope of its own (%%timeit's inside a function; a test cell's in its namespace): what it
# binds is not the notebook's, except through ``global``.
OWN_SCOPE_MAGICS = frozenset({"timeit", TEST_MAGIC})


# IPython magics that run nothing of the notebook's (a shell command, ``%%bash``, ``%%writefile`` or ``%conda`` can
# start a process that answers for the student, so none of them is here).
SAFE_MAGICS = frozenset(
    {"pinfo", "pinfo2", "psearch", "html", "markdown", "latex", "javascript", "svg", "who", "whos", "pwd", "xmode",
     "precision"}
)  # fmt: skip
# Magics that bind nothing with these lines only (%config runs its line as Python, and may turn on IPython's autocall
# or import a module named by a text: only the inline figures' options; %matplotlib and %load_ext import a module named
# on it; %pip only installs the course's package, named as in the lessons' first cell).
SAFE_LINES = {
    "pip": re.compile(r'\s*install --quiet --no-deps "\{\w+\}" torchviz\s*'),
    "matplotlib": re.compile(r"\s*(inline|widget|ipympl|notebook|agg)?\s*"),
    "config": re.compile(r"\s*(InlineBackend(\.\w+\s*=\s*('[\w.-]*'|\"[\w.-]*\"|-?\d+(\.\d+)?|True|False|None))?)?\s*"),
    "load_ext": re.compile(r"\s*autoreload\s*"),
    "autoreload": re.compile(r"\s*[0-3]?\s*"),
}
# The names the kernel binds to objects that IPython calls on its own when a line of one cell starts with them
# (``exit f := g`` runs ``exit(f := g)``, and the kernel's ``exit`` keeps running when given an argument).
AUTOCALLED = frozenset({"exit", "quit"})
CODE_MAGICS = frozenset({"time", "timeit", "capture", TEST_MAGIC})
# What %pip may install: a package named as in an index, or fetched from a git repository (never a folder or a file,
# whose build could run any code).
PACKAGE_SPEC = re.compile(r"[A-Za-z][\w-]*( @ git\+https://[\w.@/-]+)?")
# What the line of a magic that runs code may hold besides that code: the options of %timeit, %time and %capture
# (and the name %%capture binds). Anything else on it (the setup code of %%timeit) cannot be read.
MAGIC_OPTIONS = re.compile(r"(\s*(-[nrp]\s*\d+|-[tcqo]|--no-(stderr|stdout|display)))*\s*")


class RaisedCell(str):
    """The source of a cell that stopped at an exception (or did not end): what it binds after that point never ran,
    so the bindings before it still count."""


class HistoryCell(str):
    """What IPython ran for a cell, from its history in the lab: already transformed and prefiltered (a magic is a
    ``get_ipython()`` call), so a line that does not parse ran nothing."""


class RaisedHistoryCell(HistoryCell, RaisedCell):
    """A cell of the lab's history that stopped at an exception."""


def cell(text, raised=False, history=False):
    """``text`` as the cell it is (:class:`RaisedCell`, :class:`HistoryCell`, both or neither)."""
    kinds = {
        (False, False): str,
        (True, False): RaisedCell,
        (False, True): HistoryCell,
        (True, True): RaisedHistoryCell,
    }
    return kinds[raised, history](text)


# In the lab, the execution counts of the cells that stopped at an exception (see :func:`record_raised`).
RAISED_RUNS = set()


def record_raised(result):
    """IPython's ``post_run_cell`` event: remember a cell that stopped at an exception, as the grader does."""
    if not result.success and result.execution_count is not None:
        RAISED_RUNS.add(result.execution_count)


def student_sources():
    """The code cells the student ran, in order: the grader's copy, or IPython's history in the lab."""
    sources = SOURCES.get()
    if sources is not None:
        return list(sources)
    try:
        history = get_ipython().user_ns.get("In", [])  # IPython's builtin in a kernel
    except NameError:
        return []
    runs = [cell(c, i in RAISED_RUNS, history=True) for i, c in enumerate(history) if isinstance(c, str)]
    return _latest_runs(runs)


def _latest_runs(history):
    """IPython's history holds every run of every cell: a later run of the same cell (the same text, or one that
    defines the same functions and classes) replaces the earlier ones, as in the notebook that the grader runs from
    the top once; a run that stopped at an exception replaces none (what they bound may still hold)."""
    kept, seen, texts = [], set(), set()
    for source in reversed(history):
        module = parse(source)[0]
        body = module.body if module is not None else []
        defined = frozenset(unit.name for unit in body if isinstance(unit, syntax.DEFINITIONS))
        if (defined and defined in seen) or str(source) in texts:
            continue
        if not isinstance(source, RaisedCell):
            seen.add(defined)
            texts.add(str(source))
        kept.append(source)
    return kept[::-1]


@functools.lru_cache(maxsize=1024)
def _python(source):
    """The Python that IPython runs for a cell (magics become ``get_ipython()`` calls), or None if IPython is absent."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # a bare Python: magics stay as they are, and do not parse
        return None
    return TransformerManager().transform_cell(source)


@functools.lru_cache(maxsize=1024)
def parse(source, prefiltered=False):
    """``(module, reasons)`` of one cell: None if it does not parse, and why it cannot be read. A cell of several lines
    that does not parse runs nothing; one of a single line may (:func:`first_word`), unless IPython's record of what
    it ran says so (``prefiltered``, see :class:`HistoryCell`)."""
    code = _python(source)
    if code is None:
        magic = any(line.lstrip().startswith(("%", "!")) for line in source.split("\n"))
        return None, (["una orden mágica de IPython (%, !)"] if magic else [])
    try:
        return _LiteralGetattr().visit(ast.parse(code)), []
    except (RecursionError, MemoryError):  # the parser gave up (a kernel with a higher recursion limit may not)
        return None, ["una celda tan anidada que no se puede leer"]
    except (SyntaxError, ValueError):
        word = "" if prefiltered else (first_word(source) or "").split(".", 1)[0]
        python = (hasattr(builtins, word) and word not in AUTOCALLED) or keyword.iskeyword(word)
        if word and not python:  # a typo in ``print(x`` runs nothing, ``exit f := g`` runs ``exit(f := g)``
            return None, [f"una celda de una línea que no es Python y empieza por «{word}», que IPython puede ejecutar"]
        return None, []


def first_word(source):
    """The name (or dotted chain) at the start of a cell of one line, as IPython's prefilter reads it (None for any
    other cell): before running such a cell, IPython runs it as the magic of that name if no name of the notebook,
    builtin or keyword shadows it (``run (a.py)``, ``time def f(x): …``, even when the line is Python), and calls an
    object of that name made to be called so (``exit``)."""
    try:
        from IPython.core.splitinput import LineInfo
    except ImportError:  # a bare Python has no prefilter
        return None
    lines = _python(source).splitlines()
    if len(lines) != 1:
        return None
    info = LineInfo(lines[0])
    if info.the_rest[:1] in ("=", ","):  # an assignment to a name (``ls = 1``) is Python
        return None
    return info.ifun or None


def automagic(source):
    """The magic a cell of one line runs when its :func:`first_word` is not shadowed (see :func:`first_word`), unless
    it is one that runs nothing of the notebook's (:data:`SAFE_MAGICS`: ``pwd``, ``whos``)."""
    word = first_word(source)
    return word if word in _line_magics() and word not in SAFE_MAGICS else None


@functools.lru_cache(maxsize=1)
def _line_magics():
    """The names of IPython's line magics, the kernel's and those of the extensions a notebook may load: IPython runs
    them without ``%`` (automagic)."""
    from IPython.core import magics
    from IPython.extensions.autoreload import AutoreloadMagics

    classes = [getattr(magics, name) for name in dir(magics)] + [AutoreloadMagics]
    try:
        from ipykernel.zmqshell import KernelMagics

        classes.append(KernelMagics)
    except ImportError:
        pass
    tables = [c.magics for c in classes if isinstance(getattr(c, "magics", None), dict)]
    return frozenset(name for table in tables for name in table.get("line", {}))


class _LiteralGetattr(ast.NodeTransformer):
    """``getattr(x, "nombre")`` with a literal name is the attribute ``x.nombre``, and is read as one; with a default,
    ``getattr(x, "nombre", d)`` reaches both, read as ``(x.nombre, d)`` (a name that is computed stays dynamic)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        name = node.args[1] if len(node.args) in (2, 3) and not node.keywords else None
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and isinstance(name, ast.Constant)
            and isinstance(name.value, str)
            and name.value.isidentifier()
        ):
            found = ast.Attribute(value=node.args[0], attr=name.value, ctx=ast.Load())
            if len(node.args) == 3:
                found = ast.Tuple(elts=[found, node.args[2]], ctx=ast.Load())
            return ast.copy_location(found, node)
        return node


def magic_call(node):
    """``(kind, name, code)`` for a call ``get_ipython().run_line_magic(name, …)`` (or a cell magic, or a shell
    command), with the text run as Python for a magic that runs it; None for any other node."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    inner = node.func.value
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "get_ipython"):
        return None
    kind, args = node.func.attr, node.args
    if kind in ("system", "getoutput"):
        return kind, kind, None
    if kind not in ("run_line_magic", "run_cell_magic") or not args or not isinstance(args[0], ast.Constant):
        return kind, None, None
    text = args[-1].value if isinstance(args[-1], ast.Constant) and isinstance(args[-1].value, str) else None
    if kind == "run_line_magic" and text is not None:  # its options first, then the code it runs
        text = text[MAGIC_OPTIONS.match(text).end() :]
    elif kind == "run_cell_magic" and text is not None:
        line = args[1].value if len(args) == 3 and isinstance(args[1], ast.Constant) else None
        allowed = MAGIC_OPTIONS.fullmatch(line or "") or (
            args[0].value == "capture" and re.fullmatch(r"(\s*--no-(stderr|stdout|display))*\s*\w*\s*", line or "")
        )
        if not isinstance(line, str) or not allowed:
            text = None
    return kind, args[0].value, text
