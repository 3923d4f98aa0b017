"""What an answer's source uses: the grader's own reading of the code behind a student's function.

An exercise's statement may forbid an API (``torch.autograd.functional``) or require one
(``torch.autograd.grad``). :func:`uses` reads the student's cells (the grader has them; in the
lab, IPython's input history), finds the definition of the function and, transitively, of every
name of the notebook it uses, and lists the dotted names that code mentions, with import aliases
resolved (``F.jacobian`` after ``import torch.autograd.functional as F`` is
``torch.autograd.functional.jacobian``). Dynamic access (``getattr``, ``eval``, ``__dict__``…) is
reported too: it would hide what the code uses.
"""

import ast
import builtins
import contextvars
import functools
import re

# The student's code cells, in the order they ran, while the grader runs a test cell.
SOURCES = contextvars.ContextVar("sources", default=None)

DYNAMIC_CALLS = {"getattr", "eval", "exec", "compile", "__import__", "globals", "locals", "vars", "get_ipython"}
DYNAMIC_ATTRIBUTES = {"__dict__", "__getattribute__", "__globals__", "__builtins__", "__code__", "__closure__"}
DYNAMIC_MODULES = ("importlib", "sys.modules", "operator.attrgetter", "operator.methodcaller", "inspect", "ctypes")
_MAGIC = re.compile(r"^\s*[%!]")
_TEST_CELL = "run_cell_magic('comprobar'"


def student_sources():
    """The code cells the student ran, in order: the grader's copy, or IPython's history in the lab."""
    sources = SOURCES.get()
    if sources is not None:
        return list(sources)
    try:
        history = get_ipython().user_ns.get("In", [])  # IPython's builtin in a kernel
    except NameError:
        return []
    return [cell for cell in history if isinstance(cell, str) and _TEST_CELL not in cell]


@functools.lru_cache(maxsize=1024)
def _parse(source):
    """The module of one cell (IPython's magic and shell lines blanked), or None if it does not parse.

    Parsed once per text: several checks of one submission read the same cells (the trees are only read)."""
    code = "\n".join("" if _MAGIC.match(line) else line for line in source.split("\n"))
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _definitions(modules):
    """``{name: [top-level nodes that last defined it]}`` and the import aliases of every cell."""
    definitions, aliases = {}, {}
    for module in modules:
        for node in module.body:
            names = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            for name in names:
                if isinstance(node, ast.AugAssign):
                    definitions.setdefault(name, []).append(node)
                else:
                    definitions[name] = [node]
        for node in ast.walk(module):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    root = alias.name.split(".")[0]
                    aliases[alias.asname or root] = alias.name if alias.asname else root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return definitions, aliases


def _dotted(node, aliases):
    """``torch.autograd.grad`` for an attribute chain on a name (aliases resolved), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    root = aliases.get(node.id, node.id)
    return ".".join([root, *reversed(parts)])


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _bound_here(scope):
    """The names a function, lambda or comprehension binds in its own scope (parameters, assignments…)."""
    if isinstance(scope, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        return {n.id for g in scope.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    arguments = scope.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    names, declared = {a.arg for a in every if a is not None}, set()
    pending = list(scope.body) if isinstance(scope.body, list) else [scope.body]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue  # its body is another scope
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared |= set(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        if not isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            pending.extend(ast.iter_child_nodes(node))
    return names - declared


def _walk(node, bound=frozenset()):
    """Every node under ``node``, with the names an enclosing function, lambda or comprehension binds there
    (a parameter ``a`` is not the notebook's ``a``)."""
    yield node, bound
    inner = bound | _bound_here(node) if isinstance(node, _SCOPES) else bound
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, inner)


class Usage:
    """What the code behind a function mentions: ``names`` (dotted, aliases resolved) and ``attributes``."""

    def __init__(self, found, names, attributes, dynamic):
        self.found, self.names, self.attributes, self.dynamic = found, names, attributes, dynamic

    def mentions(self, api):
        """Whether the code mentions ``api``: a dotted prefix (``torch.func``) or a method (``.backward``)."""
        if api.startswith("."):
            return api[1:] in self.attributes
        return any(name == api or name.startswith(f"{api}.") for name in self.names)


def uses(function_name, sources=None):
    """The :class:`Usage` of the code that defines ``function_name`` and the notebook names it uses."""
    modules = [m for m in map(_parse, student_sources() if sources is None else sources) if m is not None]
    definitions, aliases = _definitions(modules)
    if function_name not in definitions:
        return Usage(False, set(), set(), set())
    names, attributes, dynamic = set(), set(), set()
    pending, seen = [function_name], set()
    while pending:
        name = pending.pop()
        if name in seen or name not in definitions:
            continue
        seen.add(name)
        for definition in definitions[name]:
            for node, bound in _walk(definition):
                if isinstance(node, ast.Attribute):
                    attributes.add(node.attr)
                    if node.attr in DYNAMIC_ATTRIBUTES:
                        dynamic.add(node.attr)
                    dotted = _dotted(node, aliases)
                    if dotted:
                        names.add(dotted)
                elif isinstance(node, ast.Name):
                    if node.id in DYNAMIC_CALLS and node.id not in definitions and node.id not in bound:
                        dynamic.add(node.id)
                    names.add(node.id if node.id in bound else aliases.get(node.id, node.id))
                    if node.id in definitions and node.id not in vars(builtins) and node.id not in bound:
                        pending.append(node.id)
    dynamic |= {name for name in names for module in DYNAMIC_MODULES if name == module or name.startswith(f"{module}.")}
    return Usage(True, names, attributes, dynamic)
