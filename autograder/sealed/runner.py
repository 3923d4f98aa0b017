"""Inside a sealed kernel: run the student's cells and answer the grader's calls.

Cells run in an IPython shell, as in Jupyter. Their outputs go back as plain data: text
streams, the text form of displayed values and errors (type, message and traceback
lines). Nothing here decides a grade: the grader calls the student's functions through
:mod:`autograder.bridge.peer` and compares their answers outside this process.
"""

import sys

import torch
from IPython.core.displayhook import DisplayHook
from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from autograder.bridge.peer import Peer
from autograder.bridge.wire import Channel
from gradientes.remote_errors import PeerGone, ProtocolError

OUTPUT_LIMIT = 1024**2  # characters of output kept per cell


class Outputs:
    """The outputs of the cell being run, in order, capped at ``OUTPUT_LIMIT`` characters."""

    def __init__(self, limit=OUTPUT_LIMIT):
        self.items, self.size, self.cut, self.limit = [], 0, False, limit

    def add(self, output, size):
        if self.size + size > self.limit:
            if not self.cut:
                self.cut = True
                self.items.append({"output_type": "stream", "name": "stdout", "text": "[salida recortada]\n"})
            return
        self.size += size
        self.items.append(output)

    def stream(self, name, text):
        last = self.items[-1] if self.items else None
        if last and last["output_type"] == "stream" and last["name"] == name and not self.cut:
            if self.size + len(text) <= self.limit:
                last["text"] += text
                self.size += len(text)
                return
        self.add({"output_type": "stream", "name": name, "text": text}, len(text))


class Stream:
    """``sys.stdout`` / ``sys.stderr`` for a cell (or a call): writes to its :class:`Outputs`."""

    def __init__(self, outputs, name):
        self.outputs, self.name = outputs, name

    def write(self, text):
        text = str(text)
        self.outputs.stream(self.name, text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"


class Publisher(DisplayPublisher):
    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
        text = str(data.get("text/plain", ""))
        self.shell.cell_outputs.add({"output_type": "display_data", "text": text}, len(text))

    def clear_output(self, wait=False):
        self.shell.cell_outputs.items.clear()


class Hook(DisplayHook):
    def write_output_prompt(self):
        pass

    def write_format_data(self, format_dict, md_dict=None):
        text = str(format_dict.get("text/plain", ""))
        self.shell.cell_outputs.add({"output_type": "execute_result", "text": text}, len(text))

    def finish_displayhook(self):
        pass


def make_shell():
    """An IPython shell like a Jupyter kernel's, whose outputs are collected per cell."""
    # Without history: no database, and no thread that a fork of this process would lose half-way.
    shell = InteractiveShell.instance(config=Config(HistoryManager={"enabled": False}), colors="nocolor")
    shell.display_pub = Publisher(shell=shell)
    shell.displayhook = Hook(shell=shell, cache_size=0)
    shell.display_trap.hook = sys.displayhook = shell.displayhook
    shell.display_formatter.active_types = ["text/plain"]  # figures are not drawn while grading
    shell.cell_outputs = Outputs()

    def record_error(etype, evalue, stb):
        text = "\n".join(stb)
        shell.cell_outputs.add(
            {"output_type": "error", "ename": etype.__name__, "evalue": str(evalue), "traceback": stb}, len(text)
        )

    shell._showtraceback = record_error
    return shell


def run_cell(shell, message):
    """Run one cell; reply with its outputs."""
    shell.cell_outputs = Outputs()
    code = message.get("code")
    if not isinstance(code, str):
        raise ProtocolError("celda sin código")
    sys.stdout, sys.stderr = Stream(shell.cell_outputs, "stdout"), Stream(shell.cell_outputs, "stderr")
    try:
        shell.run_cell(code, store_history=False)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return {"outputs": shell.cell_outputs.items}


CALL_OUTPUT_LIMIT = 64 * 1024  # characters a graded call may print; what it prints is not graded


def quietly(serve_call):
    """``serve_call`` with what the student's code prints going to a capped buffer of that call only."""

    def serve(message):
        sink = Outputs(CALL_OUTPUT_LIMIT)
        sys.stdout, sys.stderr = Stream(sink, "stdout"), Stream(sink, "stderr")
        grad_enabled = torch.is_grad_enabled()
        try:
            return serve_call(message)
        except KeyboardInterrupt:  # stopped at its time limit, maybe inside a ``with torch.no_grad()``'s exit
            torch.set_grad_enabled(grad_enabled)
            raise
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    return serve


def forget(peer, message):
    """A test cell starts or ends: drop what the grader sent; take its grad mode, if it gives one."""
    peer.forget()
    if type(message.get("grad_enabled")) is bool:
        torch.set_grad_enabled(message["grad_enabled"])
    return {"grad_enabled": torch.is_grad_enabled()}


def serve(requests, replies):
    """Answer the grader until it closes the channel or kills this process."""
    shell = make_shell()
    peer = Peer(Channel(requests, replies), {"run", "get", "call", "vjp", "recipe", "forget"}, namespace=shell.user_ns)
    peer.handlers["run"] = lambda message: run_cell(shell, message)
    peer.handlers["call"] = quietly(peer._serve_call)
    peer.handlers["vjp"] = quietly(peer._serve_vjp)
    peer.handlers["forget"] = lambda message: forget(peer, message)
    while True:
        try:
            message = peer.channel.receive()
        except KeyboardInterrupt:
            continue
        except (PeerGone, ProtocolError):
            return
        peer.serve(message)
