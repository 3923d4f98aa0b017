"""How values cross the wire: plain data for numbers, strings, lists, dicts, dtypes and tensors (values and
properties: dtype, shape, ``requires_grad``, ``is_leaf``, the name of its ``grad_fn``); a function crosses as a
handle the other side can call back (:class:`RemoteCallable`), anything else as a stand-in with its type and
``repr``. :class:`ValueEncoding` is the part of :class:`autograder.bridge.peer.Peer` that encodes and decodes;
what a tensor's graph adds to that is :mod:`autograder.bridge.autograd`'s.
"""

import functools
import types

import torch

from autograder.bridge.wire import Unsendable
from gradientes.remote_errors import REMOTE, ProtocolError

MAX_ELEMENTS = 2_000_000
MAX_DEPTH = 20
# What crosses as a function the other side may call (a module or any other callable object does not).
_FUNCTION_TYPES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type, functools.partial)


def _safe_repr(value, limit=200):
    """``repr(value)``, cut to ``limit`` characters; never raises (it may be the student's own ``__repr__``)."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ is the student's, not ours
        text = f"<{type(value).__name__}>"
    text = text if type(text) is str else f"<{type(value).__name__}>"
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


_OPAQUE_TYPES = {}


def opaque_value(kind, text):
    """A stand-in for a value of the other side that could not cross: its type's name and its ``repr``."""
    kind = kind if isinstance(kind, str) and kind.isidentifier() and len(kind) <= 60 else "objeto"
    if kind not in _OPAQUE_TYPES:
        _OPAQUE_TYPES[kind] = type(kind, (), {"__repr__": lambda self: self.text, "__slots__": ("text",)})
    value = _OPAQUE_TYPES[kind]()
    value.text = str(text)[:200] if isinstance(text, str) else f"<{kind}>"
    return value


def _flat_values(tensor):
    values = tensor.detach().reshape(-1)
    if values.is_complex():
        return torch.view_as_real(values).reshape(-1).tolist()
    return values.tolist()


def _tensor_from(spec):
    dtype = getattr(torch, spec.get("dtype", ""), None)
    shape = spec.get("shape")
    data = spec.get("data")
    if not isinstance(dtype, torch.dtype) or not isinstance(shape, list) or not isinstance(data, list):
        raise ProtocolError("tensor mal descrito")
    if not all(type(n) is int and 0 <= n for n in shape) or len(shape) > 16:
        raise ProtocolError("forma de tensor no válida")
    count = 1
    for n in shape:
        count *= n
    if count > MAX_ELEMENTS:
        raise ProtocolError("tensor demasiado grande")
    if spec.get("device") == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    if not all(type(v) in (int, float, bool) for v in data):
        raise ProtocolError("valores de tensor no válidos")
    try:
        if dtype.is_complex:
            real = torch.tensor(data, dtype=torch.float64).reshape(*shape, 2)
            return torch.view_as_complex(real).to(dtype)
        # A tensor of its own, not a view of the flat one: ``.grad.detach_()`` must work as in PyTorch.
        return torch.tensor(data, dtype=dtype).reshape(shape).clone()
    except (RuntimeError, TypeError, ValueError, OverflowError) as error:
        raise ProtocolError(f"tensor no válido: {error}") from None


def properties(tensor):
    """The properties a check may ask about a tensor."""
    return {
        "requires_grad": tensor.requires_grad,
        "is_leaf": tensor.is_leaf,
        "grad_fn": None if tensor.grad_fn is None else type(tensor.grad_fn).__name__,
    }


def _snapshot(tensor):
    """A copy of a tensor's values (or None), to see later whether anything changed them."""
    return None if tensor is None else tensor.detach().clone()


def _same(tensor, snapshot):
    """Whether ``tensor`` still holds the values of ``snapshot`` (NaN equal to NaN)."""
    if tensor is None or snapshot is None:
        return tensor is None and snapshot is None
    values = tensor.detach()
    if values.shape != snapshot.shape or values.dtype != snapshot.dtype:
        return False
    if values.device.type == "meta":
        return snapshot.device.type == "meta"  # no values to compare
    return bool(torch.equal(values, snapshot) or torch.allclose(values, snapshot, rtol=0, atol=0, equal_nan=True))


def _tensors_in(value, depth=0):
    if isinstance(value, torch.Tensor):
        return [value]
    if type(value) in (list, tuple) and depth < MAX_DEPTH:
        return [t for v in value for t in _tensors_in(v, depth + 1)]
    if type(value) is dict and depth < MAX_DEPTH:
        return [t for v in value.values() for t in _tensors_in(v, depth + 1)]
    return []


class RemoteCallable:
    """A function that lives on the other side."""

    def __init__(self, peer, function_id, name):
        self.peer, self.function_id, self.__name__ = peer, function_id, name

    def __call__(self, *args, **kwargs):
        return self.peer.call(self.function_id, self.__name__, args, kwargs)

    def __repr__(self):
        return f"<función {self.__name__}>"


class ValueEncoding:
    """Encoding and decoding of values for a :class:`~autograder.bridge.peer.Peer` (its ``exposed``, ``mirrors``,
    ``_ids`` and ``_synced`` tables): our objects are exposed under an id, theirs become mirrors and proxies."""

    def _expose(self, obj):
        key = id(obj)
        if key not in self._ids or self.exposed.get(self._ids[key]) is not obj:
            self._counter += 1
            self._ids[key] = self._counter
            self.exposed[self._counter] = obj
        return self._ids[key]

    def encode(self, value, depth=0, recipes=False, opaque=False):
        """Plain data for ``value``; tensors and functions are exposed under an id.

        With ``opaque`` (a result going back to the caller), a value that cannot cross becomes its type
        name and ``repr``: the caller's checks then describe it as they would in one process.
        """
        if depth > MAX_DEPTH:
            raise Unsendable("estructura demasiado profunda")
        if value is None or type(value) in (bool, int, float, str):
            return value
        if type(value) in (list, tuple):
            return {type(value).__name__: [self.encode(v, depth + 1, recipes, opaque) for v in value]}
        if type(value) is dict and all(type(k) is str for k in value):
            return {"dict": {k: self.encode(v, depth + 1, recipes, opaque) for k, v in value.items()}}
        if isinstance(value, torch.dtype):
            return {"dtype": str(value).removeprefix("torch.")}
        if isinstance(value, torch.device):
            return {"device": str(value)}
        if type(value) is torch.Size:
            return {"size": list(value)}
        if isinstance(value, torch.Tensor):
            return self._encode_tensor(value, depth, recipes)
        if callable(value) and (not opaque or isinstance(value, _FUNCTION_TYPES)):
            return {"function": self._expose(value), "name": str(getattr(value, "__name__", "función"))[:100]}
        if opaque:
            return {"opaque": {"type": type(value).__name__[:60], "repr": _safe_repr(value)}}
        raise Unsendable(f"un valor de tipo {type(value).__name__} no puede cruzar a la otra parte")

    def _encode_tensor(self, tensor, depth, recipes):
        theirs = REMOTE.get(tensor)
        if theirs is not None and theirs[0] is self:
            return {"theirs": theirs[2]}
        for their_id, mine in self.mirrors.items():
            if mine is tensor:
                return self._reference(their_id, mine)
        if tensor.layout != torch.strided or tensor.device.type not in ("cpu", "meta"):
            raise Unsendable("solo cruzan tensores densos en la CPU (o sin datos, en el dispositivo meta)")
        spec = {
            "id": self._expose(tensor),
            "dtype": str(tensor.dtype).removeprefix("torch."),
            "shape": list(tensor.shape),
            "data": [] if tensor.device.type == "meta" else _flat_values(tensor),
            **properties(tensor),
        }
        if tensor.device.type == "meta":
            spec["device"] = "meta"
        if tensor.is_leaf and tensor.grad is not None:
            spec["grad"] = self._encode_tensor(tensor.grad.detach(), depth + 1, False)["tensor"]
        if tensor.grad_fn is not None:
            spec.update(self._graph_spec(tensor, depth, recipes))
        return {"tensor": spec}

    def decode(self, data, depth=0, memo=None):
        """Values from plain data; their tensors become mirrors, their functions callable proxies."""
        memo = {} if memo is None else memo
        if depth > MAX_DEPTH:
            raise ProtocolError("estructura demasiado profunda")
        if data is None or type(data) in (bool, int, float, str):
            return data
        if type(data) is not dict or len(data) not in (1, 2):
            raise ProtocolError("valor mal descrito")
        if "list" in data or "tuple" in data:
            items = data.get("list", data.get("tuple"))
            if type(items) is not list:
                raise ProtocolError("lista mal descrita")
            values = [self.decode(v, depth + 1, memo) for v in items]
            return values if "list" in data else tuple(values)
        if "dict" in data and type(data["dict"]) is dict:
            return {str(k): self.decode(v, depth + 1, memo) for k, v in data["dict"].items()}
        if "dtype" in data:
            dtype = getattr(torch, str(data["dtype"]), None)
            if not isinstance(dtype, torch.dtype):
                raise ProtocolError("dtype desconocido")
            return dtype
        if "device" in data:
            return torch.device(str(data["device"])[:20])
        if "size" in data and type(data["size"]) is list and all(type(n) is int for n in data["size"]):
            return torch.Size(data["size"])
        if "theirs" in data:
            if data["theirs"] not in self.exposed:
                raise ProtocolError("referencia desconocida")
            if "leaf" in data:  # what the other side did to its copy before sending it back (see _reference)
                self._apply_changes([[data["theirs"], data["leaf"]]])
            return self.exposed[data["theirs"]]
        if "function" in data:
            return RemoteCallable(self, data["function"], str(data.get("name", "función"))[:100])
        if "tensor" in data and type(data["tensor"]) is dict:
            return self._decode_tensor(data["tensor"], depth, memo)
        if "opaque" in data and type(data["opaque"]) is dict:
            return opaque_value(data["opaque"].get("type"), data["opaque"].get("repr"))
        raise ProtocolError("valor desconocido")

    def _decode_tensor(self, spec, depth, memo):
        their_id = spec.get("id")
        if their_id in memo:
            return memo[their_id]
        if "recipe" in spec and "recipe" in self.serves:
            tensor = self._rebuild(spec["recipe"], depth, memo)
        else:
            values = _tensor_from(spec)
            tensor = self.mirrors.get(their_id)
            if tensor is not None and tensor.is_leaf and tensor.shape == values.shape and tensor.dtype == values.dtype:
                with torch.no_grad():
                    tensor.copy_(values)
                tensor.requires_grad_(bool(spec.get("requires_grad")) and values.dtype.is_floating_point)
            else:
                tensor = values.requires_grad_(bool(spec.get("requires_grad")) and values.is_floating_point())
            if tensor.requires_grad or "grad" in spec:
                grad = spec.get("grad")
                tensor.grad = None if grad is None else _tensor_from(grad)
        memo[their_id] = tensor
        if their_id is not None:
            self.mirrors[their_id] = tensor
            self._synced[their_id] = _snapshot(tensor)
        return tensor

    def _reference(self, their_id, mine):
        """Our copy of their tensor, sent back to them: its id, and for a leaf what we did to it meanwhile.

        A function of theirs called with it (a callback inside the student's code) must see the
        ``requires_grad`` and the values our copy has now, as it would if both sides were one process.
        """
        reference = {"theirs": their_id}
        if mine.is_leaf:
            reference["leaf"] = {"requires_grad": mine.requires_grad}
            if not _same(mine, self._synced.get(their_id)):
                reference["leaf"]["data"] = _flat_values(mine)
                self._synced[their_id] = _snapshot(mine)
        return reference
