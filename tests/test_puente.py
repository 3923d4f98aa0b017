"""The bridge's parts, each on its own and in one process: the wire protocol, the encoding of values, and autograd
across two peers (the sealed kernel is not needed; tests/test_sandbox.py tries them across the real boundary)."""

import os
import threading

import pytest
import torch

from autograder.bridge.peer import Peer
from autograder.bridge.values import RemoteCallable
from autograder.bridge.wire import _HEADER, Channel, TooLarge, Unsendable
from gradientes.remote_errors import PeerGone, ProtocolError


@pytest.fixture
def pipes():
    """Two channels joined back to back: what one sends, the other receives."""
    a_r, b_w = os.pipe()
    b_r, a_w = os.pipe()
    yield Channel(a_r, a_w), Channel(b_r, b_w)
    for fd in (a_r, b_w, b_r, a_w):
        os.close(fd)


def test_the_wire_throws_away_a_message_over_its_limit_and_stays_in_step(pipes):
    ours, theirs = pipes
    ours.max_message = 1024
    theirs.send({"op": "grande", "datos": "x" * 5000})
    theirs.send({"op": "siguiente"})
    with pytest.raises(TooLarge):
        ours.receive(1)
    assert ours.receive(1) == {"op": "siguiente"}


def test_the_wire_refuses_what_is_not_a_json_object(pipes):
    ours, theirs = pipes
    for data in (b"no es json", b"[1, 2]"):
        os.write(theirs.write_fd, _HEADER.pack(len(data)) + data)
        with pytest.raises(ProtocolError):
            ours.receive(1)


def test_values_cross_as_plain_data_and_come_back_the_same(pipes):
    ours, theirs = Peer(pipes[0], set()), Peer(pipes[1], set())
    x = torch.tensor([1.5, -2.0], dtype=torch.float64, requires_grad=True)
    x.grad = torch.tensor([0.5, 0.25], dtype=torch.float64)
    value = {"lista": [1, 2.5, "tres", None], "tupla": (True, torch.float32), "forma": torch.Size([2, 3]), "x": x}
    came = theirs.decode(ours.encode(value))
    assert came["lista"] == [1, 2.5, "tres", None] and came["tupla"] == (True, torch.float32)
    assert came["forma"] == torch.Size([2, 3])
    assert came["x"] is not x and torch.equal(came["x"], x) and came["x"].requires_grad
    assert torch.equal(came["x"].grad, x.grad)
    with pytest.raises(Unsendable):
        ours.encode(object())
    assert repr(theirs.decode(ours.encode(object(), opaque=True))).startswith("<object object")
    with pytest.raises(ProtocolError):
        theirs.decode({"list": [{"desconocido": 1}]})


def test_autograd_crosses_between_two_peers(pipes):
    """A function of the other side, called with our leaf: its result stays in our graph, and backward asks the
    other side for the vector-Jacobian product (float64, exact)."""
    theirs = Peer(pipes[1], {"get", "call", "vjp"}, namespace={"cubo": lambda t: (t**3).sum()})

    def serve():
        try:
            while True:
                theirs.serve(theirs.channel.receive())
        except (PeerGone, OSError):
            pass

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    ours = Peer(pipes[0], set(), call_timeout=10)
    cubo = ours.get("cubo")
    assert isinstance(cubo, RemoteCallable)
    x = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
    y = cubo(x)
    assert y.grad_fn is not None and y.item() == pytest.approx(1.5**3 - 8 + 0.125)
    y.backward()
    assert torch.equal(x.grad, 3 * x.detach() ** 2)
