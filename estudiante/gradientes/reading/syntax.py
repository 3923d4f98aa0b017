"""What the reader needs to know about Python's syntax: scopes, the names a statement binds or reads, and
what an assignment binds to what."""

import ast
import builtins
import functools
import sys

from gradientes.reading import allowlist

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


SIMPLE_STATEMENTS = (
    ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign | ast.Import | ast.ImportFrom
)


class Scope:
    """A function, lambda, comprehension or class body: the names it binds (with what each import of them names)."""

    def __init__(self, node, parent):
        self.node, self.parent = node, parent
        self.kind = "class" if isinstance(node, ast.ClassDef) else "function"
        self.locals, self.declared_global, self.declared_nonlocal = {}, set(), set()
        if isinstance(node, COMPREHENSIONS):
            for generator in node.generators:
                self._targets(generator.target)
            return
        if isinstance(node, FUNCTIONS):
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
                pending.extend([*child.decorator_list, *outer_parts(child)])
                continue  # its body is another scope
            if isinstance(child, ast.Lambda):
                pending.extend(outer_parts(child))
                continue
            if isinstance(child, COMPREHENSIONS):
                pending.append(child.generators[0].iter)
                pending.extend(n.target for n in ast.walk(child) if isinstance(n, ast.NamedExpr))
                continue
            if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                self.locals.setdefault(child.id, [])
            elif isinstance(child, ast.Import | ast.ImportFrom):
                for name, target in import_targets(child):
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


def outer_parts(node):
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


def import_targets(node):
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


class Walk:
    """Walks code with its scopes, resolving every name it meets; ``visit(node, scope)`` sees each node."""

    def __init__(self, notebook):
        self.notebook = notebook

    def run(self, node, scope, visit):
        pending = [(node, scope)]
        while pending:
            node, scope = pending.pop()
            visit(node, scope)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                outer = [*getattr(node, "decorator_list", []), *outer_parts(node)]
                pending.extend((child, scope) for child in outer)
                inner = Scope(node, scope)
                body = node.body if isinstance(node.body, list) else [node.body]
                pending.extend((child, inner) for child in body)
            elif isinstance(node, COMPREHENSIONS):
                inner = Scope(node, scope)
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
            if current.kind == "class" and name in current.locals and self.resolve(name, None)[0] != "unknown":
                break  # a class body reads its names from the globals until it binds them (``sin = sin``)
            if name in current.locals:
                return "local", current.locals[name]
            current, first = current.parent, False
        if name in self.notebook.bindings:
            return "global", None
        if name in vars(builtins):
            return "builtin", None
        return "unknown", None


def star_provides(module, name):
    """Whether ``from module import *`` binds ``name``: known only for a module already imported here (the reader
    imports nothing); any other name a star import is said to bring is unknown."""
    found = sys.modules.get(module)
    if found is None:
        return False
    public = getattr(found, "__all__", None)
    return name in public if isinstance(public, list | tuple) else not name.startswith("_") and hasattr(found, name)


def binds_at_top(name, scope):
    """Whether ``name`` bound in ``scope`` is the notebook's top-level name (a comprehension's own variables stay in
    it; it binds in its enclosing scope only through a walrus)."""
    while scope is not None and isinstance(scope.node, COMPREHENSIONS):
        if name in scope.locals:
            return False
        scope = scope.parent
    return scope is None or name in scope.declared_global


@functools.lru_cache(maxsize=8192)
def unit_bindings(unit, start=None):
    """``[(name, import target or None, how)]`` for every top-level name one statement binds, wherever inside it: in a
    compound statement, a walrus, a ``global``. ``how`` is ``direct`` (a top-level statement that binds it whatever
    came before, so earlier bindings no longer count), ``deferred`` (in a function: it may run at any later time) or
    ``other`` (in a compound statement, or an augmented assignment). A star import is ``("*", module, None)``, and
    what cannot be read ``(".", reason, None)``."""
    found = []
    bare = {id(n.target) for n in ast.walk(unit) if isinstance(n, ast.AnnAssign) and n.value is None}  # ``x: int``

    def bind(name, scope, target=None):
        how = "deferred" if scope is not None else "direct" if isinstance(unit, SIMPLE_STATEMENTS) else "other"
        found.append((name, target, how))

    def visit(node, scope):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if binds_at_top(node.name, scope):
                bind(node.name, scope)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):  # (``del`` binds nothing, nor ``x: int``)
            if binds_at_top(node.id, scope) and id(node) not in bare:
                bind(node.id, scope)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            written = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name, target in import_targets(node):
                written.append(target.removesuffix(".*"))
                if target.startswith("."):
                    found.append((".", f"la importación relativa «{target}»", None))
                if name == "*":
                    found.append(("*", target[:-2], None))
                elif binds_at_top(name, scope):
                    bind(name, scope, target)
            for target in dict.fromkeys(written):
                if not target.startswith(".") and (refused := allowlist.lookup(target)[1]) is not None:
                    found.append((".", f"la importación de {refused}", None))
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            if binds_at_top(node.name, scope):
                bind(node.name, scope)
        elif isinstance(node, ast.MatchMapping) and node.rest and binds_at_top(node.rest, scope):
            bind(node.rest, scope)

    Walk(None).run(unit, start, visit)
    return found


@functools.lru_cache(maxsize=8192)
def loads_in(unit):
    """The names a statement reads while it runs (a function's body runs later, when it is called)."""
    pending, found = [unit], set()
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            pending.extend([*getattr(node, "decorator_list", []), *outer_parts(node)])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(found)


@functools.lru_cache(maxsize=8192)
def attributes_in(unit):
    return frozenset(node.attr for node in ast.walk(unit) if isinstance(node, ast.Attribute))


@functools.lru_cache(maxsize=8192)
def names_in(unit):
    return frozenset(node.id for node in ast.walk(unit) if isinstance(node, ast.Name))


def assignment(node):
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


def text_annotation(node):
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
def named_parts(unit):
    """``[(name, other)]``: ``unit`` binds ``name`` to ``other`` or to a part of it (``name = other[0]``, also through
    a display, a choice or a builtin that gives elements: ``max([otra])``, ``[otra][0]``)."""
    found = []
    for node in ast.walk(unit):
        assigned = assignment(node)
        if assigned is None or assigned[1] is None:
            continue
        targets = [n.id for t in assigned[0] for n in ast.walk(t) if isinstance(n, ast.Name)]
        used = set(_held_names(assigned[1])) - bound_inside(assigned[1])
        found += [(name, other) for name in targets for other in sorted(used)]
    return found


# Builtins that give back their argument's elements (``max([tabla])`` is ``tabla``), or an iterator over them.
ELEMENT_GIVERS = frozenset(
    "max min next iter sorted reversed list tuple set frozenset dict zip enumerate filter sum".split()
)


def _held_names(value):
    """The names whose object ``value`` may be, or hold a part of, without running the notebook's code: a name, a
    chain of one, a display, a choice (``a or b``, ``a if c else b``), what a builtin of :data:`ELEMENT_GIVERS`
    gives."""
    if isinstance(value, ast.Starred | ast.NamedExpr):
        return _held_names(value.value)
    if isinstance(value, ast.Attribute | ast.Subscript):
        root = root_name(value)
        return [root.id] if root is not None else _held_names(value.value)
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        parts = value.elts
    elif isinstance(value, ast.Dict | ast.BoolOp):
        parts = value.values
    elif isinstance(value, ast.IfExp):
        parts = [value.body, value.orelse]
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ELEMENT_GIVERS:
        parts = [*value.args, *(k.value for k in value.keywords)]
    else:
        return []
    return [n for part in parts for n in _held_names(part)]


def assigned_pairs(assigned):
    """``[(target, value)]`` of what :func:`assignment` found, a tuple unpacked from a tuple taken element by element
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


def aliased_globals(name, scope, resolve, depth=0):
    """The notebook names that the local ``name`` may be another name of, or a part of: ``m = MODULO``,
    ``t = PILA[-1]``, ``for t in PILA``, or another such local."""
    scope = binding_scope(name, scope)
    if scope is None or depth > 8:
        return set()
    found = set()
    for node in ast.walk(scope.node):
        pairs = assigned_pairs(assignment(node))
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            pairs = [(node.target, node.iter)]
        for target, value in pairs:
            if value is None or not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                continue
            roots = value.elts if isinstance(value, ast.Tuple | ast.List) else [value]
            for root in (root_name(r.value if isinstance(r, ast.Starred) else r) for r in roots):
                kind = resolve(root.id, scope)[0] if root is not None else None
                if kind == "global":
                    found.add(root.id)
                elif kind == "local" and root.id != name:
                    found |= aliased_globals(root.id, scope, resolve, depth + 1)
    return found


def binding_scope(name, scope):
    """The scope, from ``scope`` outwards, that binds ``name`` (None for a notebook name)."""
    while scope is not None and name not in scope.locals:
        scope = scope.parent
    return scope


def local_definitions(name, scope):
    """The ``def`` and ``class`` statements that define the local ``name`` in the scope that binds it."""
    scope = binding_scope(name, scope)
    if scope is None:
        return []
    return [n for n in ast.walk(scope.node) if n is not scope.node and isinstance(n, DEFINITIONS) and n.name == name]


def local_definition(name, scope):
    """Whether the local ``name`` is a function or class defined in its scope."""
    return bool(local_definitions(name, scope))


def defaulted(name, scope):
    """Whether the local ``name`` is a parameter with a default value (an object that outlives each call)."""
    scope = binding_scope(name, scope)
    if scope is None or not isinstance(scope.node, FUNCTIONS):
        return False
    arguments = scope.node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    with_default = positional[len(positional) - len(arguments.defaults) :]
    with_default += [a for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None]
    return any(a.arg == name for a in with_default)


def assigned_call(unit, name):
    """Whether ``unit`` binds ``name`` to what a call returns (or to a part of it)."""
    for node in ast.walk(unit):
        for target, value in assigned_pairs(assignment(node)):
            named = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))
            if named and value is not None and any(isinstance(n, ast.Call) for n in ast.walk(value)):
                return True
    return False


def element_local(name, scope):
    """Whether ``name`` is a local that may hold what a container held: bound by a loop, a comprehension, a ``with``
    or an assignment, not a parameter (what a call passes is read there) nor a ``def``."""
    scope = binding_scope(name, scope)
    if scope is None or scope.locals[name]:  # a notebook name, or an import
        return False
    if isinstance(scope.node, FUNCTIONS) and any(
        isinstance(a, ast.arg) and a.arg == name for a in ast.walk(scope.node.args)
    ):
        return False
    return not local_definition(name, scope)


def is_self(function, around, argument):
    """Whether ``argument`` is the ``self`` of a method: the first parameter of a function in a class body that is
    not a static or class method."""
    first = [*function.args.posonlyargs, *function.args.args][:1]
    kinds = ("staticmethod", "classmethod")
    decorated = any(isinstance(d, ast.Name) and d.id in kinds for d in function.decorator_list)
    return around.kind == "class" and first == [argument] and not decorated


def plain_class(node):
    """A class whose call always builds a new object of its own: no bases, no metaclass, no ``__new__``."""
    new = any(isinstance(n, ast.FunctionDef) and n.name == "__new__" for n in node.body)
    return not node.bases and not node.keywords and not new


def deferred_scope(scope):
    """Whether code in ``scope`` runs when its function is called (not where it is written)."""
    while scope is not None:
        if isinstance(scope.node, FUNCTIONS):
            return True
        scope = scope.parent
    return False


def in_class_body(node, unit):
    """Whether ``node`` runs in a class body (not in one of its methods): where an import binds a class attribute."""
    parent = parents_of(unit).get(id(node))
    while parent is not None and not isinstance(parent, FUNCTIONS):
        if isinstance(parent, ast.ClassDef):
            return True
        parent = parents_of(unit).get(id(parent))
    return False


def kept_for_later(generator, unit):
    """Whether a generator expression is kept (bound, stored, returned) rather than consumed where it is written: as
    the argument of a call, unpacked into several names, or what a ``for`` or a comprehension goes through."""
    parent = parents_of(unit).get(id(generator))
    if isinstance(parent, ast.Call) and generator in parent.args:
        return False
    if isinstance(parent, ast.Assign) and all(isinstance(t, ast.Tuple | ast.List) for t in parent.targets):
        return False  # ``a, b = (… for …)`` unpacks it at once
    return not (isinstance(parent, ast.For | ast.comprehension) and parent.iter is generator)


def root_name(node):
    """The name at the root of ``a.b[c].d``, or None (``f(x).d`` belongs to what ``f`` returned, not to ``f``)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node if isinstance(node, ast.Name) else None


@functools.lru_cache(maxsize=4096)
def parents_of(unit):
    parents = {}
    for parent in ast.walk(unit):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    return parents


def returned(function):
    """What the ``return`` statements of ``function`` give (not those of the functions defined inside it)."""
    found, pending = [], list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            found.append(node.value)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(node))
    return found


def bound_inside(value):
    """The names that a comprehension or a lambda inside ``value`` binds for itself."""
    found = set()
    for node in ast.walk(value):
        if isinstance(node, ast.comprehension):
            found |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Lambda):
            found |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    return found
