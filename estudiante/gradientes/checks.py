"""Checks that the lessons' test cells call (those of one lesson only are in ``checks_05`` … ``checks_08``).

Every check compares in float64 and fails with a Spanish message that says what
was expected, what came, and a hint. Functions are called on randomized inputs
and compared with a reference (autograd on a reference formula, or central
finite differences), so a hard-coded number cannot pass.
"""

import contextvars
import math
import random
import types

import torch

from gradientes.integrity import tampered_names
from gradientes.reading import PLAIN_MODULES, SOURCES, read, untouched
from gradientes.reading.allowlist import named_object, same_objects
from gradientes.remote_errors import RemoteError, Timeout, remote_properties

# Captured before any student code runs, so a replaced torch.allclose cannot help.
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_allclose = torch.allclose
_autograd_grad = torch.autograd.grad
_detach = torch.Tensor.detach
_to = torch.Tensor.to
_float64 = torch.float64
_printoptions = torch._tensor_str.printoptions
_INTEGER_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)
# System randomness: a student's random.seed() cannot make the hidden inputs predictable.
_rng = random.SystemRandom()

# Start of the message of a tampering failure (the grader recognises it in the outputs).
TAMPERED = "tu código reemplazó funciones de PyTorch"

RTOL = 1e-6
ATOL = 1e-8
# Against a reference computed here in float64: tight enough that an answer computed in float32 (about
# 1e-7 relative error) always fails, never by chance; loose enough for any order of float64 operations.
REFERENCE_RTOL = 1e-9
REFERENCE_ATOL = 1e-11
FD_RTOL = 1e-4
FD_ATOL = 1e-6


class CheckFailure(AssertionError):
    """A failed check: shown to the student as one Spanish message, without a traceback.

    ``message`` says what went wrong and ``hint`` (or ``None``) why it may have: a test cell that
    knows better can fail again with ``fail(failure.message, its_own_hint)``.
    """

    def __init__(self, message, hint=None):
        super().__init__(message if not hint else f"{message}\n  Pista: {hint}")
        self.message, self.hint = message, hint or None

    def _render_traceback_(self):
        return [f"\x1b[1;31m✗ {self}\x1b[0m"]


def passed(message):
    """Print a success line for a visible self-check."""
    print(f"✔ {message}")


def fail(message, hint=None):
    """Raise a CheckFailure with an optional hint."""
    raise CheckFailure(message, hint)


CALL_LIMIT = 5  # seconds for one call to a student's function


def _argument(value):
    """An argument as it would be written in the call: tensors and functions briefly, the rest by repr."""
    if is_tensor(value):
        return describe(value)
    if callable(value) and hasattr(value, "__name__") and not isinstance(value, type):
        return value.__name__
    if type(value) is dict and any(is_tensor(item) for item in value.values()):  # every name, with its shape
        brief = [
            f"{k!r}: " + (f"forma {tuple(v.shape)}" if is_tensor(v) else shorten(repr(v), 30)) for k, v in value.items()
        ]
        return shorten("{" + ", ".join(brief) + "}", 200)
    return shorten(repr(value), 80)


def step_text(number, total, before):
    """Which of several calls in a row failed, as a student who cannot see the test reads it: its number and the
    parameters' values when it started."""
    shown = shorten(", ".join(describe(value) for value in before), 160)
    return f"llamada {number} de {total} seguidas (con los parámetros en {shown} al empezarla)"


def call_text(name, args, kwargs):
    """``nombre(arg, ...)`` as the student would read it."""
    shown = ", ".join([*map(_argument, args), *(f"{k}={_argument(v)}" for k, v in kwargs.items())])
    return f"{name}({shown[:300]})"


NUMPY_ON_A_TENSOR = (
    "llamaste a una función de NumPy (np.mean, np.sum, np.max…) con un tensor: NumPy le pide al tensor su método con "
    "argumentos de NumPy (axis), que PyTorch no conoce. Usa la de PyTorch, torch.mean(t) o t.mean(), que además deja "
    "el resultado en el grafo."
)
# What a well-known error means (a fragment of its message, or its type), for the hint of a
# call that raised it. The hints diagnose; none of them gives away an exercise's answer.
KNOWN_ERRORS = (
    (
        "does not require grad and does not have a grad_fn",
        "autograd no encontró ningún tensor que requiera gradiente en ese cálculo: ¿partiste de una hoja con "
        "requires_grad=True, con el seguimiento activado y sin cortar el grafo?",
    ),
    (
        "backward through the graph a second time",
        "recorriste por segunda vez un grafo que ya había liberado sus valores intermedios en el primer paso "
        "hacia atrás.",
    ),
    (
        "grad can be implicitly created only for scalar outputs",
        "backward() sin argumentos solo sirve para una salida escalar, y la tuya tiene varios elementos.",
    ),
    (
        "Only Tensors of floating point and complex dtype can require gradients",
        "ese tensor no puede requerir gradiente por su dtype: ¿qué dtype tenía, o cuál dedujo PyTorch de los valores?",
    ),
    (
        "leaf Variable that requires grad is being used in an in-place operation",
        "modificaste en su sitio una hoja que requiere gradiente mientras autograd grababa las operaciones.",
    ),
    (
        "modified by an inplace operation",
        "cambiaste en su sitio un tensor que autograd había guardado para el paso hacia atrás.",
    ),
    (
        "Can't call numpy() on Tensor that requires grad",
        "una función de NumPy (np.exp, np.sin, np.array…) convierte el tensor en un array, fuera del grafo, y autograd "
        "no lo puede seguir: usa la de PyTorch (torch.exp, torch.sin…). Solo para mostrar valores, saca antes el "
        "tensor del grafo con .detach().",
    ),
    (
        "unexpected keyword argument 'axis'",
        NUMPY_ON_A_TENSOR,
    ),
    (
        "argument 'dim' must be int, not NoneType",
        NUMPY_ON_A_TENSOR,
    ),
    (
        "one element tensors can be converted to Python scalars",
        "convertiste en un número de Python (con float(), .item() o una función de math) un tensor de varios "
        "elementos.",
    ),
    (
        "cannot be converted to Scalar",
        "convertiste en un número de Python (con float(), .item() o una función de math) un tensor de varios "
        "elementos.",
    ),
    (
        "Boolean value of Tensor with more than one value is ambiguous",
        "usaste en un if o un while un tensor de varios elementos: ¿qué elemento querías comparar?",
    ),
    (
        "len() of a 0-d tensor",
        "len(t) es el tamaño del primer eje, no el número de elementos, y un tensor 0-d (un escalar, de forma ()) no "
        "tiene ningún eje. Para contar elementos usa t.numel() (1 en un escalar); para contar ejes, t.dim().",
    ),
    (
        "0-d tensor",
        "un tensor 0-d (un escalar, de forma ()) no tiene ningún eje: no hay elementos que recorrer con un for. Sus "
        "elementos los cuenta t.numel(); su valor, t.item().",
    ),
    (
        "Mismatch in shape",
        "el vector que pasaste al paso hacia atrás debe tener la forma de la salida que derivas.",
    ),
    (
        "appears to not have been used in the graph",
        "derivaste respecto a un tensor que no participó en el cálculo: ¿depende de verdad de él el resultado?",
    ),
    (
        "can only change requires_grad flags of leaf variables",
        "solo las hojas pueden cambiar su requires_grad, y ese tensor salió de una operación.",
    ),
    (
        "Inference tensors",
        "un tensor creado dentro de torch.inference_mode() no puede participar en el grafo computacional.",
    ),
    (
        "Expected f(*args) to return a scalar Tensor",
        "torch.func.grad deriva funciones que devuelven un tensor escalar: la tuya devuelve varios elementos (o un "
        "número de Python). ¿Querías jacrev o vjp, o reducir la salida?",
    ),
    (
        "Expected f(*args) to return a Tensor",
        "torch.func.grad necesita que la función devuelva un tensor, no un número: ¿usaste float() o .item()?",
    ),
    (
        "called inside a functorch transform",
        "dentro de torch.func.grad, vmap o jvp no se llama a backward(): la transformación ya calcula el gradiente.",
    ),
    (
        "We don't support vmap over calling .item()",
        "dentro de vmap no hay números sueltos: .item() y float() no funcionan; opera con tensores.",
    ),
    (
        "data-dependent control flow",
        "dentro de vmap un if o un while no puede depender del valor de un tensor: usa torch.where.",
    ),
    (
        "Expected primals to be a tuple",
        "torch.func.jvp recibe las entradas y las tangentes como tuplas, aunque haya una sola: (x,) y (v,).",
    ),
    (
        "Expected all tensors to have the same size in the mapped dimension",
        "vmap recorre la misma dimensión de todas las entradas que mapea: ¿tienen todas el mismo tamaño en ella, o "
        "alguna debía quedar fija (in_dims=None)?",
    ),
    (
        "NoneType",
        "uno de tus valores era None: ¿de dónde salió? .grad vale None antes de backward() y en los tensores que "
        "no son hojas, grad_fn vale None en las hojas, y una función sin return devuelve None.",
    ),
    ("RecursionError", "tu función se llama a sí misma sin fin: ¿llega siempre a un caso que no se llama otra vez?"),
    ("NameError", "usas un nombre que tu código no define: ¿lo importaste o lo definiste dentro de tu celda?"),
    ("ZeroDivisionError", "dividiste entre cero: ¿entre qué cantidad divides, y puede valer 0?"),
    ("IndexError", "pediste una posición que no existe: ¿cuántos elementos tiene ese tensor, esa lista o esa tupla?"),
    ("AttributeError", "ese objeto no tiene el atributo que le pides: ¿es del tipo que crees? Compruébalo con type()."),
)


def known_error_hint(kind, message):
    """A Spanish hint for a well-known error (``kind`` is its type name), or ``None``."""
    for fragment, hint in KNOWN_ERRORS:
        if fragment == kind or fragment in str(message):
            return hint
    return None


def student_raised(call, kind, message):
    """Fail with one Spanish line for a call to the student's code that raised ``kind``."""
    if kind == "NotImplementedError":
        fail(
            f"todavía no has escrito tu respuesta: {call} lanza NotImplementedError.",
            "borra la línea raise NotImplementedError() y escribe tu código.",
        )
    fail(f"{call} lanzó {kind}: {message}.", known_error_hint(kind, message))


def answer_unusable(kind, message):
    """Fail with one Spanish line when the test code itself could not use what the student's code gave."""
    fail(
        f"la comprobación no pudo usar tu respuesta: al procesarla se produjo {kind}: {message}.",
        known_error_hint(kind, message)
        or "¿devuelve tu función lo que pide el enunciado: el tipo de valor, la forma y el orden?",
    )


def student_too_slow(call):
    fail(f"{call} no terminó dentro del tiempo límite ({CALL_LIMIT} s).", "revisa tus bucles: ¿alguno no termina?")


def _mismatch(name, expected, came, hint):
    """Fail saying what was expected and what came (worded to fit any ``name``, «el» or «la»)."""
    fail(f"{name} no coincide con lo esperado: se esperaba {expected}, pero se obtuvo {came}.", hint)


def ensure_untampered():
    """Fail if the student's code replaced any torch function (in the lab: when grading, test cells run in
    the grader, whose torch no student code ever touches)."""
    if SOURCES.get() is not None:
        return
    names = tampered_names()
    if names:
        shown = ", ".join(names[:5])
        fail(
            f"{TAMPERED} ({shown}); las comprobaciones no pueden confiar en un torch modificado.",
            "quita esas asignaciones, reinicia el kernel y vuelve a ejecutar el cuaderno.",
        )


QUOTE_LIMIT = 200  # characters of a student's value quoted in a message


def shorten(text, limit=QUOTE_LIMIT):
    """``text`` cut to ``limit`` characters, with «…» where it was cut."""
    text = str(text)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def is_tensor(value):
    """True only for real tensors (or parameters), never for look-alike objects."""
    return type(value) is _Tensor or type(value) is _Parameter


def describe(value):
    """A short Spanish description of any value, for messages."""
    if is_tensor(value):
        shown = _detach(value)
        text = repr(shown) if shown.numel() <= 6 else f"tensor de forma {tuple(shown.shape)}"
        return shorten(" ".join(text.split()).replace(", dtype=torch.float64", ""))
    return f"{shorten(repr(value))} (de tipo {shorten(type(value).__name__, 60)})"


def _as_float64(value):
    return _to(_detach(value), _float64)


def check_tensor(value, expected, *, name="el resultado", rtol=RTOL, atol=ATOL, hint=None):
    """Check that ``value`` is a tensor of ``expected``'s shape with close values."""
    ensure_untampered()
    _compare(value, expected, name, rtol, atol, hint)


def _require_tensor(value, name, hint):
    if not is_tensor(value):
        fail(f"{name} debía ser un torch.Tensor, pero se obtuvo {describe(value)}.", hint)


def _compare(value, expected, name, rtol, atol, hint):
    _require_tensor(value, name, hint)
    if not is_tensor(expected):
        expected = torch.as_tensor(expected, dtype=_float64)
    if tuple(value.shape) != tuple(expected.shape):
        fail(
            f"{name} debía tener forma {tuple(expected.shape)}, pero tiene forma {tuple(value.shape)}.",
            hint,
        )
    if value.is_complex() or not (value.is_floating_point() or value.dtype in _INTEGER_DTYPES):
        fail(f"{name} debía tener valores reales, pero tiene dtype {value.dtype}.", hint)
    if not _allclose(_as_float64(value), _as_float64(expected), rtol=rtol, atol=atol):
        _mismatch(name, *_tensors_apart(expected, value), hint)


def _numbers_apart(expected, value):
    """The two numbers with the fewest significant digits (at least 4) that tell them apart."""

    def shown(number, digits):
        text = f"{number:.{digits}g}"
        return f"{text}.0" if type(number) is float and text.lstrip("-").isdigit() else text  # a float stays 2.0

    for digits in range(4, 18):
        pair = shown(expected, digits), shown(value, digits)
        if pair[0] != pair[1]:
            return pair
    return repr(expected), repr(value)


def _tensors_apart(expected, value):
    """Both tensors described, with enough decimals that they do not read alike (``tensor(0.6835)`` twice)."""
    for precision in (4, 6, 8, 10):
        with _printoptions(precision=precision):
            shown = describe(expected), describe(value)
        if shown[0] != shown[1]:
            return shown
    return shown


def check_number(value, expected, *, name="el resultado", rtol=RTOL, atol=ATOL, hint=None):
    """Check a Python number (or a one-element tensor) against ``expected``."""
    ensure_untampered()
    if is_tensor(value) and value.numel() == 1:
        value = float(_as_float64(value).reshape(()))
    if type(value) not in (int, float) or isinstance(value, bool):
        fail(f"{name} debía ser un número, pero se obtuvo {describe(value)}.", hint)
    if not math.isclose(float(value), float(expected), rel_tol=rtol, abs_tol=atol):
        _mismatch(name, *map(shorten, _numbers_apart(expected, value)), hint)


def check_to_rounding(value, expected, *, name, rtol, atol, hint=None, close_hint=None):
    """``value`` (a tensor, or a number if ``expected`` is one) matches ``expected`` to float64's rounding
    (``rtol``, ``atol``: measured for each exercise, so that an approximation such as finite differences cannot
    meet them); if it matches only to a few digits, the failure gets ``close_hint``."""
    check = check_number if type(expected) in (int, float) else check_tensor
    try:
        check(value, expected, name=name, rtol=rtol, atol=atol, hint=hint)
    except CheckFailure as failure:
        better = close_hint if close_hint and is_close(value, expected, rtol=1e-4, atol=1e-6) else failure.hint
        fail(failure.message, better)


def _identical(value, expected):
    """Equal, with the same types all the way down (so ``[True]`` is not ``[1]``)."""
    if type(value) is not type(expected):
        return False
    if type(expected) in (list, tuple):
        return len(value) == len(expected) and all(map(_identical, value, expected))
    if type(expected) is dict:
        return value.keys() == expected.keys() and all(_identical(value[k], expected[k]) for k in expected)
    return value == expected


def check_equal(value, expected, *, name="el resultado", hint=None):
    """Check exact equality for plain values (bool, str, int, tuple, list, dict, None)."""
    ensure_untampered()
    if not _identical(value, expected):
        _mismatch(name, shorten(repr(expected)), describe(value), hint)


_MISSING = object()


def tensor_properties(tensor):
    """``requires_grad``, ``is_leaf`` and the ``grad_fn`` name, as the student's process sees them."""
    remote = remote_properties(tensor)
    if remote is not None:
        return remote
    grad_fn = None if tensor.grad_fn is None else type(tensor.grad_fn).__name__
    return {"requires_grad": tensor.requires_grad, "is_leaf": tensor.is_leaf, "grad_fn": grad_fn}


def check_properties(
    tensor,
    *,
    name="el tensor",
    shape=None,
    dtype=None,
    requires_grad=None,
    is_leaf=None,
    grad_fn=_MISSING,
    hint=None,
):
    """Check a tensor's shape, dtype, ``requires_grad``, ``is_leaf`` and ``grad_fn``.

    ``grad_fn`` is ``None`` (must be absent) or the expected node name, e.g.
    ``"MulBackward0"``. Properties left as ``None`` are not checked.
    """
    ensure_untampered()
    _require_tensor(tensor, name, hint)
    if shape is not None and tuple(tensor.shape) != tuple(shape):
        fail(f"{name} debía tener forma {tuple(shape)}, pero tiene forma {tuple(tensor.shape)}.", hint)
    if dtype is not None and tensor.dtype != dtype:
        fail(f"{name} debía tener dtype {dtype}, pero tiene dtype {tensor.dtype}.", hint)
    props = tensor_properties(tensor)
    if requires_grad is not None and props["requires_grad"] != requires_grad:
        fail(
            f"{name} debía tener requires_grad={requires_grad}, pero tiene requires_grad={props['requires_grad']}.",
            hint,
        )
    if is_leaf is not None and props["is_leaf"] != is_leaf:
        fail(f"{name} debía tener is_leaf={is_leaf}, pero tiene is_leaf={props['is_leaf']}.", hint)
    if grad_fn is not _MISSING:
        came = props["grad_fn"]
        if came != grad_fn:
            fail(f"{name} debía tener grad_fn={grad_fn}, pero tiene grad_fn={came}.", hint)


def random_inputs(shapes, *, low=-2.0, high=2.0, seed=None):
    """Return float64 tensors of the given shapes, uniform in ``[low, high)``."""
    generator = torch.Generator().manual_seed(_rng.randrange(2**31) if seed is None else seed)
    return tuple(torch.rand(shape, generator=generator, dtype=_float64) * (high - low) + low for shape in shapes)


def finite_differences(fn, *inputs, eps=1e-6):
    """Central finite-difference gradient of a scalar ``fn`` at ``inputs`` (float64)."""
    inputs = tuple(_as_float64(x).clone() for x in inputs)
    gradients = []
    for x in inputs:
        gradient = torch.zeros_like(x)
        flat, flat_gradient = x.view(-1), gradient.view(-1)
        for i in range(flat.numel()):
            original = flat[i].item()
            flat[i] = original + eps
            forward = float(fn(*inputs))
            flat[i] = original - eps
            backward = float(fn(*inputs))
            flat[i] = original
            flat_gradient[i] = (forward - backward) / (2 * eps)
        gradients.append(gradient)
    return tuple(gradients)


def reference_gradients(reference_fn, *inputs):
    """Gradients of a scalar reference formula, by autograd in float64."""
    leaves = tuple(_as_float64(x).clone().requires_grad_(True) for x in inputs)
    return _autograd_grad(reference_fn(*leaves), leaves)


def _format_inputs(inputs, names):
    return ", ".join(f"{n} = {describe(x)}" for n, x in zip(names, inputs, strict=True))


def _call(student_fn, inputs, where, hint):
    try:
        return student_fn(*inputs)
    except CheckFailure:
        raise  # already one Spanish line (a student's function called from the grader)
    except Timeout as error:
        message = f"tu función no terminó a tiempo: {error} (con {where})."
    except (Exception, SystemExit) as error:  # anything but the grader's own KeyboardInterrupt (timeouts)
        kind = error.kind if isinstance(error, RemoteError) else type(error).__name__
        if kind == "NotImplementedError":
            message = f"todavía no has escrito tu respuesta (con {where})."
        else:
            message = f"tu función lanzó {kind}: {error} (con {where})."
            hint = hint or known_error_hint(kind, error)
    # Raised outside the except block, so the failure does not keep the student's frames alive.
    fail(message, hint)


def _default_names(count):
    return ["x"] if count == 1 else [f"x{i}" for i in range(count)]


def _cases(student_fn, shapes, inputs, names, trials, low, high, seed, hint):
    """Check the student's function is callable; return its name, the input tuples and their names."""
    ensure_untampered()
    fn_name = getattr(student_fn, "__name__", "tu función")
    if not callable(student_fn):
        fail(f"{fn_name} debía ser una función, pero se obtuvo {describe(student_fn)}.", hint)
    if inputs is not None:
        cases = [tuple(_as_float64(torch.as_tensor(x)) for x in case) for case in inputs]
    else:
        rng = _rng if seed is None else random.Random(seed)
        cases = [random_inputs(shapes, low=low, high=high, seed=rng.randrange(2**31)) for _ in range(trials)]
    return fn_name, cases, names or _default_names(len(cases[0]))


def _right_but_less_precise(came, expected):
    """A float32 (or lower) answer whose values match a float64 reference at its own precision."""
    if not (is_tensor(came) and is_tensor(expected) and came.is_floating_point()):
        return False
    if expected.dtype != _float64 or came.dtype == _float64 or came.shape != expected.shape:
        return False
    return _allclose(_as_float64(came), _as_float64(expected), rtol=1e-3, atol=1e-5)


def check_function(
    student_fn,
    reference_fn,
    *,
    shapes=((),),
    inputs=None,
    names=None,
    trials=5,
    low=-2.0,
    high=2.0,
    seed=None,
    check_grad=True,
    rtol=REFERENCE_RTOL,
    atol=REFERENCE_ATOL,
    hint=None,
):
    """Call ``student_fn`` and ``reference_fn`` on the same inputs and compare.

    Inputs are ``trials`` random float64 tensors of ``shapes`` (or the explicit
    ``inputs``, a list of tuples). With ``check_grad`` the student's output must
    stay in the graph, and its vector-Jacobian product with a random vector must
    match the reference's, input by input.
    """
    fn_name, cases, names = _cases(student_fn, shapes, inputs, names, trials, low, high, seed, hint)
    for case in cases:
        where = _format_inputs(case, names)
        leaves = tuple(x.clone().requires_grad_(check_grad) for x in case)
        came = _call(student_fn, leaves, where, hint)
        expected_leaves = tuple(x.clone().requires_grad_(check_grad) for x in case)
        expected = reference_fn(*expected_leaves)
        if _right_but_less_precise(came, expected):
            # Always rejected, never by chance: at float32's precision a right answer would sometimes pass.
            fail(
                f"{fn_name}({where}) devolvió un tensor {came.dtype}, pero las entradas eran float64.",
                "no conviertas a una precisión menor: se compara en float64, y tu función debe conservar el dtype.",
            )
        _compare(came, expected, f"{fn_name}({where})", rtol, atol, hint)
        if not check_grad:
            continue
        if tensor_properties(came)["grad_fn"] is None:
            fail(
                f"el resultado de {fn_name}({where}) no está en el grafo computacional (grad_fn es None).",
                hint or "no uses .item(), .detach() ni torch.no_grad() dentro de la función.",
            )
        weights = random_inputs([tuple(expected.shape)], low=0.5, high=1.5)[0]
        came_grads = _autograd_grad((came * weights).sum(), leaves, allow_unused=True)
        expected_grads = _autograd_grad((expected * weights).sum(), expected_leaves, allow_unused=True)
        for name, leaf, got, want in zip(names, leaves, came_grads, expected_grads, strict=True):
            got = torch.zeros_like(leaf) if got is None else got
            want = torch.zeros_like(leaf) if want is None else want
            _compare(got, want, f"el gradiente respecto a {name} ({where})", rtol, atol, hint)
    ensure_untampered()


_GRADIENT_METHODS = {
    "autograd": (reference_gradients, REFERENCE_RTOL, REFERENCE_ATOL),
    "diferencias_finitas": (finite_differences, FD_RTOL, FD_ATOL),
}


def check_gradient_function(
    student_fn,
    reference_fn,
    *,
    shapes=((),),
    inputs=None,
    names=None,
    trials=5,
    low=-2.0,
    high=2.0,
    seed=None,
    method="autograd",
    hint=None,
):
    """Check a student function that returns the gradient(s) of ``reference_fn``.

    ``student_fn`` takes plain tensors and returns one gradient (one input) or a
    tuple of gradients. They are compared with autograd on the scalar reference
    formula in float64 (``method="autograd"``) or with central finite
    differences (``method="diferencias_finitas"``).
    """
    if method not in _GRADIENT_METHODS:
        raise ValueError(f"method debe ser uno de {sorted(_GRADIENT_METHODS)}, no {method!r}")
    reference, rtol, atol = _GRADIENT_METHODS[method]
    fn_name, cases, names = _cases(student_fn, shapes, inputs, names, trials, low, high, seed, hint)
    for case in cases:
        where = _format_inputs(case, names)
        came = _call(student_fn, tuple(x.clone() for x in case), where, hint)
        expected = reference(reference_fn, *case)
        if len(case) == 1:
            came = (came,)
        elif type(came) not in (tuple, list) or len(came) != len(case):
            fail(
                f"{fn_name} debía devolver {len(case)} gradientes (uno por entrada), pero devolvió {describe(came)}.",
                hint,
            )
        for name, got, want in zip(names, came, expected, strict=True):
            if is_tensor(got) and got.is_floating_point() and got.dtype != _float64:
                fail(  # always, never by chance (see check_function)
                    f"el gradiente respecto a {name} ({where}) es un tensor {got.dtype}; las entradas eran float64.",
                    "no conviertas a una precisión menor: se compara en float64, y tu función debe conservar el dtype.",
                )
            _compare(got, want, f"el gradiente respecto a {name} ({where})", rtol, atol, hint)
    ensure_untampered()


def _quoted(apis):
    return ", ".join(f"«{api}»" for api in apis)


# The modules an answer's code may reach in an exercise that reads it (an allowlist: any other fails).
ALLOWED_MODULES = (
    "torch", "numpy", "math", "cmath", "random", "collections", "itertools", "functools", "dataclasses", "typing",
    "numbers", "fractions", "statistics", "heapq", "bisect", "copy", "string", "time", "warnings", "graphlib",
)  # fmt: skip
UNREADABLE_HINT = (
    "en este ejercicio escribe las llamadas tal cual, con nombres que tu cuaderno define o importa de los módulos del "
    "curso (sin getattr, eval, globals(), atributos __…__, órdenes del sistema (!, %%bash) ni órdenes mágicas que "
    "ejecuten código), para que se pueda comprobar qué usa. Se lee todo lo que has ejecutado: si ya lo quitaste, usa "
    "Kernel → Reiniciar el kernel y ejecutar todas las celdas…"
)


def _fail_if_unreadable(name, reading):
    """A reading that is not complete decides nothing: say what in the notebook stops it."""
    if reading.unknown:
        fail(
            f"no se puede comprobar qué usa {name}: tu cuaderno tiene {', '.join(reading.unknown[:3])}.",
            UNREADABLE_HINT,
        )


def _answer_name(student_fn):
    return student_fn if isinstance(student_fn, str) else getattr(student_fn, "__name__", "tu función")


def _read_answer(name):
    """The complete reading of the answer ``name``; fails if it is not defined, or cannot be read in full."""
    reading = read(name)
    if not reading.found:
        fail(
            f"no encuentro en tu cuaderno dónde se define {name}.",
            "defínelo en su celda de respuesta (sin cambiarle el nombre) y vuelve a ejecutarla.",
        )
    return reading


def outside_allowlist(reading, names, methods):
    """What a reading reaches of torch beyond an allowlist: the names (``torch.x``, compared as objects, whatever the
    path) not among ``names``, and the methods and attributes (``.logaddexp``) not among ``methods``."""
    allowed = {id(value) for name in names if (value := named_object(name)) is not None}
    outside, parts = [], set()
    for name in sorted(reading.names):
        value = named_object(name)
        if not name.startswith("torch.") or isinstance(value, types.ModuleType) or id(value) in allowed:
            parts.update(name.split(".")[1:])
        else:
            outside.append(name)
    return outside + sorted(f".{method}" for method in reading.attributes - parts - set(methods))


def _reached(reading, apis):
    """The APIs of ``apis`` that a reading reaches: as written, or under another path (compared as objects)."""
    return [api for api in apis if reading.mentions(api)] or same_objects(reading.names, apis)


def check_statement(student_fn, *, forbidden=(), modules=ALLOWED_MODULES, hint=None):
    """Check that the code behind ``student_fn`` (a function, or the name of an answer) stays inside what the
    statement allows. The reading fails closed (see :mod:`gradientes.reading`): the answer and everything it can
    reach in the notebook is read in full; a name it cannot resolve, or dynamic access anywhere, fails; every
    module it reaches must be one of ``modules``, never through a private part (``torch._C``); and no dotted
    prefix (``"torch.autograd.functional"``), method (``".backward"``) or builtin (``"complex"``) of ``forbidden``
    may be reached. Nothing here asks for a name to be present: a mention may never run (observe the skill with
    :class:`Watched`, or :func:`flag` it for the instructor).
    """
    name = _answer_name(student_fn)
    if untouched(name):  # what it uses says nothing yet
        fail(
            f"todavía no has escrito tu respuesta: {name} solo lanza NotImplementedError.",
            "borra la línea raise NotImplementedError() y escribe tu código.",
        )
    reading = _read_answer(name)
    _fail_if_unreadable(name, reading)
    outside = sorted(module for module in reading.modules() if module not in modules)
    if outside:
        fail(f"{name} usa {_quoted(outside)}, que el enunciado no permite en este ejercicio.", hint)
    private = sorted(n for n in reading.names if any(part.startswith("_") for part in n.split(".")[1:]))
    if private:
        fail(f"{name} usa {_quoted(private[:3])}, una parte interna de una biblioteca.", hint or UNREADABLE_HINT)
    used = _reached(reading, forbidden)
    if used:
        fail(f"{name} usa {_quoted(used)}, que el enunciado no permite en este ejercicio.", hint)


# --- Diagnósticos compartidos entre lecciones ---
#
# The visible part of a test cell compares a few literal cases and calls one diagnosis per case. Each
# helper here recognises a typical wrong answer from what came back and the literal expected value (never
# by computing the answer) and returns a Spanish hint, or None when it does not recognise the mistake.
# ``Watched`` and the checks after it observe how the student's code used a function of the test cell.


def as_number(value):
    """``value`` as a ``float`` (a Python number, or a real tensor of one element); ``None`` otherwise."""
    if type(value) in (int, float):
        return float(value)
    if is_tensor(value) and value.numel() == 1 and not value.is_complex():
        return float(_as_float64(value).reshape(()))
    return None


def _as_values(value):
    """A float64 tensor for a number, a (nested) list of numbers or a real tensor; ``None`` for anything else."""
    if is_tensor(value):
        return None if value.is_complex() else _as_float64(value)
    if value is None or isinstance(value, bool | str | dict):
        return None
    try:
        return torch.as_tensor(value, dtype=_float64)
    except Exception:  # any object a student's code may return
        return None


def is_close(value, target, *, rtol=RTOL, atol=ATOL):
    """Whether ``value`` equals ``target`` (numbers, nested lists or tensors) with the same shape, to the
    checks' tolerance; ``False`` when they cannot be compared."""
    got, want = _as_values(value), _as_values(target)
    if got is None or want is None or got.shape != want.shape:
        return False
    return bool(_allclose(got, want, rtol=rtol, atol=atol, equal_nan=False))


def sign_flipped(value, expected):
    """``value`` is ``expected`` with its sign changed (and is not also right, as 0 would be)."""
    want = _as_values(expected)
    return want is not None and is_close(value, -want) and not is_close(value, want)


def scaled(value, expected, factor):
    """``value`` is ``factor`` times ``expected`` (and is not ``expected`` itself)."""
    want = _as_values(expected)
    return want is not None and is_close(value, want * factor) and not is_close(value, want)


def graph_cut(value):
    """``value`` is a tensor outside the graph (no ``grad_fn``), as the student's process sees it."""
    return is_tensor(value) and tensor_properties(value)["grad_fn"] is None


def returned_a_tuple(value):
    """A tuple or a list where one tensor was asked (``torch.autograd.grad`` returns a tuple, say)."""
    return type(value) in (tuple, list)


def diagnose(value, expected, *mistakes, name="tu resultado", output=None, count=None, graph=False):
    """A Spanish hint for a wrong ``value`` against the literal ``expected``, or ``None``.

    ``mistakes`` are pairs ``(what that mistake gives in this case, hint)``, literals written in the test
    cell, tried first. Then the mistakes exercises share: ``None``; a tuple, list or number where a tensor
    was asked (when ``expected`` is a tensor), another shape or dtype; with ``graph``, a result outside the
    graph; the function's ``output`` instead of its gradient; the sign flipped; twice the value (a gradient
    accumulated twice); with ``count``, off by that factor (a sum for a mean, or a mean for a sum).
    """
    for wrong, hint in mistakes:
        if is_close(value, wrong) and not is_close(value, expected):
            return hint
    if value is None:
        return (
            f"{name} es None: ¿devolviste lo que devuelve backward() (None), u olvidaste el return? Si es un .grad, "
            "esa hoja no recibió gradiente: ¿requiere gradiente, y le llega algún camino del grafo sin cortes?"
        )
    if is_tensor(expected):
        if returned_a_tuple(value):
            kind = "una tupla" if type(value) is tuple else "una lista"
            return (
                f"{name} es {kind}, y se pide un solo tensor: ¿devolviste sin juntar una tupla o una lista de tensores "
                "(la de torch.autograd.grad, unas filas sueltas…)?"
            )
        if not is_tensor(value):
            return f"{name} debía ser un tensor: ¿lo convertiste en un número de Python o en una lista?"
        if tuple(value.shape) != tuple(expected.shape):
            return (
                f"{name} tiene forma {tuple(value.shape)}, y se pide forma {tuple(expected.shape)}: ¿sumaste, "
                "promediaste o reordenaste algo de más?"
            )
        if value.dtype != expected.dtype:
            return (
                f"{name} tiene dtype {value.dtype}, y se pide {expected.dtype}: ¿creaste un tensor nuevo con el dtype "
                "por defecto en lugar de conservar el de la entrada?"
            )
    if graph and graph_cut(value):
        return (
            f"{name} no tiene grad_fn, así que está fuera del grafo: ¿cortaste el grafo con .item(), float(), "
            ".detach(), NumPy o torch.tensor(...)?"
        )
    if output is not None and is_close(value, output) and not is_close(value, expected):
        return (
            f"{name} coincide con la salida de la función, no con su derivada: ¿devolviste la salida en lugar del "
            "gradiente?"
        )
    if sign_flipped(value, expected):
        return f"{name} tiene el signo cambiado: revisa el signo de cada derivada local y de cada término."
    if scaled(value, expected, 2):
        return (
            f"{name} es el doble de lo esperado: ¿se acumuló dos veces? Cada backward() suma su resultado a lo que "
            "ya había en .grad."
        )
    if count is not None and count > 1:
        if scaled(value, expected, count):
            return f"{name} es {count} veces lo esperado: ¿sumaste donde había que promediar?"
        if scaled(value, expected, 1 / count):
            return f"{name} es {count} veces menor de lo esperado: ¿promediaste donde había que sumar?"
    return None


def gradient_list_hint(valores, gradientes, restos, valores_perdidas):
    """What pattern a list of gradients the student returned follows, one per loss (or None): the losses
    themselves, a shared .grad saved several times, gradients that kept accumulating, leftovers, a flipped sign."""
    if all(is_close(v, p.expand_as(v)) for v, p in zip(valores, valores_perdidas, strict=True)):
        return "esos son los valores de las pérdidas, no sus gradientes respecto a w."
    m = len(gradientes)
    total = sum(gradientes)
    extra = torch.zeros_like(total) if restos is None else restos
    acumulados = [sum(gradientes[: i + 1]) for i in range(m)]
    distintos = m > 1 and not all(is_close(g, gradientes[0]) for g in gradientes)
    if distintos:
        for comun, pista in (
            (gradientes[-1], "todas las entradas valen el último gradiente"),
            (total, "todas las entradas valen el gradiente de la suma"),
            (total + extra, "todas las entradas valen el gradiente de la suma más los restos"),
            (torch.zeros_like(total), "todas las entradas son ceros"),
        ):
            if all(is_close(v, comun) for v in valores):
                return (
                    f"{pista}: ¿guardaste el propio w.grad, no una copia? zero_() y backward() siguen "
                    "cambiando ese mismo tensor en su sitio."
                )
        if all(is_close(v, a) or is_close(v, a + extra) for v, a in zip(valores, acumulados, strict=True)):
            return (
                "cada gradiente incluye los de las pérdidas anteriores: entre una pérdida y la siguiente, .grad "
                "siguió acumulando."
            )
    if restos is not None and is_close(valores[0], gradientes[0] + restos):
        return "el primer gradiente incluye los restos que ya había en w.grad al llamar a tu función."
    if all(is_close(v, -g) for v, g in zip(valores, gradientes, strict=True)):
        return "tienen el signo cambiado."
    return None


def call_student(function, *args, hints=(), **kwargs):
    """Call the student's ``function``; if it fails with a message that contains the fragment of one of
    ``hints`` (pairs ``(fragment, hint)``), the failure gets that hint, which knows the exercise."""
    better = message = None
    try:
        return function(*args, **kwargs)
    except CheckFailure as failure:
        message = failure.message
        better = next((hint for fragment, hint in hints if fragment in message), None)
        if better is None:
            raise
    fail(message, better)


def _times(count):
    return "una vez" if count == 1 else f"{count} veces"


def _passes(count):
    return "un paso hacia atrás" if count == 1 else f"{count} pasos hacia atrás"


class Watched:
    """A function of the test cell handed to the student's code, that records how that code used it.

    ``calls`` holds, per call, copies of its tensor arguments and whether any of them required a
    gradient; ``backward_passes`` the gradient that came back to its output in each backward pass,
    recorded by a hook registered here on that output. When grading, this function runs in the grader's
    process (the student's code calls it across the boundary, and asks it for every vector-Jacobian
    product), so both lists are what the grader saw, never what the student's process says.
    """

    def __init__(self, function, name="f"):
        self.function, self.__name__, self.__qualname__ = function, name, name
        self.calls, self.backward_passes = [], []

    def __call__(self, *args):
        tensors = [arg for arg in args if is_tensor(arg)]
        self.calls.append(
            {"inputs": [_detach(t).clone() for t in tensors], "requires_grad": any(t.requires_grad for t in tensors)}
        )
        output = self.function(*args)
        if is_tensor(output) and output.requires_grad:
            output.register_hook(self._record)
        return output

    def _record(self, gradient):
        self.backward_passes.append(_detach(gradient).clone())


class CountingWatched(Watched):
    """A :class:`Watched` whose hook only counts the backward passes through the output (it keeps no copy of the
    gradient, so it also works when the student's code asks for batched gradients, ``is_grads_batched=True``)."""

    def _record(self, gradient):
        self.backward_passes.append(None)


def check_called_with_graph(watched, who, where, *, times=None, like=None, shape=None, hint=None):
    """Fail unless the student's code (``who``, as the message names it) called ``watched`` with a tensor that
    requires a gradient; with ``times``, exactly that many times; with ``like`` (a tensor, or a tuple of one per
    argument), every time with tensors of their shapes and values: the point it was given, not several points stacked
    or moved; with ``shape``, every time with one tensor of that shape (a point that changes, not several)."""
    name, calls = watched.__name__, watched.calls
    if not calls:
        fail(f"{who} no llamó a {name} ({where}).", hint or f"el resultado se calcula con la {name} que recibes.")
    if not any(call["requires_grad"] for call in calls):
        fail(
            f"{who} llamó a {name} solo con tensores que no requieren gradiente ({where}).",
            hint or "sin una hoja que requiera gradiente, autograd no graba el grafo: ¿lo calculaste sin autograd?",
        )
    if times is not None and len(calls) != times:
        fail(
            f"{who} llamó a {name} {_times(len(calls))} ({where}), y se pide {_times(times)}.",
            hint or f"cada llamada a {name} es un paso hacia adelante; el paso hacia atrás recorre el grafo que grabó.",
        )
    if like is not None or shape is not None:
        points = None if like is None else like if type(like) is tuple else (like,)
        wanted = f"un solo tensor de forma {tuple(shape)}" if points is None else "el punto que recibió"
        for call in calls:
            inputs = call["inputs"]
            if points is None:
                same = len(inputs) == 1 and tuple(inputs[0].shape) == tuple(shape)
            else:
                same = len(inputs) == len(points) and all(
                    got.shape == want.shape and is_close(got, want, rtol=0, atol=1e-12)
                    for got, want in zip(inputs, points, strict=True)
                )
            if not same:
                shown = ", ".join(describe(t) for t in inputs) or "ningún tensor"
                fail(
                    f"{who} llamó a {name} con {shown}, en lugar de con {wanted} ({where}).",
                    hint or f"llama a {name} con tu hoja hecha a partir de x, sin apilar puntos ni cambiar valores.",
                )


def check_backward_passes(watched, who, where, *, times, gradient=None, hint=None):
    """Fail unless exactly ``times`` backward passes went through the output of ``watched`` (seen by its hook);
    with ``gradient``, each of them must have brought back that tensor: the ``v`` of ``backward(gradient=v)``, or
    what the statement's loss sends to that output (a pass of a loss times 0 brings zeros)."""
    name, passes = watched.__name__, watched.backward_passes
    if len(passes) != times:
        done = _passes(len(passes))
        fail(
            f"{who} hizo {done} a través de la salida de {name} ({where}), y se pide {_passes(times)}.",
            hint or "cada backward() o torch.autograd.grad que pasa por esa salida es un paso hacia atrás.",
        )
    if gradient is not None and not all(is_close(came, gradient) for came in passes):
        fail(
            f"el paso hacia atrás de {who} llevó a la salida de {name} un gradiente distinto del que da la pérdida "
            f"del enunciado ({where}): {describe(passes[0])} en lugar de {describe(gradient)}.",
            hint
            or "retropropaga la pérdida que pide el enunciado, dentro del grafo: el gradiente que llega a la "
            f"salida de {name} es el suyo.",
        )


# What the checks of an exercise «sin autograd» refuse in the answer's code (besides any module but the allowed ones).
AUTOGRAD_APIS = (
    "torch.autograd",
    "torch.func",
    "torch.enable_grad",
    "torch.set_grad_enabled",
    ".backward",
    ".grad",
    ".grad_fn",
    ".next_functions",
    ".retain_grad",
    ".requires_grad_",
    ".register_hook",
    ".register_post_accumulate_grad_hook",
)


# Complex numbers: the complex step (``f(x + h·1j).imag / h``) gives a derivative to float64 precision with no rule.
NO_COMPLEX = ("complex", ".imag", ".real", ".conjugate", "torch.complex64", "torch.complex128", "torch.cfloat",
              "torch.cdouble", "torch.complex", "torch.view_as_real", "torch.view_as_complex", "torch.real",
              "torch.imag", "torch.polar", "torch.angle", "cmath", "numpy.angle", "numpy.imag", "numpy.real",
              "numpy.complex64", "numpy.complex128", "numpy.complexfloating", "numpy.emath")  # fmt: skip


def check_without_autograd(student_fn, hint=None):
    """The statement asks for a computation by hand: the answer's code must not reach autograd, nor complex numbers
    (read in full)."""
    check_statement(
        student_fn,
        forbidden=(*AUTOGRAD_APIS, *NO_COMPLEX),
        hint=hint or "aquí se pide el cálculo a mano: escribe tú cada derivada, sin backward(), .grad ni autograd.",
    )


# The note a test cell leaves for the instructor, when grading (a list the grader reads; None in the lab).
FLAGS = contextvars.ContextVar("flags", default=None)
FLAG_MARK = "ⓘ"


def flag(text):
    """What the statement asks and the grader cannot observe: a note for the instructor, never a point and never ✗.

    ``text`` (Spanish) says what to look at in the student's code. When grading it reaches the submission's status
    («para revisar a mano: …»), the class page and the feedback; in the lab the student reads it as a neutral note.
    The cell keeps the points it earned by what the grader observed.
    """
    flags = FLAGS.get()
    if flags is not None:
        flags.append(text)
    else:
        print(f"{FLAG_MARK} Lo revisará tu profesor: {text}")


# What makes a gradient without the graph of the statement's loss: a pass without recording, a hook, a custom
# function, another autograd (a loss that is only a product by a constant, ``(y * v).sum()``, is not among them).
GRADIENT_BY_HAND = (
    ".data", ".register_hook", ".grad_fn", "torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled",
    "torch.autograd.Function", "torch.autograd.function", "torch.autograd.functional", "torch.autograd.forward_ad",
    "torch.func", "torch.vmap",
)  # fmt: skip
# And what takes a value out of the graph (a number, a copy without history): with it, an answer can stand a value
# and a derivative written by hand in for the graph (``v + d * (x - x.detach())``).
LEAVES_GRAPH = (
    *GRADIENT_BY_HAND, ".item", ".tolist", ".numpy", ".detach", ".detach_", "torch.detach", ".requires_grad_",
    ".untyped_storage", ".storage", ".new_tensor", "torch.tensor", "torch.Tensor", "torch.from_numpy",
    "torch.asarray", "torch.autograd", "torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.parameter", ".to", ".type",
    ".long", ".int", ".short", ".char", ".byte", ".bool", ".round", ".floor", ".ceil", ".trunc", "torch.round",
    "torch.floor", "torch.ceil", "torch.trunc", "torch.sym_float", "torch.sym_int", "float", "int", "complex",
)  # fmt: skip


def flag_unless_autograd(student_fn, what, *, leaves=()):
    """A mark for the instructor (:func:`flag`, never a point) where the grader sees the gradient but not how it was
    made: the answer's code cannot be read in full, gives a backward pass a gradient of its own (``y.backward(v)``,
    ``grad_outputs=v``) or, with ``leaves`` (:data:`GRADIENT_BY_HAND`, :data:`LEAVES_GRAPH`), reaches one of them or
    a module other than torch.
    ``what`` (Spanish) is what the statement asks autograd to derive («la suma de los softplus»)."""
    name = _answer_name(student_fn)
    reading = read(name)
    asked = f"que {name} calcule {what} dentro del grafo de autograd"
    used = [f"«{api}»" for api in _reached(reading, leaves)]
    used += [f"el módulo «{m}»" for m in sorted(reading.modules() - {"torch"})] if leaves else []
    if reading.unknown:
        flag(f"{asked}: su código no se puede leer entero ({reading.unknown[0]}).")
    elif reading.seeded:
        flag(
            f"{asked}: da a un paso hacia atrás un gradiente propio («{reading.seeded[0]}»), y el calificador ve el "
            "gradiente que llega a su función, no de dónde sale."
        )
    elif used:
        flag(
            f"{asked}: usa {used[0]}, y con eso el gradiente puede no salir del grafo; el calificador ve el "
            "gradiente que resulta, no cómo se formó."
        )


PREDICTION_HINT = (
    "una predicción se razona, no se ejecuta: escríbela con valores literales o con Python corriente (números, "
    "bool, listas, if, bucles y las funciones de math), sin torch ni las funciones y tensores de la lección."
)


def check_prediction_is_plain(prediction):
    """A prediction cannot be computed: its code, and everything it reaches in the notebook, may contain only
    literals, operators, ``if``/loops/``return``, assignments to its own names, its parameters, ``math``,
    ``itertools`` and a few builtins (an allowlist, see :data:`gradientes.reading.PLAIN_NODES`); anything else, or a
    reading that is not complete, fails."""
    name = _answer_name(prediction)
    reading = _read_answer(name)
    _fail_if_unreadable(name, reading)
    modules = [f"«{m}»" for m in sorted(reading.modules()) if m not in PLAIN_MODULES]
    shown = modules or [f"«{item}»" for item in reading.not_plain]
    if shown:
        fail(
            f"{name} usa {', '.join(shown[:4])}, que el enunciado no permite: una predicción no se calcula con código.",
            PREDICTION_HINT,
        )


def check_prediction(value, expected, *, name="tu predicción", hint=None):
    """Compare a prediction with what the cell will print, without saying what that is (it is the answer).

    ``expected`` is a number, a bool, a string, or a list or tuple of them; a list and a tuple are the same
    prediction, and numbers are compared to the checks' tolerance.
    """
    ensure_untampered()
    if is_tensor(value):
        fail(f"{name} es un tensor, y una predicción es un valor de Python.", PREDICTION_HINT)
    many = type(expected) in (list, tuple)
    wanted, came = (list(expected), value) if many else ([expected], [value])
    if many and (type(value) not in (list, tuple) or len(value) != len(wanted)):
        fail(f"{name} debía ser una lista de {len(wanted)} valores, pero es {describe(value)}.", hint)
    for got, want in zip(came, wanted, strict=True):
        if type(want) in (int, float):
            if type(got) not in (int, float):
                fail(f"{name} debía contener números, pero contiene {describe(got)}.", hint)
            right = is_close(got, want)
        else:
            right = type(got) is type(want) and got == want
        if not right:
            fail(f"{name} no coincide con lo que imprimirá la celda.", hint)
