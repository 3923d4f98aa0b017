"""What a value of the notebook may be: code (a function, a method, an object of a notebook class), a new object
its function made, a tensor, or a library's object. A part of :class:`~gradientes.reading.notebook_index.Notebook`,
which gives it ``bindings``, ``methods``, ``walk`` and ``dotted``."""

import ast

from gradientes.reading import allowlist, syntax

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


class ValueKinds:
    """How the notebook's reading classifies a value (an expression) or a name.

    Whether a value is code is asked three ways, from the widest answer to the narrowest, because a wrong answer costs
    differently in each place: :meth:`_may_hold_code` (anything but a literal, arithmetic or a tensor) decides which
    stores are indexed, to be read with whatever reads them, where reading too much costs nothing;
    :meth:`_mentions_code` (a lambda, a function, a class or a method named in it) decides which stores into a
    library's object make every reading incomplete, and which calls hand code to a library that may keep it, where
    too wide an answer would fail honest notebooks; :meth:`_gives_code` follows what a name, a call or a container
    gives (``e = Empaque()``, ``hacer()``) behind both."""

    def _tensor_only(self, name):
        """Whether every binding of the notebook name ``name`` is a number or a tensor that one of torch's
        constructors makes (``x = torch.linspace(…).requires_grad_()``): it holds no code."""

        def tensor(value):
            while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                if self.dotted(value.func, None):
                    return self._makes_tensor(value.func, None)
                value = value.func.value  # a method of what it makes (``.requires_grad_()``, ``.double()``)
            return isinstance(value, ast.Constant)

        bindings = self.bindings.get(name, [])
        return bool(bindings) and all(
            target is None and all(tensor(v) for v in self._bound_values(name, None, follow=False)[0])
            for _, target in bindings
        )

    def _foreign(self, container, scope):
        """Whether ``container`` (what ``container[k] = …`` or ``container.update(…)`` fills) may be a library's object:
        it is reached from a module (``numpy.sctypeDict``) or from what an expression gives (``[d][0]``), not from a
        name of the notebook or of its function."""
        root = syntax.root_name(container)
        if root is None:
            return True
        kind, imports = self.walk.resolve(root.id, scope)
        return bool(imports) or kind in ("builtin", "unknown") or (kind == "global" and self._imported(root.id))

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
            (isinstance(unit, syntax.DEFINITIONS) and unit.name == value.id) or self._made_here(unit, value.id)
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
        return bool(names) and all(allowlist.lookup(n)[2] == "class" for n in names)

    def _mentions_code(self, value, scope, library=True, seen=None):
        """Whether ``value`` may be a function: it mentions a lambda, a notebook function or class, a method the
        notebook defines, or a library's function or class without calling it (``torch.Tensor.sum_to_size``), or it
        is what a notebook function returns. With ``library=False`` (what is handed to a library), only the notebook's
        own code that is not called there counts."""
        if value is None:
            return True
        seen = set() if seen is None else seen
        parents = syntax.parents_of(value)
        inner = syntax.bound_inside(value)  # ``[[x] for x, _ in DATOS]``: its ``x`` is what ``DATOS`` holds
        for node in ast.walk(value):
            parent = parents.get(id(node))
            called = isinstance(parent, ast.Call) and parent.func is node
            if called and not library:  # called here, not handed over (``torch.tensor([f(v) for v in datos])``),
                # but an object of a notebook class is, and so is what a function that returns code gives
                if self._is_class(node, scope) or self._returns_code(node, scope, seen):
                    return True
                continue
            if isinstance(node, ast.Lambda):
                return True
            if isinstance(node, ast.Attribute) and node.attr in self.methods and not called:
                return True
            if library and isinstance(node, ast.Name | ast.Attribute) and not called:
                if any(allowlist.lookup(n)[2] in ("class", "callable") for n in self.dotted(node, scope)):
                    return True
            if isinstance(node, ast.Name):
                kind = self.walk.resolve(node.id, scope)[0]
                if kind == "global" and any(isinstance(u, syntax.DEFINITIONS) for u, _ in self.bindings[node.id]):
                    return True
                if kind == "local" and not called and syntax.local_definition(node.id, scope):
                    return True
                handed = not called and not (isinstance(parent, ast.Attribute) and parent.value is node)
                if not library and handed and node.id not in inner and self._gives_code(node, scope, seen):
                    return True  # ``e = Empaque()`` handed as ``e``
        return False

    def _gives_code(self, value, scope, seen, own=frozenset()):
        """Whether what ``value`` gives may be code (not whether code is mentioned in it): a lambda, a notebook function
        or class, a method, an object of a notebook class, what a function that returns code gives, a container
        of any of them, a name bound to one, or what a library's function gives when it receives one (it may give it
        back). What the course's package, a tensor constructor or :data:`.CALL_ONLY` give is data."""
        if isinstance(value, ast.Lambda):
            return True
        if isinstance(value, ast.Name):
            if value.id in own:  # a comprehension's variable: what it runs over is read instead
                return False
            kind = self.walk.resolve(value.id, scope)[0]
            if kind not in ("global", "local") or (value.id, kind, id(scope)) in seen:
                return False
            seen.add((value.id, kind, id(scope)))
            if kind == "global" and any(isinstance(u, syntax.DEFINITIONS) for u, _ in self.bindings[value.id]):
                return True
            if kind == "local" and syntax.local_definition(value.id, scope):
                return True
            values, where = self._bound_values(value.id, scope if kind == "local" else None)
            return any(v is not None and self._gives_code(v, where, seen) for v in values)
        if isinstance(value, ast.Attribute):
            return value.attr in self.methods
        if isinstance(value, ast.Call):
            func = value.func
            if self._is_class(func, scope):
                return True
            if self._notebook_function(func, scope):
                return self._returns_code(func, scope, seen)
            names = self.dotted(func, scope)
            data = (allowlist.LIBRARY_PACKAGES, allowlist.CALL_ONLY, TENSOR_MAKERS)
            if names and all(any(allowlist.under(n, prefixes) for prefixes in data) for n in names):
                return False
            given = [*value.args, *(k.value for k in value.keywords)]  # it may give back what it receives,
            if isinstance(func, ast.Attribute) and not names:  # and a method, what its object holds (``d.get(k)``)
                given.append(func.value)
            return any(self._gives_code(a, scope, seen, own) for a in given)
        if isinstance(value, ast.Tuple | ast.List | ast.Set):
            return any(self._gives_code(e, scope, seen, own) for e in value.elts)
        if isinstance(value, ast.Dict):
            return any(self._gives_code(v, scope, seen, own) for v in value.values)
        if isinstance(value, syntax.COMPREHENSIONS):
            variables = own | syntax.bound_inside(value)  # they hold what they run over, which is read
            parts = [value.value] if isinstance(value, ast.DictComp) else [value.elt]
            return any(self._gives_code(part, scope, seen, variables) for part in parts) or any(
                self._gives_code(g.iter, scope, seen, own) for g in value.generators
            )
        if isinstance(value, ast.IfExp):
            return self._gives_code(value.body, scope, seen, own) or self._gives_code(value.orelse, scope, seen, own)
        if isinstance(value, ast.BoolOp):
            return any(self._gives_code(v, scope, seen, own) for v in value.values)
        if isinstance(value, ast.NamedExpr | ast.Starred | ast.Subscript | ast.Await):
            return self._gives_code(value.value, scope, seen, own)
        return False

    def _notebook_function(self, node, scope):
        """Whether ``node`` names a function the notebook defines, or one of its classes' methods."""
        if isinstance(node, ast.Attribute):
            return node.attr in self.methods
        if not isinstance(node, ast.Name):
            return False
        kind = self.walk.resolve(node.id, scope)[0]
        if kind == "global":
            return all(isinstance(u, ast.FunctionDef | ast.AsyncFunctionDef) for u, _ in self.bindings[node.id])
        return kind == "local" and syntax.local_definition(node.id, scope) and not self._is_class(node, scope)

    def _returns_code(self, node, scope, seen):
        """Whether calling ``node`` (a notebook function, or a method the notebook defines) may give code: one of its
        ``return`` statements gives a lambda, a function, an object of a notebook class…"""
        if isinstance(node, ast.Attribute) and node.attr in self.methods:
            functions, around = self.methods[node.attr], None
        elif isinstance(node, ast.Name) and self.walk.resolve(node.id, scope)[0] == "global":
            functions = [u for u, _ in self.bindings[node.id] if isinstance(u, ast.FunctionDef | ast.AsyncFunctionDef)]
            around = None
        elif isinstance(node, ast.Name) and syntax.local_definition(node.id, scope):
            around = syntax.binding_scope(node.id, scope)
            functions = [f for f in syntax.local_definitions(node.id, scope) if not isinstance(f, ast.ClassDef)]
        else:
            return False
        for function in functions:
            if ("returns", id(function)) in seen:
                continue
            seen.add(("returns", id(function)))
            inner = syntax.Scope(function, around)
            if any(self._gives_code(value, inner, seen) for value in syntax.returned(function)):
                return True
        return False

    def _is_class(self, node, scope):
        """Whether ``node`` names a class the notebook defines (what calling it gives has the class's methods)."""
        if not isinstance(node, ast.Name):
            return False
        kind = self.walk.resolve(node.id, scope)[0]
        if kind == "global":
            return any(isinstance(u, ast.ClassDef) for u, _ in self.bindings[node.id])
        return kind == "local" and any(isinstance(n, ast.ClassDef) for n in syntax.local_definitions(node.id, scope))

    def _bound_values(self, name, scope, follow=True):
        """``(values, scope)``: what the assignments of ``name`` (a notebook name if ``scope`` is None, else a local of
        ``scope``) bind it to, what a loop variable takes (:meth:`_elements`; with ``follow=False``, the whole
        iterable), and None where it cannot be known (``with``)."""
        if scope is None:
            nodes = [node for unit, target in self.bindings.get(name, []) if target is None for node in ast.walk(unit)]
        else:
            scope = syntax.binding_scope(name, scope)
            nodes = list(ast.walk(scope.node)) if scope is not None else []
        values = []
        for node in nodes:
            pairs = syntax.assigned_pairs(syntax.assignment(node))
            if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                pairs = [(node.target, node.iter)]
            for target, value in pairs:
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                    looped = follow and isinstance(node, ast.For | ast.AsyncFor | ast.comprehension)
                    values.append(self._elements(target, name, value, scope) if looped else value)
        return values, scope

    def _elements(self, target, name, iterable, scope):
        """What a loop's ``name`` takes from ``iterable``: with ``for a, b in [(f, 1), (g, 2)]`` (or a name bound only
        to such a list), ``b`` takes only the second places (``(1, 2)``); otherwise, anything the iterable holds."""
        places = [i for i, e in enumerate(getattr(target, "elts", [])) if isinstance(e, ast.Name) and e.id == name]
        displays = [iterable]
        kind = self.walk.resolve(iterable.id, scope)[0] if isinstance(iterable, ast.Name) else None
        if kind in ("global", "local"):
            displays = self._bound_values(iterable.id, scope if kind == "local" else None, follow=False)[0]
        rows = [row for display in displays for row in getattr(display, "elts", [None])]
        if not places or not displays or not all(isinstance(d, ast.List | ast.Tuple) for d in displays):
            return iterable
        if not all(isinstance(row, ast.Tuple | ast.List) and len(row.elts) == len(target.elts) for row in rows):
            return iterable
        return ast.Tuple(elts=[row.elts[places[0]] for row in rows], ctx=ast.Load())

    def _global_root(self, node, scope):
        """The notebook name at the root of ``node``, or None if it is an expression or a function's local (another
        name of who knows what)."""
        root = syntax.root_name(node)
        return root if root is not None and self.walk.resolve(root.id, scope)[0] == "global" else None

    def _fresh_local(self, root, scope):
        """Whether ``root`` (the ``t`` of ``t[k] = …``, ``t.a = …``) is a local that its function only ever binds to a
        new object (``t = {}``, ``t = dict(…)``, ``t = torch.zeros(…)``), or a method's ``self``. A parameter, or a
        local bound otherwise (``t = next(iter([REGLAS]))``, by a loop), may be any object."""
        if not isinstance(root, ast.Name) or self.walk.resolve(root.id, scope)[0] != "local":
            return False
        scope = syntax.binding_scope(root.id, scope)
        key = ("fresh", id(scope.node), root.id)  # once per function and name: a function of 2 000 stores is read once
        if key not in self.memo:
            self.memo[key] = self._fresh_in(root, scope)
        return self.memo[key]

    def _fresh_in(self, root, scope):
        """:meth:`_fresh_local` for ``root``, a local that ``scope`` binds."""
        if isinstance(scope.node, syntax.FUNCTIONS):  # what it receives, but a method's ``self``
            received = [a for a in ast.walk(scope.node.args) if isinstance(a, ast.arg) and a.arg == root.id]
            if received and not (scope.parent is not None and syntax.is_self(scope.node, scope.parent, received[0])):
                return False
        for binding in ast.walk(scope.node):
            for target, value in syntax.assigned_pairs(syntax.assignment(binding)):
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
            return all(isinstance(u, ast.ClassDef) and syntax.plain_class(u) for u in units)  # ``Valor(…)``
        return self._makes_tensor(value.func, scope)

    def _may_hold_code(self, value):
        """Whether a value may be code (a function, a method, a class): not a literal, arithmetic, or what a module's
        function returns (``torch.zeros_like(x)``, a tensor); what the notebook's own functions return may be."""
        if isinstance(value, ast.Constant):
            return False
        if isinstance(value, ast.BinOp | ast.UnaryOp | ast.Compare | ast.BoolOp):  # an operator may return anything
            parts = [n for n in ast.iter_child_nodes(value) if isinstance(n, ast.expr)]
            return any(self._may_hold_code(part) for part in parts)
        if isinstance(value, syntax.COMPREHENSIONS):  # what it builds holds its elements
            return self._may_hold_code(value.value if isinstance(value, ast.DictComp) else value.elt)
        if isinstance(value, ast.Dict):
            return any(self._may_hold_code(v) for v in value.values)
        if isinstance(value, ast.Tuple | ast.List | ast.Set):
            return any(self._may_hold_code(v) for v in value.elts)
        if isinstance(value, ast.Call):  # what torch's tensor constructors return is a tensor
            return not self._makes_tensor(value.func, None)
        return True

    def _defined(self, name):
        """A top-level name that only ``def`` or ``class`` statements bind."""
        units = [unit for unit, _ in self.bindings.get(name, [])]
        return bool(units) and all(isinstance(u, syntax.DEFINITIONS) and u.name == name for u in units)

    def _imported(self, name):
        """A top-level name that some import binds."""
        return any(t is not None for _, t in self.bindings.get(name, []))

    def _only_imported(self, name):
        """A top-level name that imports bind, and nothing else."""
        bindings = self.bindings.get(name, [])
        return bool(bindings) and all(t is not None for _, t in bindings)

    def _makes_tensor(self, func, scope):
        """Whether calling ``func`` is one of torch's tensor constructors (what it gives is data, never code)."""
        names = self.dotted(func, scope)
        return bool(names) and all(allowlist.under(name, TENSOR_MAKERS) for name in names)
