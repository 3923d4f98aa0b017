"""What a check must recognise of the grader's bridge (:mod:`autograder.bridge.peer`), and nothing else of it.

In the student's notebook no value crosses a process boundary: these exceptions are never raised there and
``REMOTE`` stays empty. When grading, the bridge raises them and records here what each tensor that came from
the sealed kernel was on its side.
"""

from torch.utils.weak import WeakIdKeyDictionary

# On the grader's side: for each tensor that came from the other side, (peer, its properties there, its id there).
REMOTE = WeakIdKeyDictionary()


class ProtocolError(RuntimeError):
    """The other side sent something that is not a valid message (or nothing in time)."""


class PeerGone(ProtocolError):
    """The other side closed its end: its process ended."""


class Timeout(ProtocolError):
    """No answer within the time limit."""


class RemoteError(Exception):
    """An exception raised on the other side; ``kind`` is its type name."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def remote_properties(tensor):
    """The other side's view of a tensor that came from it (dict), or ``None`` for a local tensor."""
    entry = REMOTE.get(tensor)
    return None if entry is None else entry[1]
