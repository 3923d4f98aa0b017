"""The check helpers, tested against PyTorch itself (float64, as micrograd does)."""

import pytest
import torch

from gradientes import checks
from gradientes.checks import CheckFailure


def polynomial(x):
    return 5 * x**3 + 2 * x**2 + 4 * x + 8


def polynomial_slope(x):
    return 15 * x**2 + 4 * x + 4


def two_inputs(a, b):
    return (a * b + a).sum()


def test_finite_differences_match_autograd_on_random_functions():
    a, b = checks.random_inputs([(3,), (3,)], seed=1)
    expected = checks.reference_gradients(lambda a, b: (torch.sin(a) * b**2 + a.exp()).sum(), a, b)
    approx = checks.finite_differences(lambda a, b: (torch.sin(a) * b**2 + a.exp()).sum(), a, b)
    for got, want in zip(approx, expected, strict=True):
        assert torch.allclose(got, want, rtol=1e-6, atol=1e-7)


def test_random_inputs_are_float64_in_range_and_reproducible():
    first = checks.random_inputs([(4,), (2, 3)], low=-1, high=1, seed=7)
    again = checks.random_inputs([(4,), (2, 3)], low=-1, high=1, seed=7)
    assert [x.shape for x in first] == [torch.Size([4]), torch.Size([2, 3])]
    assert all(x.dtype == torch.float64 and x.min() >= -1 and x.max() < 1 for x in first)
    assert all(torch.equal(x, y) for x, y in zip(first, again, strict=True))
    assert not torch.equal(checks.random_inputs([(4,)])[0], checks.random_inputs([(4,)])[0])


def test_check_function_accepts_a_correct_function():
    checks.check_function(polynomial, polynomial)
    checks.check_function(two_inputs, two_inputs, shapes=((3,), (3,)), names=["a", "b"])


def test_check_function_rejects_a_hard_coded_value():
    with pytest.raises(CheckFailure, match="se esperaba"):
        checks.check_function(lambda x: torch.tensor(64.0), polynomial)


def test_check_function_passes_the_printed_example_but_not_random_inputs():
    def hard_coded(x):
        return torch.tensor(64.0, dtype=torch.float64) + 0 * x

    checks.check_function(hard_coded, polynomial, inputs=[(torch.tensor(2.0),)], check_grad=False)
    with pytest.raises(CheckFailure):
        checks.check_function(hard_coded, polynomial)


def test_check_function_always_rejects_a_float32_answer_to_float64_inputs():
    def in_float32(x):
        return polynomial(x.float())

    for _ in range(5):  # every time, whatever the random inputs
        with pytest.raises(CheckFailure, match=r"torch\.float32, pero las entradas eran float64"):
            checks.check_function(in_float32, polynomial)


def test_check_function_rejects_a_detached_result():
    with pytest.raises(CheckFailure, match="grad_fn es None"):
        checks.check_function(lambda x: polynomial(x).detach(), polynomial)


def test_check_function_rejects_right_values_with_wrong_gradients():
    def fake(x):
        return x + (polynomial(x) - x).detach()

    with pytest.raises(CheckFailure, match="gradiente respecto a x"):
        checks.check_function(fake, polynomial)


def test_check_function_reports_the_students_exception():
    def broken(x):
        raise ValueError("forma incorrecta")

    with pytest.raises(CheckFailure, match="ValueError: forma incorrecta"):
        checks.check_function(broken, polynomial)


def test_an_untouched_template_says_the_answer_is_not_written_yet():
    def template(x):
        raise NotImplementedError()

    with pytest.raises(CheckFailure, match="todavía no has escrito tu respuesta"):
        checks.check_function(template, polynomial)


def test_a_student_function_that_exits_is_a_clear_failure():
    def leaves(x):
        raise SystemExit(1)

    with pytest.raises(CheckFailure, match="SystemExit"):
        checks.check_function(leaves, polynomial)


def test_check_gradient_function_with_autograd_and_finite_differences():
    checks.check_gradient_function(polynomial_slope, polynomial)
    checks.check_gradient_function(polynomial_slope, polynomial, method="diferencias_finitas")
    with pytest.raises(CheckFailure, match="gradiente"):
        checks.check_gradient_function(lambda x: torch.tensor(72.0), polynomial)


def test_check_gradient_function_needs_one_gradient_per_input():
    def gradients(a, b):
        return b + 1, a

    checks.check_gradient_function(gradients, two_inputs, shapes=((), ()))
    with pytest.raises(CheckFailure, match="debía devolver 2 gradientes"):
        checks.check_gradient_function(lambda a, b: b + 1, two_inputs, shapes=((), ()))


def test_an_object_equal_to_everything_is_not_a_tensor():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    with pytest.raises(CheckFailure, match=r"torch\.Tensor"):
        checks.check_tensor(AlwaysEqual(), torch.tensor(1.0))
    with pytest.raises(CheckFailure, match=r"torch\.Tensor"):
        checks.check_function(lambda x: AlwaysEqual(), polynomial)


def test_a_tensor_subclass_that_lies_is_rejected():
    class Liar(torch.Tensor):
        def __eq__(self, other):
            return True

    with pytest.raises(CheckFailure, match=r"torch\.Tensor"):
        checks.check_tensor(torch.tensor(0.0).as_subclass(Liar), torch.tensor(1.0))


def test_replacing_torch_functions_is_detected(monkeypatch):
    monkeypatch.setattr(torch, "allclose", lambda *args, **kwargs: True)
    with pytest.raises(CheckFailure, match=r"torch\.allclose"):
        checks.check_tensor(torch.tensor(2.0), torch.tensor(1.0))


def test_replacing_tensor_methods_is_detected(monkeypatch):
    monkeypatch.setattr(torch.Tensor, "__mul__", lambda self, other: self)
    with pytest.raises(CheckFailure, match=r"torch\.Tensor\.__mul__"):
        checks.check_function(polynomial, polynomial)


def test_torchs_own_wrappers_are_not_tampering():
    # The first optimizer step imports torch._dynamo, which wraps torch.manual_seed.
    parameter = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    (parameter * 2).sum().backward()
    optimizer.step()
    checks.ensure_untampered()
    checks.check_number(1.0, 1.0)


def test_check_tensor_compares_shape_and_values():
    checks.check_tensor(torch.tensor([1.0, 2.0], dtype=torch.float32), torch.tensor([1.0, 2.0]))
    with pytest.raises(CheckFailure, match="forma"):
        checks.check_tensor(torch.tensor([1.0, 2.0]), torch.tensor([[1.0, 2.0]]))
    with pytest.raises(CheckFailure, match="no coincide con lo esperado"):
        checks.check_tensor(torch.tensor([1.0, 2.5]), torch.tensor([1.0, 2.0]))


def test_check_number_rejects_booleans_and_wrong_values():
    checks.check_number(72.0, 72)
    checks.check_number(torch.tensor(72.0), 72)
    with pytest.raises(CheckFailure, match="número"):
        checks.check_number(True, 1)
    with pytest.raises(CheckFailure, match="se esperaba 72"):
        checks.check_number(71.0, 72)


def test_check_equal_is_strict_about_types():
    checks.check_equal(True, True)
    checks.check_equal(["MulBackward0", 2], ["MulBackward0", 2])
    for wrong, expected in ((1, True), ([True], [1]), ((1, 2.0), (1, 2)), ({"a": 1}, {"a": True})):
        with pytest.raises(CheckFailure):
            checks.check_equal(wrong, expected)


def test_check_properties_each_property():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    checks.check_properties(x, shape=(2,), dtype=torch.float32, requires_grad=True, is_leaf=True, grad_fn=None)
    checks.check_properties(y, requires_grad=True, is_leaf=False, grad_fn="MulBackward0")
    wrong = [
        {"shape": (3,)},
        {"dtype": torch.float64},
        {"requires_grad": False},
        {"is_leaf": False},
        {"grad_fn": "MulBackward0"},
    ]
    for expectation in wrong:
        with pytest.raises(CheckFailure):
            checks.check_properties(x, **expectation)


def test_failures_are_one_spanish_line_with_a_hint():
    with pytest.raises(CheckFailure) as caught:
        checks.check_number(1.0, 2.0, name="la derivada", hint="revisa la regla de la cadena")
    message = str(caught.value)
    assert message.startswith("la derivada no coincide con lo esperado: se esperaba 2.0, pero se obtuvo 1.0.")
    assert message.endswith("Pista: revisa la regla de la cadena")
    rendered = caught.value._render_traceback_()
    assert len(rendered) == 1 and "✗" in rendered[0] and "Traceback" not in rendered[0]


def test_the_self_check_turns_a_template_a_crash_and_a_loop_into_spanish_lines():
    from gradientes import selfcheck

    notebook = {"__name__": "__main__"}
    exec("def plantilla(x):\n    raise NotImplementedError()\n", notebook)
    exec("def rota(x):\n    return x.nada\n", notebook)
    exec("def lenta(x):\n    while True:\n        pass\n", notebook)
    cases = [("plantilla", "todavía no has escrito"), ("rota", "lanzó AttributeError"), ("lenta", "tiempo límite")]
    for name, message in cases:
        with pytest.raises(CheckFailure, match=message):
            exec(f"{name}(1)", selfcheck._Namespace(notebook))


def test_a_known_pytorch_error_gets_a_spanish_hint_and_a_lesson_can_replace_it():
    def sin_hoja(x):
        return torch.autograd.grad(x * 2, x)

    with pytest.raises(CheckFailure) as caught:
        checks.check_function(sin_hoja, polynomial, check_grad=False)
    assert "lanzó RuntimeError" in caught.value.message and "Pista:" not in caught.value.message
    assert "requiera gradiente" in caught.value.hint
    with pytest.raises(CheckFailure) as again:
        checks.fail(caught.value.message, "otra pista")
    assert str(again.value).count("Pista:") == 1 and str(again.value).endswith("Pista: otra pista")
    assert checks.known_error_hint("TypeError", "len() of a 0-d tensor") is not None
    assert checks.known_error_hint("ValueError", "algo que nadie conoce") is None


def test_a_call_is_shown_as_the_student_would_write_it():
    def f(x):
        return x

    text = checks.call_text("derivada", (f, 1.5, torch.tensor([1.0, 2.0])), {"h": 0.1})
    assert text == "derivada(f, 1.5, tensor([1., 2.]), h=0.1)"


def test_when_the_test_code_breaks_on_an_answer_the_student_reads_one_spanish_line(monkeypatch):
    from types import SimpleNamespace

    from gradientes import selfcheck

    notebook = {"__name__": "__main__"}
    exec("def responde(x):\n    return None\n", notebook)
    monkeypatch.setattr(selfcheck, "get_ipython", lambda: SimpleNamespace(user_ns=notebook), raising=False)
    with pytest.raises(CheckFailure, match=r"la comprobación no pudo usar tu respuesta: .*TypeError") as caught:
        selfcheck.comprobar("", "valor = responde(1) + 1\n")
    assert "None" in caught.value.hint
    with pytest.raises(CheckFailure, match="no encuentra 'no_definida'"):
        selfcheck.comprobar("", "no_definida(1)\n")


# -- the diagnoses shared between lessons -------------------------------------------------------


def test_the_shared_diagnoses_recognise_typical_mistakes_from_literals():
    expected = torch.tensor([1.0, -2.0], dtype=torch.float64)
    assert checks.is_close([1, -2], expected) and not checks.is_close([1.0, -2.0, 0.0], expected)
    assert not checks.is_close("texto", 1.0) and not checks.is_close(True, 1.0) and not checks.is_close(None, 1.0)
    assert checks.as_number(torch.tensor([2.5])) == 2.5 and checks.as_number([2.5]) is None
    assert checks.sign_flipped(-expected, expected) and not checks.sign_flipped(0.0, 0.0)
    assert checks.scaled(3 * expected, expected, 3) and not checks.scaled(expected, expected, 1)
    mistake = (torch.tensor([4.0, 4.0], dtype=torch.float64), "la pista de este error")
    assert checks.diagnose(torch.tensor([4.0, 4.0], dtype=torch.float64), expected, mistake) == "la pista de este error"
    assert "None" in checks.diagnose(None, expected)
    assert "tupla" in checks.diagnose((expected,), expected)
    assert "tensor" in checks.diagnose(1.0, expected)
    assert "forma" in checks.diagnose(torch.zeros(3, dtype=torch.float64), expected)
    assert "dtype" in checks.diagnose(expected.float(), expected)
    assert "signo" in checks.diagnose(-expected, expected)
    assert "doble" in checks.diagnose(2 * expected, expected)
    assert "promediaste" in checks.diagnose(expected / 2, expected, count=2)
    assert "salida" in checks.diagnose(torch.tensor([7.0, 7.0], dtype=torch.float64), expected, output=[7.0, 7.0])
    leaf = torch.tensor(1.0, requires_grad=True)
    assert "cortaste el grafo" in checks.diagnose(leaf.detach() * 2, torch.tensor(3.0), graph=True)
    assert checks.diagnose(expected.clone(), expected) is None


def test_a_watched_function_records_its_calls_and_the_backward_passes_through_its_output():
    watched = checks.Watched(torch.sin, "f")
    x = torch.tensor([0.5, 1.0], dtype=torch.float64)
    leaf = x.clone().requires_grad_(True)
    v = torch.tensor([1.0, -2.0], dtype=torch.float64)
    watched(leaf).backward(gradient=v)
    checks.check_called_with_graph(watched, "vjp", "aquí", times=1, like=x)
    checks.check_backward_passes(watched, "vjp", "aquí", times=1, gradient=v)
    with pytest.raises(CheckFailure, match="y se pide 2 pasos hacia atrás"):
        checks.check_backward_passes(watched, "vjp", "aquí", times=2)
    with pytest.raises(CheckFailure, match="un gradiente distinto del que da la pérdida"):
        checks.check_backward_passes(watched, "vjp", "aquí", times=1, gradient=2 * v)
    stacked = checks.Watched(torch.sin, "f")
    stacked(torch.stack([x + 1e-6, x - 1e-6]).requires_grad_(True))  # diferencias finitas apiladas
    with pytest.raises(CheckFailure, match="en lugar de con el punto que recibió"):
        checks.check_called_with_graph(stacked, "derivadas", "aquí", times=1, like=x)
    with pytest.raises(CheckFailure, match="un paso hacia atrás"):
        checks.check_backward_passes(stacked, "derivadas", "aquí", times=1)
    plain = checks.Watched(torch.sin, "f")
    plain(x)
    plain(x)
    with pytest.raises(CheckFailure, match="solo con tensores que no requieren gradiente"):
        checks.check_called_with_graph(plain, "derivadas", "aquí")
    with pytest.raises(CheckFailure, match="no llamó a f"):
        checks.check_called_with_graph(checks.Watched(torch.sin, "f"), "derivadas", "aquí")


def test_call_student_gives_the_hint_that_knows_the_exercise():
    def breaks(x):
        checks.fail("tu función lanzó RuntimeError: element 0 of tensors does not require grad.")

    with pytest.raises(CheckFailure) as caught:
        checks.call_student(breaks, 1.0, hints=[("does not require grad", "crea tu propia hoja")])
    assert caught.value.hint == "crea tu propia hoja" and "RuntimeError" in caught.value.message
    with pytest.raises(CheckFailure) as untouched:
        checks.call_student(breaks, 1.0, hints=[("otra cosa", "no viene al caso")])
    assert untouched.value.hint is None
    assert checks.call_student(lambda x: x + 1, 1) == 2


def test_a_prediction_is_compared_without_saying_what_the_cell_prints():
    checks.check_prediction((True, False), [True, False])
    checks.check_prediction([6, 5.0, 3.0], [6.0, 5.0, 3.0])
    with pytest.raises(CheckFailure) as caught:
        checks.check_prediction(16.0, 17.0, name="tu predicción")
    assert "no coincide con lo que imprimirá la celda" in caught.value.message and "17" not in caught.value.message
    with pytest.raises(CheckFailure, match="no coincide"):
        checks.check_prediction(1, True)
    with pytest.raises(CheckFailure, match="es un tensor"):
        checks.check_prediction(torch.tensor(17.0), 17.0)
    with pytest.raises(CheckFailure, match="lista de 3 valores"):
        checks.check_prediction([1.0], [1.0, 2.0, 3.0])


def _with_sources(sources, check, *args, **kwargs):
    from gradientes.reading import SOURCES

    token = SOURCES.set(sources)
    try:
        check(*args, **kwargs)
    finally:
        SOURCES.reset(token)


def test_statement_checks_read_the_answer_and_the_notebook_names_it_uses():
    lesson = "import torch\n\ndef ejemplo(x):\n    return torch.sin(x)\n"
    plain = "def prediccion(x):\n    return [3 * x * x, 2 * x + 1]\n"
    _with_sources([lesson, plain], checks.check_prediction_is_plain, "prediccion")
    for computed in (
        "def prediccion(x):\n    with torch.enable_grad():\n        return torch.tensor(x).item()\n",
        "def prediccion(x):\n    return ejemplo(x)\n",  # the lesson's own function uses torch
    ):
        with pytest.raises(CheckFailure, match="«torch»"):
            _with_sources([lesson, computed], checks.check_prediction_is_plain, "prediccion")
    by_hand = "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    with_autograd = (
        "def derivada(x):\n    x = x.detach().requires_grad_()\n    torch.sin(3 * x).backward()\n    return x.grad\n"
    )
    _with_sources([lesson, by_hand], checks.check_without_autograd, "derivada")
    with pytest.raises(CheckFailure, match=r"«\.backward»"):
        _with_sources([lesson, with_autograd], checks.check_without_autograd, "derivada")


def test_an_answer_computed_in_float32_fails_every_time_never_by_chance():
    def in_float32(w, x):
        return ((w.float() * x.float() - 1.0) ** 2).mean().double()

    def reference(w, x):
        return ((w * x - 1.0) ** 2).mean()

    def gradient_in_float32(x):
        return (2 * x).float()

    for _ in range(20):
        with pytest.raises(checks.CheckFailure):
            checks.check_function(in_float32, reference, shapes=((), (7,)), check_grad=False)
        with pytest.raises(checks.CheckFailure, match="float32"):
            checks.check_gradient_function(gradient_in_float32, lambda x: (x**2).sum(), shapes=((5,),))
    checks.check_function(lambda w, x: ((x * w - 1.0) ** 2).sum() / 7, reference, shapes=((), (7,)), trials=20)


def test_a_parameter_or_local_name_is_not_the_notebooks_name_of_the_same_spelling():
    # The lesson defines a tensor ``a``; a prediction whose parameter is called ``a`` does not use it.
    lesson = "import torch\na = torch.tensor([1.0, 2.0])\nx = torch.ones(2)\n"
    _with_sources(
        [lesson, "def prediccion(a, k):\n    return float(a) * k\n"], checks.check_prediction_is_plain, "prediccion"
    )
    _with_sources(
        [lesson, "def prediccion(a):\n    x = 3\n    return [x for x in range(a)] + [(lambda a: a)(1)]\n"],
        checks.check_prediction_is_plain,
        "prediccion",
    )
    with pytest.raises(CheckFailure, match="«torch»"):  # the notebook's x, not a parameter: a tensor
        _with_sources(
            [lesson, "def prediccion(a):\n    return float(x.sum()) + a\n"],
            checks.check_prediction_is_plain,
            "prediccion",
        )


def test_a_call_stopped_at_its_time_limit_leaves_grad_mode_as_it_was(monkeypatch):
    from gradientes import selfcheck

    monkeypatch.setattr(selfcheck, "CALL_LIMIT", 0.2)

    def stuck():
        torch.set_grad_enabled(False)  # as if stopped inside the exit of a ``with torch.no_grad()``
        while True:
            pass

    try:
        with pytest.raises(CheckFailure, match="tiempo límite"):
            selfcheck.LocalStudentFunction(stuck)()
        assert torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)


def test_a_statement_check_on_an_untouched_template_says_the_answer_is_not_written():
    """Before reading what an answer uses: nbgrader's template (docstring and comment kept) is no answer yet."""
    from gradientes.reading import SOURCES, untouched

    template = (
        'def gradiente(f, x):\n    """Devuelve df/dx en x."""\n    # TU CÓDIGO AQUÍ\n    raise NotImplementedError()\n'
    )
    written = "def gradiente(f, x):\n    y = f(x)\n    y.backward()\n    return x.grad\n"
    assert untouched("gradiente", [template])
    assert not untouched("gradiente", [template, written]) and not untouched("gradiente", [written])
    assert not untouched("gradiente", ["def gradiente(f, x):\n    raise ValueError('no')\n"])
    assert not untouched("otra", [template])
    token = SOURCES.set([template])
    try:
        with pytest.raises(CheckFailure, match="todavía no has escrito tu respuesta: gradiente solo lanza"):
            checks.check_statement("gradiente")
    finally:
        SOURCES.reset(token)
    token = SOURCES.set([written])
    try:
        checks.check_statement("gradiente")
    finally:
        SOURCES.reset(token)
