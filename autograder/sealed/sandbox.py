"""The security boundary: every submission runs sealed inside bubblewrap.

A :class:`Sandbox` is one bubblewrap container per grading worker, started once: it sees
the system read-only (``/usr``, the libraries, Python and the course's virtual
environment, the ``autograder`` package), and nothing of the course or the grading
workspace: no ``solutions/``, no gradebook, no submissions, feedback or reports. It has no
network, its own PID namespace, one writable folder (``/trabajo``, in memory) and no
capabilities, and it runs as an
unprivileged user. Inside, :mod:`autograder.sealed.kernel` imports torch and the rest once and
forks one :class:`SealedKernel` per submission, which enters namespaces of its own (so
two submissions never share a file, a process or a socket) and is killed, with
everything it started, when its grading ends. See ``kernel.LIMITS`` for its limits.
"""

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gradientes
from autograder.bridge.peer import Peer
from autograder.bridge.wire import Channel, drain
from autograder.course import PACKAGE_DIR
from autograder.grading.cpu_time import WALL_FACTOR, CpuClock, host_pid, patience
from autograder.sealed.kernel import FIRST_USES, SCRATCH
from gradientes.remote_errors import PeerGone, ProtocolError, Timeout

START_TIMEOUT = 120
REPLY_LIMIT = 16 * 1024**2  # bytes of one message from a kernel (a cell's outputs, a call's result)
MEMORY_PER_WORKER = 6 * 1024**3  # a kernel (4 GiB of address space) and the zygote it came from
CPU_PER_WORKER, CPU_PERIOD = 1, 100_000  # cores a worker's processes may use together, per period (µs)
# Read-only system paths the kernel needs: programs, libraries, fonts, time zones, user names.
SYSTEM_PATHS = [
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
]


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be set up on this machine (message in Spanish)."""


class KernelDied(RuntimeError):
    """The submission's kernel ended (crash, ``os._exit``, killed after a time limit)."""


# Where the kernel finds the grader's own ``autograder`` and ``gradientes`` packages, first on its path: never
# another copy that the environment's installation may point to (an editable install of another checkout, say).
KERNEL_PACKAGE_ROOT = "/curso"
PACKAGES = {"autograder": PACKAGE_DIR, "gradientes": Path(gradientes.__file__).resolve().parent}


def _python_paths():
    """The interpreter, its standard library and the virtual environment."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), Path(sys.executable).resolve().parent}
    return sorted(paths)


def require_bubblewrap():
    """The path of bubblewrap's ``bwrap``; without it, ``SandboxUnavailable`` says how to install it."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            "no se encontró bubblewrap (bwrap), que aísla el código de cada entrega. Instálalo con "
            "«apt-get install bubblewrap» como root en Debian o Ubuntu (o «scripts/instalar-sistema.sh aislamiento»"
            " desde el repositorio del curso). Para calificar sin aislamiento, bajo tu responsabilidad, usa "
            "--sin-aislamiento."
        )
    return bwrap


def bwrap_command(uid):
    """The bubblewrap command line that starts a worker's zygote."""
    command = [require_bubblewrap(), "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    command += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if os.geteuid() == 0:  # as root: keep only what it takes to become ``uid``
        command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:  # an ordinary user: bubblewrap needs a user namespace, and we already are unprivileged
        command += ["--unshare-user"]
    command += ["--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]
    command += ["--setenv", "LANG", "C.UTF-8", "--setenv", "MPLBACKEND", "agg", "--setenv", "HOME", SCRATCH]
    command += ["--setenv", "TMPDIR", SCRATCH, "--setenv", "MPLCONFIGDIR", f"{SCRATCH}/.matplotlib"]
    command += ["--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "OMP_NUM_THREADS", "1"]
    command += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", SCRATCH, "--chdir", SCRATCH]
    made = set()
    for path in [Path(p) for p in SYSTEM_PATHS if os.path.lexists(p)] + _python_paths():
        for parent in reversed(path.parents):
            if str(parent) != "/" and parent not in made:
                command += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        command += ["--ro-bind", str(path), str(path)]
        made.add(path)
    command += ["--dir", KERNEL_PACKAGE_ROOT]
    for name, folder in PACKAGES.items():
        command += ["--ro-bind", str(folder), f"{KERNEL_PACKAGE_ROOT}/{name}"]
    command += ["--setenv", "PYTHONPATH", KERNEL_PACKAGE_ROOT]
    return [*command, "--", sys.executable, "-m", "autograder.sealed.kernel"]


class _GraderPeer(Peer):
    """The grader's side: it serves only calls to its own functions and gradients of its own tensors."""

    def __init__(self, kernel, channel):
        super().__init__(channel, {"call", "vjp"})
        self.kernel = kernel

    def request(self, message, timeout=None):
        """A request whose ``timeout`` (a call's or the test cell's, if not given) counts the kernel's CPU time."""
        kernel = self.kernel
        if kernel.dead:
            raise KernelDied("el kernel se detuvo")
        wait = None
        if timeout is not None or kernel.deadline is not None:
            used, now = kernel.clock(), time.monotonic()
            wall_ends = kernel.ends
            if timeout is None:  # a call during a test cell: the call's limit, within what is left of the cell's
                timeout = max(0.1, min(kernel.call_limit, kernel.cell_cpu_ends - used))
                wall_ends = kernel.deadline
            wait = patience(kernel.clock, timeout, min(wall_ends, now + timeout * WALL_FACTOR), used)
        try:
            return super().request(message, timeout, wait)
        except Timeout as error:
            self.kernel.interrupt(timeout, error.request)
        except PeerGone:
            self.kernel.dead = True
            raise KernelDied("el kernel se detuvo") from None


class SealedKernel:
    """One submission's kernel: run its cells, call its functions; dead once closed."""

    def __init__(self, sandbox, pid=None):
        self.sandbox = sandbox
        self.clock = CpuClock(pid)  # the CPU time the kernel has used (the wall clock where it cannot be read)
        channel = Channel(sandbox.replies_r, sandbox.requests_w, watch_fd=sandbox.status_r, max_message=REPLY_LIMIT)
        self.peer = _GraderPeer(self, channel)
        self.dead = False
        # Set while a test cell runs: its wall-clock backstop, the limit of one call and the end of its CPU time.
        self.deadline, self.call_limit, self.cell_cpu_ends = None, None, None
        self.ends = float("inf")  # the submission's whole time (see ``execute.SUBMISSION_LIMIT``)
        self.out_of_time = False

    def run(self, code, timeout):
        """Run a cell and return its outputs (plain dicts); raises Timeout or KernelDied."""
        outputs = self.peer.request({"op": "run", "code": code}, timeout).get("outputs")
        if type(outputs) is not list:
            raise ProtocolError("salida de celda mal descrita")
        return outputs

    def interrupt(self, timeout, request):
        """A cell or call ran past its limit: interrupt it; if it does not stop, kill the kernel."""
        self.sandbox.control(b"i")
        try:
            # Up to the interrupted request's reply. A loop that calls back a function of the grader
            # may have sent more requests before the interrupt reached it: they stay unanswered.
            self.peer.skip_to_reply(request, 5)
        except ProtocolError:
            self.kill()
            raise KernelDied(f"superó el tiempo límite de {timeout:g} s y no se pudo interrumpir") from None
        raise Timeout(f"superó el tiempo límite de {timeout:g} s (¿un bucle infinito?)")

    def kill(self):
        if not self.dead:
            self.dead = True
            self.sandbox.control(b"k")

    def close(self):
        self.kill()
        self.sandbox.wait_ready()


def _cgroups(name):
    """The worker's cgroups, where the host lets us make them (cgroup v1 or v2): memory capped at
    ``MEMORY_PER_WORKER`` and CPU at ``CPU_PER_WORKER`` cores. A list of folders (empty where none can be made).

    Each kernel's address space is capped by an rlimit, but its forked children each get their own: the memory
    cgroup caps them all together, so one submission cannot exhaust the machine; the CPU cgroup keeps a
    submission that spins in many processes to its worker's share.
    """
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    places = {kind: path for _, kinds, path in (line.split(":", 2) for line in lines) for kind in kinds.split(",")}
    quota = int(CPU_PER_WORKER * CPU_PERIOD)
    if "memory" in places:  # v1: a hierarchy per controller
        wanted = [
            ("memory", {"memory.limit_in_bytes": MEMORY_PER_WORKER}),
            ("cpu", {"cpu.cfs_period_us": CPU_PERIOD, "cpu.cfs_quota_us": quota}),
        ]
        candidates = [(Path("/sys/fs/cgroup") / kind / places[kind].lstrip("/") / name, f) for kind, f in wanted]
    elif "" in places:  # v2: one hierarchy; each limit where its controller is enabled
        folder = Path("/sys/fs/cgroup") / places[""].lstrip("/") / name
        candidates = [(folder, {"memory.max": MEMORY_PER_WORKER, "cpu.max": f"{quota} {CPU_PERIOD}"})]
    else:
        return []
    made = []
    for folder, limits in candidates:
        try:
            folder.mkdir(exist_ok=True)
        except OSError:
            continue
        kept = False
        for file, value in limits.items():
            with contextlib.suppress(OSError):
                (folder / file).write_text(str(value))
                kept = True
        if kept:
            made.append(folder)
        else:
            with contextlib.suppress(OSError):
                folder.rmdir()
    return made


def _join(cgroups):
    """In the child, before bubblewrap starts: enter the worker's cgroups."""
    for cgroup in cgroups:
        (cgroup / "cgroup.procs").write_text("0")


class Sandbox:
    """A worker's bubblewrap container, with torch already imported, that forks sealed kernels.

    ``uses``: the slow first uses to warm in it (see :data:`autograder.sealed.kernel.FIRST_USES`; all by default).
    """

    def __init__(self, worker=0, sealed=True, uses=None):
        uid = 61000 + (os.getpid() * 8 + worker) % 30000
        self.sealed = sealed
        self.cgroups = _cgroups(f"curso-{os.getpid()}-{worker}")
        self.requests_r, self.requests_w = os.pipe()
        self.replies_r, self.replies_w = os.pipe()
        self.control_r, self.control_w = os.pipe()
        self.status_r, self.status_w = os.pipe()
        inner = [self.requests_r, self.replies_w, self.control_r, self.status_w]
        if sealed:
            user = str(uid) if os.geteuid() == 0 else "="
            command = [*bwrap_command(uid), ",".join(map(str, inner)), user]
        else:
            command = [sys.executable, "-m", "autograder.sealed.kernel", ",".join(map(str, inner)), "-"]
        command.append(",".join(FIRST_USES if uses is None else uses))
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command,
            env=None
            if sealed
            else {**os.environ, "PYTHONPATH": os.pathsep.join(str(p.parent) for p in PACKAGES.values())},
            pass_fds=inner,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.errors,
            preexec_fn=functools.partial(_join, self.cgroups),
        )
        for fd in inner:
            os.close(fd)
        self.status = Channel(self.status_r, self.control_w)
        self._ended = False
        try:
            self._expect("ready", START_TIMEOUT)
        except (Timeout, ProtocolError):
            self.process.kill()
            self.errors.seek(0)
            detail = self.errors.read().decode(errors="replace").strip()[-800:]
            raise SandboxUnavailable(
                "no se pudo crear el entorno aislado (bubblewrap) para ejecutar las entregas"
                + (f": {detail}" if detail else ".")
                + " Comprueba que bubblewrap está instalado y que el sistema permite espacios de nombres de usuario; "
                "para calificar sin aislamiento, bajo tu responsabilidad, usa --sin-aislamiento."
            ) from None

    def _expect(self, event, timeout):
        while True:
            message = self.status.receive(timeout)
            if message.get("event") == "exit":
                self._ended = True
            if message.get("event") == event:
                return message

    def control(self, byte):
        os.write(self.control_w, byte)

    def new_kernel(self):
        """Fork a sealed kernel for one submission."""
        self._ended = False
        self.control(b"f")
        pid = self._expect("started", START_TIMEOUT).get("pid")
        drain(self.replies_r)  # what an earlier kernel left half-written
        if self.sealed and type(pid) is int:
            pid = host_pid(self.process.pid, pid)
        return SealedKernel(self, pid if type(pid) is int else None)

    def wait_ready(self):
        """After a kernel was killed: wait until the zygote can fork the next one."""
        if not self._ended:
            self._expect("exit", START_TIMEOUT)
        self._expect("ready", START_TIMEOUT)

    def alive(self):
        return self.process.poll() is None

    def close(self):
        for fd in (self.requests_w, self.replies_r, self.control_w, self.status_r):
            os.close(fd)
        self.process.kill()
        self.process.wait()
        self.errors.close()
        for cgroup in self.cgroups:
            for _ in range(50):  # its last processes take a moment to leave
                with contextlib.suppress(OSError):
                    cgroup.rmdir()
                    break
                time.sleep(0.1)
