"""Plain-data calls between the grader and a sealed kernel, with autograd across the boundary.

Both sides run this module. Messages are length-prefixed JSON: numbers, strings, lists and
dicts, never pickles, so whatever the student's process sends can only be data. A tensor
crosses as its values and properties (dtype, shape, ``requires_grad``, ``is_leaf``, the name
of its ``grad_fn``); a function crosses as a handle that the other side can call back.

Autograd crosses too. A tensor that comes back from a call with a graph becomes, on the
caller's side, the output of :class:`RemoteFunction`, whose backward asks the other side
for the vector-Jacobian product. A tensor the grader built with a graph (``a * b + a``) is
sent as the recipe that built it, recorded by :class:`Recorder`, and rebuilt on the kernel
side from the same leaves. Leaves keep their identity across calls, and their ``.grad``,
values and ``requires_grad`` are synchronised after every call.
"""

import functools
import json
import os
import select
import struct
import time
import types

import torch
from torch.overrides import TorchFunctionMode
from torch.utils.weak import WeakIdKeyDictionary

from gradientes.remote_errors import REMOTE, PeerGone, ProtocolError, RemoteError, Timeout

MAX_MESSAGE = 64 * 1024**2
MAX_ELEMENTS = 2_000_000
MAX_DEPTH = 20
_HEADER = struct.Struct(">I")
# What crosses as a function the other side may call (a module or any other callable object does not).
_FUNCTION_TYPES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type, functools.partial)

# On the grader's side: how a tensor the grader built was computed (what a remote tensor was: ``REMOTE``).
RECIPES = WeakIdKeyDictionary()


_ERROR_TYPES = {}


def remote_error(kind, message):
    """A ``RemoteError`` whose class is named like the original exception (``ValueError``...)."""
    kind = kind if isinstance(kind, str) and kind.isidentifier() and len(kind) < 80 else "Error"
    if kind not in _ERROR_TYPES:
        _ERROR_TYPES[kind] = type(kind, (RemoteError,), {})
    return _ERROR_TYPES[kind](kind, str(message)[:2000])


class Unsendable(TypeError):
    """A value that cannot cross the boundary as plain data."""


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


def drain(fd):
    """Throw away whatever is waiting in a pipe (what a dead process left half-written)."""
    os.set_blocking(fd, False)
    try:
        while os.read(fd, 65536):
            pass
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


class TooLarge(ProtocolError):
    """A message over the receiver's limit: it was read and thrown away, so the channel stays in step."""


class Channel:
    """Framed JSON messages over a pair of file descriptors; ``max_message`` bytes at most are accepted."""

    def __init__(self, read_fd, write_fd, watch_fd=None, max_message=MAX_MESSAGE):
        self.read_fd, self.write_fd, self.watch_fd = read_fd, write_fd, watch_fd
        self.max_message = max_message
        self._buffer = b""

    def send(self, message):
        data = json.dumps(message, allow_nan=True, separators=(",", ":")).encode()
        if len(data) > MAX_MESSAGE:
            raise Unsendable(f"mensaje demasiado grande ({len(data)} bytes)")
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            written = os.write(self.write_fd, view)
            view = view[written:]

    def _fill(self, count, deadline):
        """Wait until ``count`` bytes are buffered; what was read stays buffered if time runs out."""
        fds = [self.read_fd] if self.watch_fd is None else [self.read_fd, self.watch_fd]
        while len(self._buffer) < count:
            if deadline is not None or self.watch_fd is not None:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = select.select(fds, [], [], left)[0]
                if not ready:
                    raise Timeout("sin respuesta a tiempo")
                if self.read_fd not in ready:
                    raise PeerGone("el otro proceso terminó")
            chunk = os.read(self.read_fd, max(65536, count - len(self._buffer)))
            if not chunk:
                raise PeerGone("el otro extremo se cerró")
            self._buffer += chunk

    def _take(self, count, deadline):
        self._fill(count, deadline)
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def receive(self, timeout=None):
        """The next whole message; a timeout leaves a half-received one to be finished by the next call."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._fill(_HEADER.size, deadline)
        (size,) = _HEADER.unpack(self._buffer[: _HEADER.size])
        if size > MAX_MESSAGE:
            raise ProtocolError(f"mensaje demasiado grande ({size} bytes)")
        if size > self.max_message:
            self._take(_HEADER.size, deadline)
            while size > 0:  # read it in pieces, keeping none of it
                size -= len(self._take(min(size, 1024**2), deadline))
            raise TooLarge(f"{self.max_message // 1024**2} MB")
        data = self._take(_HEADER.size + size, deadline)[_HEADER.size :]
        try:
            message = json.loads(data)
        except (ValueError, RecursionError) as error:
            raise ProtocolError(f"mensaje que no es JSON: {error}") from None
        if not isinstance(message, dict):
            raise ProtocolError("mensaje que no es un objeto JSON")
        return message


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


def _spec(tensor):
    return {"dtype": str(tensor.dtype).removeprefix("torch."), "shape": list(tensor.shape)}


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


class Peer:
    """One side of the boundary: sends values, serves the other side's requests.

    ``serves`` is the set of operations this side accepts from the other one: the grader
    accepts only calls to the functions and gradients of the tensors it sent itself.
    """

    def __init__(self, channel, serves, namespace=None, call_timeout=None):
        self.channel = channel
        self.serves = serves
        self.namespace = namespace if namespace is not None else {}
        self.call_timeout = call_timeout
        self.exposed = {}  # id -> object of ours the other side may call or differentiate
        self.mirrors = {}  # their id -> our copy of their tensor
        self._synced = {}  # their id -> the values of our copy when they last matched theirs
        self._ids = {}  # id(our object) -> id sent for it
        self._counter = 0
        self._requests = 0  # numbers this side's requests
        self.handlers = {}

    # -- values ---------------------------------------------------------------------------

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
            spec["saves"] = saves_tensors(tensor)
        if recipes and tensor.grad_fn is not None:
            if tensor not in RECIPES:
                raise Unsendable("un tensor con grafo que no se construyó en la celda de pruebas")
            op, args, kwargs = RECIPES[tensor]
            spec["recipe"] = [op, self.encode(list(args), depth + 1, True), self.encode(kwargs, depth + 1, True)]
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
            op, args, kwargs = spec["recipe"] if type(spec["recipe"]) is list else (None, None, None)
            func = _resolve_op(op)
            args, kwargs = self.decode(args, depth + 1, memo), self.decode(kwargs, depth + 1, memo)
            tensor = func(*args, **kwargs)
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

    def forget(self):
        """Drop every object exchanged so far: what a test cell sent lives only as long as the cell."""
        self.exposed.clear()
        self.mirrors.clear()
        self._synced.clear()
        self._ids.clear()

    # -- requests -------------------------------------------------------------------------

    def request(self, message, timeout=None, patience=None):
        """Send a request and serve the other side's nested requests until its reply comes.

        Each request carries a number its reply repeats: a reply to a request that an interrupt
        abandoned, arriving late, is dropped instead of being read as the answer to a later one.
        When ``timeout`` seconds pass, ``patience()`` (if given) may grant more seconds to wait (a
        number > 0); otherwise a ``Timeout`` says which request it ended (``Timeout.request``).
        """
        self._requests += 1
        number = self._requests
        self.channel.send({**message, "id": number})
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                reply = self.channel.receive(left)
            except Timeout as error:
                more = patience() if patience is not None else 0
                if more > 0:
                    deadline = time.monotonic() + more
                    continue
                error.request = number
                raise
            if reply.get("op") != "reply":
                self.serve(reply)
            elif reply.get("id") == number:
                if "error" in reply:
                    error = reply["error"] if type(reply["error"]) is dict else {}
                    raise remote_error(error.get("kind"), error.get("message", ""))
                return reply

    def skip_to_reply(self, number, timeout):
        """After an interrupt: drop what the other side sent until its reply to request ``number``."""
        deadline = time.monotonic() + timeout
        while True:
            reply = self.channel.receive(max(0.0, deadline - time.monotonic()))
            if reply.get("op") == "reply" and reply.get("id") == number:
                return

    def serve(self, message):
        """Answer one request of the other side (``reply`` with a value or an ``error``).

        A reply is not a request: one that arrives here is late (its request was abandoned) and is dropped."""
        op = message.get("op")
        if op == "reply":
            return
        try:
            if op not in self.serves:
                raise ProtocolError(f"operación no permitida: {op!r}")
            reply = self.handlers[op](message) if op in self.handlers else getattr(self, f"_serve_{op}")(message)
        except KeyboardInterrupt:
            reply = {"error": {"kind": "KeyboardInterrupt", "message": "interrumpido"}}
        except BaseException as error:  # everything the student's code raises becomes data
            reply = {"error": {"kind": type(error).__name__, "message": str(error)}}
        try:
            self.channel.send({"op": "reply", **reply, "id": message.get("id")})
        except Unsendable as error:
            error = {"kind": "Unsendable", "message": str(error)}
            self.channel.send({"op": "reply", "error": error, "id": message.get("id")})

    def _serve_call(self, message):
        func = self.exposed.get(message.get("function")) if "function" in message else None
        if func is None and "get" in self.serves and "name" in message:
            func = self.namespace.get(str(message["name"]))
        if not callable(func):
            raise ProtocolError("función desconocida")
        memo = {}
        args = self.decode(message.get("args", {"list": []}), memo=memo)
        kwargs = self.decode(message.get("kwargs", {"dict": {}}), memo=memo)
        before = self._mirror_state([i for i in memo if i is not None and i in self.mirrors])
        # Grad mode is global state, as in one process: the call starts with the caller's and the caller
        # gets back whatever the call left (a function that switches it off and forgets it, say).
        torch.set_grad_enabled(message.get("grad_enabled", True) is not False)
        value = func(*args, **kwargs)
        return {
            "value": self.encode(value, opaque=True),
            "changes": self._changes(before),
            "grad_enabled": torch.is_grad_enabled(),
        }

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

    def _serve_get(self, message):
        name = str(message.get("name"))
        if name not in self.namespace:
            return {"missing": True}
        return {"value": self.encode(self.namespace[name], opaque=True)}

    # -- calls to the other side ----------------------------------------------------------

    def call(self, function_id, name, args, kwargs):
        """Call a function of the other side; tensors we send stay linked to what comes back."""
        inputs = [(self._input_id(t), t) for t in _tensors_in(args)]
        message = {
            "op": "call",
            "function": function_id,
            "name": name,
            "args": self.encode(list(args), recipes=True),
            "kwargs": self.encode(dict(kwargs), recipes=True),
            "grad_enabled": torch.is_grad_enabled(),
        }
        reply = self.request(message, self.call_timeout)
        self._apply_changes(reply.get("changes", []))
        if type(reply.get("grad_enabled")) is bool:
            torch.set_grad_enabled(reply["grad_enabled"])
        return self.result_for(reply.get("value"), inputs)

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

    def get(self, name):
        """A name of the other side's namespace: a proxy for a function, a copy of a value."""
        reply = self.request({"op": "get", "name": name}, self.call_timeout)
        if reply.get("missing"):
            raise KeyError(name)
        return self.result_for(reply.get("value"), [])


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
