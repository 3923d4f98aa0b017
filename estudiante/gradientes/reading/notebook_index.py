"""Every cell of a notebook read at once: the bindings of each name, what changes or hands out each one, and what
makes any reading incomplete."""

import ast
import builtins
import copy
import functools
import keyword
import re

from gradientes.reading import allowlist, cell_sources, syntax
from gradientes.reading.hiding import HidingRules
from gradientes.reading.values import ValueKinds

# Methods that put what they receive into a container.
FILLING = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})


_SCANS = {}  # (top-level statement, the bindings of the names it uses) -> what _hiding found there


class Notebook(HidingRules, ValueKinds):
    """Every cell read at once: each top-level name's bindings, the statements that change or hand out a name
    (``changes``), the statements that call a top-level function (``calls``: what a function that changes a name
    receives may end up in it), and what makes the whole reading unknown (``hidden``)."""

    def __init__(self, sources):
        self.bindings, self.changes, self.calls, self.stars, self.hidden, self.units = {}, {}, {}, [], [], []
        self.handed = []  # statements that give notebook code to a library that may keep it
        self.expanded = {}  # the names that the line of a magic writes in ({paquete}): whether %pip installs them
        self._order, self.scopes, self._aliases, self._bound_to = {}, {}, {}, None  # scopes: id(statement) -> where
        self.memo = {}  # what is asked of a function's locals, once per function and name
        raised, automagic = set(), []
        self._magic_code = set()  # the statements a code magic runs: %%capture and %%time may swallow their exception
        for source in sources:
            prefiltered = isinstance(source, cell_sources.HistoryCell)  # (a magic already ran as one)
            module, reasons = cell_sources.parse(str(source), prefiltered)
            self.hidden += reasons
            if not prefiltered and (magic := cell_sources.automagic(str(source))) is not None:
                automagic.append((magic, len(self.units)))  # shadowed only by what the cells before it bind
            if module is not None:
                module = self._add(module)
                if isinstance(source, cell_sources.RaisedCell):
                    raised.update(id(unit) for unit in module.body)
        self.walk = syntax.Walk(self)
        self.position = {id(unit): i for i, unit in enumerate(self.units)}  # cells run in order
        for unit in self.units:
            for name, target, how in syntax.unit_bindings(unit, self.scopes.get(id(unit))):
                how = "other" if how == "direct" and (id(unit) in raised or id(unit) in self._magic_code) else how
                if name == "*":
                    self.stars.append(target)
                elif name == ".":
                    self.hidden.append(target)
                else:
                    self._order.setdefault(name, []).append(how)
                    self.bindings.setdefault(name, []).append((unit, target))
        for name, position in automagic:
            bound = [
                how
                for (unit, _), how in zip(self.bindings.get(name, []), self._order.get(name, []), strict=True)
                if how == "direct" and self.position[id(unit)] < position
            ]
            if not bound and not (hasattr(builtins, name) or keyword.iskeyword(name)):
                self.hidden.append(f"una celda de una línea que IPython ejecuta como la orden mágica «{name}»")
        for name, package in self.expanded.items():
            bindings = self.bindings.get(name, [(None, None)])
            if not all(self._text_only(unit, name, package) and target is None for unit, target in bindings):
                what = "el paquete del curso" if package else "un texto"
                self.hidden.append(f"«{{{name}}}» en una orden mágica, que no es {what}")
        if "getattr" in self.bindings:  # a literal getattr() is read as an attribute: it must be the builtin
            self.hidden.append("«getattr» redefinido")
        classes = [node for unit in self.units for node in ast.walk(unit) if isinstance(node, ast.ClassDef)]
        self.methods = {}  # the name of each method of a notebook class: its definitions
        for method in (f for c in classes for f in c.body if isinstance(f, syntax.DEFINITIONS[:2])):
            self.methods.setdefault(method.name, []).append(method)
        # The attributes the notebook's own code defines (stored, methods, class attributes): a private one that it
        # does not define (``t._grad_fn``) belongs to a library, and reaches what its public names do not.
        # One that a library's objects have (``_grad_fn``) stays theirs even if the notebook writes it somewhere.
        self.own_attributes = set(self.methods) | {
            node.attr
            for unit in self.units
            for node in ast.walk(unit)
            if isinstance(node, ast.Attribute)
            and not isinstance(node.ctx, ast.Load)
            and node.attr not in _library_privates()
        }
        self.own_attributes |= {
            target.id
            for c in classes
            for statement in c.body
            for target in (syntax.assignment(statement) or ([], None))[0]
            if isinstance(target, ast.Name)
        }
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
            (n, tuple(self.bindings[n]), tuple(self._order[n])) for n in syntax.names_in(unit) if n in self.bindings
        )
        key = (
            unit,
            self.position[id(unit)],
            signature,
            tuple(self.stars),
            frozenset(self.methods.keys() & syntax.attributes_in(unit)),
        )
        found = _SCANS.get(key)
        if found is None:
            hidden, handed, changes, calls = len(self.hidden), len(self.handed), {}, {}
            self.changes, saved_changes = changes, self.changes
            self.calls, saved_calls = calls, self.calls
            self.walk.run(unit, self.scopes.get(id(unit)), functools.partial(self._hiding, unit))
            self.changes, self.calls = saved_changes, saved_calls
            found = (self.hidden[hidden:], self.handed[handed:], changes, calls)
            del self.hidden[hidden:], self.handed[handed:]
            if len(_SCANS) > 20000:
                _SCANS.clear()
            _SCANS[key] = found
        hidden, handed, changes, calls = found
        self.hidden += hidden
        self.handed += handed
        for name, units in changes.items():
            self.changes.setdefault(name, []).extend(units)
        for name, units in calls.items():
            self.calls.setdefault(name, []).extend(units)

    def _add(self, module, own_scope=False):
        """Index one module's top-level statements (and the Python that its code magics run). Code that runs in a
        scope of its own (``own_scope``: %%timeit, a test cell) is read for what it does to the notebook's names,
        but the names it binds are its own. A cell run twice gets a copy of its parse (which is shared by text), so
        that each run has its own position; returns the module indexed."""
        if {id(unit) for unit in module.body} & {id(unit) for unit in self.units}:
            module = copy.deepcopy(module)
        scope = syntax.Scope(module, None) if own_scope else None
        for unit in module.body:
            self.units.append(unit)
            if scope is not None:
                self.scopes[id(unit)] = scope
            for node in ast.walk(unit):
                magic = cell_sources.magic_call(node)
                if magic is None:
                    continue
                kind, name, text = magic
                line = next(iter(node.args[:1] if kind in ("system", "getoutput") else node.args[1:2]), None)
                if name not in cell_sources.CODE_MAGICS and line is not None:  # IPython runs {…} and $x in its line
                    self._expansions(name or kind, line)
                if name in cell_sources.CODE_MAGICS and text is not None:
                    extra, reasons = cell_sources.parse(text)
                    self.hidden += reasons
                    if extra is None and text.strip():
                        self.hidden.append(f"el código de la orden mágica «{name}», que no se puede leer")
                    elif extra is not None:
                        start = len(self.units)
                        self._add(extra, own_scope or name in cell_sources.OWN_SCOPE_MAGICS)
                        self._magic_code.update(id(u) for u in self.units[start:])
                elif name in cell_sources.CODE_MAGICS:
                    self.hidden.append(f"la línea de la orden mágica «{name}»")
                elif name in cell_sources.SAFE_LINES:
                    if kind != "run_line_magic" or text is None or not cell_sources.SAFE_LINES[name].fullmatch(text):
                        self.hidden.append(f"la orden mágica «{name}» con «{(text or '').strip()[:40]}»")
                elif name not in cell_sources.SAFE_MAGICS:
                    self.hidden.append(f"la orden mágica de IPython «{name or kind}»")
        return module

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
                self.expanded[written] = self.expanded.get(written, False) or name == "pip"

    def _text_only(self, unit, name, package=False):
        """Whether every binding of ``name`` in ``unit`` gives it a text: a string literal, or an environment variable
        with a literal default (``os.environ.get("X", "…")``); formatting a text runs nothing. What %pip installs
        (``package``) must be the environment's, with a default that names a package
        (:data:`~gradientes.reading.cell_sources.PACKAGE_SPEC`)."""
        if unit is None:
            return False
        found = False
        for node in ast.walk(unit):
            assigned = syntax.assignment(node)
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
            if package:
                literal = False
                environment = environment and cell_sources.PACKAGE_SPEC.fullmatch(value.args[1].value) is not None
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
        while start and name in syntax.loads_in(bindings[start][0]):
            start = direct.pop() if direct else 0
        return [
            b
            for i, (b, how) in enumerate(zip(bindings, order, strict=True))
            if (i >= start and positions[i] <= last) or how == "deferred"
        ]

    def _index_store(self, unit, node, scope):
        """Index a statement that puts code into an attribute or a container element (for :func:`.read`), whatever
        object it reaches them through, except an object its function made itself (:meth:`_fresh_local`)."""
        arguments = [*node.args, *(k.value for k in node.keywords)] if isinstance(node, ast.Call) else []
        names = self.dotted(node.func, scope) if arguments else []
        course = names and all(allowlist.under(n, allowlist.LIBRARY_PACKAGES) for n in names)
        code = [a for a in arguments if self._mentions_code(a, scope, False)] if names and not course else []
        for argument in arguments if code else []:  # ``heapq.heappush(TABLA, f)``: a library may fill what it gets
            root = self._global_root(argument, scope)  # (a local it fills is read where the function is)
            if argument not in code and root is not None and not self._tensor_only(root.id):
                self.container_stores.append((unit, root))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILLING:
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(self._may_hold_code(a) for a in arguments):
                if not self._fresh_local(node.func.value, scope):  # ``reglas.update(tanh=f)``
                    self.container_stores.append((unit, self._global_root(node.func.value, scope)))
                if self._foreign(node.func.value, scope) and any(self._mentions_code(a, scope) for a in arguments):
                    written = ast.unparse(node.func)[:40]
                    self.hidden.append(f"«{written}», código puesto en un contenedor que puede ser de una biblioteca")
            return
        assigned = syntax.assignment(node)
        if assigned is None or (assigned[1] is not None and not self._may_hold_code(assigned[1])):
            return
        for target in assigned[0]:
            for store in ast.walk(target):
                if not isinstance(store, ast.Attribute | ast.Subscript) or not isinstance(store.ctx, ast.Store):
                    continue
                if self._fresh_local(store.value, scope):
                    continue
                if isinstance(store, ast.Attribute):
                    self.attribute_stores.setdefault(store.attr, []).append(unit)
                    if not self._owned(store.value, scope) and self._mentions_code(assigned[1], scope):
                        written = ast.unparse(store)[:40]
                        self.hidden.append(f"«{written}», código puesto en un objeto que puede ser de una biblioteca")
                else:
                    self.container_stores.append((unit, self._global_root(store, scope)))
                    if self._foreign(store.value, scope) and self._mentions_code(assigned[1], scope):
                        written = ast.unparse(store)[:40]
                        self.hidden.append(
                            f"«{written}», código puesto en un contenedor que puede ser de una biblioteca"
                        )

    def aliases(self, name):
        """``name`` and the notebook names that are other names of its object or of a part of it (``otra = TABLA``,
        ``capa = modelo.capa``, ``a, b = TABLA, 0``): what changes through them changes it."""
        if self._bound_to is None:  # the names bound to each name, or to a part of it, once for the notebook
            self._bound_to = {}
            for unit in self.units:
                for bound, root in syntax.named_parts(unit):
                    if not self._only_imported(root):  # a library's object holds none of the notebook's code
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
        if any(not self._made_here(unit, root.id) and syntax.assigned_call(unit, root.id) for unit, _ in bindings):
            return True  # ``tabla = devolver_memo()``: whatever the call returns
        return any(n in names for unit, _ in bindings for n in syntax.loads_in(unit))

    def dotted(self, node, scope, when=None, _seen=frozenset()):
        """The dotted names an attribute chain (or a name) stands for, when its root is an import or a notebook name
        assigned a chain (``F = torch.nn.functional``): bound at some moment of ``when`` (see :meth:`live`), or at any
        moment by default."""
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
            for unit, target in bindings if node.id not in _seen else []:
                if target is None and isinstance(unit, ast.Assign) and isinstance(unit.value, ast.Attribute):
                    named = len(unit.targets) == 1 and isinstance(unit.targets[0], ast.Name)
                    if named and unit.targets[0].id == node.id:
                        roots += self.dotted(unit.value, None, None, _seen | {node.id})
        if kind != "local":
            roots += [f"{star}.{node.id}" for star in self.stars if syntax.star_provides(star, node.id)]
        return [allowlist.canonical(".".join([root, *reversed(parts)])) for root in roots]


def notebook_reading(sources):
    """The whole notebook read once (cached by its sources, which of them raised and which come from the lab's
    history): its bindings, calls and changes of every name."""
    kinds = (cell_sources.RaisedCell, cell_sources.HistoryCell)
    return _reading(tuple((str(source), *(isinstance(source, kind) for kind in kinds)) for source in sources))


@functools.cache
def _library_privates():
    """The private attributes of tensors and modules (``_grad_fn``, ``_backward_hooks``, ``_parameters``)."""
    import torch

    return frozenset(n for n in {*dir(torch.Tensor), *dir(torch.nn.Module())} if n.startswith("_"))


@functools.lru_cache(maxsize=8)
def _reading(cells):
    return Notebook([cell_sources.cell(*cell) for cell in cells])
