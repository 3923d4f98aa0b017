"""The checks of lessons 09 and 10 observe from the test's side: the test registers the student's hook on
its own graph, wraps the student's forward and backward in its own ``torch.autograd.Function``, and reads the
answer's code only through ``check_statement``, which fails closed."""

import math
import random
import re

import pytest
import torch

from gradientes.checks import CheckFailure, check_to_rounding
from gradientes.checks_09 import check_own_code
from gradientes.checks_10 import (
    check_clipped,
    check_gradcheck,
    custom_function,
    gradient_with_hook,
    returned_function,
)
from gradientes.checks_11 import (
    NETWORK_MODULES,
    check_backward,
    check_engine_code,
    check_externals,
    check_local_step,
    check_network,
    check_reduced,
    check_reduction_code,
    check_training_step,
    dyadic,
    evaluate,
    expected_received,
    near_a_kink,
    network_reference,
    network_size,
    random_program,
    reduced_reference,
    shown,
    training_reference,
    with_externals,
    with_rules,
)
from gradientes.reading import SOURCES


@pytest.fixture
def cells():
    """Set the student's cells as the grader does (``SOURCES``); a test calls it with the cells' sources."""
    tokens = []

    def set_cells(*sources):
        tokens.append(SOURCES.set(list(sources)))

    yield set_cells
    for token in reversed(tokens):
        SOURCES.reset(token)


def f(x):
    return torch.stack([x[0] * x[1], x[0] + x[1], x[1] ** 2])


def g(h):
    return h[0] ** 2 + 0.5 * h[1] - h[2]


X = torch.tensor([1.0, 2.0], dtype=torch.float64)


def clip(gradient):
    return gradient.clamp(-1.0, 1.0)


def test_the_hook_is_registered_on_the_intermediate_node_or_on_the_leaf(cells):
    cells("")
    hook = returned_function(clip, "tu gancho", "gancho_de_recorte(1.0)")
    # dg/dh = (4, 0.5, -1), clipped at h to (1, 0.5, -1); dh/dx gives (1·2 + 0.5, 1·1 + 0.5 - 4) at x = (1, 2).
    assert gradient_with_hook(hook, f, g, X, on="h").tolist() == [2.5, -2.5]
    # Without clipping at h, x.grad = (8.5, 0.5); clipped at the leaf it is (1, 0.5).
    assert gradient_with_hook(hook, f, g, X, on="x").tolist() == [1.0, 0.5]


def test_a_hook_that_returns_no_tensor_of_the_gradients_shape_fails(cells):
    cells("")
    with pytest.raises(CheckFailure, match="un gancho devuelve None"):
        gradient_with_hook(returned_function(lambda gradient: 1.0, "tu gancho", "g"), f, g, X)
    with pytest.raises(CheckFailure, match="debía devolver una función"):
        returned_function(None, "tu gancho", "gancho_de_recorte(1.0)")


def test_a_hook_that_leaves_the_gradient_as_it_came_is_named(cells):
    cells("")

    def forgetful(gradient):
        gradient.clamp(-1.0, 1.0)  # computes the clipped gradient and throws it away

    for hook in (lambda gradient: gradient, forgetful):
        came = gradient_with_hook(returned_function(hook, "tu gancho", "g"), f, g, X)
        with pytest.raises(CheckFailure, match="sin recortar"):
            check_clipped(came, [2.5, -2.5], unclipped=[8.5, 0.5], name="el gradiente de x")
    came = gradient_with_hook(returned_function(lambda gradient: gradient.clamp(0.0, 1.0), "tu gancho", "g"), f, g, X)
    with pytest.raises(CheckFailure, match="no coincide"):
        check_clipped(came, [2.5, -2.5], unclipped=[8.5, 0.5], name="el gradiente de x")
    check_clipped(
        gradient_with_hook(returned_function(clip, "tu gancho", "g"), f, g, X),
        [2.5, -2.5],
        unclipped=[8.5, 0.5],
        name="x",
    )


def _richardson(f, step, levels):
    """Central differences of ``f`` at 0, extrapolated ``levels`` times (Richardson)."""
    rows = []
    for i in range(levels):
        h = step / 2**i
        row = [(f(h) - f(-h)) / (2 * h)]
        for k in range(1, i + 1):
            row.append(row[k - 1] + (row[k - 1] - rows[i - 1][k - 1]) / (4**k - 1))
        rows.append(row)
    return rows[-1][-1]


def test_to_rounding_refuses_finite_differences_and_says_why():
    W1 = torch.tensor([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]], dtype=torch.float64)
    W2 = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]], dtype=torch.float64)
    x, v = torch.tensor([0.5, -0.25], dtype=torch.float64), torch.tensor([1.0, 2.0], dtype=torch.float64)
    expected = [3.539014798346673, 0.7864477329659274]

    def red(z):
        return W2 @ torch.tanh(W1 @ z)

    _, exact = torch.func.jvp(red, (x,), (v,))
    check_to_rounding(exact, expected, name="J v", rtol=4e-15, atol=4e-15, close_hint="aproximado")
    extrapolated = _richardson(lambda t: red(x + t * v), 0.1, 6)
    assert torch.allclose(extrapolated, torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=1e-12)
    with pytest.raises(CheckFailure, match="aproximado"):
        check_to_rounding(extrapolated, expected, name="J v", rtol=4e-15, atol=4e-15, close_hint="aproximado")
    with pytest.raises(CheckFailure, match="otra cosa"):
        check_to_rounding(
            2 * exact, expected, name="J v", rtol=4e-15, atol=4e-15, hint="otra cosa", close_hint="aproximado"
        )


def test_to_rounding_compares_numbers_too():
    check_to_rounding(64.0, 64.0, name="de/da", rtol=2e-15, atol=1e-14, close_hint="aproximado")
    check_to_rounding(torch.tensor(64.0, dtype=torch.float64), 64.0, name="de/da", rtol=2e-15, atol=1e-14)
    with pytest.raises(CheckFailure, match="aproximado"):
        check_to_rounding(64.0 + 1e-11, 64.0, name="de/da", rtol=2e-15, atol=1e-14, close_hint="aproximado")


def forward(x):
    return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs())), (x,)


def backward(saved, grad_y):
    (x,) = saved
    return grad_y * torch.sigmoid(x)


def test_the_tests_own_function_runs_the_students_forward_and_backward():
    own = custom_function(forward, backward, "softplus")
    x = torch.tensor([-800.0, 0.0, 800.0], dtype=torch.float64, requires_grad=True)
    (gradient,) = torch.autograd.grad(own(x), x, torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    assert gradient.tolist() == [0.0, 1.0, 3.0]
    check_gradcheck(own, torch.tensor([-3.0, 0.25, 4.0], dtype=torch.float64), where="x = (-3, 0.25, 4)")


def test_a_wrong_backward_fails_gradcheck_and_a_bare_forward_is_named():
    wrong = custom_function(forward, lambda saved, grad_y: grad_y * torch.sigmoid(-saved[0]), "softplus")
    with pytest.raises(CheckFailure, match="gradcheck no acepta"):
        check_gradcheck(wrong, torch.tensor([-3.0, 0.25, 4.0], dtype=torch.float64), where="x")
    bare = custom_function(lambda x: x * 2, backward, "softplus")
    with pytest.raises(CheckFailure, match=r"debía devolver una tupla \(y, guardado\)"):
        bare(torch.ones(2, dtype=torch.float64, requires_grad=True))


IMPORTS = "import math\nimport torch\n"


def test_own_code_refuses_the_forbidden_api_however_it_is_reached(cells):
    forbidden = ("torch.sinc", "torch.special", ".sinc")
    cells(IMPORTS, "def sinc(x):\n    from torch import sinc as s\n    return s(x / math.pi)\n")
    with pytest.raises(CheckFailure, match=r"torch\.sinc"):
        check_own_code(("sinc",), forbidden=forbidden)
    cells(IMPORTS, "def sinc(x):\n    return torch.ops.aten.sin(x) / x\n")
    with pytest.raises(CheckFailure, match=r"torch\.ops"):
        check_own_code(("sinc",), forbidden=forbidden)
    cells(
        IMPORTS, "def _c(x):\n    return torch.sin(x) / x\n\ndef sinc(x):\n    return torch.where(x == 0, 1.0, _c(x))\n"
    )
    check_own_code(("sinc",), forbidden=forbidden)


def test_own_code_computes_only_with_elementary_operations(cells):
    """An allowlist: a library function that already does the work is refused under any name, as a method too."""
    forbidden = ("torch.nn.functional.softplus", "torch.logaddexp", "torch.special")
    for body in [
        "    return -torch.nn.functional.logsigmoid(-x), (x,)\n",
        "    return torch.stack([x, torch.zeros_like(x)]).logsumexp(0), (x,)\n",
        "    from torch.nn import functional as F\n    return -F.logsigmoid(-x), (x,)\n",
        "    return torch.nn.modules.activation.F.silu(x) / x, (x,)\n",
    ]:
        cells(IMPORTS, "def adelante(x):\n" + body)
        refused = "no es una de las operaciones elementales|«torch.nn.modules», que la lectura no conoce"
        with pytest.raises(CheckFailure, match=refused):
            check_own_code(("adelante",), forbidden=forbidden)
    cells(IMPORTS, "def sinc(x):\n    return torch.special.spherical_bessel_j0(x)\n")
    with pytest.raises(CheckFailure, match="sinc usa"):
        check_own_code(("sinc",), forbidden=("torch.sinc", ".sinc"))
    honest = (
        "import warnings\n\ndef _positiva(x):\n    return torch.nn.functional.relu(x)\n\ndef adelante(x):\n"
        "    if not x.is_floating_point():\n        warnings.warn(f'{x.dtype}')\n"
        "    y = _positiva(x) + torch.log1p(torch.exp(-x.abs())).reshape(x.shape)\n"
        "    return y.to(x.dtype), (x.clone(), torch.tensor(math.pi))\n"
    )
    cells(IMPORTS, honest)
    check_own_code(("adelante",), forbidden=forbidden)


def test_the_engine_may_reach_only_math_and_collections(cells):
    cells("import math\nfrom collections import deque\n\ndef orden(r):\n    return list(deque([math.exp(r)]))\n")
    check_engine_code("orden")
    cells("if True:\n    import numpy\n\ndef orden(r):\n    return numpy.exp(r)\n")
    with pytest.raises(CheckFailure, match="numpy"):
        check_engine_code("orden")
    # The recursion limit (question 3 invites it) computes nothing; anything else of sys is still refused.
    limit = "import sys\n\ndef orden(r):\n    sys.setrecursionlimit(10000)\n"
    cells(limit + "    return [r]\n")
    check_engine_code("orden")
    cells(limit + "    return [r, sys.version]\n")
    with pytest.raises(CheckFailure, match="sys"):
        check_engine_code("orden")


def _tanh_by_differences(x, h=2.0**-6):
    """The best finite difference of tanh' a student could write: 8 points, at its best step."""
    c = (4 / 5, -1 / 5, 4 / 105, -1 / 280)
    return sum(c[k] * (math.tanh(x + (k + 1) * h) - math.tanh(x - (k + 1) * h)) for k in range(4)) / h


def test_the_reference_follows_every_path_and_keeps_what_earlier_passes_left():
    programa = [("c", "*", "a", "b"), ("d", "+", "c", "a"), ("e", "+", "c", "d")]
    dato, _, gradientes, escalas = evaluate(programa, {"a": 2.0, "b": -3.0}, {"a": 0.5})
    assert (dato, gradientes) == (-10.0, {"a": -4.5, "b": 4.0})
    assert all(escalas[hoja] >= abs(gradientes[hoja]) for hoja in escalas)


def test_one_local_rule_is_checked_to_rounding_and_with_its_children():
    instruccion, hojas, g = ("y", "tanh", "a"), {"a": 0.5}, 2.0
    dato, _, esperados, _ = evaluate([instruccion], hojas, {}, g)
    t = math.tanh(0.5)
    honest = (t, {"a": g / math.cosh(0.5) ** 2}, ["a"])  # the derivative in another form
    check_local_step(honest, instruccion, {}, (dato, esperados), call="retro_local", hint="h", dato_hint="d")
    with pytest.raises(CheckFailure, match="_hijos"):
        check_local_step((t, esperados, []), instruccion, {}, (dato, esperados), call="r", hint="h", dato_hint="d")
    misses = 0
    for k in range(-48, 49):  # a over [-1.5, 1.5]: finite differences miss nearly always
        a = k / 32
        dato, _, esperados, _ = evaluate([instruccion], {"a": a}, {}, 1.0)
        try:
            check_local_step(
                (dato, {"a": _tanh_by_differences(a)}, ["a"]),
                instruccion,
                {},
                (dato, esperados),
                call="r",
                hint="h",
                dato_hint="d",
            )
        except CheckFailure:
            misses += 1
    assert misses > 0.8 * 97


def test_a_backward_pass_that_zeroed_the_leaves_is_named():
    programa, hojas, previos = [("c", "*", "a", "b"), ("d", "+", "c", "a")], {"a": 2.0, "b": -3.0}, {"a": 0.5}
    dato, escala, esperados, escalas = evaluate(programa, hojas, previos)
    with pytest.raises(CheckFailure, match="a cero"):
        check_backward(
            (dato, {"a": -2.0, "b": 2.0}),
            dato,
            esperados,
            previos,
            escalas=(escala, escalas),
            call="g",
            hint="h",
            dato_hint="d",
        )
    check_backward((dato, esperados), dato, esperados, previos, escalas=(escala, escalas), call="g", hint="h",
                   dato_hint="d")  # fmt: skip


def test_the_training_step_is_the_reference_of_its_loss_program():
    lineal = [("z", "*", "p0", "x"), ("prediccion", "+", "z", "p1")]
    perdida, nuevos, escalas = training_reference(lineal, [0.5, -0.25], [(1.0, 2.0), (-2.0, -1.0)], 0.25)
    assert (perdida, nuevos) == (1.5625, [0.8125, 0.25])
    check_training_step((perdida, nuevos), perdida, nuevos, escalas=escalas, call="p", hints=("a", "b"))
    with pytest.raises(CheckFailure, match="el parámetro p0"):
        check_training_step((perdida, [0.8125 + 1e-9, 0.25]), perdida, nuevos, escalas=escalas, call="p",
                            hints=("a", "b"))  # fmt: skip


def test_the_tests_rules_see_when_and_with_what_the_engine_calls_them():
    rng = random.Random(5)
    for _ in range(30):
        programa = with_externals(rng, random_program(rng, "abc", 8), 2)
        valores = {h: dyadic(rng, -1.5, 1.5) for h in "abc"}
        _, reglas = with_rules(programa)
        esperados = expected_received(programa, valores)
        assert reglas and set(esperados) <= set(reglas)
        for nombre, recibidos in esperados.items():  # an honest engine: each reachable rule once, with its gradient
            reglas[nombre](recibidos[0][0])
        check_externals(reglas, esperados, call="g")
    programa = [("c", "*", "a", "b"), ("m", "externa", "c", 0.5), ("d", "+", "m", "a"), ("e", "+", "m", "d")]
    esperados = expected_received(programa, {"a": 2.0, "b": -3.0})
    assert esperados == {"m": [(2.0, 2.0)]}  # m reaches e by two paths: it hears of both before it is called
    assert evaluate(programa, {"a": 2.0, "b": -3.0})[2] == {"a": -2.0, "b": 2.0}
    for calls, match in [([], "se llamó 0 veces"), ([1.0], "el salida.grad"), ([2.0, 2.0], "se llamó 2 veces")]:
        _, reglas = with_rules(programa)
        for g in calls:
            reglas["m"](g)
        with pytest.raises(CheckFailure, match=match):
            check_externals(reglas, esperados, call="g")
    assert "g ↦ 0.5·g" in shown(with_rules(programa)[0])


def test_random_programs_stay_bounded_and_use_only_the_lessons_operations():
    rng = random.Random(3)
    for _ in range(50):
        programa = random_program(rng, "abc", 8)
        valores = {h: dyadic(rng, -1.5, 1.5) for h in "abc"}
        dato = evaluate(programa, valores)[0]
        assert abs(dato) <= 50 and {i[1] for i in programa} <= {"+", "*", "**", "tanh", "exp", "relu"}
        near_a_kink(programa, valores)


def test_the_helpers_the_checks_rely_on_are_the_lessons_own(cells):
    from helpers import read as read_notebook

    from autograder.course import find_lesson
    from gradientes.checks_11 import HELPERS, check_helpers

    source = "\n".join(c.source for c in read_notebook(find_lesson("11_tu_propio_autograd").source).cells)
    for text in HELPERS.values():  # as the lesson writes them
        assert text.strip("\n") in source
    cells(
        HELPERS["construir"],
        "print('otra celda')\n",
        HELPERS["retro_local"].replace("    salida._retro()\n", "    salida._retro()  # mi comentario\n"),
    )
    check_helpers("construir", "retro_local")
    cells(
        HELPERS["construir"],
        HELPERS["retro_local"],
        "def retro_local(programa, valores, g, previos):\n    return 0.0, {}, []\n",
    )
    with pytest.raises(CheckFailure, match="retro_local no es la de la lección"):
        check_helpers("construir", "retro_local")
    cells(HELPERS["construir"].replace("Valor(v, nombre=n)", "Valor(v)"), HELPERS["retro_local"])
    with pytest.raises(CheckFailure, match="construir no es la de la lección"):
        check_helpers("construir", "retro_local")


def _network(entradas, tamanos, valores, x):
    """The lesson's MLP written out with torch, in float64: its output and the gradient of each parameter, in
    ``parametros()`` order (each neuron: its weights, then its bias)."""
    q = torch.tensor(valores, dtype=torch.float64, requires_grad=True)
    h, k = torch.tensor(x, dtype=torch.float64), 0
    for capa, n in enumerate(tamanos):
        bloque = q[k : k + n * (h.numel() + 1)].reshape(n, h.numel() + 1)
        k += n * (h.numel() + 1)
        h = bloque[:, :-1] @ h + bloque[:, -1]
        h = torch.tanh(h) if capa < len(tamanos) - 1 else h
    h[0].backward()
    return h[0].item(), q.grad.tolist()


def test_the_networks_reference_is_the_same_network_in_pytorch():
    rng = random.Random(7)
    for _ in range(20):
        entradas = rng.randint(1, 3)
        tamanos = [rng.randint(1, 4) for _ in range(rng.randint(0, 2))] + [1]
        valores = [dyadic(rng, -1.0, 1.0, 6) for _ in range(network_size(entradas, tamanos))]
        x = [dyadic(rng, -1.5, 1.5, 6) for _ in range(entradas)]
        dato, gradientes, escalas = network_reference(entradas, tamanos, valores, x)
        torch_dato, torch_gradientes = _network(entradas, tamanos, valores, x)
        assert len(gradientes) == len(valores) == len(escalas[1])
        assert math.isclose(dato, torch_dato, rel_tol=1e-13, abs_tol=1e-13)
        assert all(
            math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-13) for a, b in zip(gradientes, torch_gradientes, strict=True)
        )
        check_network((torch_dato, torch_gradientes), dato, gradientes, escalas=escalas, call="r", hint="h")


def test_the_networks_typical_mistakes_are_named():
    red = (1, [2, 1], [0.5, -0.25, -1.0, 0.75, 1.5, -0.5, 0.25], [1.5])
    dato, gradientes, escalas = network_reference(*red)
    for options, match in [
        ({"bias_first": True}, "primero sus pesos"),
        ({"last_tanh": True}, "también en la última capa"),
        ({"hidden_tanh": False}, "capas ocultas"),
    ]:
        wrong = network_reference(*red, **options)
        with pytest.raises(CheckFailure, match=match):
            check_network((wrong[0], wrong[1]), dato, gradientes, escalas=escalas, call="r", hint="h", red=red)
    with pytest.raises(CheckFailure, match="en el orden de parametros"):
        check_network((dato, gradientes[::-1]), dato, gradientes, call="r", hint="h", red=red)
    with pytest.raises(CheckFailure, match="devolvió 6 gradientes"):
        check_network((dato, gradientes[:-1]), dato, gradientes, call="r", hint="h", red=red)
    with pytest.raises(CheckFailure, match=r"debía devolver \(dato, gradientes\)"):
        check_network(dato, dato, gradientes, call="r", hint="h", red=red)


def test_the_network_may_draw_its_weights_with_random_and_nothing_else(cells):
    cells("import random\n\ndef red(x):\n    return random.uniform(-1, 1) * x\n")
    check_engine_code("red", modules=NETWORK_MODULES)
    with pytest.raises(CheckFailure, match="random"):
        check_engine_code("red")
    cells("import numpy\n\ndef red(x):\n    return numpy.tanh(x)\n")
    with pytest.raises(CheckFailure, match="numpy"):
        check_engine_code("red", modules=NETWORK_MODULES)


def _reduce(gradiente, forma):
    sobran = gradiente.dim() - len(forma)
    resultado = gradiente.sum(dim=tuple(range(sobran))) if sobran else gradiente
    repetidas = tuple(i for i, n in enumerate(forma) if n == 1 and resultado.shape[i] != 1)
    return resultado.sum(dim=repetidas, keepdim=True) if repetidas else resultado.clone()


def test_the_reduction_is_what_pytorchs_autograd_gives_a_broadcast_input():
    rng = random.Random(11)
    P = torch.arange(12.0, dtype=torch.float64).reshape(4, 3)
    assert reduced_reference(P, (1, 3)).tolist() == [[18.0, 22.0, 26.0]]
    assert reduced_reference(P, ()).item() == 66.0
    for k in range(40):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
        tail = shape[len(shape) - rng.randint(0, len(shape)) :]
        forma = tuple(1 if rng.random() < 0.4 else n for n in tail)
        dtype = torch.float32 if k % 4 == 3 else torch.float64
        gradiente = torch.tensor([rng.randint(-8, 8) for _ in range(math.prod(shape))], dtype=dtype).reshape(shape)
        esperado = reduced_reference(gradiente, forma)
        assert esperado.shape == forma and esperado.dtype == dtype
        check_reduced(_reduce(gradiente, forma), esperado, gradiente, gradiente.clone(), forma, call="r")


def test_the_reductions_typical_mistakes_are_named():
    P = torch.arange(12.0, dtype=torch.float64).reshape(4, 3)
    esperado = [[18.0, 22.0, 26.0]]
    for came, match in [
        (P.sum(0), "keepdim=True"),
        (P.sum(0, keepdim=True) / 4, "¿sumas o promedias?"),
        (P.clone(), "las que en ella miden 1"),
        (P.sum(0, keepdim=True).float(), "conserva el dtype"),
        ([[18.0, 22.0, 26.0]], "debía devolver un tensor"),
    ]:
        with pytest.raises(CheckFailure, match=re.escape(match)):
            check_reduced(came, esperado, P, P.clone(), (1, 3), call="r")
    P3 = torch.arange(24.0, dtype=torch.float64).reshape(2, 4, 3)
    with pytest.raises(CheckFailure, match="a la izquierda"):
        check_reduced(P3.sum(2, keepdim=True), [[42.0], [60.0], [78.0], [96.0]], P3, P3.clone(), (4, 1), call="r")
    changed = P.clone()
    changed[0, 0] = 5.0
    with pytest.raises(CheckFailure, match="cambió el gradiente"):
        check_reduced(P.sum(0, keepdim=True), esperado, changed, P.clone(), (1, 3), call="r")
    zeros = torch.zeros(4, 3, dtype=torch.float64)  # a right answer of zeros is not taken for a mean
    check_reduced(torch.zeros(1, 3, dtype=torch.float64), [[0.0, 0.0, 0.0]], zeros, zeros.clone(), (1, 3), call="r")


def test_the_reduction_is_written_without_autograd_or_sum_to_size(cells):
    cells("import torch\n\ndef reducir_a_forma(g, forma):\n    return g.sum_to_size(forma)\n")
    with pytest.raises(CheckFailure, match="sum_to_size"):
        check_reduction_code("reducir_a_forma")
    cells(
        "import torch\n\ndef reducir_a_forma(g, forma):\n    e = torch.zeros(forma, requires_grad=True)\n"
        "    (e + torch.zeros_like(g)).backward(g)\n    return e.grad\n"
    )
    with pytest.raises(CheckFailure, match="no permite"):
        check_reduction_code("reducir_a_forma")
    cells("import torch\n\ndef reducir_a_forma(g, forma):\n    return g.sum(0, keepdim=True).reshape(forma)\n")
    check_reduction_code("reducir_a_forma")
    cells(
        "import torch\n\ndef reducir_a_forma(g, forma):\n    while g.dim() > len(forma):\n        g = torch.sum(g, 0)\n"
        "    for i, n in enumerate(forma):\n        if n == 1:\n            g = g.sum(i).unsqueeze(i)\n"
        "    return g.clone().to(g.dtype)\n"
    )
    check_reduction_code("reducir_a_forma")


@pytest.mark.parametrize(
    "body",
    ["torch.einsum('ij->j', g).reshape(forma)", "torch.vmap(torch.sum)(g.T).reshape(forma)", "g.mean(0) * g.shape[0]"],
)
def test_the_reduction_reaches_only_sums_shapes_and_types(cells, body):
    cells(f"import torch\n\ndef reducir_a_forma(g, forma):\n    return {body}\n")
    with pytest.raises(CheckFailure, match="no es una suma ni una operación de forma"):
        check_reduction_code("reducir_a_forma")
