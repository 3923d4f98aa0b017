"""One side of the boundary between the grader and a sealed kernel: requests, replies and calls.

Both sides run this module. A :class:`Peer` sends requests over :mod:`autograder.bridge.wire` and serves the other
side's nested requests until its reply comes; values cross as :mod:`autograder.bridge.values` encodes them, and
autograd crosses as :mod:`autograder.bridge.autograd` describes.
"""

import time

import torch

from autograder.bridge.autograd import CrossProcessAutograd
from autograder.bridge.values import ValueEncoding, _tensors_in
from autograder.bridge.wire import Unsendable
from gradientes.remote_errors import ProtocolError, RemoteError, Timeout

_ERROR_TYPES = {}


def remote_error(kind, message):
    """A ``RemoteError`` whose class is named like the original exception (``ValueError``...)."""
    kind = kind if isinstance(kind, str) and kind.isidentifier() and len(kind) < 80 else "Error"
    if kind not in _ERROR_TYPES:
        _ERROR_TYPES[kind] = type(kind, (RemoteError,), {})
    return _ERROR_TYPES[kind](kind, str(message)[:2000])


class Peer(ValueEncoding, CrossProcessAutograd):
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

    def forget(self):
        """Drop every object exchanged so far: what a test cell sent lives only as long as the cell."""
        self.exposed.clear()
        self.mirrors.clear()
        self._synced.clear()
        self._ids.clear()

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

    def _serve_get(self, message):
        name = str(message.get("name"))
        if name not in self.namespace:
            return {"missing": True}
        return {"value": self.encode(self.namespace[name], opaque=True)}

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

    def get(self, name):
        """A name of the other side's namespace: a proxy for a function, a copy of a value."""
        reply = self.request({"op": "get", "name": name}, self.call_timeout)
        if reply.get("missing"):
            raise KeyError(name)
        return self.result_for(reply.get("value"), [])
