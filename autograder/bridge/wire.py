"""The wire between the grader and a sealed kernel: length-prefixed JSON messages over a pair of pipes.

Only plain data crosses (numbers, strings, lists, dicts), never pickles: whatever the student's process sends can
only be data. A message over the receiver's limit is read and thrown away, so the channel stays in step.
"""

import json
import os
import select
import struct
import time

from gradientes.remote_errors import PeerGone, ProtocolError, Timeout

MAX_MESSAGE = 64 * 1024**2
_HEADER = struct.Struct(">I")


class Unsendable(TypeError):
    """A value that cannot cross the boundary as plain data."""


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
