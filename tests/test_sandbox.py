"""The sealed kernel and the plain-data calls across its boundary, tested directly."""

import os
import subprocess
from pathlib import Path

import pytest
import torch

from autograder.course import PACKAGE_DIR, ROOT, SOLUTIONS
from autograder.sealed import sandbox
from autograder.sealed.sandbox import KernelDied, Sandbox, SandboxUnavailable
from gradientes import checks
from gradientes.remote_errors import ProtocolError, RemoteError, Timeout


@pytest.fixture(scope="module")
def box():
    started = Sandbox()
    yield started
    started.close()


@pytest.fixture
def kernel(box):
    sealed = box.new_kernel()
    yield sealed
    sealed.close()


def printed(outputs):
    return "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")


def test_the_kernel_sees_no_course_no_network_and_is_not_root(kernel):
    code = (
        "import os, socket\n"
        f"print([os.path.exists(p) for p in ['{SOLUTIONS}', '{ROOT}/gradebook.db', '{ROOT}/README.md']])\n"
        "print(os.getuid() != 0, os.path.exists('/proc/1'))\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 22), timeout=1)\n"
        "except OSError as error:\n"
        "    print('sin red:', error.errno)\n"
        f"try:\n    open('{PACKAGE_DIR}/cli.py', 'a')\nexcept OSError as error:\n    print('solo lectura')\n"
    )
    text = printed(kernel.run(code, 10))
    assert "[False, False, False]" in text
    assert "True False" in text
    assert "sin red:" in text and "solo lectura" in text


def test_a_file_the_student_writes_cannot_run_as_a_module(kernel):
    """What a cell writes stays data: a module written into the working folder is not importable (the code reader
    would never see it run), neither by ``import`` nor as a matplotlib backend."""
    code = (
        "open('parche_propio.py', 'w').write('print(\\'se ejecutó\\')')\n"
        "import matplotlib\n"
        "for intento in ('import parche_propio', 'matplotlib.use(\\'module://parche_propio\\')'):\n"
        "    try:\n        exec(intento)\n    except (ImportError, ValueError) as error:\n"
        "        print('no se importa:', type(error).__name__)\n"
    )
    text = printed(kernel.run(code, 30))
    assert "se ejecutó" not in text and text.count("no se importa") == 2, text


def test_the_work_folder_is_private_and_processes_die_with_their_kernel(box):
    first = box.new_kernel()
    first.run(
        "open('secreto', 'w').write('x')\nimport subprocess\n"
        "subprocess.Popen(['sh', '-c', 'sleep 300; : curso-prueba-huerfano'], start_new_session=True)",
        10,
    )
    assert subprocess.run(["pgrep", "-f", "curso-prueba-huerfano"], capture_output=True).returncode == 0
    first.close()
    assert subprocess.run(["pgrep", "-f", "curso-prueba-huerfano"], capture_output=True).returncode == 1
    second = box.new_kernel()
    try:
        text = printed(second.run("import os, tempfile\nprint(os.getcwd(), tempfile.gettempdir(), os.listdir())", 10))
        assert text.strip() == "/trabajo /trabajo []"  # nothing of the first kernel
    finally:
        second.close()


def test_autograd_crosses_the_boundary(kernel):
    kernel.run("def d(a, b):\n    return a * b + a\n", 10)
    d = kernel.peer.get("d")
    a = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    result = d(a, b)
    checks.check_properties(result, requires_grad=True, is_leaf=False, grad_fn="AddBackward0")
    result.backward()
    assert (a.grad.item(), b.grad.item()) == (4.0, 2.0)


def test_a_graph_built_by_the_grader_is_rebuilt_in_the_kernel(kernel):
    kernel.run(
        "def nombres(t):\n    salida, nodo = [], t.grad_fn\n"
        "    while nodo is not None:\n        salida.append(type(nodo).__name__)\n"
        "        siguientes = [n for n, _ in nodo.next_functions if n is not None]\n"
        "        nodo = siguientes[0] if siguientes else None\n    return salida\n",
        10,
    )
    x = torch.tensor(0.5, requires_grad=True)
    from autograder.bridge.autograd import Recorder

    with Recorder():
        t = (x.sin() * 3).exp()
    assert kernel.peer.get("nombres")(t) == ["ExpBackward0", "MulBackward0", "SinBackward0", "AccumulateGrad"]


def test_effects_on_leaves_come_back(kernel):
    kernel.run(
        "import torch\ndef paso(w):\n    (w * w).sum().backward()\n"
        "    with torch.no_grad():\n        w -= 0.5 * w.grad\n    return None\n",
        10,
    )
    w = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    kernel.peer.get("paso")(w)
    assert w.grad.tolist() == [2.0, -4.0] and w.tolist() == [0.0, 0.0]
    assert w.is_leaf and w.requires_grad


def test_a_function_passed_to_the_student_is_called_back_with_autograd(kernel):
    kernel.run("def vjp(f, x, v):\n    x = x.detach().requires_grad_()\n    f(x).backward(v)\n    return x.grad\n", 10)
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    v = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
    result = kernel.peer.get("vjp")(lambda t: torch.sin(t) * t, x, v)
    torch.testing.assert_close(result, (torch.cos(x) * x + torch.sin(x)) * v)


def test_a_graph_from_the_other_side_is_freed_as_pytorch_frees_it(kernel):
    # The grader keeps its graph; the kernel's copy must still fail a second backward without retain_graph.
    kernel.run(
        "import torch\n"
        "def dos_veces(f, x, retener):\n"
        "    x = x.detach().requires_grad_()\n"
        "    y = f(x)\n"
        "    torch.autograd.grad(y[0], x, retain_graph=retener)\n"
        "    return torch.autograd.grad(y[1], x)[0]\n",
        10,
    )
    dos_veces = kernel.peer.get("dos_veces")
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert dos_veces(lambda t: t * t, x, True).tolist() == [0.0, 4.0]
    assert dos_veces(lambda t: t + 1, x, False).tolist() == [0.0, 1.0]  # a sum saves nothing: PyTorch allows it
    with pytest.raises(RemoteError, match="backward through the graph a second time"):
        dos_veces(lambda t: t * t, x, False)


def test_a_callback_sees_what_the_kernel_did_to_a_tensor_it_received(kernel):
    # The student's code changes the x it received, then calls a function of the grader with it.
    kernel.run(
        "import torch\n"
        "def cambia_y_llama(f, x):\n"
        "    with torch.no_grad():\n"
        "        x += 1\n"
        "    x.requires_grad_(True)\n"
        "    f(x).backward()\n"
        "    return x.grad\n",
        10,
    )
    seen = []

    def f(t):
        seen.append((t.tolist(), t.requires_grad))
        return (t * t).sum()

    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    grad = kernel.peer.get("cambia_y_llama")(f, x)
    assert seen == [([2.0, 3.0], True)]
    assert grad.tolist() == [4.0, 6.0]
    assert x.tolist() == [2.0, 3.0] and x.requires_grad


def test_calls_that_never_end_are_interrupted(kernel):
    kernel.run("def lenta(x):\n    while True:\n        pass\n", 10)
    kernel.deadline, kernel.call_limit = None, 1
    with pytest.raises(Timeout):
        kernel.peer.call_timeout = 1
        kernel.peer.get("lenta")(1)
    assert "sigo" in printed(kernel.run("print('sigo')", 10))


def test_a_loop_that_calls_the_grader_back_is_interrupted_and_the_kernel_stays_in_step(kernel):
    # Requests the loop sent before the interrupt must not be taken for the replies of later ones.
    kernel.run("def bucle(f):\n    while True:\n        f(1.0)\n", 10)
    kernel.peer.call_timeout = 1
    with pytest.raises(Timeout):
        kernel.peer.get("bucle")(lambda x: x * 2)
    for i in range(3):
        assert f"sigo {i}" in printed(kernel.run(f"print('sigo {i}')", 10))


def test_a_late_reply_is_dropped_on_both_sides_never_taken_for_another_requests(kernel):
    # An interrupt can abandon a request whose reply is already on its way (a loop calling the grader
    # back, interrupted just after the grader answered): that reply must not answer a later request.
    kernel.peer.channel.send({"op": "reply", "id": 10**6, "value": 999.0})
    assert "sigo" in printed(kernel.run("print('sigo')", 10))

    def doble(x):
        kernel.peer.channel.send({"op": "reply", "id": -1, "value": 999.0})
        return x * 2

    kernel.run("def llama(f):\n    return f(1.5) + f(2.5)\n", 10)
    assert kernel.peer.get("llama")(doble) == 8.0


def test_a_request_skips_replies_that_are_not_its_own_and_a_timeout_loses_no_half_message():
    import os

    from autograder.bridge.peer import Peer
    from autograder.bridge.wire import _HEADER, Channel

    theirs_r, theirs_w = os.pipe()
    ours_r, ours_w = os.pipe()
    them = Channel(ours_r, theirs_w)
    peer = Peer(Channel(theirs_r, ours_w), set())
    them.send({"op": "reply", "id": 0, "value": "tarde"})
    them.send({"op": "reply", "id": 1, "value": "a tiempo"})
    assert peer.request({"op": "get", "name": "x"}, 5)["value"] == "a tiempo"
    assert them.receive(1) == {"op": "get", "name": "x", "id": 1}

    data = b'{"op":"reply","id":2,"value":"entero"}'
    os.write(theirs_w, _HEADER.pack(len(data)) + data[:10])
    with pytest.raises(Timeout):
        peer.channel.receive(0.2)
    os.write(theirs_w, data[10:])
    assert peer.channel.receive(1)["value"] == "entero"
    for fd in (theirs_r, theirs_w, ours_r, ours_w):
        os.close(fd)


def test_garbage_from_the_kernel_is_a_protocol_error_not_a_crash(kernel):
    garbage = "import os\nfor fd in range(3, 40):\n    try:\n        os.write(fd, b'\\x00\\x00\\x00\\x05nojso')\n"
    garbage += "    except OSError:\n        pass\n"
    with pytest.raises((ProtocolError, KernelDied)):
        kernel.run(garbage, 10)
        kernel.run("print(1)", 10)


def test_without_bubblewrap_the_error_is_spanish_and_says_what_to_do(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match=r"apt-get install bubblewrap.*--sin-aislamiento"):
        sandbox.bwrap_command(61000)


CGROUP_V2 = Path("/sys/fs/cgroup/cgroup.controllers").exists()


def _cgroup(box, controller_file):
    found = [c for c in box.cgroups if (c / controller_file).exists()]
    if not found:
        pytest.skip(f"este sistema no permite crear un cgroup con {controller_file}")
    return found[0]


def test_forked_children_share_one_memory_cap(box):
    cgroup = _cgroup(
        box, "memory.max" if (Path("/sys/fs/cgroup") / "cgroup.controllers").exists() else "memory.limit_in_bytes"
    )
    hog = box.new_kernel()
    code = (
        "import os, time, numpy\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        numpy.ones(int(2.5 * 1024**3 // 8))  # 2.5 GiB each, 7.5 GiB in all\n"
        "        time.sleep(20)\n"
        "        os._exit(0)\n"
        "time.sleep(6)\n"
        "print('sigo vivo')\n"
    )
    try:
        assert "sigo vivo" in printed(hog.run(code, 30))
        peak_file = next(n for n in ("memory.max_usage_in_bytes", "memory.peak") if (cgroup / n).exists())
        peak = int((cgroup / peak_file).read_text())
        assert peak <= sandbox.MEMORY_PER_WORKER
    finally:
        hog.close()


def _throttled(cgroup):
    stats = dict(line.split() for line in (cgroup / "cpu.stat").read_text().splitlines())
    return int(stats["nr_throttled"])


def test_a_submission_spinning_in_many_processes_gets_one_core(box):
    cgroup = _cgroup(box, "cpu.max" if CGROUP_V2 else "cpu.cfs_quota_us")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("hace falta más de un núcleo para ver el límite")
    spinner = box.new_kernel()
    code = (
        "import os, time\n"
        "pipes = []\n"
        "for _ in range(3):\n"
        "    r, w = os.pipe()\n"
        "    if os.fork() == 0:\n"
        "        end = time.monotonic() + 3\n"
        "        while time.monotonic() < end:\n"
        "            pass\n"
        "        os.write(w, str(time.process_time()).encode())\n"
        "        os._exit(0)\n"
        "    pipes.append(r)\n"
        "print('cpu', sum(float(os.read(r, 100)) for r in pipes))\n"
    )
    try:
        throttled = _throttled(cgroup)
        # Three processes spinning for 3 s: 9 s of CPU with three free cores, at most about 3 s with one. When the
        # rest of the machine is busy it may hold them back before the cgroup has to: then the round is repeated, and
        # after three such rounds the throttling cannot be seen (the bound on the CPU they used still held each time).
        for _ in range(3):
            used = float(printed(spinner.run(code, 30)).split("cpu")[1])
            assert used < 3 * sandbox.CPU_PER_WORKER * 1.3, used
            if _throttled(cgroup) > throttled:
                break
        else:
            pytest.skip("la máquina estuvo tan ocupada que los tres procesos no llegaron al límite del cgroup")
    finally:
        spinner.close()


def _student(kernel, code, name):
    """Define ``name`` in the kernel with ``code``; return it as the grader sees it."""
    assert "error" not in str(kernel.run(code, 10))
    return kernel.peer.get(name)


def test_each_kernel_has_its_own_streams_and_no_inherited_descriptor(box):
    first = box.new_kernel()
    first.run("import os\nos.write(2, b'curso-marca-9137')\nos.lseek(2, 70 * 1024**2, 0)\nos.write(1, b'y')", 10)
    first.close()
    second = box.new_kernel()
    try:
        code = (
            "import os, stat, sys, torch\n"
            "def _lee(fd):\n    try:\n        return os.pread(fd, 1 << 20, 0)\n"
            "    except OSError:\n        return b''\n"
            "print(any(b'curso-marca-9137' in _lee(fd) for fd in range(256)),"
            " [stat.S_ISCHR(os.fstat(fd).st_mode) for fd in (0, 1, 2)])\n"
            "def ruidosa(x):\n    print('aviso ' * 100_000, file=sys.stderr)\n    os.write(2, b'z' * 1000)\n"
            "    return 2 * x\n"
        )
        text = printed(second.run(code, 10))
        assert text.strip() == "False [True, True, True]", text
        result = second.peer.get("ruidosa")(torch.tensor(3.0))
        assert float(result) == 6.0
    finally:
        second.close()


def test_objects_behave_as_pytorch_own_across_the_boundary(kernel):
    code = (
        "import torch\n"
        "def vacia(p):\n    p.grad.detach_()\n    p.grad.zero_()\n"
        "def paso_data(p):\n    p.data -= 0.5 * p.grad\n"
        "def desactiva():\n    torch.set_grad_enabled(False)\n"
    )
    assert "error" not in str(kernel.run(code, 10))
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    p.grad = torch.tensor([4.0, 4.0])
    kernel.peer.get("paso_data")(p)
    assert p.tolist() == [-1.0, 0.0], "a change through .data comes back"
    kernel.peer.get("vacia")(p)
    assert p.grad.tolist() == [0.0, 0.0], ".grad.detach_() works: the kernel's .grad is not a view"
    try:
        kernel.peer.get("desactiva")()
        assert not torch.is_grad_enabled(), "grad mode left off by the student's call is off for the test too"
    finally:
        torch.set_grad_enabled(True)


def test_what_a_test_cell_sent_does_not_outlive_it(kernel):
    calls = []

    def contador(x):
        calls.append(x)
        return x

    guarda = _student(kernel, "def guarda(f):\n    global guardada\n    guardada = f\n    return f(1)", "guarda")
    assert guarda(contador) == 1 and calls == [1]
    kernel.peer.forget()
    kernel.peer.request({"op": "forget"}, 5)
    outputs = kernel.run("guardada(2)", 10)
    assert outputs[-1]["output_type"] == "error" and calls == [1], outputs


def test_an_oversized_reply_is_refused_and_the_kernel_stays_in_step(kernel):
    enorme = _student(kernel, "def enorme():\n    return 'x' * 20_000_000\ndef corta():\n    return 'ok'", "enorme")
    with pytest.raises(ProtocolError, match="MB"):
        enorme()
    assert kernel.peer.get("corta")() == "ok"


def test_a_value_that_cannot_cross_is_described_as_in_the_lab(kernel):
    arreglo = _student(kernel, "import numpy\ndef arreglo():\n    return numpy.zeros(2)", "arreglo")
    value = arreglo()
    assert checks.describe(value) == "array([0., 0.]) (de tipo ndarray)"


def test_the_kernel_imports_the_graders_own_package(kernel):
    text = printed(kernel.run("import autograder\nprint(autograder.__file__)", 10))
    assert text.strip() == f"{sandbox.KERNEL_PACKAGE_ROOT}/autograder/__init__.py"


def test_what_a_lesson_uses_first_is_ready_before_the_student_and_figures_are_not_laid_out(kernel):
    code = (
        "import sys\nimport matplotlib.pyplot as plt\n"
        "primeras = ('torch._dynamo', 'sympy', 'torch._decomp.decompositions_for_jvp')\n"
        "print(sorted(m for m in primeras if m in sys.modules))\n"
        "figura, eje = plt.subplots()\neje.set_title('Pérdida')\nantes = figura.subplotpars.left\n"
        "figura.tight_layout()\nprint(figura.subplotpars.left == antes)"
    )
    text = printed(kernel.run(code, 10))
    assert "['sympy', 'torch._decomp.decompositions_for_jvp', 'torch._dynamo']" in text
    assert text.strip().endswith("True")


def test_a_batch_warms_only_the_first_uses_its_lessons_mention():
    from autograder.course import find_lesson
    from autograder.grading import batch

    assert batch._first_uses([find_lesson("01_tensores_y_requires_grad")]) == []
    assert batch._first_uses([find_lesson("08_proyecto_final")]) == ["optim"]
    assert batch._first_uses([find_lesson("07_errores_comunes")]) == ["func", "torchviz"]
    lean = Sandbox(uses=["optim"])
    try:
        sealed = lean.new_kernel()
        code = "import sys\nprint(sorted(m for m in ('torch._dynamo', 'sympy', 'torchviz') if m in sys.modules))"
        assert "['sympy', 'torch._dynamo']" in printed(sealed.run(code, 10))
        sealed.close()
    finally:
        lean.close()
