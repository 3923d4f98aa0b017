"""What an answer's source can reach: the grader's own, complete reading of the code behind a student's answer.

An exercise's statement may forbid an API (``torch.autograd.functional``), or ask for a prediction made of plain
Python. :func:`read` reads every code cell the student ran (the grader has them; in the lab, IPython's input
history), in full: the names bound at the top level of a cell, inside ``if``/``try``/``with``/``for``/``while``,
by a walrus or by a ``global`` inside a function, imports anywhere (an import inside a function is resolved too),
decorators, default arguments and class bodies. From the answer's name it follows, transitively, every name the
code can reach: all the bindings of each notebook name, and every statement that stores into it, calls one of its
methods or hands it to another function. A name it cannot resolve, and any dynamic access anywhere in the notebook
(``getattr``, ``eval``, ``globals()``, a dunder attribute, ``sys.modules``, an IPython magic that runs code it
cannot read, a module attribute replaced…), makes the reading *unknown*: the checks built on it fail closed.

The reading lists what the code reaches (dotted names with aliases resolved: ``F.jacobian`` after ``import
torch.autograd.functional as F`` is ``torch.autograd.functional.jacobian``) and, for predictions, whether it stays
inside an allowlist of plain Python (:attr:`Reading.not_plain`).
"""

import ast
import builtins
import contextvars
import functools
import importlib
import re
import sys
import types

# The student's code cells, in the order they ran, while the grader runs a test cell.
SOURCES = contextvars.ContextVar("sources", default=None)

# The magic of the test cells: its text runs in a namespace of its own (names it binds stay there), seeing the
# notebook's names.
TEST_MAGIC = "comprobar"
# Magics whose code runs in a scope of its own (%%timeit's inside a function; a test cell's in its namespace): what it
# binds is not the notebook's, except through ``global``.
OWN_SCOPE_MAGICS = frozenset({"timeit", TEST_MAGIC})

# Calls that read or write a namespace, or run text as code: wherever they are, no name can be resolved.
DYNAMIC_CALLS = frozenset(
    {
        "getattr",
        "setattr",
        "delattr",
        "eval",
        "exec",
        "compile",
        "__import__",
        "globals",
        "locals",
        "vars",
        "breakpoint",
    }
)
DYNAMIC_NAMES = frozenset(
    {"__builtins__", "__import__", "__loader__", "__spec__", "get_ipython", "_ih", "_oh", "In", "Out"}
)
# Attributes of frames, generators, coroutines and tracebacks: from any of them a chain reaches a frame, and a
# frame's globals and builtins reach every name and module (``(i for i in ()).gi_frame.f_globals["torch"]``).
FRAME_ATTRIBUTES = frozenset(
    {
        "gi_frame", "cr_frame", "ag_frame", "tb_frame", "tb_next", "gi_yieldfrom", "cr_await", "ag_await",
        "f_globals", "f_builtins", "f_locals", "f_back", "f_code", "f_trace", "gi_code", "cr_code", "ag_code",
    }
)  # fmt: skip
# What builds a container that code elsewhere can fill through another name (a prediction's defaults may not be one).
MUTABLE_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
# torch's functions that only build a tensor (what they return is data, never code).
TENSOR_MAKERS = tuple(
    f"torch.{name}"
    for name in "zeros zeros_like ones ones_like tensor as_tensor full full_like empty empty_like rand rand_like randn "
    "randn_like arange linspace stack cat".split()
)
# Builtins that always build a new container.
NEW_CONTAINERS = frozenset({"dict", "list", "set"})
# Methods that give back what a container holds.
TAKING = frozenset({"get", "pop", "setdefault"})
# Methods that put what they receive into a container.
FILLING = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})
# What a notebook value that a prediction reads may be made of: an immutable value no other code can change (numbers,
# strings, tuples, arithmetic, ``math``, the notebook's other such values, and these builtins).
IMMUTABLE_NODES = (
    ast.Constant, ast.Tuple, ast.Name, ast.Load, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.Attribute, ast.Call, ast.keyword,
)  # fmt: skip
IMMUTABLE_BUILTINS = frozenset({"abs", "float", "int", "round", "min", "max", "pow", "bool", "str", "divmod"})
# Dunder attributes that only name or describe an object (reading them reaches nothing).
PLAIN_DUNDERS = frozenset(
    {"__name__", "__qualname__", "__doc__", "__version__", "__file__", "__module__", "__code__", "__class__"}
)
# Those that only name an object may also be written (a test gives its function a readable name).
NAMING_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__"})
# What a notebook may import and reach, anywhere in it (an allowlist: any other module makes every reading unknown).
# Each module here with its public names (never one that starts with ``_``); a module reached through an attribute
# (``torch.nn.modules``) must be here too. None of them keeps a registry that torch's functions consult (that is why
# ``torch.distributions``, with ``register_kl``, is not here).
LIBRARY_MODULES = frozenset(
    {
        "math", "cmath", "random", "itertools", "collections", "collections.abc", "numbers", "fractions", "decimal",
        "statistics", "time", "datetime", "warnings", "copy", "graphlib", "re", "pathlib", "heapq", "bisect", "json",
        "textwrap", "pprint", "enum", "abc",
        "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.autograd",
        "torch.autograd.functional", "torch.autograd.forward_ad", "torch.autograd.graph", "torch.func", "torch.optim",
        "torch.optim.lr_scheduler", "torch.linalg", "torch.special", "torch.fft", "torch.testing", "torch.random",
        "torch.utils.data", "numpy", "numpy.linalg", "numpy.random", "numpy.fft",
        "numpy.polynomial", "matplotlib",
        "matplotlib.pyplot", "graphviz", "torchviz", "IPython.display",
    }
)  # fmt: skip
# The course's own package: every module in it but the reader.
LIBRARY_PACKAGES = ("gradientes",)
# Single names of other modules: they only read a fact, or compute.
LIBRARY_NAMES = frozenset(
    {
        "os.environ", "os.getenv", "os.path", "os.getcwd", "os.listdir", "os.cpu_count", "pathlib.Path",
        "importlib.util.find_spec", "inspect.signature", "torch.cuda.is_available", "sys.version", "sys.version_info",
        "sys.platform",
        *(RECURSION_LIMIT := ("sys.setrecursionlimit", "sys.getrecursionlimit")),
        *(f"functools.{name}" for name in ("reduce", "partial", "wraps", "total_ordering", "cmp_to_key")),
        *(f"contextlib.{name}" for name in ("contextmanager", "nullcontext", "suppress")),
        *(f"dataclasses.{name}" for name in ("dataclass", "field")),
        *(f"string.{name}" for name in "ascii_letters ascii_lowercase ascii_uppercase digits punctuation".split()),
        *(f"typing.{name}" for name in "Any Callable Optional Union List Dict Tuple Sequence Iterable Mapping".split()),
        *(f"operator.{name}" for name in "add sub mul truediv floordiv mod pow neg pos abs lt le eq ne gt ge".split()),
    }
)  # fmt: skip
# What those modules also hold that turns bytes or text into code, or imports a module named by a text.
LIBRARY_REFUSED = (
    "torch.load", "torch.compile", "torch.set_default_tensor_type", "numpy.load", "matplotlib.use",
    "matplotlib.rc", "matplotlib.rcParams", "matplotlib.rc_context", "matplotlib.pyplot.switch_backend",
    "matplotlib.pyplot.rc", "matplotlib.pyplot.rcParams", "matplotlib.pyplot.rc_context", "gradientes.statement",
)  # fmt: skip
# Modules that are the course's only way to name a module by a text: only these may be found by name.
FOUND_BY_NAME = frozenset({"google", "google.colab", "graphviz", "torchviz", "gradientes"})
# Library functions that call the code they receive only while they run, or return it inside what they give
# (bound to a notebook name, and read with it).
CALL_ONLY = (
    "functools", "itertools", "math", "re", "json", "copy", "heapq", "bisect", "graphlib", "dataclasses",
    "torch.autograd.functional", "torch.autograd.grad", "torch.autograd.gradcheck", "torch.autograd.gradgradcheck",
    "torch.autograd.forward_ad", "torch.func", "torch.no_grad", "torch.enable_grad", "torch.inference_mode",
    "torch.set_grad_enabled", "torch.vmap", "torch.testing", "numpy.vectorize", "numpy.apply_along_axis",
    "numpy.frompyfunc", "matplotlib.pyplot",
)  # fmt: skip
# The flag of a class whose attributes cannot be changed (``Py_TPFLAGS_IMMUTABLETYPE``).
IMMUTABLE_TYPE = 1 << 8
# Builtins that only read what a class is (a class handed to them stays where it was).
CLASS_READERS = frozenset({"isinstance", "issubclass", "print", "str", "repr", "id", "hash", "format", "callable"})
# What a class defines to take over torch's functions on its objects.
TORCH_PROTOCOLS = frozenset({"__torch_function__", "__torch_dispatch__"})
# And the methods that other code runs on its own, at moments the reading cannot know (``issubclass`` in a warnings
# filter, the garbage collector), or that a metaclass defines.
IMPLICIT_PROTOCOLS = TORCH_PROTOCOLS | {"__subclasscheck__", "__instancecheck__", "__subclasshook__", "__del__"}
# Library functions that set attributes named by strings when given these arguments (``assigned=("__code__",)``).
NAMED_COPIES = {"functools.update_wrapper": 2, "functools.wraps": 1}
# IPython magics: those that bind no name, and those whose text is Python run in the notebook (read as code).
SAFE_MAGICS = frozenset(
    {"pip", "conda", "pinfo", "pinfo2", "psearch", "html", "markdown", "latex", "javascript", "svg", "bash", "sh",
     "writefile", "system", "getoutput", "who", "whos", "pwd", "xmode", "precision"}
)  # fmt: skip
# Magics that bind nothing with these lines only (%config runs its line as Python; %matplotlib and %load_ext import a
# module named on it).
SAFE_LINES = {
    "matplotlib": re.compile(r"\s*(inline|widget|ipympl|notebook|agg)?\s*"),
    "config": re.compile(r"\s*(\w+(\.\w+)*(\s*=\s*('[\w.-]*'|\"[\w.-]*\"|-?\d+(\.\d+)?|True|False|None))?)?\s*"),
    "load_ext": re.compile(r"\s*autoreload\s*"),
    "autoreload": re.compile(r"\s*[0-3]?\s*"),
}
CODE_MAGICS = frozenset({"time", "timeit", "capture", TEST_MAGIC})
# What the line of a magic that runs code may hold besides that code: the options of %timeit, %time and %capture
# (and the name %%capture binds). Anything else on it (the setup code of %%timeit) cannot be read.
MAGIC_OPTIONS = re.compile(r"(\s*(-[nrp]\s*\d+|-[tcqo]|--no-(stderr|stdout|display)))*\s*")

# A prediction may reach only these modules (pure arithmetic and iteration), and these builtins (besides literals,
# operators, its parameters and locals, and the notebook's functions that are themselves plain).
PLAIN_MODULES = ("math", "itertools")
PLAIN_BUILTINS = frozenset(
    {"abs", "min", "max", "round", "float", "int", "bool", "len", "range", "sum", "pow", "list", "tuple", "dict", "set",
     "str", "divmod", "sorted", "reversed", "enumerate", "zip", "any", "all", "print", "isinstance", "ValueError",
     "NotImplementedError"}
)  # fmt: skip
PLAIN_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "index", "count", "copy", "reverse", "sort", "keys", "values", "items", "get",
     "real", "imag", "is_integer", "conjugate", "join", "split", "strip", "lower", "upper", "startswith", "endswith"}
)  # fmt: skip
PLAIN_NODES = (
    ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.If, ast.For,
    ast.While, ast.Break, ast.Continue, ast.Pass, ast.Expr, ast.Constant, ast.Name, ast.Load, ast.Store, ast.BinOp,
    ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword, ast.List, ast.Tuple, ast.Set, ast.Dict,
    ast.Subscript, ast.Slice, ast.Starred, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.comprehension, ast.JoinedStr, ast.FormattedValue, ast.Lambda, ast.Attribute, ast.NamedExpr, ast.operator,
    ast.unaryop, ast.boolop, ast.cmpop, ast.Import, ast.ImportFrom, ast.alias, ast.Raise,
)  # fmt: skip

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class RaisedCell(str):
    """The source of a cell that stopped at an exception (or did not end): what it binds after that point never ran,
    so the bindings before it still count."""


def student_sources():
    """The code cells the student ran, in order: the grader's copy, or IPython's history in the lab."""
    sources = SOURCES.get()
    if sources is not None:
        return list(sources)
    try:
        history = get_ipython().user_ns.get("In", [])  # IPython's builtin in a kernel
    except NameError:
        return []
    return _latest_runs([c for c in history if isinstance(c, str)])


def _latest_runs(history):
    """IPython's history holds every run of every cell: a later run of the same cell (one that defines the same
    functions and classes) replaces the earlier ones, as in the notebook that the grader runs from the top once."""
    kept, seen = [], set()
    for source in reversed(history):
        module = _parse(source)[0]
        body = module.body if module is not None else []
        defined = frozenset(unit.name for unit in body if isinstance(unit, _DEFINITIONS))
        if defined and defined in seen:
            continue
        seen.add(defined)
        kept.append(source)
    return kept[::-1]


def _python(source):
    """The Python that IPython runs for a cell (magics become ``get_ipython()`` calls), or None if IPython is absent."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # a bare Python: magics stay as they are, and do not parse
        return None
    return TransformerManager().transform_cell(source)


@functools.lru_cache(maxsize=1024)
def _parse(source):
    """``(module, reasons)`` of one cell: None if it does not parse (it ran nothing), and why it cannot be read."""
    code = _python(source)
    if code is None:
        magic = any(line.lstrip().startswith(("%", "!")) for line in source.split("\n"))
        return None, (["una orden mágica de IPython (%, !)"] if magic else [])
    try:
        return _LiteralGetattr().visit(ast.parse(code)), []
    except (SyntaxError, ValueError):
        return None, []


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


def _magic(node):
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


class _Scope:
    """A function, lambda, comprehension or class body: the names it binds (with what each import of them names)."""

    def __init__(self, node, parent):
        self.node, self.parent = node, parent
        self.kind = "class" if isinstance(node, ast.ClassDef) else "function"
        self.locals, self.declared_global, self.declared_nonlocal = {}, set(), set()
        if isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                self._targets(generator.target)
            return
        if isinstance(node, _FUNCTIONS):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
            for argument in every:
                if argument is not None:
                    self.locals.setdefault(argument.arg, [])
        pending = list(node.body) if isinstance(node.body, list) else [node.body]
        while pending:
            child = pending.pop()
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.locals.setdefault(child.name, [])
                pending.extend([*child.decorator_list, *_outer_parts(child)])
                continue  # its body is another scope
            if isinstance(child, ast.Lambda):
                pending.extend(_outer_parts(child))
                continue
            if isinstance(child, _COMPREHENSIONS):
                pending.append(child.generators[0].iter)
                pending.extend(n.target for n in ast.walk(child) if isinstance(n, ast.NamedExpr))
                continue
            if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                self.locals.setdefault(child.id, [])
            elif isinstance(child, ast.Import | ast.ImportFrom):
                for name, target in _imported(child):
                    self.locals.setdefault(name, []).append(target)
            elif isinstance(child, ast.Global):
                self.declared_global |= set(child.names)
            elif isinstance(child, ast.Nonlocal):
                self.declared_nonlocal |= set(child.names)
            elif isinstance(child, ast.ExceptHandler) and child.name:
                self.locals.setdefault(child.name, [])
            elif isinstance(child, ast.MatchAs | ast.MatchStar) and child.name:
                self.locals.setdefault(child.name, [])
            elif isinstance(child, ast.MatchMapping) and child.rest:
                self.locals.setdefault(child.rest, [])
            pending.extend(ast.iter_child_nodes(child))
        for name in self.declared_global | self.declared_nonlocal:
            self.locals.pop(name, None)

    def _targets(self, target):
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.locals.setdefault(node.id, [])


def _outer_parts(node):
    """What a function, lambda or class evaluates in the scope around it: defaults, annotations, bases."""
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *node.keywords]
    arguments = node.args
    parts = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        parts += [a.annotation for a in every if a is not None and a.annotation is not None]
        parts += [node.returns] if node.returns is not None else []
    return parts


def _imported(node):
    """``[(bound name, dotted name it stands for)]`` of an import; ``*`` for a star import."""
    if isinstance(node, ast.Import):
        found = []
        for alias in node.names:
            found.append(
                (alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0], alias.name.split(".")[0])
            )
        return found
    module = "." * (node.level or 0) + (node.module or "")
    return [(alias.asname or alias.name, f"{module}.{alias.name}") for alias in node.names]


def _canonical(dotted):
    """``torch.nn.functional.torch.autograd`` is ``torch.autograd``: a chain through a module exposed as an attribute
    starts again at that module."""
    return _library(dotted)[0]


def _under(dotted, prefixes):
    return any(dotted == p or dotted.startswith(f"{p}.") for p in prefixes)


def _whole_module(name):
    """A module every public name of which the notebook may reach."""
    return name in LIBRARY_MODULES or _under(name, LIBRARY_PACKAGES)


def _passage(name):
    """A module the notebook may import, or reach, to use one of :data:`LIBRARY_NAMES` in it."""
    return _whole_module(name) or any(n.startswith(f"{name}.") for n in LIBRARY_NAMES | LIBRARY_MODULES)


@functools.lru_cache(maxsize=8192)
def _library(dotted):
    """``(canonical name, why the notebook may not reach it or None, what it is)`` of a dotted name (``"class"``,
    ``"callable"``, ``"module"`` or ``"data"``; ``""`` if unknown): one of
    :data:`LIBRARY_NAMES`, or a public name of a module in :data:`LIBRARY_MODULES`, reached through modules that are
    allowed too. The modules are walked as the grader has them (a module not installed stays a name: nothing of it
    can run either)."""
    parts = dotted.split(".")
    if any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts):
        return dotted, f"«{dotted}», que no es público", ""
    try:
        value = (sys.modules.get(parts[0]) or importlib.import_module(parts[0])) if _passage(parts[0]) else None
    except Exception:  # not installed (or broken): nothing of it can run
        return dotted, None, ""
    if value is None:
        return dotted, f"«{dotted}», de un módulo que la lectura no conoce", ""
    name, written, allowed = parts[0], parts[0], _whole_module(parts[0])
    for part in parts[1:]:
        written = f"{written}.{part}"
        try:
            value = getattr(value, part)
        except Exception:
            try:
                value = importlib.import_module(f"{name}.{part}") if _passage(f"{name}.{part}") else None
            except Exception:
                value = None
            if value is None:
                return dotted, f"«{dotted}», que no existe", ""
        if isinstance(value, types.ModuleType):
            name = written if written in LIBRARY_NAMES else value.__name__
            allowed = written in LIBRARY_NAMES or _whole_module(name)
            if not (allowed or _passage(name)):
                return name, f"«{dotted}», que lleva al módulo «{name}», que la lectura no conoce", ""
        else:
            name, allowed = f"{name}.{part}", allowed or written in LIBRARY_NAMES
    if not (allowed or (isinstance(value, types.ModuleType) and _passage(name))):
        return name, f"«{dotted}», que la lectura no conoce", ""
    if _under(name, LIBRARY_REFUSED) or _under(written, LIBRARY_REFUSED):
        return name, f"«{dotted}», que convierte un texto en código o carga un módulo por su nombre", ""
    return name, None, _kind(value)


def _kind(value):
    """``"module"``, ``"class"`` (one whose attributes code can change: not ``numpy.float64``), ``"callable"`` or
    ``"data"``."""
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type) and not value.__flags__ & IMMUTABLE_TYPE:
        return "class"
    return "callable" if callable(value) else "data"


class _Walk:
    """Walks code with its scopes, resolving every name it meets; ``visit(node, scope)`` sees each node."""

    def __init__(self, notebook):
        self.notebook = notebook

    def run(self, node, scope, visit):
        pending = [(node, scope)]
        while pending:
            node, scope = pending.pop()
            visit(node, scope)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                outer = [*getattr(node, "decorator_list", []), *_outer_parts(node)]
                pending.extend((child, scope) for child in outer)
                inner = _Scope(node, scope)
                body = node.body if isinstance(node.body, list) else [node.body]
                pending.extend((child, inner) for child in body)
            elif isinstance(node, _COMPREHENSIONS):
                inner = _Scope(node, scope)
                first, *rest = node.generators
                pending.append((first.iter, scope))
                pending.append((first.target, inner))
                pending.extend((child, inner) for child in first.ifs)
                for generator in rest:
                    pending.append((generator, inner))
                parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                pending.extend((child, inner) for child in parts)
            else:
                pending.extend((child, scope) for child in ast.iter_child_nodes(node))

    def resolve(self, name, scope):
        """``("local", [import targets])``, ``("global", None)``, ``("builtin", None)`` or ``("unknown", None)``."""
        current, first = scope, True
        while current is not None:
            if current.kind == "class" and not first:
                current = current.parent
                continue
            if name in current.declared_global:
                break
            if name in current.locals:
                return "local", current.locals[name]
            current, first = current.parent, False
        if name in self.notebook.bindings:
            return "global", None
        if name in vars(builtins):
            return "builtin", None
        return "unknown", None


class Notebook:
    """Every cell read at once: each top-level name's bindings, the statements that change or hand out a name
    (``changes``), the statements that call a top-level function (``calls``: what a function that changes a name
    receives may end up in it), and what makes the whole reading unknown (``hidden``)."""

    def __init__(self, sources):
        self.bindings, self.changes, self.calls, self.stars, self.hidden, self.units = {}, {}, {}, [], [], []
        self.handed = []  # statements that give notebook code to a library that may keep it
        self.expanded = set()  # the names that the line of a magic writes in ({paquete})
        self._order, self.scopes, self._aliases, self._bound_to = {}, {}, {}, None  # scopes: id(statement) -> where
        raised = set()
        for source in sources:
            module, reasons = _parse(str(source))
            self.hidden += reasons
            if module is not None:
                self._add(module)
                if isinstance(source, RaisedCell):
                    raised.update(id(unit) for unit in module.body)
        self.walk = _Walk(self)
        self.position = {id(unit): i for i, unit in enumerate(self.units)}  # cells run in order
        for unit in self.units:
            for name, target, how in _unit_bindings(unit, self.scopes.get(id(unit))):
                how = "other" if how == "direct" and id(unit) in raised else how
                if name == "*":
                    self.stars.append(target)
                elif name == ".":
                    self.hidden.append(target)
                else:
                    self._order.setdefault(name, []).append(how)
                    self.bindings.setdefault(name, []).append((unit, target))
        for name in self.expanded:
            bindings = self.bindings.get(name, [(None, None)])
            if not all(self._text_only(unit, name) and target is None for unit, target in bindings):
                self.hidden.append(f"«{{{name}}}» en una orden mágica, que no es un texto")
        if "getattr" in self.bindings:  # a literal getattr() is read as an attribute: it must be the builtin
            self.hidden.append("«getattr» redefinido")
        classes = [node for unit in self.units for node in ast.walk(unit) if isinstance(node, ast.ClassDef)]
        self.methods = {f.name for c in classes for f in c.body if isinstance(f, _DEFINITIONS[:2])}  # theirs
        for unit in self.units:
            self._scan(unit)
        # Every statement that puts code into an attribute, whatever object it reaches it through (``clases[0].tanh =
        # …``, ``(Valor or None).tanh = …``): a reading that calls a method or function of that name reads it too.
        self.attribute_stores, self.container_stores = {}, []  # (the same for an element of a list or a dict)
        for unit in self.units:
            self.walk.run(unit, self.scopes.get(id(unit)), functools.partial(self._index_store, unit))
        self.hidden = list(dict.fromkeys(self.hidden))

    def _scan(self, unit):
        """:meth:`_hiding` over one top-level statement, remembered for the bindings of the names it uses (the same
        cell in the next test cell's reading is not walked again)."""
        signature = tuple(
            (n, tuple((id(u), t) for u, t in self.bindings[n]), tuple(self._order[n]))
            for n in _names_in(unit)
            if n in self.bindings
        )
        key = (id(unit), signature, tuple(self.stars), frozenset(self.methods & _attributes_in(unit)))
        found = _SCANS.get(key)
        if found is None or found[0] is not unit:
            hidden, handed, changes, calls = len(self.hidden), len(self.handed), {}, {}
            self.changes, saved_changes = changes, self.changes
            self.calls, saved_calls = calls, self.calls
            self.walk.run(unit, self.scopes.get(id(unit)), functools.partial(self._hiding, unit))
            self.changes, self.calls = saved_changes, saved_calls
            found = (unit, self.hidden[hidden:], self.handed[handed:], changes, calls)
            del self.hidden[hidden:], self.handed[handed:]
            if len(_SCANS) > 20000:
                _SCANS.clear()
            _SCANS[key] = found
        _, hidden, handed, changes, calls = found
        self.hidden += hidden
        self.handed += handed
        for name, units in changes.items():
            self.changes.setdefault(name, []).extend(units)
        for name, units in calls.items():
            self.calls.setdefault(name, []).extend(units)

    def _add(self, module, own_scope=False):
        """Index one module's top-level statements (and the Python that its code magics run). Code that runs in a
        scope of its own (``own_scope``: %%timeit, a test cell) is read for what it does to the notebook's names,
        but the names it binds are its own."""
        scope = _Scope(module, None) if own_scope else None
        for unit in module.body:
            self.units.append(unit)
            if scope is not None:
                self.scopes[id(unit)] = scope
            for node in ast.walk(unit):
                magic = _magic(node)
                if magic is None:
                    continue
                kind, name, text = magic
                line = next(iter(node.args[:1] if kind in ("system", "getoutput") else node.args[1:2]), None)
                if name not in CODE_MAGICS and line is not None:  # IPython runs {…} and $x in its line
                    self._expansions(name or kind, line)
                if name in CODE_MAGICS and text is not None:
                    extra, reasons = _parse(text)
                    self.hidden += reasons
                    if extra is None and text.strip():
                        self.hidden.append(f"el código de la orden mágica «{name}», que no se puede leer")
                    elif extra is not None:
                        self._add(extra, own_scope or name in OWN_SCOPE_MAGICS)
                elif name in CODE_MAGICS:
                    self.hidden.append(f"la línea de la orden mágica «{name}»")
                elif name in SAFE_LINES:
                    if kind != "run_line_magic" or text is None or not SAFE_LINES[name].fullmatch(text):
                        self.hidden.append(f"la orden mágica «{name}» con «{(text or '').strip()[:40]}»")
                elif name not in SAFE_MAGICS:
                    self.hidden.append(f"la orden mágica de IPython «{name or kind}»")

    def _expansions(self, name, line):
        """What IPython expands in the line of a magic or a shell command (``{expresión}``, ``$nombre``) runs as
        Python: only a name bound to a text may be written there (:meth:`_text_only`)."""
        text = line.value if isinstance(line, ast.Constant) and isinstance(line.value, str) else None
        if text is None:
            self.hidden.append(f"la línea de la orden mágica «{name}», que no es un texto")
            return
        fields = re.findall(r"\{([^{}]*)\}|\$\$|\$(\w*)", text)
        for braced, dollar in fields:
            written = braced or dollar
            if written and not written.isidentifier():
                self.hidden.append(f"la orden mágica «{name}» con «{written[:40]}», que ejecuta código")
            elif written:
                self.expanded.add(written)

    def _text_only(self, unit, name):
        """Whether every binding of ``name`` in ``unit`` gives it a text: a string literal, or an environment variable
        with a literal default (``os.environ.get("X", "…")``); formatting a text runs nothing."""
        if unit is None:
            return False
        found = False
        for node in ast.walk(unit):
            assigned = _assigned(node)
            targets = assigned[0] if assigned is not None else []
            if not any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                continue
            value = assigned[1]
            literal = isinstance(value, ast.Constant) and isinstance(value.value, str)
            environment = (
                isinstance(value, ast.Call)
                and set(self.dotted(value.func, None)) in ({"os.environ.get"}, {"os.getenv"})
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in value.args)
                and len(value.args) == 2
                and not value.keywords
            )
            if len(targets) != 1 or not isinstance(targets[0], ast.Name) or not (literal or environment):
                return False
            found = True
        return found

    def live(self, name, when=None):
        """The bindings of ``name`` that may hold at some moment of ``when`` (the positions of the first and the last
        top-level statement that may have run by then; by default, the whole notebook, as a test cell sees it): from
        its last direct binding at the start of ``when`` on (cells run in order), and any binding in a function. A
        binding that reads the name (``f = registrar(f)``) keeps the ones before it."""
        first, last = when or (len(self.units), len(self.units))
        bindings, order = self.bindings.get(name, []), self._order.get(name, [])
        positions = [self.position[id(unit)] for unit, _ in bindings]
        direct = [i for i, how in enumerate(order) if how == "direct" and positions[i] <= first]
        start = direct.pop() if direct else 0
        while start and name in _loads_in(bindings[start][0]):
            start = direct.pop() if direct else 0
        return [
            b
            for i, (b, how) in enumerate(zip(bindings, order, strict=True))
            if (i >= start and positions[i] <= last) or how == "deferred"
        ]

    def _hiding(self, unit, node, scope):
        """Record what in ``node`` can rebind a name or a module's attribute out of sight (``hidden``), and which
        top-level names it changes or hands to other code (``changes``: reading a name reads them too)."""
        if _magic(node) is not None:
            return
        resolve = self.walk.resolve
        if isinstance(node, ast.Name) and node.id in DYNAMIC_CALLS and isinstance(node.ctx, ast.Load):
            if resolve(node.id, scope)[0] in ("builtin", "unknown"):  # called, or handed on under another name
                self.hidden.append(f"{node.id}()")
        if isinstance(node, ast.ClassDef) and (
            any(k.arg == "metaclass" for k in node.keywords) or any(self._is_type(b, scope) for b in node.bases)
        ):
            self.hidden.append(f"la metaclase de «{node.name}»")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in IMPLICIT_PROTOCOLS:
            self.hidden.append(f"«{node.name}»")
        if isinstance(node, ast.Name) and node.id in IMPLICIT_PROTOCOLS:
            self.hidden.append(f"«{node.id}»")
        if isinstance(node, ast.Call):
            for name in self.dotted(node.func, scope):
                copied = len(node.args) > NAMED_COPIES.get(name, len(node.args))
                if copied or (name in NAMED_COPIES and any(k.arg != "wrapped" for k in node.keywords)):
                    self.hidden.append(f"«{name}» con los atributos que copia")
            if any(k.arg == "eval_str" for k in node.keywords):
                self.hidden.append("«eval_str», que evalúa anotaciones escritas como texto")
        if isinstance(node, ast.Call) and self._handed_code(unit, node, scope):
            self.handed.append(unit)
        if isinstance(node, ast.Call) and self._method_on_another(node, scope):
            self.hidden.append(f"«{ast.unparse(node.func)[:40]}», un método llamado desde su clase con otro objeto")
        if isinstance(node, ast.Call) and self._names_a_module(node, scope):
            self.hidden.append("un módulo buscado por un nombre que no es uno de los del curso")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type":
            if resolve("type", scope)[0] == "builtin" and len(node.args) != 1:
                self.hidden.append("«type» con tres argumentos, que crea una clase con atributos nombrados por textos")
        if self._handed_class(unit, node, scope):
            self.hidden.append(f"la clase «{ast.unparse(node)[:40]}» guardada o entregada a otro código")
        if _text_annotation(node):
            self.hidden.append("una anotación escrita como texto, que otra biblioteca puede evaluar como código")
        if isinstance(node, ast.MatchClass) and node.kwd_attrs:  # ``case object(backward=b)`` reads an attribute
            self.hidden.append("un patrón de clase de «match» que lee atributos")
        if isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES and not self._magic_receiver(node, unit):
            self.hidden.append(f"«{node.id}»")
        if isinstance(node, ast.Attribute):
            if node.attr in FRAME_ATTRIBUTES or node.attr == "mro":
                self.hidden.append(f"el atributo «{node.attr}»")
            if node.attr.startswith("__") and node.attr.endswith("__"):
                written = not isinstance(node.ctx, ast.Load)
                if node.attr not in PLAIN_DUNDERS or (written and node.attr not in NAMING_DUNDERS):
                    self.hidden.append(f"el atributo «{node.attr}»")
            parent = _parents_of(unit).get(id(node))
            if not (isinstance(parent, ast.Attribute) and parent.value is node):  # the whole chain, not a part
                self.hidden += [r for name in self.dotted(node, scope) if (r := _library(name)[1])]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            kind, imports = resolve(node.id, scope)
            self.hidden += [r for name in self.dotted(node, scope) if "." in name and (r := _library(name)[1])]
            module = any("." not in t for t in imports or []) or (kind == "global" and self._module_name(node.id))
            parent = _parents_of(unit).get(id(node))
            if module and not (isinstance(parent, ast.Attribute) and parent.value is node):
                self.hidden.append(f"el módulo «{node.id}» usado como valor")
        changed = None
        if isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            changed = _root(node)
            if changed is None and isinstance(node, ast.Attribute):  # ``type(x).softmax = …`` may change a library
                self.hidden.append(f"un cambio en «{ast.unparse(node)[:40]}», que no es un nombre del cuaderno")
            if changed is not None:
                kind, imports = resolve(changed.id, scope)
                if imports or (kind == "global" and self._module_alias(changed.id)):
                    self.hidden.append(f"un cambio en el módulo «{changed.id}»")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            changed = _root(node.func)  # a method may keep what it receives
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            changed = node.target  # ``d |= {…}`` changes in place what ``d`` is
        if changed is not None and resolve(changed.id, scope)[0] == "global" and not self._imported(changed.id):
            self.changes.setdefault(changed.id, []).append(unit)  # (a module's own changes are hidden, above)
        elif changed is not None and resolve(changed.id, scope)[0] == "local":
            for name in _aliased_globals(changed.id, scope, resolve):  # ``m = MODULO; m.register_…(f)``
                if not self._imported(name):
                    self.changes.setdefault(name, []).append(unit)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and resolve(node.func.id, scope)[0] == "global":
                self.calls.setdefault(node.func.id, []).append(unit)
            # What the notebook's own code receives it may keep (a library or a builtin stores nothing of it in
            # the notebook's names); a function handed out stays the code it is.
            callee = _root(node.func)
            kind, imports = resolve(callee.id, scope) if callee is not None else ("local", None)
            if (kind == "local" and not imports) or (kind == "global" and not self._imported(callee.id)):
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    argument = argument.value if isinstance(argument, ast.Starred) else argument
                    if isinstance(argument, ast.Name) and resolve(argument.id, scope)[0] == "global":
                        if not self._defined(argument.id):
                            self.changes.setdefault(argument.id, []).append(unit)

    def _is_type(self, node, scope):
        return isinstance(node, ast.Name) and node.id == "type" and self.walk.resolve("type", scope)[0] == "builtin"

    def _handed_code(self, unit, call, scope):
        """Whether ``call`` gives notebook code (a lambda, a notebook function or class, one of its methods) to a
        library's function that may keep it and run it later, during any other call (``numpy.seterrcall(f)``, a
        filter of ``warnings``, ``abc`` registers): builtins and :data:`CALL_ONLY` only call it while they run, and so
        does a context manager whose ``with`` never stops halfway (no ``yield`` or ``await`` in it)."""
        names = self.dotted(call.func, scope)
        if not names or all(_under(n, CALL_ONLY) or _under(n, LIBRARY_PACKAGES) for n in names):
            return False
        parents = _parents_of(unit)
        item = parents.get(id(call))
        block = parents.get(id(item))
        if isinstance(item, ast.withitem) and item.context_expr is call and isinstance(block, ast.With):
            if not any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Await) for n in ast.walk(block)):
                return False
        return any(self._may_be_code(a, scope, library=False) for a in [*call.args, *(k.value for k in call.keywords)])

    def _method_on_another(self, call, scope):
        """Whether ``call`` runs a method of a notebook class through the class (``Valor.poner(objeto)``) on an object
        that is not the ``self`` of the method it is in: a method's ``self`` is read as the class's own object."""
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return False
        if self.walk.resolve(func.value.id, scope)[0] != "global":
            return False
        classes = [u for u, _ in self.bindings[func.value.id] if isinstance(u, ast.ClassDef)]
        methods = [
            f
            for c in classes
            for f in c.body
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            and f.name == func.attr
            and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in f.decorator_list)
        ]
        if not methods:
            return False
        first = call.args[0] if call.args else None
        return not (isinstance(first, ast.Name) and self._is_own_self(first.id, scope))

    def _is_own_self(self, name, scope):
        """Whether ``name`` is the ``self`` of the method whose code is in ``scope``."""
        while scope is not None and not isinstance(scope.node, _FUNCTIONS[:2]):
            scope = scope.parent
        if scope is None or scope.parent is None:
            return False
        first = [*scope.node.args.posonlyargs, *scope.node.args.args][:1]
        return bool(first) and first[0].arg == name and _is_self(scope.node, scope.parent, first[0])

    def _names_a_module(self, call, scope):
        """Whether ``call`` makes a library import a module named by a text: ``importlib.util.find_spec`` of a module
        that is not one the course looks for, or a tensor's ``.type("…")`` (a dotted name it imports)."""
        if isinstance(call.func, ast.Attribute) and call.func.attr == "type":
            named = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "dtype")]
            return any(not self.dotted(a, scope) for a in named)  # ``x.type(torch.float64)`` names no module
        if "importlib.util.find_spec" not in self.dotted(call.func, scope):
            return False
        named = call.args[0] if call.args else None
        return not (isinstance(named, ast.Constant) and named.value in FOUND_BY_NAME)

    def _handed_class(self, unit, node, scope):
        """Whether a library's class (``torch.Tensor``, or what ``type(x)`` and ``x.__class__`` give) is kept or handed
        to other code (bound to a name, put in a container, passed to a function), where a change to it would not be
        read. Calling it, reading its attributes, subclassing it, comparing it, ``isinstance`` and annotations are
        read."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type":
            if len(node.args) != 1 or self.walk.resolve("type", scope)[0] != "builtin":
                return False
        elif isinstance(node, ast.Attribute) and node.attr == "__class__" and isinstance(node.ctx, ast.Load):
            pass  # what ``x.__class__`` gives is a class, as ``type(x)``
        elif not isinstance(node, ast.Attribute | ast.Name) or not isinstance(node.ctx, ast.Load):
            return False
        else:
            parent = _parents_of(unit).get(id(node))
            if isinstance(parent, ast.Attribute) and parent.value is node:
                return False  # a part of a longer chain
            if not any(_library(name)[2] == "class" for name in self.dotted(node, scope)):
                return False
        parents = _parents_of(unit)
        parent = parents.get(id(node))
        while isinstance(parent, ast.Tuple):  # ``isinstance(x, (torch.Tensor, float))``
            node, parent = parent, parents.get(id(parent))
        if isinstance(parent, ast.keyword):
            node, parent = parent, parents.get(id(parent))
        if isinstance(parent, ast.Call):
            if parent.func is node:
                return False
            if isinstance(parent.func, ast.Name) and parent.func.id in CLASS_READERS:
                return self.walk.resolve(parent.func.id, scope)[0] != "builtin"
            return True  # even a library's function may give it back (``copy.copy``)
        if isinstance(parent, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            return node not in [*getattr(parent, "bases", []), *parent.decorator_list, getattr(parent, "returns", 0)]
        if isinstance(parent, ast.Subscript):
            return parent.value is node  # ``Optional[torch.Tensor]``
        readers = ast.Attribute | ast.Compare | ast.FormattedValue | ast.ExceptHandler | ast.arg | ast.Expr
        return not (isinstance(parent, readers) or (isinstance(parent, ast.AnnAssign) and parent.annotation is node))

    def _index_store(self, unit, node, scope):
        """Index a statement that puts code into an attribute or a container element (for :func:`read`), whatever
        object it reaches them through, except an object its function made itself (:meth:`_fresh_local`)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILLING:
            if any(self._code_like(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                if not self._fresh_local(node.func.value, scope):  # ``reglas.update(tanh=f)``
                    self.container_stores.append((unit, self._global_root(node.func.value, scope)))
            return
        assigned = _assigned(node)
        if assigned is None or (assigned[1] is not None and not self._code_like(assigned[1])):
            return
        for target in assigned[0]:
            for store in ast.walk(target):
                if not isinstance(store, ast.Attribute | ast.Subscript) or not isinstance(store.ctx, ast.Store):
                    continue
                if self._fresh_local(store.value, scope):
                    continue
                if isinstance(store, ast.Attribute):
                    self.attribute_stores.setdefault(store.attr, []).append(unit)
                    if not self._owned(store.value, scope) and self._may_be_code(assigned[1], scope):
                        written = ast.unparse(store)[:40]
                        self.hidden.append(f"«{written}», código puesto en un objeto que puede ser de una biblioteca")
                else:
                    self.container_stores.append((unit, self._global_root(store, scope)))

    def _owned(self, value, scope):
        """Whether ``value`` (the object of ``value.attr = …``) is an object the notebook made: a method's ``self``, a
        local its function only binds to new objects, or a notebook name bound only by ``def``/``class`` or to a new
        object (a literal, an instance of a notebook class or of a library's class). Anything else (a parameter, an
        attribute of another object, what a call returns) may be a library's object that its own code reads."""
        if not isinstance(value, ast.Name):
            return False
        kind = self.walk.resolve(value.id, scope)[0]
        if kind == "local":
            return self._fresh_local(value, scope)
        if kind != "global" or self._imported(value.id):
            return False
        return all(
            (isinstance(unit, _DEFINITIONS) and unit.name == value.id) or self._made_here(unit, value.id)
            for unit, _ in self.bindings[value.id]
        )

    def _made_here(self, unit, name):
        """Whether ``unit`` binds ``name``, directly, to a new object (see :meth:`_owned`)."""
        if not isinstance(unit, ast.Assign) or not all(isinstance(t, ast.Name) for t in unit.targets):
            return False
        value = unit.value
        if self._new_object(value, None):
            return True
        if not isinstance(value, ast.Call):
            return False
        if isinstance(value.func, ast.Name) and self.walk.resolve(value.func.id, None)[0] == "global":
            return all(isinstance(u, ast.ClassDef) for u, _ in self.bindings[value.func.id])
        names = self.dotted(value.func, None)
        return bool(names) and all(_library(n)[2] == "class" for n in names)

    def _may_be_code(self, value, scope, library=True):
        """Whether ``value`` may be a function: it mentions a lambda, a notebook function or class, a method the
        notebook defines, or a library's function or class without calling it (``torch.Tensor.sum_to_size``), or it
        is what a notebook function returns. With ``library=False`` (what is handed to a library), only the notebook's
        own code that is not called there counts."""
        if value is None:
            return True
        parents = _parents_of(value)
        for node in ast.walk(value):
            called = isinstance(parents.get(id(node)), ast.Call) and parents[id(node)].func is node
            if called and not library:
                continue  # called here, not handed over (``torch.tensor([f(v) for v in datos])``)
            if isinstance(node, ast.Lambda):
                return True
            if isinstance(node, ast.Attribute) and node.attr in self.methods and not called:
                return True
            if library and isinstance(node, ast.Name | ast.Attribute) and not called:
                if any(_library(n)[2] in ("class", "callable") for n in self.dotted(node, scope)):
                    return True
            if isinstance(node, ast.Name):
                kind = self.walk.resolve(node.id, scope)[0]
                if kind == "global" and any(isinstance(u, _DEFINITIONS) for u, _ in self.bindings[node.id]):
                    return True
                if kind == "local" and not called and _local_definition(node.id, scope):
                    return True
        return False

    def _global_root(self, node, scope):
        """The notebook name at the root of ``node``, or None if it is an expression or a function's local (another
        name of who knows what)."""
        root = _root(node)
        return root if root is not None and self.walk.resolve(root.id, scope)[0] == "global" else None

    def _fresh_local(self, root, scope):
        """Whether ``root`` (the ``t`` of ``t[k] = …``, ``t.a = …``) is a local that its function only ever binds to a
        new object (``t = {}``, ``t = dict(…)``, ``t = torch.zeros(…)``), or a method's ``self``. A parameter, or a
        local bound otherwise (``t = next(iter([REGLAS]))``, by a loop), may be any object."""
        if not isinstance(root, ast.Name) or self.walk.resolve(root.id, scope)[0] != "local":
            return False
        scope = _binding_scope(root.id, scope)
        if isinstance(scope.node, _FUNCTIONS):  # what it receives, but a method's ``self``
            received = [a for a in ast.walk(scope.node.args) if isinstance(a, ast.arg) and a.arg == root.id]
            if received and not (scope.parent is not None and _is_self(scope.node, scope.parent, received[0])):
                return False
        for binding in ast.walk(scope.node):
            for target, value in _pairs(_assigned(binding)):
                if isinstance(target, ast.Name) and target.id == root.id:
                    if not self._new_object(value, scope):
                        return False
                elif any(
                    isinstance(n, ast.Name) and n.id == root.id and isinstance(n.ctx, ast.Store)
                    for n in ast.walk(target)
                ):
                    return False
            if isinstance(binding, ast.MatchAs | ast.MatchStar | ast.MatchMapping):
                if root.id in (getattr(binding, "name", None), getattr(binding, "rest", None)):
                    return False
        return True

    def _new_object(self, value, scope):
        """Whether ``value`` is always a new object: a literal, a display, or a call of ``dict``, ``list``, ``set`` or
        one of torch's tensor constructors."""
        if isinstance(value, (ast.Constant, ast.Tuple, ast.JoinedStr, *MUTABLE_DISPLAYS)):
            return True
        if not isinstance(value, ast.Call):
            return False
        if isinstance(value.func, ast.Name) and value.func.id in NEW_CONTAINERS:
            return self.walk.resolve(value.func.id, scope)[0] == "builtin"
        if isinstance(value.func, ast.Name) and self.walk.resolve(value.func.id, scope)[0] == "global":
            units = [unit for unit, _ in self.bindings[value.func.id]]
            return all(isinstance(u, ast.ClassDef) and _plain_class(u) for u in units)  # ``Valor(…)``
        names = self.dotted(value.func, scope)
        return bool(names) and all(_under(name, TENSOR_MAKERS) for name in names)

    def aliases(self, name):
        """``name`` and the notebook names that are other names of its object or of a part of it (``otra = TABLA``,
        ``capa = modelo.capa``, ``a, b = TABLA, 0``): what changes through them changes it."""
        if self._bound_to is None:  # the names bound to each name, or to a part of it, once for the notebook
            self._bound_to = {}
            for unit in self.units:
                for bound, root in _named_parts(unit):
                    self._bound_to.setdefault(root, set()).add(bound)
        if name not in self._aliases:
            found, pending = {name}, [name]
            while pending:
                fresh = self._bound_to.get(pending.pop(), set()) - found
                found |= fresh
                pending += fresh
            self._aliases[name] = frozenset(found)
        return self._aliases[name]

    def may_hold(self, root, names):
        """Whether the container at ``root`` (a name, or None for an expression) may be one of ``names``: it is one,
        or a binding of it reads one (``otro = REGLAS``), or it is reached through an expression."""
        if root is None or root.id in names:
            return True
        bindings = self.bindings.get(root.id, [])
        if any(not self._made_here(unit, root.id) and _assigned_call(unit, root.id) for unit, _ in bindings):
            return True  # ``tabla = devolver_memo()``: whatever the call returns
        return any(n in names for unit, _ in bindings for n in _loads_in(unit))

    def _code_like(self, value):
        """Whether a value may be code (a function, a method, a class): not a literal, arithmetic, or what a module's
        function returns (``torch.zeros_like(x)``, a tensor); what the notebook's own functions return may be."""
        if isinstance(value, ast.Constant):
            return False
        if isinstance(value, ast.BinOp | ast.UnaryOp | ast.Compare | ast.BoolOp):  # an operator may return anything
            parts = [n for n in ast.iter_child_nodes(value) if isinstance(n, ast.expr)]
            return any(self._code_like(part) for part in parts)
        if isinstance(value, _COMPREHENSIONS):  # what it builds holds its elements
            return self._code_like(value.value if isinstance(value, ast.DictComp) else value.elt)
        if isinstance(value, ast.Dict):
            return any(self._code_like(v) for v in value.values)
        if isinstance(value, ast.Tuple | ast.List | ast.Set):
            return any(self._code_like(v) for v in value.elts)
        if isinstance(value, ast.Call):  # what torch's tensor constructors return is a tensor
            names = self.dotted(value.func, None)
            return not (names and all(_under(name, TENSOR_MAKERS) for name in names))
        return True

    def _defined(self, name):
        """A top-level name that only ``def`` or ``class`` statements bind."""
        units = [unit for unit, _ in self.bindings.get(name, [])]
        return bool(units) and all(isinstance(u, _DEFINITIONS) and u.name == name for u in units)

    def _imported(self, name):
        """A top-level name that some import binds."""
        return any(t is not None for _, t in self.bindings.get(name, []))

    def _module_name(self, name):
        """A top-level name that only ``import x`` binds (a module for certain)."""
        targets = [t for _, t in self.bindings.get(name, [])]
        return bool(targets) and all(t is not None and "." not in t for t in targets)

    def _module_alias(self, name):
        """A top-level name bound to a module, or to an attribute of one: by an import, or by assigning a chain."""
        for unit, target in self.bindings.get(name, []):
            if target is not None:
                return True
            for node in ast.walk(unit):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name | ast.Attribute):
                    named = any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
                    if named and self.dotted(node.value, None):
                        return True
        return False

    @staticmethod
    def _magic_receiver(node, unit):
        """``get_ipython`` in the call of a magic (read as such, see :func:`_magic`)."""
        parents = _parents_of(unit)
        call = parents.get(id(node))
        attribute = parents.get(id(call))
        return node.id == "get_ipython" and _magic(parents.get(id(attribute))) is not None

    def dotted(self, node, scope, when=None):
        """The dotted names an attribute chain (or a name) stands for, when its root is an import: bound at some moment
        of ``when`` (see :meth:`live`), or at any moment by default."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return []
        kind, imports = self.walk.resolve(node.id, scope)
        roots = list(imports or [])
        if kind == "global":
            bindings = self.live(node.id, when) if when else self.bindings.get(node.id, [])
            roots = [t for _, t in bindings if t is not None]
        if kind != "local":
            roots += [f"{star}.{node.id}" for star in self.stars if _star_provides(star, node.id)]
        return [_canonical(".".join([root, *reversed(parts)])) for root in roots]


_SCANS = {}  # (top-level statement, the bindings of the names it uses) -> what _hiding found there
_SIMPLE = (
    ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign | ast.Import | ast.ImportFrom
)


def _star_provides(module, name):
    """Whether ``from module import *`` binds ``name``: known only for a module already imported here (the reader
    imports nothing); any other name a star import is said to bring is unknown."""
    found = sys.modules.get(module)
    if found is None:
        return False
    public = getattr(found, "__all__", None)
    return name in public if isinstance(public, list | tuple) else not name.startswith("_") and hasattr(found, name)


def _module_scope(name, scope):
    """Whether ``name`` bound in ``scope`` is the notebook's top-level name (a comprehension's own variables stay in
    it; it binds in its enclosing scope only through a walrus)."""
    while scope is not None and isinstance(scope.node, _COMPREHENSIONS):
        if name in scope.locals:
            return False
        scope = scope.parent
    return scope is None or name in scope.declared_global


@functools.lru_cache(maxsize=8192)
def _unit_bindings(unit, start=None):
    """``[(name, import target or None, how)]`` for every top-level name one statement binds, wherever inside it: in a
    compound statement, a walrus, a ``global``. ``how`` is ``direct`` (a top-level statement that binds it whatever
    came before, so earlier bindings no longer count), ``deferred`` (in a function: it may run at any later time) or
    ``other`` (in a compound statement, or an augmented assignment). A star import is ``("*", module, None)``, and
    what cannot be read ``(".", reason, None)``."""
    found = []

    def bind(name, scope, target=None):
        how = "deferred" if scope is not None else "direct" if isinstance(unit, _SIMPLE) else "other"
        found.append((name, target, how))

    def visit(node, scope):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if _module_scope(node.name, scope):
                bind(node.name, scope)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):  # (``del`` binds nothing)
            if _module_scope(node.id, scope):
                bind(node.id, scope)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            written = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name, target in _imported(node):
                written.append(target.removesuffix(".*"))
                if target.startswith("."):
                    found.append((".", f"la importación relativa «{target}»", None))
                if name == "*":
                    found.append(("*", target[:-2], None))
                elif _module_scope(name, scope):
                    bind(name, scope, target)
            for target in dict.fromkeys(written):
                if not target.startswith(".") and (refused := _library(target)[1]) is not None:
                    found.append((".", f"la importación de {refused}", None))
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            if _module_scope(node.name, scope):
                bind(node.name, scope)
        elif isinstance(node, ast.MatchMapping) and node.rest and _module_scope(node.rest, scope):
            bind(node.rest, scope)

    _Walk(None).run(unit, start, visit)
    return found


@functools.lru_cache(maxsize=8192)
def _loads_in(unit):
    """The names a statement reads while it runs (a function's body runs later, when it is called)."""
    pending, found = [unit], set()
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            pending.extend([*getattr(node, "decorator_list", []), *_outer_parts(node)])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(found)


@functools.lru_cache(maxsize=8192)
def _attributes_in(unit):
    return frozenset(node.attr for node in ast.walk(unit) if isinstance(node, ast.Attribute))


@functools.lru_cache(maxsize=8192)
def _names_in(unit):
    return frozenset(node.id for node in ast.walk(unit) if isinstance(node, ast.Name))


def _assigned(node):
    """What ``node`` binds: its targets and the value bound to them (None when a loop, a comprehension or a ``with``
    binds them), or None if it binds nothing."""
    if isinstance(node, ast.Assign):
        return node.targets, node.value
    if isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
        return [node.target], node.value
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return [node.target], None
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars], None
    return None


def _text_annotation(node):
    """Whether ``node`` (a function or an annotated assignment) has an annotation written as a text: libraries evaluate
    them (``functools.singledispatch``, ``typing.get_type_hints``)."""
    if isinstance(node, ast.AnnAssign):
        annotations = [node.annotation]
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        every = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
        annotations = [a.annotation for a in every if a is not None] + [node.returns]
    else:
        return False
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) for a in annotations for n in ast.walk(a or ast.Pass())
    )


@functools.lru_cache(maxsize=8192)
def _named_parts(unit):
    """``[(name, other)]``: ``unit`` binds ``name`` to ``other`` or to a part of it, as it is (``name = other[0]``)."""
    found = []
    for node in ast.walk(unit):
        assigned = _assigned(node)
        if assigned is None or assigned[1] is None:
            continue
        targets = [n.id for t in assigned[0] for n in ast.walk(t) if isinstance(n, ast.Name)]
        values = assigned[1].elts if isinstance(assigned[1], ast.Tuple | ast.List) else [assigned[1]]
        roots = [_root(v.value if isinstance(v, ast.Starred) else v) for v in values]
        found += [(name, root.id) for name in targets for root in roots if root is not None]
    return found


def _pairs(assigned):
    """``[(target, value)]`` of what :func:`_assigned` found, a tuple unpacked from a tuple taken element by element
    (``t, pila = {}, [raiz]``)."""
    if assigned is None:
        return []
    found = []
    for target in assigned[0]:
        value = assigned[1]
        parallel = isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List)
        starred = parallel and any(isinstance(n, ast.Starred) for n in [*target.elts, *value.elts])
        if parallel and not starred and len(target.elts) == len(value.elts):
            found += zip(target.elts, value.elts, strict=True)
        else:
            found.append((target, value))
    return found


def _aliased_globals(name, scope, resolve, depth=0):
    """The notebook names that the local ``name`` may be another name of, or a part of: ``m = MODULO``,
    ``t = PILA[-1]``, ``for t in PILA``, or another such local."""
    scope = _binding_scope(name, scope)
    if scope is None or depth > 8:
        return set()
    found = set()
    for node in ast.walk(scope.node):
        pairs = _pairs(_assigned(node))
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            pairs = [(node.target, node.iter)]
        for target, value in pairs:
            if value is None or not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                continue
            roots = value.elts if isinstance(value, ast.Tuple | ast.List) else [value]
            for root in (_root(r.value if isinstance(r, ast.Starred) else r) for r in roots):
                kind = resolve(root.id, scope)[0] if root is not None else None
                if kind == "global":
                    found.add(root.id)
                elif kind == "local" and root.id != name:
                    found |= _aliased_globals(root.id, scope, resolve, depth + 1)
    return found


def _binding_scope(name, scope):
    """The scope, from ``scope`` outwards, that binds ``name`` (None for a notebook name)."""
    while scope is not None and name not in scope.locals:
        scope = scope.parent
    return scope


def _local_definition(name, scope):
    """Whether the local ``name`` is a function or class defined in its scope."""
    scope = _binding_scope(name, scope)
    return scope is not None and any(
        isinstance(n, _DEFINITIONS) and n.name == name for n in ast.walk(scope.node) if n is not scope.node
    )


def _defaulted(name, scope):
    """Whether the local ``name`` is a parameter with a default value (an object that outlives each call)."""
    scope = _binding_scope(name, scope)
    if scope is None or not isinstance(scope.node, _FUNCTIONS):
        return False
    arguments = scope.node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    with_default = positional[len(positional) - len(arguments.defaults) :]
    with_default += [a for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None]
    return any(a.arg == name for a in with_default)


def _assigned_call(unit, name):
    """Whether ``unit`` binds ``name`` to what a call returns (or to a part of it)."""
    for node in ast.walk(unit):
        for target, value in _pairs(_assigned(node)):
            named = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))
            if named and value is not None and any(isinstance(n, ast.Call) for n in ast.walk(value)):
                return True
    return False


def _element_local(name, scope):
    """Whether ``name`` is a local that may hold what a container held: bound by a loop, a comprehension, a ``with``
    or an assignment, not a parameter (what a call passes is read there) nor a ``def``."""
    scope = _binding_scope(name, scope)
    if scope is None or scope.locals[name]:  # a notebook name, or an import
        return False
    if isinstance(scope.node, _FUNCTIONS) and any(
        isinstance(a, ast.arg) and a.arg == name for a in ast.walk(scope.node.args)
    ):
        return False
    return not _local_definition(name, scope)


def _is_self(function, around, argument):
    """Whether ``argument`` is the ``self`` of a method: the first parameter of a function in a class body that is
    not a static or class method."""
    first = [*function.args.posonlyargs, *function.args.args][:1]
    kinds = ("staticmethod", "classmethod")
    decorated = any(isinstance(d, ast.Name) and d.id in kinds for d in function.decorator_list)
    return around.kind == "class" and first == [argument] and not decorated


def _plain_class(node):
    """A class whose call always builds a new object of its own: no bases, no metaclass, no ``__new__``."""
    new = any(isinstance(n, ast.FunctionDef) and n.name == "__new__" for n in node.body)
    return not node.bases and not node.keywords and not new


def _deferred(scope):
    """Whether code in ``scope`` runs when its function is called (not where it is written)."""
    while scope is not None:
        if isinstance(scope.node, _FUNCTIONS):
            return True
        scope = scope.parent
    return False


def _root(node):
    """The name at the root of ``a.b[c].d``, or None (``f(x).d`` belongs to what ``f`` returned, not to ``f``)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node if isinstance(node, ast.Name) else None


@functools.lru_cache(maxsize=4096)
def _parents_of(unit):
    parents = {}
    for parent in ast.walk(unit):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    return parents


def _immutable(notebook, unit, name):
    """Whether the binding of a notebook ``name`` in ``unit`` is a function it defines, or a plain assignment of an
    immutable value (:data:`IMMUTABLE_NODES`): nothing that another name can hold and change later."""
    if isinstance(unit, ast.FunctionDef) and unit.name == name:
        return True
    if not isinstance(unit, ast.Assign | ast.AnnAssign) or unit.value is None:
        return False
    return _immutable_value(notebook, unit.value)


def _immutable_value(notebook, value):
    """Whether ``value`` is made only of :data:`IMMUTABLE_NODES` (a default argument, a notebook value)."""
    for node in ast.walk(value):
        if not isinstance(node, IMMUTABLE_NODES):
            return False
        if isinstance(node, ast.Attribute) and not all(_under(d, PLAIN_MODULES) for d in notebook.dotted(node, None)):
            return False
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                if notebook.walk.resolve(node.func.id, None)[0] != "builtin" or node.func.id not in IMMUTABLE_BUILTINS:
                    return False
            elif not isinstance(node.func, ast.Attribute):
                return False
    return True


def notebook_reading(sources):
    """The whole notebook read once (cached by its sources and which of them raised): its bindings, calls and
    changes of every name."""
    return _reading(tuple((str(source), isinstance(source, RaisedCell)) for source in sources))


@functools.lru_cache(maxsize=8)
def _reading(cells):
    return Notebook([RaisedCell(text) if raised else text for text, raised in cells])


class Reading:
    """What the code behind an answer reaches: ``names`` (dotted, aliases resolved), ``globals`` (the notebook's
    names), ``attributes``, ``builtins``, ``unknown`` (why the reading is not complete) and ``not_plain`` (what a
    prediction may not contain)."""

    def __init__(self, found, names=(), attributes=(), used_builtins=(), unknown=(), not_plain=()):
        self.found, self.names, self.attributes = found, set(names), set(attributes)
        self.builtins, self.unknown, self.not_plain = set(used_builtins), list(unknown), list(not_plain)
        self.globals = set()  # the notebook's own top-level names it reaches

    def mentions(self, api):
        """Whether the code reaches ``api``: a dotted prefix (``torch.func``), a method (``.backward``), a name
        the notebook defines (``Valor``) or a builtin (``complex``, also reached by a literal such as ``1j``)."""
        if api.startswith("."):
            return api[1:] in self.attributes
        return api in self.globals or api in self.builtins or any(_under(name, [api]) for name in self.names)

    def modules(self):
        """The modules the code reaches (the first part of each dotted name); ``sys`` only for its recursion limit,
        which computes nothing, is not one."""
        kept = {name for name in self.names if name not in RECURSION_LIMIT}
        only_limit = {name for name in self.names - kept if not any(k.startswith("sys.") for k in kept)}
        return {name.split(".")[0] for name in kept if not (name == "sys" and only_limit)}


def untouched(answer_name, sources=None):
    """Whether ``answer_name`` is still the template of its answer cell: every binding that may hold is a function
    whose body only raises ``NotImplementedError`` (its docstring aside)."""
    notebook = notebook_reading(tuple(student_sources() if sources is None else sources))
    units = [unit for unit, _ in notebook.live(answer_name)]
    return bool(units) and all(_is_stub(unit) for unit in units)


def _is_stub(unit):
    if not isinstance(unit, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    body = unit.body[1:] if ast.get_docstring(unit) is not None else unit.body
    if len(body) != 1 or not isinstance(body[0], ast.Raise):
        return False
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def read(answer_name, sources=None):
    """The :class:`Reading` of the code that binds ``answer_name`` and of everything it can reach."""
    notebook = notebook_reading(tuple(student_sources() if sources is None else sources))
    if answer_name not in notebook.bindings:
        return Reading(False)
    reading = Reading(True, unknown=notebook.hidden)
    # What to read: a top-level statement, and when the code in its functions may run (its own code runs where it is).
    end = len(notebook.units)
    pending, seen_units, seen_names = [], set(), set()
    now = None  # when the functions of the statement being read may run, and where the statement is

    def reach(name, when):
        if (name, when) in seen_names:
            return
        seen_names.add((name, when))
        for unit, target in notebook.live(name, when):
            if target is not None:
                reading.names.add(_canonical(target))
            if target is None and not _immutable(notebook, unit, name):
                # another name may hold the same object and change it out of sight
                reading.not_plain.append(f"«{name}», un valor del cuaderno que otro código puede cambiar")
            pending.append((unit, (notebook.position[id(unit)], end)))  # its functions may run at any later time
        aliases = notebook.aliases(name)
        changes = [u for alias in aliases for u in notebook.changes.get(alias, [])]
        changes += [u for u, root in notebook.container_stores if root is not None and root.id in aliases]
        for unit in changes:
            pending.append((unit, (notebook.position[id(unit)], end)))
            if isinstance(unit, _DEFINITIONS):
                pending.extend((u, (notebook.position[id(u)], end)) for u in notebook.calls.get(unit.name, []))

    called = set()  # the attributes the code reads (methods, module functions)
    calls_element = False  # whether it calls what a container holds (``reglas["tanh"](x)``, ``reglas.get("tanh")(x)``)

    def visit(node, scope):
        nonlocal calls_element
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            called.add(node.attr)  # read or called: what replaced it runs through it
        elif isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Subscript)
            or (
                isinstance(node.func, ast.Call)
                and isinstance(node.func.func, ast.Attribute)
                and node.func.func.attr in TAKING
            )
        ):
            calls_element = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and _element_local(node.func.id, scope):
            calls_element = True  # ``for f in TABLA: f(x)``
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
            # ``TABLA[0]``, ``memo["k"]`` (a default): what the element is may run code (``__getitem__``, a call)
            kind = notebook.walk.resolve(node.value.id, scope)[0]
            calls_element |= kind == "global" or (kind == "local" and _defaulted(node.value.id, scope))
        if not isinstance(node, PLAIN_NODES):
            reading.not_plain.append(type(node).__name__)
        if isinstance(node, ast.Constant) and type(node.value) is complex:
            reading.builtins.add("complex")
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            reading.not_plain.append("un decorador")
        if isinstance(node, _FUNCTIONS):
            defaults = [d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None]
            if not all(_immutable_value(notebook, d) for d in defaults):
                reading.not_plain.append("un valor por omisión que otro código puede llenar")
        when = now[:2] if _deferred(scope) else (now[2],) * 2
        if isinstance(node, ast.Attribute):
            reading.attributes.add(node.attr)
            dotted = notebook.dotted(node, scope, when)
            reading.names.update(dotted)
            plain = all(_under(d, PLAIN_MODULES) for d in dotted) if dotted else node.attr in PLAIN_METHODS
            if not plain:
                reading.not_plain.append(f".{node.attr}")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            kind, _ = notebook.walk.resolve(node.id, scope)
            reading.names.update(notebook.dotted(node, scope, when))
            if kind == "global":
                reading.globals.add(node.id)
                reach(node.id, when)
            elif kind == "builtin":
                reading.builtins.add(node.id)
                if node.id not in PLAIN_BUILTINS:
                    reading.not_plain.append(node.id)
            elif kind == "unknown" and not any(_star_provides(star, node.id) for star in notebook.stars):
                reading.unknown.append(f"el nombre «{node.id}», que el cuaderno no define")

    reach(answer_name, (end, end))
    pending += [(unit, (notebook.position[id(unit)], end)) for unit in notebook.handed]  # a library may run it now
    pulled = set()
    while pending:
        unit, deferred = pending.pop()
        if (id(unit), deferred) not in seen_units:
            seen_units.add((id(unit), deferred))
            now = (*deferred, notebook.position[id(unit)])
            notebook.walk.run(unit, notebook.scopes.get(id(unit)), visit)
        if not pending:  # what replaces an attribute the code reads, through any name, is read too
            stores = [u for attribute in called - pulled for u in notebook.attribute_stores.get(attribute, [])]
            pulled |= called
            if calls_element:  # and what fills a container it reads, or one bound from it (it may reach more later)
                stores += [u for u, root in notebook.container_stores if notebook.may_hold(root, reading.globals)]
            stores = [(u, (notebook.position[id(u)], end)) for u in stores]
            pending.extend(entry for entry in stores if (id(entry[0]), entry[1]) not in seen_units)
    reading.unknown = list(dict.fromkeys(reading.unknown))
    reading.not_plain = list(dict.fromkeys(reading.not_plain))
    return reading
