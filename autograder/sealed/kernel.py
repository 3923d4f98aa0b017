"""Inside the sandbox: import everything once, then fork one sealed kernel per submission.

This program is started by :mod:`autograder.sealed.sandbox` inside bubblewrap and never sees the
grading workspace. It does the slow imports (torch, matplotlib, IPython...) once;
for each submission it forks a process that enters new user, mount, PID, IPC, network
and UTS namespaces, gets its own empty ``/trabajo``, loses ``/proc``, every capability and
its resource limits, and only then runs the student's cells. When the grader is done,
or the kernel dies, everything that process started dies with its PID namespace.

File descriptors (numbers given on the command line): requests from the grader, replies
to it, control bytes from it (``f`` fork, ``i`` interrupt, ``k`` kill), status messages.
"""

import ctypes
import gc
import os
import resource
import select
import signal
import sys
import tempfile

from autograder.bridge.wire import Channel, drain

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV = 2, 4
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 4, 24, 38
LAST_CAPABILITY = 63

# Limits of one sealed kernel (also listed in docs/instructor.md).
LIMITS = {
    resource.RLIMIT_AS: 4 * 1024**3,  # address space
    resource.RLIMIT_CPU: 300,  # seconds of CPU for the whole submission
    resource.RLIMIT_NPROC: 256,  # processes and threads
    resource.RLIMIT_NOFILE: 256,  # open files
    resource.RLIMIT_FSIZE: 64 * 1024**2,  # largest file it can write
    resource.RLIMIT_CORE: 0,
}
# The only writable folder: a fresh one in memory for every kernel (also its home and TMPDIR).
# Not /tmp, which may hold the course itself (a clone in /tmp): it stays read-only.
SCRATCH = "/trabajo"
SCRATCH_SIZE = "256m"

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount_tmpfs(target, size):
    _check(_libc.mount(b"none", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, f"size={size}".encode()), target)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities():
    for capability in range(LAST_CAPABILITY + 1):
        _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
    header, data = _CapHeader(0x20080522, 0), (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def drop_root(uid):
    """Leave root for an unprivileged user id (bubblewrap started us as root, with only setuid/setgid)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # so that it may write its own uid_map later


def enter_namespaces():
    """New user, mount, PID, IPC, network and UTS namespaces, mapping only our own ids."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS
    _check(_libc.unshare(flags), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)


def seal(sealed):
    """A private, empty ``/trabajo`` and ``/dev/shm``, no ``/proc``, limits, no capabilities:
    then student code may run. Unsealed (``--sin-aislamiento``), only the limits and a fresh
    working folder remain."""
    with open("/proc/self/oom_score_adj", "w") as file:
        file.write("1000")  # if memory runs out, the kernel goes first, not the zygote or the grader
    if sealed:
        _mount_tmpfs(SCRATCH, SCRATCH_SIZE)
        _mount_tmpfs("/dev/shm", "64m")
        _mount_tmpfs("/proc", "1m")
        home = SCRATCH
    else:
        home = tempfile.mkdtemp(prefix="curso-kernel-")
    for limit, value in LIMITS.items():
        resource.setrlimit(limit, (value, value))
    if sealed:
        _drop_capabilities()
    os.chdir(home)
    os.environ.update(HOME=home, TMPDIR=home, MPLCONFIGDIR=os.path.join(home, ".matplotlib"))
    tempfile.tempdir = None  # forget the zygote's choice: use TMPDIR


# What a lesson's code may use whose first use is slow, warmed in the zygote only for lessons that mention it
# (see ``autograder.grading.batch``): {name: what the lesson's code mentions}.
FIRST_USES = {"optim": "torch.optim", "func": "torch.func", "torchviz": "from torchviz"}


def warm_torch(uses):
    """Once per process, not once per submission: the first vector-Jacobian product with a given gradient
    imports sympy (half a second); with ``uses``, the first optimizer step or ``torch.func`` transform imports
    torch._dynamo (half a second), and the first ``torch.func.jvp`` sets up forward mode (a fifth)."""
    import torch

    layer = torch.nn.Linear(1, 1)
    output = layer(torch.ones(1))
    torch.autograd.grad(output, layer.weight, torch.ones(1), retain_graph=True)
    output.sum().backward()
    if "optim" in uses:
        torch.optim.SGD(layer.parameters(), lr=0.1, momentum=0.9).step()
    if "func" in uses:
        torch.func.grad(lambda t: torch.sin(t).sum())(torch.ones(1))
        torch.func.jvp(torch.sin, (torch.ones(1),), (torch.ones(1),))


def warm_up(uses):
    """The imports every lesson does, and the slow first ``uses`` of the lessons graded, done once before any
    submission arrives."""
    import IPython.core.interactiveshell  # noqa: F401
    import matplotlib

    matplotlib.use("agg")
    import ipywidgets  # noqa: F401
    import matplotlib.layout_engine
    import matplotlib.pyplot
    import numpy  # noqa: F401
    import torch

    if "torchviz" in uses:
        import torchviz  # noqa: F401
    warm_torch(uses)

    # The first figure loads fonts and builds caches (a fifth of a second): once here too.
    figure, axes = matplotlib.pyplot.subplots()
    axes.scatter([0.0], [1.0], label="á")
    axes.plot([0.0, 1.0], [1.0, 0.0], "--")
    axes.set_title("Pérdida")
    axes.legend()
    figure.canvas.draw()
    matplotlib.pyplot.close(figure)
    # Figures are not drawn while grading, nor laid out: laying one out measures every label (a tenth of a
    # second per figure), and nothing graded depends on where a label sits.
    matplotlib.layout_engine.TightLayoutEngine.execute = lambda engine, figure: None

    import autograder.sealed.runner

    # IPython's shell is made here (a sixtieth of a second): each kernel forked from here gets its own copy. So
    # is its first traceback, which imports what formats it (a fortieth): lessons show errors on purpose.
    shell = autograder.sealed.runner.make_shell()
    try:
        raise ZeroDivisionError("división entre cero")
    except ZeroDivisionError:
        shell.InteractiveTB.structured_traceback(*sys.exc_info())

    torch.set_num_threads(1)  # one core per worker; the workers use the others
    # What is here now is kept out of the garbage collector's reach: otherwise the first full collection in a
    # kernel walks every object inherited from here (a sixth of a second, at a moment no one can predict).
    gc.freeze()


def own_descriptors(keep):
    """Standard streams of its own (``/dev/null``, opened afresh) and no other inherited descriptor but ``keep``.

    What the zygote had open (its stderr among them) is shared by every kernel it forks: a shared
    file offset, or a file another kernel wrote, would let one submission reach the next one.
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    start = 3
    for fd in sorted({*keep, null, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 3)}):
        if fd >= start:
            os.closerange(start, fd)
            start = fd + 1
    if null > 2 and null not in keep:
        os.close(null)


def no_writable_imports():
    """Nothing the student writes can be imported: the working folder (``/trabajo``, or any folder the kernel may
    write) leaves ``sys.path``, so a ``.py`` file written by a cell cannot run as a module (``import``,
    ``matplotlib.use("module://…")``), out of sight of the code reader."""
    writable = {os.path.realpath(p) for p in (os.getcwd(), SCRATCH, os.environ.get("HOME", ""), tempfile.gettempdir())}
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) not in writable]


def kernel(fds, sealed):
    """The sealed process: the student's cells and calls, served until the grader kills it."""
    from autograder.sealed.runner import serve

    requests, replies, _, _ = fds
    own_descriptors({requests, replies})
    seal(sealed)
    no_writable_imports()
    serve(requests, replies)
    os._exit(0)


def supervise(fds, sealed):
    """Between the zygote and one kernel: forward interrupts and kills, report the kernel's end."""
    _, _, control, status = fds
    if sealed:
        enter_namespaces()
    pid = _forked(kernel, fds, sealed)
    reports = Channel(control, status)
    reports.send({"event": "started", "pid": pid})  # in this PID namespace: the grader finds its CPU time
    watch = os.pidfd_open(pid)
    while True:
        ready = select.select([control, watch], [], [])[0]
        if watch in ready:
            _, code = os.waitpid(pid, 0)
            reports.send({"event": "exit", "code": os.waitstatus_to_exitcode(code)})
            return
        byte = os.read(control, 1)
        if byte in (b"i", b"k") or not byte:
            os.kill(pid, signal.SIGINT if byte == b"i" else signal.SIGKILL)


def _forked(function, *args):
    """Run ``function(*args)`` in a child process that never returns here; the child's pid."""
    pid = os.fork()
    if pid == 0:
        try:
            function(*args)
        finally:
            os._exit(0)
    return pid


def main(argv):
    fds = [int(fd) for fd in argv[1].split(",")]
    sealed = argv[2] != "-"
    if argv[2].isdigit():
        drop_root(int(argv[2]))
    warm_up(argv[3].split(","))
    requests, _, control, status = fds
    reports = Channel(control, status)
    reports.send({"event": "ready"})
    while True:
        byte = os.read(control, 1)
        if not byte:
            return
        if byte != b"f":
            continue  # a late interrupt or kill for a kernel that has already ended
        os.waitpid(_forked(supervise, fds, sealed), 0)
        drain(requests)
        reports.send({"event": "ready"})


if __name__ == "__main__":
    main(sys.argv)
