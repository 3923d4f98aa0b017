"""The reading of one answer: the code that binds its name and everything that code can reach."""

import ast
import operator

from gradientes.reading import allowlist, cell_sources, notebook_index, syntax

# Methods that give back what a container holds.
TAKING = frozenset({"get", "pop", "setdefault"})

# The backward passes that can be given a gradient of the caller's own (``y.backward(v)``): how many positional
# arguments come before it, and the keywords that name it.
SEEDABLE = {"torch.autograd.grad": 2, "torch.autograd.backward": 1, "torch.Tensor.backward": 1}
SEED_KEYWORDS = frozenset({"gradient", "grad_tensors", "grad_outputs", None})  # (None: ``**argumentos``)


# What a notebook value that a prediction reads may be made of: an immutable value no other code can change (numbers,
# strings, tuples, arithmetic, ``math``, the notebook's other such values, and these builtins).
IMMUTABLE_NODES = (
    ast.Constant, ast.Tuple, ast.Name, ast.Load, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.Attribute, ast.Call, ast.keyword,
)  # fmt: skip
IMMUTABLE_BUILTINS = frozenset({"abs", "float", "int", "round", "min", "max", "pow", "bool", "str", "divmod"})


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
        if isinstance(node, ast.Attribute) and not all(
            allowlist.under(d, PLAIN_MODULES) for d in notebook.dotted(node, None)
        ):
            return False
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                if notebook.walk.resolve(node.func.id, None)[0] != "builtin" or node.func.id not in IMMUTABLE_BUILTINS:
                    return False
            elif not isinstance(node.func, ast.Attribute):
                return False
    return True


# The operators a literal real number may be written with (``-1 / 2``).
ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _complex_power(node):
    """Whether ``node`` is a literal power that gives a complex number (``(-1) ** 0.5``)."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Pow):
        return False
    base, exponent = _literal(node.left), _literal(node.right)
    return base is not None and exponent is not None and base < 0 and not float(exponent).is_integer()


def _literal(node):
    """The real number a literal written with signs, sums, products and quotients gives, or None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        return None if value is None else -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Div) and right == 0):
            return None
        return ARITHMETIC[type(node.op)](left, right)
    return None


class Reading:
    """What the code behind an answer reaches: ``names`` (dotted, aliases resolved), ``globals`` (the notebook's
    names), ``attributes``, ``builtins``, ``unknown`` (why the reading is not complete), ``not_plain`` (what a
    prediction may not contain) and ``seeded`` (where it gives a backward pass a gradient of its own)."""

    def __init__(self, found, names=(), attributes=(), used_builtins=(), unknown=(), not_plain=()):
        self.found, self.names, self.attributes = found, set(names), set(attributes)
        self.builtins, self.unknown, self.not_plain = set(used_builtins), list(unknown), list(not_plain)
        self.globals = set()  # the notebook's own top-level names it reaches
        self.seeded = []

    def mentions(self, api):
        """Whether the code reaches ``api``: a dotted prefix (``torch.func``), a method (``.backward``), a name
        the notebook defines (``Valor``) or a builtin (``complex``, also reached by a literal such as ``1j``)."""
        if api.startswith("."):
            return api[1:] in self.attributes
        return api in self.globals or api in self.builtins or any(allowlist.under(name, [api]) for name in self.names)

    def modules(self):
        """The modules the code reaches (the first part of each dotted name); ``sys`` only for its recursion limit,
        which computes nothing, is not one."""
        kept = {name for name in self.names if name not in allowlist.RECURSION_LIMIT}
        only_limit = {name for name in self.names - kept if not any(k.startswith("sys.") for k in kept)}
        return {name.split(".")[0] for name in kept if not (name == "sys" and only_limit)}


def _seeds(node, parent, dotted):
    """Whether ``node`` gives a backward pass a gradient of the code's own: ``y.backward(v)``,
    ``torch.autograd.grad(y, x, v)``, ``grad_outputs=v``, or such a function taken as a value (it may be called with
    anything)."""
    before = [SEEDABLE[api] for api in allowlist.same_objects(dotted, SEEDABLE)]
    if not before and isinstance(node, ast.Attribute) and node.attr == "backward" and not dotted:
        before = [0]  # a tensor's method: ``y.backward(v)``
    if not before:
        return False
    if not (isinstance(parent, ast.Call) and parent.func is node):
        return True
    starred = any(isinstance(a, ast.Starred) for a in parent.args)
    return starred or len(parent.args) > min(before) or any(k.arg in SEED_KEYWORDS for k in parent.keywords)


def untouched(answer_name, sources=None):
    """Whether ``answer_name`` is still the template of its answer cell: every binding that may hold is a function
    whose body only raises ``NotImplementedError`` (its docstring aside)."""
    notebook = notebook_index.notebook_reading(tuple(cell_sources.student_sources() if sources is None else sources))
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
    """The :class:`Reading` of the code that binds ``answer_name`` and of everything it can reach (an unknown one if
    the code is nested too deeply to follow)."""
    try:
        return _read(answer_name, sources)
    except RecursionError:
        return Reading(True, unknown=["un código tan anidado que no se puede leer"])


def _read(answer_name, sources):
    notebook = notebook_index.notebook_reading(tuple(cell_sources.student_sources() if sources is None else sources))
    if answer_name not in notebook.bindings:
        return Reading(False)
    reading = Reading(True, unknown=notebook.hidden)
    # What to read: a top-level statement, and when the code in its functions may run (its own code runs where it is).
    end = len(notebook.units)
    pending, seen_units, seen_names = [], set(), set()
    now = None  # when the functions of the statement being read may run, where the statement is, and the statement

    def reach(name, when):
        if (name, when) in seen_names:
            return
        seen_names.add((name, when))
        for unit, target in notebook.live(name, when):
            if target is not None:
                reading.names.add(allowlist.canonical(target))
            if target is None and not _immutable(notebook, unit, name):
                # another name may hold the same object and change it out of sight
                reading.not_plain.append(f"«{name}», un valor del cuaderno que otro código puede cambiar")
            pending.append((unit, (notebook.position[id(unit)], end)))  # its functions may run at any later time
        aliases = notebook.aliases(name)
        changes = [u for alias in aliases for u in notebook.changes.get(alias, [])]
        changes += [u for u, root in notebook.container_stores if root is not None and root.id in aliases]
        for unit in changes:
            pending.append((unit, (notebook.position[id(unit)], end)))
            if isinstance(unit, syntax.DEFINITIONS):
                pending.extend((u, (notebook.position[id(u)], end)) for u in notebook.calls.get(unit.name, []))

    called = set()  # the attributes the code reads (methods, module functions)
    calls_element = False  # whether it calls what a container holds (``reglas["tanh"](x)``, ``reglas.get("tanh")(x)``)

    def outlives(container, scope):
        """Whether ``container`` is reached from a value that outlives a call: a notebook name, a module, a default,
        or a display that holds one (``[numpy.sctypeDict][0]``); what a call returns is read where it is made."""
        while isinstance(container, ast.Attribute | ast.Subscript):
            container = container.value
        if isinstance(container, ast.List | ast.Tuple | ast.Set):
            return any(outlives(element, scope) for element in container.elts)
        if not isinstance(container, ast.Name):
            return False
        kind, imports = notebook.walk.resolve(container.id, scope)
        return kind == "global" or bool(imports) or (kind == "local" and syntax.defaulted(container.id, scope))

    def visit(node, scope):
        nonlocal calls_element
        parents = syntax.parents_of(now[3])
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            called.add(node.attr)  # read or called: what replaced it runs through it
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            calls_element = True  # ``reglas["tanh"](x)``
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TAKING:
            # ``reglas.get("tanh")(x)``, ``numpy.sctypeDict.get("k").metodo()``: what it takes may be code
            called_now = isinstance(parents.get(id(node)), ast.Call) and parents[id(node)].func is node
            calls_element |= called_now or outlives(node.func.value, scope)
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and syntax.element_local(node.func.id, scope)
        ):
            calls_element = True  # ``for f in TABLA: f(x)``
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            # ``TABLA[0]``, ``modelo.capas[0]``, ``memo["k"]`` (a default), ``numpy.sctypeDict["k"]``, ``[TABLA][0]``:
            # what the element of a value that outlives the call is may run code (``__getitem__``, a call, a method)
            calls_element |= outlives(node.value, scope)
        if not isinstance(node, PLAIN_NODES):
            reading.not_plain.append(type(node).__name__)
        if (isinstance(node, ast.Constant) and type(node.value) is complex) or _complex_power(node):
            reading.builtins.add("complex")
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            reading.not_plain.append("un decorador")
        if isinstance(node, syntax.FUNCTIONS):
            defaults = [d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None]
            if not all(_immutable_value(notebook, d) for d in defaults):
                reading.not_plain.append("un valor por omisión que otro código puede llenar")
        when = now[:2] if syntax.deferred_scope(scope) else (now[2],) * 2
        if isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Load):
            if _seeds(node, parents.get(id(node)), notebook.dotted(node, scope, when)):
                reading.seeded.append(ast.unparse(parents.get(id(node)) or node)[:60])
        if isinstance(node, ast.Attribute):
            reading.attributes.add(node.attr)
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            if private and node.attr not in notebook.own_attributes:
                reading.unknown.append(f"el atributo privado «.{node.attr}», que no define tu cuaderno")
            dotted = notebook.dotted(node, scope, when)
            reading.names.update(dotted)
            plain = all(allowlist.under(d, PLAIN_MODULES) for d in dotted) if dotted else node.attr in PLAIN_METHODS
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
            elif kind == "unknown" and not any(syntax.star_provides(star, node.id) for star in notebook.stars):
                reading.unknown.append(f"el nombre «{node.id}», que el cuaderno no define")

    reach(answer_name, (end, end))
    pending += [(unit, (notebook.position[id(unit)], end)) for unit in notebook.handed]  # a library may run it now
    pulled = set()
    while pending:
        unit, deferred = pending.pop()
        if (id(unit), deferred) not in seen_units:
            seen_units.add((id(unit), deferred))
            now = (*deferred, notebook.position[id(unit)], unit)
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
    reading.seeded = list(dict.fromkeys(reading.seeded))
    return reading
