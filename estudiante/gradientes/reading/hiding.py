"""What in a statement can change a name or a library out of sight, or hand the notebook's code to a library that may
run it later: it makes every reading incomplete (``hidden``) or is read with every reading (``handed``, ``changes``).
A part of :class:`~gradientes.reading.notebook_index.Notebook`."""

import ast
import builtins

from gradientes.reading import allowlist, cell_sources, syntax

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
# Dunder attributes that only name or describe an object (reading them reaches nothing; of ``__code__``, only its
# ``co_`` descriptions: see ``_code_described``).
PLAIN_DUNDERS = frozenset(
    {"__name__", "__qualname__", "__doc__", "__version__", "__file__", "__module__", "__code__", "__class__"}
)
# Those that only name an object may also be written (a test gives its function a readable name).
NAMING_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__"})
# Builtins that only read what a class is (a class handed to them stays where it was).
CLASS_READERS = frozenset({"isinstance", "issubclass", "print", "str", "repr", "id", "hash", "format", "callable"})
# What a class defines to take over torch's functions on its objects.
TORCH_PROTOCOLS = frozenset({"__torch_function__", "__torch_dispatch__"})
# And the methods that other code runs on its own, at moments the reading cannot know (``issubclass`` in a warnings
# filter, the garbage collector), or that a metaclass defines.
IMPLICIT_PROTOCOLS = TORCH_PROTOCOLS | {
    "__subclasscheck__", "__instancecheck__", "__subclasshook__", "__del__", "__init_subclass__", "__set_name__",
    "__class_getitem__", "__getattr__", "__getattribute__", "__get__", "__set__", "__delete__", "__missing__",
}  # fmt: skip
# Library functions that set attributes named by strings when given these arguments (``assigned=("__code__",)``).
NAMED_COPIES = {"functools.update_wrapper": 2, "functools.wraps": 1}


class HidingRules:
    """The rules :meth:`_hiding` applies to each node of a top-level statement."""

    def _hiding(self, unit, node, scope):
        """Record what in ``node`` can rebind a name or a module's attribute out of sight (``hidden``), and which
        top-level names it changes or hands to other code (``changes``: reading a name reads them too)."""
        if cell_sources.magic_call(node) is not None:
            return
        resolve = self.walk.resolve
        if isinstance(node, ast.Name) and node.id in DYNAMIC_CALLS and isinstance(node.ctx, ast.Load):
            if resolve(node.id, scope)[0] in ("builtin", "unknown"):  # called, or handed on under another name
                self.hidden.append(f"{node.id}()")
        if isinstance(node, ast.ClassDef) and (
            any(k.arg == "metaclass" for k in node.keywords) or any(self._is_type(b, scope) for b in node.bases)
        ):
            self.hidden.append(f"la metaclase de «{node.name}»")
        if isinstance(node, ast.ClassDef) and not all(self._named_base(base, scope) for base in node.bases):
            self.hidden.append(f"la clase «{node.name}», derivada de algo que no es el nombre de una clase")
        if isinstance(node, ast.Import | ast.ImportFrom) and syntax.in_class_body(node, unit):
            self.hidden.append("un import dentro del cuerpo de una clase")
        if isinstance(node, ast.Nonlocal):
            self.hidden.append("«nonlocal», que cambia un nombre de otra función cuando se llama")
        if isinstance(node, ast.GeneratorExp) and syntax.kept_for_later(node, unit):
            self.hidden.append("una expresión generadora guardada, que se evalúa más tarde")
        if isinstance(node, syntax.DEFINITIONS):  # ``@registrar`` calls ``registrar`` with what it decorates
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(called, ast.Name) and resolve(called.id, scope)[0] == "global":
                    self.calls.setdefault(called.id, []).append(unit)
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
        if syntax.text_annotation(node):
            self.hidden.append("una anotación escrita como texto, que otra biblioteca puede evaluar como código")
        # ``case object(backward=b)`` reads an attribute, and ``case Vista(b)`` those its ``__match_args__`` names
        # (only a builtin type such as ``int(n)`` matches itself)
        if isinstance(node, ast.MatchClass) and (
            node.kwd_attrs or (node.patterns and not self._builtin_type(node.cls))
        ):
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
                if node.attr == "__code__" and not self._code_described(node, unit):
                    self.hidden.append("el código de una función usado como valor («__code__»)")
            parent = syntax.parents_of(unit).get(id(node))
            if not (isinstance(parent, ast.Attribute) and parent.value is node):  # the whole chain, not a part
                self.hidden += [r for name in self.dotted(node, scope) if (r := allowlist.lookup(name)[1])]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.hidden += [r for name in self.dotted(node, scope) if "." in name and (r := allowlist.lookup(name)[1])]
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            registries = [n for n in self.dotted(node, scope) if "." in n and allowlist.lookup(n)[2] == "container"]
            if registries and registries[0] != "os.environ":  # (``os.environ.get`` has a rule of its own)
                self.hidden.append(f"«{registries[0]}», un registro de una biblioteca que su propio código consulta")
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            parent = syntax.parents_of(unit).get(id(node))
            whole = not (isinstance(parent, ast.Attribute) and parent.value is node)
            alias = isinstance(parent, ast.Assign) and scope is None and isinstance(node, ast.Attribute)
            alias = alias and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)
            if whole and not alias and self._is_module(node, scope, unit):  # (``F = torch.nn.functional`` names it)
                self.hidden.append(f"el módulo «{ast.unparse(node)[:40]}» usado como valor")
            copies = [name for name in self.dotted(node, scope) if name in NAMED_COPIES] if whole else []
            if copies and not self._decorating(node, unit):  # ``functools.wraps(Clase)(modulo)`` copies into anything
                self.hidden.append(f"«{copies[0]}» fuera del decorador de una función")
        changed = None
        if isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            changed = syntax.root_name(node)
            if changed is None and isinstance(node, ast.Attribute):  # ``type(x).softmax = …`` may change a library
                self.hidden.append(f"un cambio en «{ast.unparse(node)[:40]}», que no es un nombre del cuaderno")
            if changed is not None:
                kind, imports = resolve(changed.id, scope)
                if imports or (kind == "global" and self._module_alias(changed.id)):
                    self.hidden.append(f"un cambio en el módulo «{changed.id}»")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            changed = syntax.root_name(node.func)  # a method may keep what it receives
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            changed = node.target  # ``d |= {…}`` changes in place what ``d`` is
        if changed is not None and resolve(changed.id, scope)[0] == "global" and not self._imported(changed.id):
            self.changes.setdefault(changed.id, []).append(unit)  # (a module's own changes are hidden, above)
        elif changed is not None and resolve(changed.id, scope)[0] == "local":
            for name in self._aliased_globals(changed.id, scope):  # ``m = MODULO; m.register_…(f)``
                if not self._imported(name):
                    self.changes.setdefault(name, []).append(unit)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and resolve(node.func.id, scope)[0] == "global":
                self.calls.setdefault(node.func.id, []).append(unit)
            # What the notebook's own code receives it may keep (a library or a builtin stores nothing of it in
            # the notebook's names); a function handed out stays the code it is.
            callee = syntax.root_name(node.func)
            kind, imports = resolve(callee.id, scope) if callee is not None else ("local", None)
            if (kind == "local" and not imports) or (kind == "global" and not self._imported(callee.id)):
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    argument = argument.value if isinstance(argument, ast.Starred) else argument
                    if isinstance(argument, ast.Name) and resolve(argument.id, scope)[0] == "global":
                        if not self._defined(argument.id):
                            self.changes.setdefault(argument.id, []).append(unit)

    def _aliased_globals(self, name, scope):
        """:func:`~gradientes.reading.syntax.aliased_globals`, once per function and name."""
        where = syntax.binding_scope(name, scope)
        key = ("aliased", id(where.node) if where is not None else None, name)
        if key not in self.memo:
            self.memo[key] = syntax.aliased_globals(name, scope, self.walk.resolve)
        return self.memo[key]

    def _builtin_type(self, node):
        """Whether ``node`` names one of Python's own types (``int``, ``str``), never rebound by the notebook."""
        return (
            isinstance(node, ast.Name)
            and node.id not in self.bindings
            and isinstance(vars(builtins).get(node.id), type)
        )

    def _named_base(self, base, scope):
        """Whether a class's ``base`` names a class: a name, or a chain of a library (``nn.Module``). What an
        expression gives (``type(exit)``, ``exit.__class__``) may be a class that IPython calls on its own."""
        return isinstance(base, ast.Name) or (isinstance(base, ast.Attribute) and bool(self.dotted(base, scope)))

    def _is_type(self, node, scope):
        return isinstance(node, ast.Name) and node.id == "type" and self.walk.resolve("type", scope)[0] == "builtin"

    def _handed_code(self, unit, call, scope):
        """Whether ``call`` gives notebook code (a lambda, a notebook function or class, one of its methods) to a
        library's function that may keep it and run it later, during any other call (``numpy.seterrcall(f)``, a
        filter of ``warnings``, ``abc`` registers): builtins and :data:`.CALL_ONLY` only call it while they run, and so
        does a context manager whose ``with`` never stops halfway (no ``yield`` or ``await`` in it)."""
        names = self.dotted(call.func, scope)
        if not names or all(
            allowlist.under(n, allowlist.CALL_ONLY) or allowlist.under(n, allowlist.LIBRARY_PACKAGES) for n in names
        ):
            return False
        parents = syntax.parents_of(unit)
        item = parents.get(id(call))
        block = parents.get(id(item))
        if isinstance(item, ast.withitem) and item.context_expr is call and isinstance(block, ast.With):
            if not any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Await) for n in ast.walk(block)):
                return False
        return any(
            self._mentions_code(a, scope, library=False) for a in [*call.args, *(k.value for k in call.keywords)]
        )

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
        while scope is not None and not isinstance(scope.node, syntax.FUNCTIONS[:2]):
            scope = scope.parent
        if scope is None or scope.parent is None:
            return False
        first = [*scope.node.args.posonlyargs, *scope.node.args.args][:1]
        return bool(first) and first[0].arg == name and syntax.is_self(scope.node, scope.parent, first[0])

    def _names_a_module(self, call, scope):
        """Whether ``call`` makes a library import a module named by a text: ``importlib.util.find_spec`` of a module
        that is not one the course looks for, or a tensor's ``.type("…")`` (a dotted name it imports)."""
        if isinstance(call.func, ast.Attribute) and call.func.attr == "type":
            named = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "dtype")]
            return any(not self.dotted(a, scope) for a in named)  # ``x.type(torch.float64)`` names no module
        if "importlib.util.find_spec" not in self.dotted(call.func, scope):
            return False
        named = call.args[0] if call.args else None
        return not (isinstance(named, ast.Constant) and named.value in allowlist.FOUND_BY_NAME)

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
            parent = syntax.parents_of(unit).get(id(node))
            if isinstance(parent, ast.Attribute) and parent.value is node:
                return False  # a part of a longer chain
            if not any(allowlist.lookup(name)[2] == "class" for name in self.dotted(node, scope)):
                return False
        parents = syntax.parents_of(unit)
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

    @staticmethod
    def _code_described(node, unit):
        """Whether ``f.__code__`` only gives one of its descriptions (``.co_filename``): not a code object that
        ``.replace()`` or the function type would turn into other code."""
        parent = syntax.parents_of(unit).get(id(node))
        return isinstance(parent, ast.Attribute) and parent.attr.startswith("co_") and parent.attr != "co_consts"

    @staticmethod
    def _decorating(node, unit):
        """Whether ``node`` is called as a decorator of a function (``@functools.wraps(f)``)."""
        parents = syntax.parents_of(unit)
        call = parents.get(id(node))
        function = parents.get(id(call))
        return (
            isinstance(call, ast.Call)
            and call.func is node
            and isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            and call in function.decorator_list
        )

    def _is_module(self, node, scope, unit=None):
        """Whether a chain is a module (``torch.nn.functional.math``: a chain of modules), or a name is one where
        ``unit`` uses it (anywhere if None): every binding of it that may hold there is an import of a module, or a
        notebook name assigned a chain that is one (``F = torch.nn.functional``)."""
        if isinstance(node, ast.Attribute):
            return any(allowlist.lookup(name)[2] == "module" for name in self.dotted(node, scope))
        kind, imports = self.walk.resolve(node.id, scope)
        if kind == "local":
            return bool(imports) and all(allowlist.lookup(target)[2] == "module" for target in imports)
        if kind != "global":
            return False
        when = None
        if unit is not None:
            position = self.position[id(unit)]
            when = (position, len(self.units) if syntax.deferred_scope(scope) else position)
        bindings = self.live(node.id, when)
        return bool(bindings) and all(
            allowlist.lookup(target)[2] == "module"
            if target is not None
            else isinstance(binding, ast.Assign)
            and isinstance(binding.value, ast.Attribute)
            and self._is_module(binding.value, None)
            for binding, target in bindings
        )

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
        """``get_ipython`` in the call of a magic (read as such, see :func:`.magic_call`)."""
        parents = syntax.parents_of(unit)
        call = parents.get(id(node))
        attribute = parents.get(id(call))
        return node.id == "get_ipython" and cell_sources.magic_call(parents.get(id(attribute))) is not None
