"""The class server's guide (despliegue/README.md) followed as written, by tests/test_despliegue.py.

The guide is the script: its ``bash`` blocks run in order, line by line, as the guide says (as root, then
as the instructor after ``su - profesora``). Only two things change, both listed where they are given:
this machine's values in place of the guide's examples (``Guide.values``: folders under a temporary
root, the test's accounts and its own PostgreSQL), and what the guide leaves to a person (editing
``clase.toml``, typing a password, clicking in JupyterLab: a comment line of a block), which the test does
through handlers. A step that no handler knows stops the run: a changed guide is followed again, never
skipped in silence.
"""

import re
import shlex
import subprocess
import textwrap
from pathlib import Path

BLOCK = re.compile(r"^([ \t]*)```bash\n(.*?)^\1```", re.S | re.M)


def blocks(text):
    """The guide's shell blocks in order, each a list of commands (continued lines joined, blank lines out)."""
    found = []
    for match in BLOCK.finditer(text):
        body = re.sub(r"\\\n\s*", "", textwrap.dedent(match.group(2)))
        found.append([line.strip() for line in body.splitlines() if line.strip()])
    return found


class StepFailed(AssertionError):
    pass


class Guide:
    """Runs the guide's commands with ``values`` in place of its examples.

    ``values``: ``(example, here)`` pairs, replaced in this order in every command (an example that is a
    name, like ``ana``, is replaced as a whole word). ``people``: ``(pattern, handler)`` pairs; a command or
    comment line that matches ``pattern`` is done by ``handler(guide, match)`` instead of the shell.
    """

    def __init__(self, values, people):
        self.values, self.people = values, people
        self.user, self.cwd, self.exports = "root", Path("/"), []
        self.done = []  # (who, command as run, its output)
        self.record = {}  # what the people's handlers need and leave: this machine's values, the hub, passwords…

    def localize(self, text):
        for example, here in self.values:
            if re.fullmatch(r"\w+", example):
                text = re.sub(rf"(?<![\w.-]){re.escape(example)}(?![\w-])", here, text)
            else:
                text = text.replace(example, here)
        return text

    def follow(self, commands):
        """One block; a ``su -`` in it lasts until the block ends (the person types ``exit``)."""
        before = self.user, self.cwd, self.exports
        for command in commands:
            self.step(command)
        if self.user != before[0]:
            self.user, self.cwd, self.exports = before

    def step(self, command):
        line = self.localize(command)
        for pattern, handler in self.people:
            match = re.search(pattern, line)
            if match:
                self.done.append((self.user, line, handler(self, match)))
                return
        if line.startswith("#"):
            raise StepFailed(f"un paso de la guía que la prueba no sabe hacer: {command}")
        words = shlex.split(line, comments=True)
        if words[:2] == ["su", "-"]:
            self.user, self.exports = words[2], []
            self.cwd = Path(f"~{words[2]}").expanduser()
        elif words[0] == "cd":
            self.cwd = (self.cwd / words[1]).resolve()
        elif words[0] == "export":
            self.exports.append(line)
        else:
            self.done.append((self.user, line, self.shell(line)))

    def shell(self, line):
        """``line`` in bash, as the current user, in the current folder, with the exports so far."""
        return self.shell_as(self.user, self.cwd, self.exports, line)

    @staticmethod
    def shell_as(user, cwd, exports, line):
        script = "\n".join(["set -e", *exports, f"cd {shlex.quote(str(cwd))}", line])
        command = ["bash", "-c", script]
        if user != "root":  # what «su - user» gives: a login environment of their own
            home = Path(f"~{user}").expanduser()
            environment = [f"HOME={home}", f"USER={user}", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "COLUMNS=200"]
            command = ["runuser", "-u", user, "--", "env", "-i", *environment, *command]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise StepFailed(f"falló «{line}» ({user}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
        return result.stdout + result.stderr

    def output(self, pattern):
        """What the last command that matches ``pattern`` printed."""
        return next(out for _, line, out in reversed(self.done) if re.search(pattern, line))
