"""The checks of lessons 09 and 10 observe from the test's side (issue 22): the test registers the student's hook on
its own graph, wraps the student's forward and backward in its own ``torch.autograd.Function``, and reads the
answer's code only through ``check_statement``, which fails closed."""

import pytest
import torch

from gradientes.checks import CheckFailure
from gradientes.checks_09 import check_gradcheck, check_own_code, custom_function, gradient_with_hook, returned_function
from gradientes.checks_10 import check_engine_code
from gradientes.statement import SOURCES


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


def test_the_engine_may_reach_only_math_and_collections(cells):
    cells("import math\nfrom collections import deque\n\ndef orden(r):\n    return list(deque([math.exp(r)]))\n")
    check_engine_code("orden")
    cells("if True:\n    import numpy\n\ndef orden(r):\n    return numpy.exp(r)\n")
    with pytest.raises(CheckFailure, match="numpy"):
        check_engine_code("orden")
