"""Autograd across the boundary, as if grader and kernel were one process.

A tensor that comes back from a call with a graph becomes, on the caller's side, the output of
:class:`RemoteFunction`, whose backward asks the other side for the vector-Jacobian product. A tensor the grader
built with a graph (``a * b + a``) is sent as the recipe that built it, recorded by :class:`Recorder`, and rebuilt
on the kernel side from the same leaves. Leaves keep their identity across calls, and their ``.grad``, values and
``requires_grad`` are synchronised after every call (:class:`CrossProcessAutograd`).
"""

import torch
from torch.overrides import TorchFunctionMode
from torch.utils.weak import WeakIdKeyDictionary

from autograder.bridge.values import _flat_values, _same, _snapshot, _tensor_from
from autograder.bridge.wire import Unsendable
from gradientes.remote_errors import REMOTE, ProtocolError

# On the grader's side: how a tensor the grader built was computed (what a remote tensor was: ``REMOTE``).
RECIPES = WeakIdKeyDictionary()


def _op_name(func):
    """A name the other side can resolve to the same torch operation, or None."""
    name = getattr(func, "__name__", None)
    owner = str(getattr(func, "__qualname__", "")).split(".")[0]
    if name and owner in ("Tensor", "TensorBase") and callable(getattr(torch.Tensor, name, None)):
        return ["Tensor", name]
    for space, label in ((torch.Tensor, "Tensor"), (torch, "torch"), (torch.nn.functional, "F")):
        if name and getattr(space, name, None) is func:
            return [label, name]
    return None


def _resolve_op(op):
    spaces = {"Tensor": torch.Tensor, "torch": torch, "F": torch.nn.functional}
    if not (isinstance(op, list) and len(op) == 2 and op[0] in spaces and isinstance(op[1], str)):
        raise ProtocolError("operación no válida")
    func = getattr(spaces[op[0]], op[1], None)
    if not callable(func):
        raise ProtocolError(f"operación desconocida: {op[1]}")
    return func


class Recorder(TorchFunctionMode):
    """Remember how every tensor with a graph was computed, so it can be rebuilt elsewhere."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if type(out) is torch.Tensor and out.grad_fn is not None and out not in REMOTE:
            op = _op_name(func)
            if op is not None:
                RECIPES[out] = (op, args, kwargs)
        return out


def saves_tensors(tensor, limit=10_000):
    """Whether the graph that computed ``tensor`` keeps tensors for its backward pass.

    PyTorch frees them after a backward pass that does not retain the graph, so a second one
    fails; the copy of ``tensor`` on the other side must behave the same (see :class:`RemoteFunction`).
    """
    pending, seen = [tensor.grad_fn], set()
    while pending and len(seen) < limit:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names = [name for name in dir(node) if name.startswith("_saved_") or name == "saved_tensors"]
        for name in names:
            try:
                value = getattr(node, name)
            except RuntimeError:  # already freed: it did save something
                return True
            values = value if isinstance(value, list | tuple) else [value]
            if any(isinstance(v, torch.Tensor) for v in values):
                return True
        pending.extend(following for following, _ in getattr(node, "next_functions", ()))
    return False


class RemoteFunction(torch.autograd.Function):
    """A tensor computed on the other side; its backward asks that side for the gradient.

    If the graph on the other side saved tensors for its backward pass (``saves``), this node saves
    one too: after a backward pass that does not retain the graph, a second one fails with
    PyTorch's own error, as it would have on the other side (which always keeps its graph).
    """

    @staticmethod
    def forward(ctx, peer, ref, ids, value, saves, *inputs):
        ctx.peer, ctx.ref, ctx.ids, ctx.saves = peer, ref, ids, saves
        ctx.specs = [(t.shape, t.dtype) for t in inputs]
        if saves:
            ctx.save_for_backward(torch.empty(0))
        return value.clone()

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.saves:
            ctx.saved_tensors  # noqa: B018 (freed by an earlier backward without retain_graph: PyTorch's error)
        grads = ctx.peer.vjp(ctx.ref, ctx.ids, grad_output.detach())
        result = []
        for grad, (shape, dtype) in zip(grads, ctx.specs, strict=True):
            if grad is not None and grad.shape != shape:
                raise ProtocolError("gradiente de forma distinta a su tensor")
            result.append(None if grad is None else grad.to(dtype))
        return (None, None, None, None, None, *result)


class CrossProcessAutograd:
    """The autograd part of a :class:`~autograder.bridge.peer.Peer`: results with a graph, gradient requests
    (``vjp``) in both directions, and the leaves' state kept in step after every call."""

    def _mirror_state(self, ids):
        state = {}
        for i in ids:
            tensor = self.mirrors[i]
            grad = tensor.grad
            state[i] = (_snapshot(tensor), grad, _snapshot(grad), tensor.requires_grad)
        return state

    def _changes(self, before):
        """What a call changed in the leaves the other side sent (values, ``.grad``, ``requires_grad``).

        Values are compared, not version counters: a change through ``.data`` does not count as a version.
        """
        changes = []
        for their_id, (values, grad, grad_values, requires_grad) in before.items():
            tensor = self.mirrors[their_id]
            if not tensor.is_leaf:
                continue
            change = {}
            if not _same(tensor, values):
                change["data"] = _flat_values(tensor)
                self._synced[their_id] = _snapshot(tensor)
            now = tensor.grad
            if now is not grad or not _same(now, grad_values):
                change["grad"] = None if now is None else self._encode_tensor(now.detach(), 0, False)["tensor"]
            if tensor.requires_grad != requires_grad:
                change["requires_grad"] = tensor.requires_grad
            if change:
                changes.append([their_id, change])
        return changes

    def _apply_changes(self, changes):
        if type(changes) is not list:
            raise ProtocolError("cambios mal descritos")
        for entry in changes:
            if type(entry) is not list or len(entry) != 2 or entry[0] not in self.exposed:
                raise ProtocolError("cambio mal descrito")
            tensor, change = self.exposed[entry[0]], entry[1]
            if not isinstance(tensor, torch.Tensor) or not tensor.is_leaf or type(change) is not dict:
                continue
            if "data" in change:
                values = _tensor_from(
                    {"dtype": str(tensor.dtype)[6:], "shape": list(tensor.shape), "data": change["data"]}
                )
                with torch.no_grad():
                    tensor.copy_(values)
            if "requires_grad" in change and tensor.dtype.is_floating_point:
                tensor.requires_grad_(bool(change["requires_grad"]))
            if "grad" in change:
                grad = None if change["grad"] is None else _tensor_from(change["grad"])
                if grad is not None and grad.shape != tensor.shape:
                    raise ProtocolError("gradiente de forma distinta a su tensor")
                tensor.grad = None if grad is None else grad.to(tensor.dtype)

    def result_for(self, value, inputs):
        """Our copy of a value the other side returned; its tensors stay in our graph through ``inputs``."""
        if isinstance(value, dict) and "tensor" in value and type(value["tensor"]) is dict:
            spec = value["tensor"]
            plain = _tensor_from(spec)
            props = {k: spec.get(k) for k in ("requires_grad", "is_leaf", "grad_fn")}
            differentiable = [(i, t) for i, t in inputs if t.requires_grad]
            if props["grad_fn"] and differentiable and plain.is_floating_point():
                ids = [i for i, _ in differentiable]
                saves = spec.get("saves") is True
                tensor = RemoteFunction.apply(self, spec.get("id"), ids, plain, saves, *(t for _, t in differentiable))
            else:
                tensor = plain.requires_grad_(bool(props["requires_grad"]) and plain.is_floating_point())
            REMOTE[tensor] = (self, props, spec.get("id"))
            return tensor
        if isinstance(value, dict) and ("list" in value or "tuple" in value):
            items = value.get("list", value.get("tuple"))
            if type(items) is not list:
                raise ProtocolError("lista mal descrita")
            values = [self.result_for(v, inputs) for v in items]
            return values if "list" in value else tuple(values)
        if isinstance(value, dict) and "dict" in value and type(value["dict"]) is dict:
            return {str(k): self.result_for(v, inputs) for k, v in value["dict"].items()}
        return self.decode(value)

    def _serve_vjp(self, message):
        output = self.exposed.get(message.get("ref"))
        ids = message.get("inputs")
        if not isinstance(output, torch.Tensor) or type(ids) is not list:
            raise ProtocolError("gradiente pedido sobre algo desconocido")
        inputs = [self._input(i) for i in ids]
        grad_output = _tensor_from(message.get("grad") or {})
        differentiable = [t for t in inputs if t.requires_grad]
        grads = iter(
            torch.autograd.grad(
                output, differentiable, grad_output.to(output.dtype), allow_unused=True, retain_graph=True
            )
            if differentiable and output.grad_fn is not None
            else []
        )
        result = []
        for tensor in inputs:
            grad = next(grads) if tensor.requires_grad else None
            result.append(None if grad is None else self._encode_tensor(grad.detach(), 0, False)["tensor"])
        return {"grads": result}

    def _input_id(self, tensor):
        """How the other side names a tensor we send it, in a later gradient request: by the id we
        expose it under, or as ``{"theirs": id}`` if it is one of theirs (a copy we hold, or a result)."""
        theirs = REMOTE.get(tensor)
        if theirs is not None and theirs[0] is self:
            return {"theirs": theirs[2]}
        for their_id, mine in self.mirrors.items():
            if mine is tensor:
                return {"theirs": their_id}
        return self._expose(tensor)

    def _input(self, name):
        """The tensor an input of a gradient request names (see :meth:`_input_id`)."""
        if type(name) is dict and set(name) == {"theirs"}:
            tensor = self.exposed.get(name["theirs"]) if type(name["theirs"]) is int else None
        else:
            tensor = self.mirrors.get(name) if type(name) is int else None
        if not isinstance(tensor, torch.Tensor):
            raise ProtocolError("gradiente pedido sobre algo desconocido")
        return tensor

    def vjp(self, ref, ids, grad_output):
        reply = self.request({"op": "vjp", "ref": ref, "inputs": ids, "grad": self._tensor_spec(grad_output)})
        grads = reply.get("grads")
        if type(grads) is not list or len(grads) != len(ids):
            raise ProtocolError("gradientes mal descritos")
        return [None if g is None else _tensor_from(g) for g in grads]

    def _tensor_spec(self, tensor):
        return {
            "dtype": str(tensor.dtype).removeprefix("torch."),
            "shape": list(tensor.shape),
            "data": _flat_values(tensor),
        }

    def _graph_spec(self, tensor, depth, recipes):
        """What a tensor with a graph adds to its description: whether its graph saves tensors for backward, and
        (with ``recipes``, from the grader) the operation that built it, to rebuild it on the other side."""
        spec = {"saves": saves_tensors(tensor)}
        if recipes:
            if tensor not in RECIPES:
                raise Unsendable("un tensor con grafo que no se construyó en la celda de pruebas")
            op, args, kwargs = RECIPES[tensor]
            spec["recipe"] = [op, self.encode(list(args), depth + 1, True), self.encode(kwargs, depth + 1, True)]
        return spec

    def _rebuild(self, recipe, depth, memo):
        """The tensor a recipe describes, computed here from its decoded arguments (a graph of our own)."""
        op, args, kwargs = recipe if type(recipe) is list and len(recipe) == 3 else (None, None, None)
        func = _resolve_op(op)
        args, kwargs = self.decode(args, depth + 1, memo), self.decode(kwargs, depth + 1, memo)
        return func(*args, **kwargs)
