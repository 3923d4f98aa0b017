"""What a notebook may import and reach, anywhere in it: an allowlist of modules and names, checked
against the modules as the grader has them."""

import collections.abc
import functools
import importlib
import sys
import types

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
        "os.environ.get", "os.getenv", "os.path", "os.getcwd", "os.listdir", "os.cpu_count", "pathlib.Path",
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
# What those modules also hold that turns bytes or text into code, or imports a module named by a text or a file
# (numpy's ``test`` runs pytest on the files it is given; the course's ``comprobar`` runs a text).
LIBRARY_REFUSED = (
    "torch.load", "torch.compile", "torch.set_default_tensor_type", "numpy.load", "matplotlib.use",
    "matplotlib.rc", "matplotlib.rcParams", "matplotlib.rc_context", "matplotlib.pyplot.switch_backend",
    "matplotlib.pyplot.rc", "matplotlib.pyplot.rcParams", "matplotlib.pyplot.rc_context", "gradientes.reading",
    "gradientes.selfcheck.comprobar", "numpy.test", "numpy.fft.test", "numpy.linalg.test", "numpy.polynomial.test",
    "numpy.random.test",
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


def canonical(dotted):
    """``torch.nn.functional.torch.autograd`` is ``torch.autograd``: a chain through a module exposed as an attribute
    starts again at that module."""
    return lookup(dotted)[0]


def named_object(dotted):
    """The object ``dotted`` names in a module already imported (nothing is imported here), or ``None``."""
    root, *parts = dotted.split(".")
    value = sys.modules.get(root)
    for part in parts:
        try:
            value = getattr(value, part)
        except Exception:  # any failure means: not an object we can name
            return None
    return value


def same_objects(names, apis):
    """The dotted APIs of ``apis`` that a name reaches under another path (``torch.nn.modules.activation.F.softplus``
    is ``torch.nn.functional.softplus``, ``torch.nn.Parameter.backward`` is ``torch.Tensor.backward``): compared as
    objects, every prefix of every name."""
    wanted = {}
    for api in apis:
        if not api.startswith(".") and (value := named_object(api)) is not None:
            wanted[id(value)] = api
    found = []
    for name in names:
        parts = name.split(".")
        for end in range(2, len(parts) + 1):
            value = named_object(".".join(parts[:end]))
            if value is not None and id(value) in wanted and wanted[id(value)] not in found:
                found.append(wanted[id(value)])
    return found


def under(dotted, prefixes):
    return any(dotted == p or dotted.startswith(f"{p}.") for p in prefixes)


def whole_module(name):
    """A module every public name of which the notebook may reach."""
    return name in LIBRARY_MODULES or under(name, LIBRARY_PACKAGES)


def passage(name):
    """A module the notebook may import, or reach, to use one of :data:`LIBRARY_NAMES` in it."""
    return whole_module(name) or any(n.startswith(f"{name}.") for n in LIBRARY_NAMES | LIBRARY_MODULES)


@functools.lru_cache(maxsize=8192)
def lookup(dotted):
    """``(canonical name, why the notebook may not reach it or None, what it is)`` of a dotted name (``"class"``,
    ``"callable"``, ``"module"``, ``"container"`` or ``"data"``; ``""`` if unknown): one of
    :data:`LIBRARY_NAMES`, or a public name of a module in :data:`LIBRARY_MODULES`, reached through modules that are
    allowed too. The modules are walked as the grader has them (a module not installed stays a name: nothing of it
    can run either)."""
    parts = dotted.split(".")
    if any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts):
        return dotted, f"«{dotted}», que no es público", ""
    try:
        value = (sys.modules.get(parts[0]) or importlib.import_module(parts[0])) if passage(parts[0]) else None
    except Exception:  # not installed (or broken): nothing of it can run
        return dotted, None, ""
    if value is None:
        return dotted, f"«{dotted}», de un módulo que la lectura no conoce", ""
    name, written, allowed = parts[0], parts[0], whole_module(parts[0])
    for part in parts[1:]:
        written = f"{written}.{part}"
        try:
            value = getattr(value, part)
        except Exception:
            try:
                value = importlib.import_module(f"{name}.{part}") if passage(f"{name}.{part}") else None
            except Exception:
                value = None
            if value is None:
                return dotted, f"«{dotted}», que no existe", ""
        if isinstance(value, types.ModuleType):
            name = written if written in LIBRARY_NAMES else value.__name__
            allowed = written in LIBRARY_NAMES or whole_module(name)
            if not (allowed or passage(name)):
                return name, f"«{dotted}», que lleva al módulo «{name}», que la lectura no conoce", ""
        else:
            name, allowed = f"{name}.{part}", allowed or written in LIBRARY_NAMES
    if not (allowed or (isinstance(value, types.ModuleType) and passage(name))):
        return name, f"«{dotted}», que la lectura no conoce", ""
    if under(name, LIBRARY_REFUSED) or under(written, LIBRARY_REFUSED):
        return name, f"«{dotted}», que convierte un texto en código o carga un módulo por su nombre", ""
    return name, None, kind_of(value)


def kind_of(value):
    """``"module"``, ``"class"`` (one whose attributes code can change: not ``numpy.float64``), ``"callable"``,
    ``"container"`` (a list, dict or set that other code of the library consults: ``copy.dispatch_table``,
    ``warnings.filters``) or ``"data"``."""
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type) and not value.__flags__ & IMMUTABLE_TYPE:
        return "class"
    if isinstance(value, MUTABLE_CONTAINERS):
        return "container"
    return "callable" if callable(value) else "data"


MUTABLE_CONTAINERS = (collections.abc.MutableMapping, collections.abc.MutableSequence, collections.abc.MutableSet)
