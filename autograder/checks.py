"""Checks that the lessons' test cells call.

Every check compares in float64 and fails with a Spanish message that says what
was expected, what came, and a hint. Functions are called on randomized inputs
and compared with a reference (autograd on a reference formula, or central
finite differences), so a hard-coded number cannot pass.
"""

import math
import random

import torch

from autograder.integrity import tampered_names
from autograder.remote import RemoteError, Timeout, remote_properties
from autograder.statement import SOURCES, uses

# Captured before any student code runs, so a replaced torch.allclose cannot help.
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_allclose = torch.allclose
_autograd_grad = torch.autograd.grad
_detach = torch.Tensor.detach
_to = torch.Tensor.to
_float64 = torch.float64
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
    return shorten(repr(value), 80)


def call_text(name, args, kwargs):
    """``nombre(arg, ...)`` as the student would read it."""
    shown = ", ".join([*map(_argument, args), *(f"{k}={_argument(v)}" for k, v in kwargs.items())])
    return f"{name}({shown[:300]})"


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
        "un tensor que requiere gradiente no pasa a NumPy tal cual: antes hay que sacarlo del grafo.",
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
        "0-d tensor",
        "un tensor 0-d (un escalar, de forma ()) no tiene ningún eje: no tiene longitud ni elementos que recorrer.",
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
        _mismatch(name, describe(expected), describe(value), hint)


def check_number(value, expected, *, name="el resultado", rtol=RTOL, atol=ATOL, hint=None):
    """Check a Python number (or a one-element tensor) against ``expected``."""
    ensure_untampered()
    if is_tensor(value) and value.numel() == 1:
        value = float(_as_float64(value).reshape(()))
    if type(value) not in (int, float) or isinstance(value, bool):
        fail(f"{name} debía ser un número, pero se obtuvo {describe(value)}.", hint)
    if not math.isclose(float(value), float(expected), rel_tol=rtol, abs_tol=atol):
        _mismatch(name, shorten(repr(expected)), shorten(repr(value)), hint)


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


def check_statement(student_fn, *, forbidden=(), required=(), hint=None):
    """Check what the code behind ``student_fn`` (a function, or the name of an answer) uses, as the statement says.

    ``forbidden`` and ``required`` are dotted prefixes (``"torch.autograd.functional"``) or method
    names (``".backward"``). The code is the cell that defines the function and, transitively, the
    definitions of the notebook's names it uses; the course's own ``autograder`` and dynamic access
    (``getattr``, ``eval``…) are always refused there, since they would hide what it uses.
    """
    name = student_fn if isinstance(student_fn, str) else getattr(student_fn, "__name__", "tu función")
    usage = uses(name)
    if not usage.found:
        fail(
            f"no encuentro en tu cuaderno dónde se define {name}.",
            "defínelo en su celda de respuesta (sin cambiarle el nombre) y vuelve a ejecutarla.",
        )
    if usage.dynamic:
        fail(
            f"{name} usa acceso dinámico ({_quoted(sorted(usage.dynamic))}).",
            hint or "en este ejercicio escribe las llamadas tal cual, para que se pueda comprobar qué usa tu código.",
        )
    used = [api for api in ("autograder", *forbidden) if usage.mentions(api)]
    if used:
        fail(f"{name} usa {_quoted(used)}, que el enunciado no permite en este ejercicio.", hint)
    missing = [api for api in required if not usage.mentions(api)]
    if missing:
        fail(f"{name} no usa {_quoted(missing)}, que el enunciado pide en este ejercicio.", hint)


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


def check_called_with_graph(watched, who, where, *, times=None, like=None, hint=None):
    """Fail unless the student's code (``who``, as the message names it) called ``watched`` with a tensor that
    requires a gradient; with ``times``, exactly that many times; with ``like`` (a tensor), every time with one
    tensor of its shape and values: the point it was given, not several points stacked or moved."""
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
    if like is not None:
        for call in calls:
            inputs = call["inputs"]
            same = len(inputs) == 1 and inputs[0].shape == like.shape and is_close(inputs[0], like, rtol=0, atol=1e-12)
            if not same:
                shown = ", ".join(describe(t) for t in inputs) or "ningún tensor"
                fail(
                    f"{who} llamó a {name} con {shown}, en lugar de con el x que recibió ({where}).",
                    hint or f"llama a {name} con tu hoja hecha a partir de x, sin apilar puntos ni cambiar valores.",
                )


def check_backward_passes(watched, who, where, *, times, gradient=None, hint=None):
    """Fail unless exactly ``times`` backward passes went through the output of ``watched`` (seen by its hook);
    with ``gradient``, each of them must have brought back that tensor (the ``v`` of ``backward(gradient=v)``)."""
    name, passes = watched.__name__, watched.backward_passes
    if len(passes) != times:
        done = _passes(len(passes))
        fail(
            f"{who} hizo {done} a través de la salida de {name} ({where}), y se pide {_passes(times)}.",
            hint or "cada backward() o torch.autograd.grad que pasa por esa salida es un paso hacia atrás.",
        )
    if gradient is not None and not all(is_close(came, gradient) for came in passes):
        fail(
            f"el paso hacia atrás de {who} a través de la salida de {name} no partió del v que recibió ({where}).",
            hint or "pasa a backward() el v que recibes, tal cual: es el gradiente que llega a la salida de f.",
        )


# What the checks of an exercise «sin autograd» refuse in the answer's code.
AUTOGRAD_APIS = (
    "torch.autograd",
    "torch.func",
    "torch.enable_grad",
    "torch.set_grad_enabled",
    ".backward",
    ".grad",
    ".retain_grad",
    ".requires_grad_",
)


def check_without_autograd(student_fn, hint=None):
    """The statement asks for a computation by hand: the answer's code must not use autograd."""
    check_statement(
        student_fn,
        forbidden=AUTOGRAD_APIS,
        hint=hint or "aquí se pide el cálculo a mano: escribe tú cada derivada, sin backward(), .grad ni autograd.",
    )


def check_uses_autograd(student_fn, hint=None):
    """The statement asks for autograd: the answer's code must call ``backward()`` or ``torch.autograd.grad``."""
    check_statement(student_fn, hint=hint)
    name = student_fn if isinstance(student_fn, str) else getattr(student_fn, "__name__", "tu función")
    usage = uses(name)
    if not (usage.mentions(".backward") or usage.mentions("torch.autograd.grad")):
        fail(
            f"{name} no usa autograd (ni backward() ni torch.autograd.grad), que el enunciado pide en este ejercicio.",
            hint or "aquí el gradiente lo calcula autograd: crea tu hoja, calcula la salida y llama a backward().",
        )


PREDICTION_HINT = (
    "una predicción se razona, no se ejecuta: escríbela con valores literales o con Python corriente (números, "
    "bool, listas, if y bucles), sin torch ni las funciones y tensores de la lección."
)


def check_prediction_is_plain(prediction):
    """A prediction cannot be computed: its code, and the notebook's names it uses, must not mention ``torch``."""
    check_statement(prediction, forbidden=("torch",), hint=PREDICTION_HINT)


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


# Lesson 05 · Acumulación de gradientes: what each exercise's cases recognise.


def _pista_guardado(guardado, grad, a, c, vaciar, esperado):
    """Qué confusión reproduce una predicción de (guardado, x.grad) tras vaciar con zero_() o con None."""
    if is_close(guardado, esperado[0]) and is_close(grad, esperado[1]):
        return None
    if not is_close(grad, esperado[1]):
        if is_close(grad, 2 * a + c):
            return "x.grad se vació antes del segundo backward(): del primer gradiente no queda nada en x.grad."
        if is_close(grad, 2 * a):
            return "el segundo backward() también se ejecuta y deja su gradiente en x.grad."
        return "¿cuánto vale la derivada de c·x? El segundo backward() la deja en un x.grad vacío."
    if vaciar == "zero_" and is_close(guardado, 2 * a):
        return (
            "guardado = x.grad no hace ninguna copia: los dos nombres apuntan al mismo tensor. ¿Qué le hace zero_() "
            "a ese tensor, y dónde deja su gradiente el segundo backward()?"
        )
    if vaciar == "zero_" and is_close(guardado, 0.0):
        return "zero_() llenó de ceros ese tensor, pero la historia sigue: el segundo backward() suma en él."
    if vaciar == "None" and is_close(guardado, c):
        return (
            "con x.grad = None, el atributo suelta el tensor y el segundo backward() crea otro nuevo: ¿cuál de los "
            "dos es guardado?"
        )
    return "sigue la pista del tensor: ¿guardado y x.grad son el mismo objeto después de vaciar de esa manera?"


def check_saved_gradient_prediction(prediccion, a, c, vaciar, esperado):
    """Lección 05, ejercicio 1: la pareja (guardado, x.grad) que predice el alumno, frente a la que imprime la celda."""
    llamada = f"prediccion({a!r}, {c!r}, {vaciar!r})"
    valor = prediccion(a, c, vaciar)
    if type(valor) not in (tuple, list) or len(valor) != 2:
        fail(
            f"{llamada} debía devolver una pareja (guardado, x.grad), pero se obtuvo {describe(valor)}.",
            "devuelve dos números separados por una coma, en ese orden.",
        )
    guardado, grad = (as_number(v) for v in valor)
    if guardado is None or grad is None:
        fail(
            f"{llamada} debía devolver dos números, pero se obtuvo {describe(valor)}.",
            "después del segundo backward(), guardado y x.grad son tensores con un número cada uno: devuelve esos "
            "números.",
        )
    pista = _pista_guardado(guardado, grad, a, c, vaciar, esperado)
    check_number(guardado, esperado[0], name=f"el guardado que predice {llamada}", hint=pista)
    check_number(grad, esperado[1], name=f"el x.grad que predice {llamada}", hint=pista)


def leaves_with_leftovers(valores, restos=None):
    """Un diccionario de hojas float64 que requieren gradiente, con ``restos[nombre]`` en su ``.grad`` (o None)."""
    hojas = {}
    for nombre, valor in valores.items():
        hoja = torch.tensor(valor, dtype=_float64, requires_grad=True)
        if restos and restos.get(nombre) is not None:
            hoja.grad = torch.full_like(_detach(hoja), restos[nombre])
        hojas[nombre] = hoja
    return hojas


def _pista_vaciado(nombre, llego, antes, gradiente, set_to_none):
    """Qué le pasó al .grad de un parámetro tras vaciar (como zero_grad) y retropropagar."""
    if gradiente is not None:  # participa en la pérdida
        if llego is None:
            return (
                f"{nombre} participa en la pérdida, así que backward() le deja un gradiente: "
                "¿retropropagaste la pérdida? ¿O vaciaste después en lugar de antes?"
            )
        if antes is not None and is_close(llego, gradiente + antes):
            return (
                f"a {nombre}.grad se le sumó el gradiente nuevo encima de los restos que ya tenía: "
                "hay que vaciar antes de retropropagar."
            )
        if is_close(llego, -gradiente):
            return "tiene el signo cambiado."
        if is_close(llego, torch.zeros_like(gradiente)):
            return "quedó en ceros: ¿vaciaste después de retropropagar en lugar de antes?"
        return "debe quedar el gradiente de la pérdida respecto a este parámetro, sin nada más."
    if set_to_none:  # no participa, y se vacía con None
        if llego is not None and antes is not None and is_close(llego, antes):
            return (
                f"{nombre} no participa en la pérdida y conservó sus restos: "
                "hay que vaciar todos los parámetros, no solo los que reciben gradiente."
            )
        if llego is not None and is_close(llego, torch.zeros_like(llego)):
            return "con set_to_none=True, vaciar es soltar el tensor (dejar None), no llenarlo de ceros."
        return "con set_to_none=True, un parámetro que no participa en la pérdida termina sin gradiente."
    if antes is None:  # no participa, set_to_none=False, y no tenía gradiente
        return (
            f"{nombre} no tenía gradiente y no participa en la pérdida: con set_to_none=False, zero_grad pone a "
            "cero los gradientes que existen; un .grad que es None no se toca."
        )
    if llego is None:
        return (
            "con set_to_none=False, un gradiente que existía se pone a cero en su sitio: queda un tensor de ceros, no "
            "None."
        )
    if is_close(llego, antes):
        return (
            f"{nombre} no participa en la pérdida y conservó sus restos: "
            "hay que vaciar todos los parámetros, también los que no reciben gradiente."
        )
    return "con set_to_none=False, un gradiente que existía queda lleno de ceros."


def check_zeroing(funcion, parametros, perdida_de, gradientes, set_to_none=None):
    """Lección 05, ejercicio 2: ``funcion(parametros, perdida[, set_to_none])`` vacía como zero_grad y retropropaga.

    ``gradientes`` da el gradiente esperado de cada parámetro que participa en ``perdida_de``; los demás
    quedan en None o en ceros según ``set_to_none`` (None: la llamada usa el valor por defecto, True).
    """
    vacia_con_none = set_to_none is None or set_to_none
    estado = ", ".join(f"{n}.grad = None" if t.grad is None else f"{n}.grad con restos" for n, t in parametros.items())
    antes = {n: None if t.grad is None else _detach(t.grad).clone() for n, t in parametros.items()}
    perdida = perdida_de(parametros)  # el paso hacia adelante
    argumentos = "" if set_to_none is None else f", set_to_none={set_to_none}"
    participan = " y ".join(gradientes)
    donde = (
        f"{funcion.__name__}(parametros, {perdida_de.__name__}(parametros){argumentos}), con {estado} (participan "
        f"{participan})"
    )
    opciones = {} if set_to_none is None else {"set_to_none": set_to_none}
    call_student(
        funcion,
        parametros,
        perdida,
        hints=(
            (
                "attribute 'zero_'",
                "un parámetro puede llegar con .grad = None (nunca recibió gradiente): en él no hay nada que poner a "
                "cero.",
            ),
            ("second time", "retropropagaste dos veces la misma pérdida: con un solo backward() basta."),
            (
                "does not require grad",
                "el grafo se cortó: ¿retropropagaste una copia de la pérdida sacada con .detach() o .item()?",
            ),
        ),
        **opciones,
    )
    for nombre, hoja in parametros.items():
        gradiente = None if gradientes.get(nombre) is None else torch.as_tensor(gradientes[nombre], dtype=_float64)
        if gradiente is not None:
            esperado = gradiente
        elif vacia_con_none or antes[nombre] is None:
            esperado = None
        else:
            esperado = torch.zeros_like(_detach(hoja))
        llego = hoja.grad
        pista = _pista_vaciado(nombre, llego, antes[nombre], gradiente, vacia_con_none)
        etiqueta = f"{nombre}.grad después de {donde}"
        if esperado is None:
            if llego is not None:
                fail(f"{etiqueta} debía ser None, pero es {describe(llego)}.", pista)
        elif llego is None:
            fail(f"{etiqueta} debía ser {describe(esperado)}, pero es None.", pista)
        else:
            check_tensor(llego, esperado, name=etiqueta, hint=pista)


def _pista_lista_de_gradientes(valores, gradientes, restos, valores_perdidas):
    """Qué patrón sigue la lista de gradientes que devolvió el alumno (o None si no se reconoce)."""
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


def _pista_gradiente_total(llego, gradientes, restos):
    total = sum(gradientes)
    if llego is None:
        return (
            "al terminar, w.grad debe tener el gradiente de la pérdida total: ¿lo vaciaste al final, o no lo volviste "
            "a llenar?"
        )
    if is_close(llego, torch.zeros_like(total)):
        return "w.grad quedó en ceros: al terminar debe tener el gradiente de la pérdida total."
    if restos is not None and is_close(llego, total + restos):
        return "w.grad tiene la suma de los gradientes más los restos que ya traía: vacíalo antes de empezar."
    if len(gradientes) > 1 and is_close(llego, gradientes[-1]):
        return "w.grad tiene solo el gradiente de la última pérdida: al terminar debe tener el de la suma de todas."
    if is_close(llego, -total):
        return "w.grad tiene el signo cambiado."
    return (
        "al terminar, w.grad debe ser el gradiente de la suma de todas las pérdidas, como tras un solo backward() de "
        "la suma."
    )


def check_gradients_one_by_one(funcion, valores_w, restos, perdidas_de, gradientes):
    """Lección 05, ejercicio 3: ``funcion(w, perdidas)`` devuelve el gradiente de cada pérdida; w.grad, el de la suma.

    ``gradientes`` son los gradientes esperados de cada función de ``perdidas_de`` en ``valores_w``.
    """
    w = torch.tensor(valores_w, dtype=_float64, requires_grad=True)
    if restos is not None:
        w.grad = torch.full_like(_detach(w), restos)
    restos_tensor = None if restos is None else _detach(w.grad).clone()
    esperados = [torch.as_tensor(g, dtype=_float64) for g in gradientes]
    perdidas = [g(w) for g in perdidas_de]  # los pasos hacia adelante
    valores_perdidas = [_detach(p).clone() for p in perdidas]
    nombres = ", ".join(f"{g.__name__}(w)" for g in perdidas_de)
    estado = "w.grad = None" if restos is None else f"restos {restos} en w.grad"
    donde = f"{funcion.__name__}(w, [{nombres}]) con w = {describe(_detach(w))} y {estado}"
    resultado = call_student(
        funcion,
        w,
        perdidas,
        hints=(
            (
                "attribute 'zero_'",
                "w.grad puede llegar como None (antes del primer backward()): ahí no hay nada que poner a cero.",
            ),
            (
                "NoneType",
                "usaste un w.grad que era None: ¿lo leíste antes de retropropagar, o justo después de vaciarlo con = "
                "None?",
            ),
            (
                "second time",
                "retropropagaste dos veces por el grafo de una misma pérdida (¿también al retropropagar la suma?): "
                "cada pérdida admite un solo paso hacia atrás. ¿Qué sabes ya de la suma de los gradientes?",
            ),
            (
                "does not require grad",
                "el grafo se cortó: ¿retropropagaste una copia de la pérdida sacada con .detach() o .item()?",
            ),
            (
                "dtype",
                "¿creaste un tensor con el dtype por defecto (float32)? w es float64, y su .grad también debe serlo.",
            ),
        ),
    )
    if type(resultado) not in (list, tuple) or len(resultado) != len(perdidas_de):
        fail(
            f"{donde} debía devolver una lista de {len(perdidas_de)} tensores, pero se obtuvo {describe(resultado)}.",
            "devuelve una lista con un gradiente por pérdida, en el mismo orden.",
        )
    for i, valor in enumerate(resultado):
        if not is_tensor(valor):
            fail(
                f"la entrada {i} de lo que devolvió {donde} debía ser un tensor, pero es {describe(valor)}.",
                "cada entrada es el gradiente de una pérdida: un tensor con la forma de w.",
            )
    valores = [_detach(valor).clone() for valor in resultado]
    pista = _pista_lista_de_gradientes(valores, esperados, restos_tensor, valores_perdidas)
    for i, (valor, esperado) in enumerate(zip(valores, esperados, strict=True)):
        nombre = f"el gradiente {i} ({perdidas_de[i].__name__}) que devolvió {donde}"
        if valor.dtype != _float64:
            pista_forma = (
                f"se obtuvo con dtype {valor.dtype}: ¿creaste un tensor con el dtype por defecto (float32)? w es "
                "float64."
            )
        elif valor.dim() == 0 and w.dim() > 0:
            pista_forma = (
                "se obtuvo un solo número: ¿devolviste la pérdida en lugar de su gradiente? El gradiente tiene la "
                "forma de w."
            )
        else:
            pista_forma = "cada gradiente tiene la forma de w: un número por cada elemento de w."
        check_properties(valor, name=nombre, shape=tuple(w.shape), dtype=_float64, hint=pista_forma)
        check_tensor(
            valor,
            esperado,
            name=nombre,
            hint=pista or f"debe ser el gradiente de {perdidas_de[i].__name__} sola, respecto a w.",
        )
    llego = w.grad
    if llego is None:
        fail(f"w.grad es None después de {donde}.", _pista_gradiente_total(None, esperados, restos_tensor))
    check_tensor(
        llego,
        sum(esperados),
        name=f"w.grad después de {donde}",
        hint=_pista_gradiente_total(_detach(llego), esperados, restos_tensor),
    )


def _pista_paso_con_momento(cambio, gradiente, velocidad, resto, tasa, momento):
    """Qué error típico reproduce cómo se movió un parámetro que recibió gradiente (o None)."""
    v = torch.zeros_like(gradiente) if velocidad is None else velocidad
    if is_close(cambio, torch.zeros_like(cambio)):
        return (
            "no se movió: ¿vaciaste .grad entre backward() y la actualización? ¿O asignaste el resultado a un nombre "
            "nuevo en lugar de actualizar el parámetro en su sitio?"
        )
    if velocidad is not None and is_close(cambio, -tasa * gradiente):
        return "el paso usó solo el gradiente de esta pérdida: ¿dónde entra la velocidad que traía el parámetro?"
    if velocidad is not None and is_close(cambio, -tasa * (v + gradiente)):
        return "la velocidad anterior entró entera: el momento dice qué parte de ella se conserva."
    if resto is not None and is_close(cambio, -tasa * (momento * v + gradiente + resto)):
        return (
            "el paso usó el gradiente sumado a los restos que ya había en .grad (acumulación de gradientes): vacía "
            ".grad antes de retropropagar; lo que se acumula a propósito es la velocidad, no .grad."
        )
    if is_close(cambio, tasa * (momento * v + gradiente)):
        return "se movió en la dirección contraria: para bajar la pérdida hay que ir en contra de la velocidad."
    if is_close(cambio, -(momento * v + gradiente)):
        return "el paso es la velocidad entera: falta multiplicar por la tasa de aprendizaje."
    return None


def _como_velocidades(valores):
    return [None if v is None else torch.as_tensor(v, dtype=_float64) for v in valores]


def check_momentum_steps(funcion, perdida_de, valores, velocidades, tasa, momento, esperados, restos=None):
    """Lección 05, ejercicio 4: pasos seguidos de ``funcion(parametros, perdida, tasa, momento, velocidades)``.

    ``esperados`` tiene, por cada paso, la pareja (valores de los parámetros después, velocidades nuevas).
    ``restos`` (uno por parámetro, o None) se dejan en ``.grad`` antes de cada paso.
    """
    hojas = [torch.tensor(v, dtype=_float64, requires_grad=True) for v in valores]
    velocidades = _como_velocidades(velocidades)
    for numero, (nuevos, nuevas_velocidades) in enumerate(esperados, start=1):
        if restos is not None:
            for hoja, resto in zip(hojas, restos, strict=True):
                hoja.grad = torch.full_like(_detach(hoja), resto)
        antes = [_detach(h).clone() for h in hojas]
        restos_antes = [None if h.grad is None else _detach(h.grad).clone() for h in hojas]
        copias = [a.clone().requires_grad_(True) for a in antes]
        gradientes = _autograd_grad(perdida_de(copias), copias, allow_unused=True)
        perdida = perdida_de(hojas)  # el paso hacia adelante, con los valores actuales
        valor_perdida = perdida.item()
        donde = f"llamada {numero} a {funcion.__name__} con {perdida_de.__name__}, tasa = {tasa} y momento = {momento}"
        if restos is not None:
            donde += ", con restos en cada .grad"
        resultado = call_student(
            funcion,
            hojas,
            perdida,
            tasa,
            momento,
            [None if v is None else v.clone() for v in velocidades],
            hints=(
                ("optimizer", "escribe tú el paso, sin torch.optim."),
                (
                    "NoneType",
                    "un parámetro que no participa en la pérdida se queda con .grad = None: sáltalo, como hace "
                    "torch.optim.SGD.",
                ),
                ("second time", "retropropagaste dos veces la misma pérdida: con un solo backward() por paso basta."),
                (
                    "leaf Variable",
                    "modificaste un parámetro en su sitio con el seguimiento activado: la actualización se hace "
                    "dentro de torch.no_grad().",
                ),
            ),
        )
        if type(resultado) not in (tuple, list) or len(resultado) != 2 or type(resultado[1]) not in (list, tuple):
            fail(
                f"la {donde} debía devolver la pareja (pérdida, lista de velocidades), pero se obtuvo "
                f"{describe(resultado)}.",
                "devuelve dos cosas separadas por una coma: el valor de la pérdida y la lista de velocidades nuevas.",
            )
        devuelta, velocidades_nuevas = resultado
        if len(velocidades_nuevas) != len(hojas):
            fail(
                f"la {donde} devolvió {len(velocidades_nuevas)} velocidades, pero hay {len(hojas)} parámetros.",
                "devuelve una velocidad por parámetro, en el mismo orden (None para los que todavía no tienen).",
            )
        for i, hoja in enumerate(hojas):
            nombre, participa = f"el parámetro {i}", gradientes[i] is not None
            check_properties(
                hoja,
                name=f"{nombre} después de la {donde}",
                is_leaf=True,
                requires_grad=True,
                hint="el parámetro debe seguir siendo una hoja que requiere gradiente para el paso siguiente.",
            )
            esperado = torch.as_tensor(nuevos[i], dtype=_float64)
            if not is_close(_detach(hoja), esperado):
                if participa:
                    pista = _pista_paso_con_momento(
                        _detach(hoja) - antes[i], gradientes[i], velocidades[i], restos_antes[i], tasa, momento
                    )
                else:
                    pista = (
                        "este parámetro no participa en la pérdida: no recibe gradiente, y un parámetro sin gradiente "
                        "no se mueve, aunque traiga velocidad (torch.optim.SGD se salta los que tienen .grad = None)."
                    )
                check_tensor(
                    hoja,
                    esperado,
                    name=f"{nombre} después de la {donde}",
                    hint=pista or ("compara cuánto se movió con su velocidad nueva y con la tasa de aprendizaje."),
                )
            velocidad, esperada = velocidades_nuevas[i], nuevas_velocidades[i]
            etiqueta = f"la velocidad {i} que devolvió la {donde}"
            if esperada is None:
                if velocidad is not None:
                    fail(
                        f"{etiqueta} debía ser None, pero se obtuvo {describe(velocidad)}.",
                        "un parámetro que nunca ha recibido gradiente todavía no tiene velocidad.",
                    )
                continue
            esperada = torch.as_tensor(esperada, dtype=_float64)
            if not is_tensor(velocidad):
                fail(
                    f"{etiqueta} debía ser un tensor, pero se obtuvo {describe(velocidad)}.",
                    "la velocidad de un parámetro es un tensor con su forma"
                    + (" (y la de uno que no participa se conserva tal cual)." if not participa else "."),
                )
            pista = None
            if participa and velocidades[i] is not None and is_close(velocidad, gradientes[i]):
                pista = "esa es solo el gradiente de esta pérdida: la velocidad nueva acumula también la anterior."
            elif not participa:
                pista = "este parámetro no recibió gradiente: su velocidad se conserva tal cual."
            check_tensor(
                velocidad,
                esperada,
                name=etiqueta,
                hint=pista or "la velocidad nueva combina la anterior (por el momento) con el gradiente nuevo.",
            )
            if participa and velocidad.requires_grad:
                fail(
                    f"{etiqueta} requiere gradiente: quedó grabada en el grafo.",
                    "calcula las velocidades, como la actualización, con el seguimiento desactivado.",
                )
        for i, hoja in enumerate(hojas):
            etiqueta = f"el .grad del parámetro {i} después de la {donde}"
            if gradientes[i] is None:
                if hoja.grad is not None:
                    fail(
                        f"{etiqueta} debía ser None (no participa en la pérdida), pero es {describe(hoja.grad)}.",
                        (
                            "vacía con None, como zero_grad() por defecto: así un parámetro que no participa se queda "
                            "sin gradiente."
                        ),
                    )
                continue
            if hoja.grad is None:
                fail(
                    f"{etiqueta} es None.",
                    "al terminar, .grad debe tener el gradiente de esta pérdida: vacía al principio, no al final.",
                )
            pista = None
            if restos_antes[i] is not None and is_close(hoja.grad, gradientes[i] + restos_antes[i]):
                pista = ".grad tiene el gradiente del paso más los restos que ya traía: vacía antes de retropropagar."
            check_tensor(
                hoja.grad,
                gradientes[i],
                name=etiqueta,
                hint=pista or "debe quedar en .grad el gradiente de la pérdida de este paso.",
            )
        if type(devuelta) is not float:
            fail(
                f"la {donde} debía devolver la pérdida como float de Python, pero se obtuvo {describe(devuelta)}.",
                "devuelve solo el valor numérico de la pérdida, sin grafo.",
            )
        check_number(
            devuelta,
            valor_perdida,
            name=f"la pérdida que devolvió la {donde}",
            hint="devuelve el valor de la pérdida que recibiste.",
        )
        velocidades = _como_velocidades(nuevas_velocidades)


def _partes_de_microlotes(modelo, w, x, y, tamanos):
    """[(pérdida, gradiente)] de cada microlote por separado, con copias propias (para reconocer errores)."""
    partes, inicio = [], 0
    for n in tamanos:
        hoja = _detach(w).clone().requires_grad_(True)
        parcial = modelo(hoja, x[inicio : inicio + n], y[inicio : inicio + n])
        (gradiente,) = _autograd_grad(parcial, hoja)
        partes.append((parcial.item(), gradiente))
        inicio += n
    return partes


def _pista_gradiente_de_microlotes(llego, esperado, partes, tamanos, restos):
    k, total = len(tamanos), sum(tamanos)
    suma = sum(g for _, g in partes)
    if restos is not None and is_close(llego, esperado + restos):
        return "w.grad tiene el gradiente correcto más los restos que ya traía: vacíalo antes del primer microlote."
    if k > 1 and is_close(llego, suma):
        return (
            f"es la suma de los gradientes de los {k} microlotes, sin escalar: cada backward() de una media aporta "
            "como si su microlote fuera el lote entero (con microlotes iguales, saldría tantas veces mayor "
            "como microlotes hay)."
        )
    if k > 1 and is_close(llego, suma / k):
        return (
            "promediaste las medias de los microlotes: así todos pesan lo mismo, pero no tienen el mismo número "
            "de ejemplos. ¿Cuánto debe pesar un microlote de 1 ejemplo frente a uno de 4?"
        )
    if total > 1 and is_close(llego, total * esperado):
        return (
            f"es {total} veces el esperado: ese es el gradiente de la suma de las pérdidas de todos los ejemplos, no "
            "de su media."
        )
    ultimo = partes[-1][1]
    if k > 1 and any(is_close(llego, ultimo * c) for c in (1.0, 1.0 / k, tamanos[-1] / total)):
        return (
            "solo quedó el gradiente del último microlote: ¿vaciaste w.grad dentro del bucle? Se vacía una vez, antes "
            "de empezar."
        )
    if is_close(llego, -esperado):
        return "tiene el signo cambiado."
    if is_close(llego, torch.zeros_like(llego)):
        return "w.grad quedó en ceros: ¿lo vaciaste después de retropropagar?"
    return "cada microlote debe aportar a w.grad lo que sus ejemplos aportan a la media del lote completo."


def _pista_perdida_de_microlotes(valor, partes, tamanos):
    perdidas = [p for p, _ in partes]
    k = len(tamanos)
    if k > 1 and is_close(valor, sum(perdidas), rtol=1e-6):
        return "sumaste las pérdidas medias de los microlotes: cada una es ya una media, no una suma de ejemplos."
    if k > 1 and is_close(valor, sum(perdidas) / k, rtol=1e-6):
        return "promediaste las medias de los microlotes: con microlotes desiguales, eso no es la media del lote."
    if k > 1 and is_close(valor, perdidas[-1], rtol=1e-6):
        return "esa es la pérdida del último microlote solo."
    return "devuelve la pérdida media de todos los ejemplos del lote."


def check_microbatches(funcion, modelo, valores_w, restos, x, y, tamanos, gradiente, perdida):
    """Lección 05, ejercicio 5: ``funcion(w, perdidas, tamanos)`` acumula el gradiente del lote por microlotes.

    ``gradiente`` y ``perdida`` son el gradiente y la pérdida media esperados del lote completo.
    """
    w = torch.tensor(valores_w, dtype=_float64, requires_grad=True)
    x, y = torch.tensor(x, dtype=_float64), torch.tensor(y, dtype=_float64)
    if restos is not None:
        w.grad = torch.full_like(_detach(w), restos)
    restos_tensor = None if restos is None else _detach(w.grad).clone()
    esperado = torch.as_tensor(gradiente, dtype=_float64)
    partes = _partes_de_microlotes(modelo, w, x, y, tamanos)
    perdidas, inicio = [], 0
    for n in tamanos:  # los pasos hacia adelante de los microlotes
        perdidas.append(modelo(w, x[inicio : inicio + n], y[inicio : inicio + n]))
        inicio += n
    estado = "w.grad = None" if restos is None else f"restos {restos} en w.grad"
    donde = (
        f"{funcion.__name__}(w, perdidas, {list(tamanos)}) con w = {describe(_detach(w))}, {estado} "
        f"y las pérdidas medias de {modelo.__name__}"
    )
    valor = call_student(
        funcion,
        w,
        perdidas,
        list(tamanos),
        hints=(
            (
                "attribute 'zero_'",
                "w.grad puede llegar como None (antes del primer backward()): ahí no hay nada que poner a cero.",
            ),
            (
                "second time",
                "retropropagaste dos veces la pérdida de un mismo microlote: cada una admite un solo paso hacia atrás.",
            ),
            (
                "does not require grad",
                "el grafo se cortó: ¿retropropagaste una copia de la pérdida sacada con .detach() o .item()?",
            ),
        ),
    )
    llego = w.grad
    if llego is None:
        fail(
            f"w.grad es None después de {donde}.",
            "al terminar, w.grad debe tener el gradiente del lote: ¿retropropagaste cada microlote? ¿Lo vaciaste al "
            "final?",
        )
    pista = _pista_gradiente_de_microlotes(_detach(llego), esperado, partes, tamanos, restos_tensor)
    check_tensor(llego, esperado, name=f"w.grad después de {donde}", hint=pista)
    if type(valor) is not float:
        fail(
            f"{donde} debía devolver la pérdida del lote como float de Python, pero se obtuvo {describe(valor)}.",
            "devuelve solo el valor numérico de la pérdida media del lote, sin grafo.",
        )
    # rtol 1e-5: una suma hecha en float32 (con su redondeo) también se acepta, siempre igual.
    check_number(
        valor,
        perdida,
        name=f"la pérdida que devolvió {donde}",
        rtol=1e-5,
        hint=_pista_perdida_de_microlotes(valor, partes, tamanos),
    )


# Lesson 06 · Desactivar el seguimiento: what each exercise's cases recognise.


def check_detached_factor_prediction(prediccion, a, esperado):
    """Lección 06, ejercicio 1: la predicción de x.grad tras ``y = x * x.detach(); y.backward()`` con x = a."""
    valor = prediccion(a)
    numero = as_number(valor)
    pista = "piensa en qué ve autograd en cada factor del producto: ¿cuál de los dos conserva la historia de x?"
    if valor is None:
        pista = (
            "x es una hoja que requiere gradiente y y depende de ella, así que backward() sí deja un número en x.grad."
        )
    elif numero is not None and is_close(numero, 2 * esperado) and not is_close(numero, esperado):
        pista = (
            "esa sería la derivada de x * x con los dos factores en el grafo. ¿Qué cambia cuando uno sale de detach()?"
        )
    elif numero is not None and is_close(numero, a * a) and not is_close(numero, esperado):
        pista = "ese es el valor de y, no su gradiente respecto a x."
    elif numero is not None and is_close(numero, 0.0) and not is_close(numero, esperado):
        pista = "predijiste que no vuelve ningún gradiente, pero uno de los dos factores sí conserva la historia de x."
    check_number(valor, esperado, name=f"{prediccion.__name__}({a!r})", hint=pista)


def _pista_redondeo_valores(valor, x, redondeado):
    if is_close(valor, x) and not is_close(valor, redondeado):
        return "esos son los valores de x sin redondear: el paso hacia adelante debe dar los valores redondeados."
    if is_close(valor, torch.floor(x + 0.5)):
        return "fallas en un empate: torch.round lleva 2.5 a 2 y -1.5 a -2 (al número par más cercano)."
    if is_close(valor, 2 * x - redondeado):
        return (
            "tus valores se alejan de x tanto como el redondeo, pero hacia el otro lado: ¿restaste la corrección en "
            "lugar de sumarla?"
        )
    return "los valores deben ser exactamente los de torch.round(x)."


def _pista_redondeo_gradiente(gradiente, v):
    if is_close(gradiente, torch.zeros_like(gradiente)):
        return (
            "el gradiente se quedó en cero: autograd está derivando el redondeo, y su derivada es 0. "
            "La parte que produce el salto no debe verla autograd."
        )
    if is_close(gradiente, 2 * v):
        return "el gradiente es el doble: ¿x llega al resultado por dos caminos que autograd ve?"
    return "el gradiente debe ser el de la identidad: cada elemento del resultado depende de su x con derivada 1."


def check_straight_through(funcion, valores, redondeados, pesos=None):
    """Lección 06, ejercicio 2: valores de torch.round(x) (``redondeados``) con el gradiente de la identidad."""
    x = torch.tensor(valores, dtype=_float64, requires_grad=True)
    esperado = torch.as_tensor(redondeados, dtype=_float64)
    nombre = f"{funcion.__name__}({describe(_detach(x))})"
    resultado = funcion(x)
    if not is_tensor(resultado):
        fail(
            f"{nombre} debía devolver un tensor, pero se obtuvo {describe(resultado)}.",
            "¿convertiste el resultado en números de Python? Así sale del grafo.",
        )
    if resultado.dtype != _float64:
        pista = (
            f"se obtuvo con dtype {resultado.dtype}: ¿convertiste x o creaste un tensor nuevo en lugar de operar con x?"
        )
    else:
        pista = "el resultado debe tener la forma de x: un valor redondeado por cada elemento."
    check_properties(resultado, name=nombre, shape=tuple(x.shape), dtype=_float64, hint=pista)
    check_tensor(
        resultado, esperado, name=nombre, hint=_pista_redondeo_valores(_detach(resultado), _detach(x), esperado)
    )
    if tensor_properties(resultado)["grad_fn"] is None:
        fail(
            f"el resultado de {nombre} no está en el grafo computacional (grad_fn es None).",
            "desconectaste el cálculo entero, así que ningún gradiente vuelve a x: solo una parte debe quedar fuera.",
        )
    v = torch.ones_like(esperado) if pesos is None else torch.tensor(pesos, dtype=_float64)
    (gradiente,) = _autograd_grad((resultado * v).sum(), x, allow_unused=True)
    gradiente = torch.zeros_like(esperado) if gradiente is None else gradiente
    check_tensor(
        gradiente,
        v,
        name=f"el gradiente de ({funcion.__name__}(x) * v).sum() respecto a x, con x = {describe(_detach(x))} y "
        f"v = {describe(v)}",
        hint=_pista_redondeo_gradiente(gradiente, v),
    )


def check_prediction_without_graph(funcion, w_valores, b_valor, x_valores, esperado):
    """Lección 06, ejercicio 3: ``funcion(w, b, x)`` da ``esperado`` sin grafo y sin tocar w ni b."""
    w = torch.tensor(w_valores, dtype=_float64, requires_grad=True)
    b = torch.tensor(b_valor, dtype=_float64, requires_grad=True)
    x = torch.tensor(x_valores, dtype=_float64)
    esperado = torch.as_tensor(esperado, dtype=_float64)
    nombre = (
        f"{funcion.__name__}(w, b, x) con w = {describe(_detach(w))}, b = {b_valor!r} y x de forma {tuple(x.shape)}"
    )
    w_antes, b_antes = _detach(w).clone(), _detach(b).clone()
    resultado = funcion(w, b, x.clone())
    for hoja, etiqueta in ((w, "w"), (b, "b")):
        if not hoja.requires_grad:
            fail(
                f"después de {nombre}, {etiqueta} ya no requiere gradiente.",
                "desactivaste la marca del propio parámetro, y eso dura más allá de tu función: el entrenamiento ya "
                "no podría calcular su gradiente. Desactiva el seguimiento solo mientras calculas.",
            )
    if not (torch.equal(_detach(w), w_antes) and torch.equal(_detach(b), b_antes)):
        fail(f"{nombre} cambió los valores de w o de b.", "predecir solo debe leer los parámetros, no modificarlos.")
    if not is_tensor(resultado):
        fail(
            f"{nombre} debía devolver un tensor, pero se obtuvo {describe(resultado)}.",
            "devuelve el tensor de predicciones, no una lista ni un número.",
        )
    pista_forma = (
        f"se obtuvo con dtype {resultado.dtype}: ¿convertiste algo a otro tipo?"
        if resultado.dtype != _float64
        else "se espera una predicción por fila de x."
    )
    check_properties(resultado, name=nombre, shape=tuple(esperado.shape), dtype=_float64, hint=pista_forma)
    valor = _detach(resultado)
    pista = "compara tu fórmula con la del enunciado, paso a paso: producto, sesgo y sigmoide."
    if is_close(valor, x @ w_antes + b_antes):
        pista = "esos valores son la combinación lineal: falta la activación sigmoide."
    elif is_close(valor, torch.sigmoid(x @ w_antes)):
        pista = "parece que falta sumar el sesgo b."
    check_tensor(resultado, esperado, name=nombre, hint=pista)
    check_properties(
        resultado,
        name=f"el resultado de {nombre}",
        requires_grad=False,
        grad_fn=None,
        hint="el cálculo quedó grabado en el grafo computacional, aunque nadie vaya a llamar a backward(): "
        "haz el cálculo con el seguimiento desactivado.",
    )


def _pista_paso_recortado(cambios, gradientes, restos, esperados, tasa, norma_maxima, norma_esperada):
    """Qué error típico reproducen los cambios de los parámetros entrenables (o None si no se reconoce)."""
    if all(is_close(c, torch.zeros_like(c)) for c in cambios):
        return (
            "no se movió ningún parámetro: ¿asignaste el resultado a un nombre nuevo en lugar de actualizar cada "
            "parámetro en su sitio?"
        )
    if all(is_close(c, -e) for c, e in zip(cambios, esperados, strict=True)):
        return "se movieron en la dirección contraria: para bajar la pérdida hay que ir en contra del gradiente."
    if norma_esperada > norma_maxima and all(is_close(c, -tasa * g) for c, g in zip(cambios, gradientes, strict=True)):
        return "el paso usó el gradiente sin recortar, y su norma pasa del máximo."
    if any(r is not None for r in restos):
        sumados = [g if r is None else g + r for g, r in zip(gradientes, restos, strict=True)]
        norma_sumados = float(torch.sqrt(sum((s**2).sum() for s in sumados)))
        factor = norma_maxima / norma_sumados if norma_sumados > norma_maxima else 1.0
        if all(is_close(c, -tasa * factor * s) for c, s in zip(cambios, sumados, strict=True)):
            return (
                "el paso usó el gradiente sumado a los restos que ya había en .grad: vacía .grad antes de "
                "retropropagar."
            )
    por_separado = []
    for g in gradientes:
        propia = float(torch.linalg.vector_norm(g))
        por_separado.append(-tasa * g * (norma_maxima / propia if propia > norma_maxima else 1.0))
    if all(is_close(c, s) for c, s in zip(cambios, por_separado, strict=True)):
        return (
            "recortaste cada parámetro con la norma de su propio gradiente: la norma que se compara con el máximo es "
            "la de todos los gradientes juntos."
        )
    if norma_esperada <= norma_maxima and all(
        is_close(c, -tasa * g * norma_maxima / norma_esperada) for c, g in zip(cambios, gradientes, strict=True)
    ):
        return "solo se recorta cuando la norma pasa del máximo; por debajo, el gradiente se deja como está."
    return None


def check_clipped_steps(funcion, perdida_de, valores, congelados, tasa, norma_maxima, esperados, restos=None):
    """Lección 06, ejercicio 4: pasos seguidos de ``funcion(parametros, perdida, tasa, norma_maxima)``.

    ``congelados`` son las posiciones de los parámetros que llegan con requires_grad=False. ``esperados`` tiene,
    por cada paso, la pareja (valores de los parámetros después, norma del gradiente antes de recortar).
    """
    hojas = [torch.tensor(v, dtype=_float64, requires_grad=i not in congelados) for i, v in enumerate(valores)]
    entrenables = [i for i in range(len(hojas)) if i not in congelados]
    for numero, (nuevos, norma_esperada) in enumerate(esperados, start=1):
        if restos is not None:
            for i in entrenables:
                hojas[i].grad = torch.full_like(_detach(hojas[i]), restos[i])
        antes = [_detach(h).clone() for h in hojas]
        restos_antes = [None if h.grad is None else _detach(h.grad).clone() for h in hojas]
        copias = [a.clone().requires_grad_(i not in congelados) for i, a in enumerate(antes)]
        gradientes = _autograd_grad(perdida_de(copias), [copias[i] for i in entrenables])
        perdida = perdida_de(hojas)  # el paso hacia adelante, con los valores actuales
        donde = f"llamada {numero} a {funcion.__name__} con {perdida_de.__name__}, tasa = {tasa} y norma_maxima = "
        donde += f"{norma_maxima}" + (f", con los parámetros {sorted(congelados)} congelados" if congelados else "")
        if restos is not None:
            donde += ", con restos en .grad"
        norma = call_student(
            funcion,
            hojas,
            perdida,
            tasa,
            norma_maxima,
            hints=(
                (
                    "NoneType",
                    "un parámetro congelado no recibe gradiente: su .grad sigue en None. ¿Lo dejaste fuera de la "
                    "norma y del paso?",
                ),
                (
                    "leaf Variable",
                    "modificaste un parámetro (o su .grad) con el seguimiento activado: esos cambios no deben "
                    "grabarse.",
                ),
                ("second time", "retropropagaste dos veces la misma pérdida: basta un paso hacia atrás por paso."),
            ),
        )
        for i, hoja in enumerate(hojas):
            congelado = i in congelados
            check_properties(
                hoja,
                name=f"el parámetro {i} después de la {donde}",
                is_leaf=True,
                requires_grad=not congelado,
                hint="un parámetro congelado sigue congelado, y uno entrenable sigue siendo una hoja que requiere "
                "gradiente: ¿cambiaste su marca?",
            )
            if congelado and not torch.equal(_detach(hoja), antes[i]):
                fail(
                    f"el parámetro {i} está congelado, pero la {donde} cambió sus valores.",
                    "un parámetro congelado no se mueve: deja fuera del paso los que no requieren gradiente.",
                )
            if congelado and hoja.grad is not None:
                fail(
                    f"el parámetro {i} está congelado, pero después de la {donde} tiene .grad = {describe(hoja.grad)}.",
                    "un parámetro congelado no recibe gradiente: no le asignes uno.",
                )
        cambios = [_detach(hojas[i]) - antes[i] for i in entrenables]
        deseados = [torch.as_tensor(nuevos[i], dtype=_float64) - antes[i] for i in entrenables]
        if not all(is_close(c, d) for c, d in zip(cambios, deseados, strict=True)):
            pista = _pista_paso_recortado(
                cambios,
                list(gradientes),
                [restos_antes[i] for i in entrenables],
                deseados,
                tasa,
                norma_maxima,
                norma_esperada,
            )
            for i in entrenables:
                check_tensor(
                    hojas[i],
                    nuevos[i],
                    name=f"el parámetro {i} después de la {donde}",
                    hint=pista
                    or "compara cuánto se movió cada parámetro con su gradiente, recortado si la norma de todo el "
                    "gradiente pasa del máximo.",
                )
        for k, i in enumerate(entrenables):
            recortado = -deseados[k] / tasa  # el gradiente con el que se dio el paso
            llego = hojas[i].grad
            if llego is None:
                fail(
                    f"el .grad del parámetro {i} es None después de la {donde}.",
                    "al terminar, .grad debe tener el gradiente recortado con el que diste el paso.",
                )
            pista = "al terminar, .grad debe tener el gradiente recortado con el que diste el paso."
            if is_close(llego, gradientes[k]) and not is_close(llego, recortado):
                pista = "en .grad quedó el gradiente sin recortar: el recorte se hace sobre .grad, en su sitio."
            check_tensor(llego, recortado, name=f"el .grad del parámetro {i} después de la {donde}", hint=pista)
        if type(norma) is not float:
            fail(
                f"la {donde} debía devolver la norma como float de Python, pero se obtuvo {describe(norma)}.",
                "devuelve solo el número: la norma del gradiente antes de recortarlo.",
            )
        pista = "devuelve la norma de todo el gradiente (todos los parámetros entrenables juntos), antes de recortarlo."
        if is_close(norma, min(norma_esperada, norma_maxima)) and not is_close(norma, norma_esperada):
            pista = "esa es la norma después de recortar: se pide la de antes, la que dice cuánto se recortó."
        elif is_close(norma, sum(float(torch.linalg.vector_norm(g)) for g in gradientes)):
            pista = (
                "sumaste las normas de cada parámetro: la norma de todo el gradiente es la raíz de la suma de "
                "cuadrados."
            )
        check_number(norma, norma_esperada, name=f"la norma que devolvió la {donde}", hint=pista)


def _modo(sin_seguimiento):
    return "dentro de torch.no_grad()" if sin_seguimiento else "con el seguimiento activado"


def check_gradient_in_any_mode(funcion, g, texto, valores, sin_seguimiento, esperado):
    """Lección 06, ejercicio 5: ``funcion(f, x)`` da el gradiente de f en x, con autograd, en los dos modos."""
    x = torch.tensor(valores, dtype=_float64)
    esperado = torch.as_tensor(esperado, dtype=_float64)
    donde = f"f(x) = {texto}, x = {describe(x)}, llamada {_modo(sin_seguimiento)}"
    f = CountingWatched(g, "f")
    pistas = (
        (
            "does not require grad",
            "tu cálculo no quedó grabado: ¿tu copia de x requiere gradiente, y el seguimiento está activado mientras "
            "calculas f, aunque la llamada llegue sin él?",
        ),
    )
    if sin_seguimiento:
        with torch.no_grad():
            resultado = call_student(funcion, f, x, hints=pistas)
            despues = torch.is_grad_enabled()
    else:
        resultado = call_student(funcion, f, x, hints=pistas)
        despues = torch.is_grad_enabled()
    if despues != (not sin_seguimiento):
        estado = "activado" if despues else "desactivado"
        fail(
            f"{funcion.__name__} dejó el seguimiento {estado} al terminar, cuando se la llamó "
            f"{_modo(sin_seguimiento)}.",
            "quien te llama espera encontrar el mismo estado que tenía: ¿restauras el estado anterior al salir?",
        )
    if x.requires_grad or not torch.equal(x, torch.tensor(valores, dtype=_float64)):
        fail(
            f"{funcion.__name__} cambió el tensor x que recibió ({donde}).",
            "trabaja sobre una copia tuya de x, sin tocar la marca ni los valores del tensor de quien te llama.",
        )
    if not is_tensor(resultado):
        fail(
            f"{funcion.__name__} debía devolver un tensor, pero se obtuvo {describe(resultado)} ({donde}).",
            "¿devolviste None? Después de backward(), el gradiente está en el .grad de la hoja que derivaste.",
        )
    with torch.no_grad():
        valor_f = g(x.clone())
    pista = diagnose(resultado, esperado, name="el gradiente", output=valor_f.expand_as(esperado)) or (
        "¿derivas la f que recibes, en el punto x que recibes?"
    )
    nombre = f"{funcion.__name__} ({donde})"
    check_properties(resultado, name=nombre, shape=tuple(x.shape), dtype=_float64, hint=pista)
    check_tensor(resultado, esperado, name=nombre, hint=pista)
    check_called_with_graph(f, funcion.__name__, donde)
    check_backward_passes(
        f,
        funcion.__name__,
        donde,
        times=1,
        hint="el enunciado pide el gradiente calculado con autograd: un paso hacia atrás a través de lo que devuelve "
        "f, y uno solo (una segunda vez, el gradiente se sumaría).",
    )


def _pista_congelar(nombre, hojas, nombres, congelados_antes):
    otros = [n for n in hojas if n not in nombres]
    if (
        nombres
        and otros
        and all(hojas[n].requires_grad for n in nombres)
        and not any(hojas[n].requires_grad for n in otros)
    ):
        return "congelaste justo los contrarios: se congelan los que están en la lista y los demás quedan entrenables."
    if nombre not in nombres and nombre in congelados_antes:
        return (
            f"{nombre} no está en la lista, así que debe quedar entrenable aunque llegara congelado: ¿activas también "
            "los demás?"
        )
    if nombre in nombres and all(hojas[n].requires_grad for n in nombres):
        return (
            "los tensores que recibiste siguen requiriendo gradiente: ¿los cambiaste por copias dentro del "
            "diccionario, o desactivaste el seguimiento solo dentro de un bloque? Hay que cambiar la marca de cada "
            "tensor."
        )
    return "se congelan justo los que están en la lista, ni uno más ni uno menos."


def check_freezing(funcion, formas, congelados_antes, nombres, entrenables):
    """Lección 06, ejercicio 6: ``funcion(parametros, nombres)`` congela los de la lista; cuenta los entrenables.

    ``entrenables`` es el número esperado de valores que siguen requiriendo gradiente.
    """
    hojas = {}
    for k, (nombre, forma) in enumerate(formas.items()):
        valores = torch.linspace(-1.0, 1.0, math.prod(forma), dtype=_float64).reshape(forma) + 0.1 * k
        hojas[nombre] = valores.requires_grad_(nombre not in congelados_antes)
    llamada = f"{funcion.__name__}(parametros, {nombres!r})"
    if congelados_antes:
        llamada += f" con {sorted(congelados_antes)} congelados de antemano"
    resultado = funcion(dict(hojas), list(nombres))
    for nombre, hoja in hojas.items():
        debe = nombre not in nombres
        if hoja.requires_grad != debe:
            fail(
                f"después de {llamada}, {nombre} tiene requires_grad={hoja.requires_grad}, "
                f"pero debía tener requires_grad={debe}.",
                _pista_congelar(nombre, hojas, nombres, congelados_antes),
            )
    if type(resultado) is not int:
        pista = "se pide un int de Python: ¿devolviste un tensor, un float o una lista?"
    elif resultado == len([n for n in hojas if n not in nombres]) and resultado != entrenables:
        pista = "contaste tensores, no valores: un peso de forma (2, 3) aporta 6 valores entrenables."
    else:
        pista = "cuenta los elementos de los tensores que siguen requiriendo gradiente (también los escalares)."
    check_equal(resultado, entrenables, name=f"el número de valores entrenables que devuelve {llamada}", hint=pista)
    # Un paso hacia atrás: solo los parámetros entrenables reciben .grad.
    pesos = {n: torch.full(h.shape, 0.5 + 0.25 * k, dtype=_float64) for k, (n, h) in enumerate(hojas.items())}
    perdida = torch.stack([(h * pesos[n]).sum() for n, h in hojas.items()]).sum()
    if perdida.requires_grad:
        perdida.backward()
    for n, h in hojas.items():
        if n in nombres and h.grad is not None:
            fail(f"después de {llamada}, {n} está congelado pero recibió .grad en backward().")
        if n not in nombres:
            check_tensor(h.grad, pesos[n], name=f"{n}.grad tras backward() (después de {llamada})")


# Lesson 07 · Errores comunes: what each exercise's cases recognise.


def _gradiente_ponderado(g, w, pesos_de):
    """Gradiente respecto a w de Σ_i q_i g(w)_i, con q = pesos_de(g(w)) fijo: los gradientes de errores típicos."""
    hoja = _detach(torch.as_tensor(w, dtype=_float64)).clone().requires_grad_(True)
    with torch.enable_grad():
        z = g(hoja)
        (gradiente,) = _autograd_grad((z * pesos_de(_detach(z))).sum(), hoja)
    return gradiente


def _tensor_de_w(w, nombre, resultado, esperado):
    """Una pista si ``resultado`` no es un tensor float64 con la forma de ``esperado`` (o None)."""
    if resultado is None:
        return (
            f"{nombre} es None: w.grad seguía vacío. ¿El grafo de la pérdida llega hasta tu hoja? Un tensor creado "
            "con torch.tensor(...) o torch.as_tensor(...) empieza un grafo nuevo, aunque requiera gradiente."
        )
    if not is_tensor(resultado):
        return f"{nombre} debía ser un tensor con la forma de w, no un número, una lista ni un arreglo de NumPy."
    if tuple(resultado.shape) != tuple(esperado.shape):
        return f"{nombre} tiene siempre la forma de w: ¿devolviste algo calculado a partir de f(w)?"
    if resultado.dtype != _float64:
        return (
            f"{nombre} se obtuvo con dtype {resultado.dtype}: w es float64, y su gradiente también debe serlo. "
            "¿Convertiste algo con .float() o pasaste por un arreglo float32?"
        )
    return None


def check_softplus_gradient(funcion, g, texto, w, esperado):
    """Lección 07, ejercicio 1: ``funcion(f, w)`` da el gradiente de Σ softplus(f(w)_i), con autograd."""
    w = torch.as_tensor(w, dtype=_float64)
    esperado = torch.as_tensor(esperado, dtype=_float64)
    f = CountingWatched(g, "f")
    donde = f"f(w) = {texto}, w = {describe(w)}"
    nombre = f"{funcion.__name__}(f, w) con {donde}"
    resultado = call_student(
        funcion,
        f,
        w.clone(),
        hints=(
            (
                "numpy()",
                "es el error de la función rota: NumPy no sabe nada del grafo. ¿Puedes calcular lo mismo sin salir "
                "de PyTorch?",
            ),
            (
                "does not require grad",
                "backward() no encontró un grafo: entre f(w) y la pérdida, el cálculo salió de autograd (detach(), "
                "NumPy, torch.tensor(...)). El gradiente tiene que atravesar también el softplus.",
            ),
        ),
    )
    pista = _tensor_de_w(w, "el gradiente", resultado, esperado)
    if pista is None and not is_close(resultado, esperado):
        pista = diagnose(
            _detach(resultado),
            esperado,
            (
                _gradiente_ponderado(g, w, torch.ones_like),
                "coincide con el gradiente de Σ f(w)_i: el softplus no participa en tu gradiente. ¿Lo calculaste "
                "fuera del grafo?",
            ),
            (
                _gradiente_ponderado(g, w, torch.exp),
                "coincide con el gradiente de Σ exp(f(w)_i): ¿seguro que derivas la suma de los softplus?",
            ),
            name="el gradiente",
        )
    pista = pista or "no coincide: ¿derivas la suma de los softplus de f(w), con la f y el w que recibes?"
    check_properties(resultado, name=nombre, shape=tuple(w.shape), dtype=_float64, hint=pista)
    check_tensor(resultado, esperado, name=nombre, hint=pista)
    check_called_with_graph(f, funcion.__name__, donde)
    check_backward_passes(
        f,
        funcion.__name__,
        donde,
        times=1,
        hint="el gradiente se obtiene con autograd: un paso hacia atrás que atraviese la salida de f, y uno solo.",
    )


def check_per_example_gradients(funcion, g, texto, w, esperados):
    """Lección 07, ejercicio 2: ``funcion(f, w)`` da el gradiente de cada L_i = log(1 + f(w)_i²), con f una vez."""
    w = torch.as_tensor(w, dtype=_float64)
    esperados = [torch.as_tensor(e, dtype=_float64) for e in esperados]
    f = CountingWatched(g, "f")
    donde = f"f(w) = {texto}, w = {describe(w)}"
    nombre = f"{funcion.__name__}(f, w) con {donde}"
    resultado = call_student(
        funcion,
        f,
        w.clone(),
        hints=(
            (
                "second time",
                "el primer paso hacia atrás liberó los valores que guardó el grafo de las pérdidas, y el siguiente los "
                "necesita. ¿Qué argumento de la lección 3 los conserva?",
            ),
            (
                "NoneType",
                "usaste un .grad que valía None: antes del primer backward(), o después de vaciarlo, no hay tensor.",
            ),
        ),
    )
    m = len(esperados)
    if type(resultado) not in (list, tuple) or len(resultado) != m:
        fail(
            f"{nombre} debía devolver una lista de {m} gradientes (uno por ejemplo), pero se obtuvo "
            f"{describe(resultado)}.",
            "devuelve una lista con el gradiente de la pérdida de cada ejemplo, en orden.",
        )
    for i, valor in enumerate(resultado):
        pista = _tensor_de_w(w, f"el gradiente {i}", valor, esperados[i])
        if pista is not None:
            fail(f"el gradiente {i} que devolvió {nombre} no sirve: {describe(valor)}.", pista)
    valores = [_detach(v).clone() for v in resultado]
    with torch.no_grad():
        perdidas = torch.log1p(g(w.clone()) ** 2)
    pista = _pista_lista_de_gradientes(valores, esperados, None, [p for p in perdidas.reshape(-1)])
    for i, (valor, esperado) in enumerate(zip(resultado, esperados, strict=True)):
        check_tensor(
            valor,
            esperado,
            name=f"el gradiente de L_{i} en {nombre}",
            hint=pista or f"debe ser el gradiente de la pérdida del ejemplo {i} sola, respecto a w.",
        )
    check_called_with_graph(
        f,
        funcion.__name__,
        donde,
        times=1,
        hint="el paso hacia adelante es caro y se hace una sola vez: todos los gradientes salen del mismo grafo.",
    )
    if not f.backward_passes:
        fail(
            f"{funcion.__name__} no hizo ningún paso hacia atrás a través de la salida de f ({donde}).",
            "los gradientes se obtienen con autograd, retropropagando cada pérdida a través de f.",
        )


def check_masked_gradient(funcion, g, texto, w, pesos, umbral, esperado):
    """Lección 07, ejercicio 3: ``funcion(f, w, pesos, umbral)`` da el gradiente de Σ pesos_i · t_i, con los
    t_i = tanh(f(w))_i menores que ``umbral`` anulados."""
    w = torch.as_tensor(w, dtype=_float64)
    pesos = torch.as_tensor(pesos, dtype=_float64)
    esperado = torch.as_tensor(esperado, dtype=_float64)
    f = CountingWatched(g, "f")
    donde = f"f(w) = {texto}, w = {describe(w)}, pesos = {describe(pesos)}, umbral = {umbral}"
    nombre = f"{funcion.__name__}(f, w, pesos, umbral) con {donde}"
    resultado = call_student(
        funcion,
        f,
        w.clone(),
        pesos.clone(),
        umbral,
        hints=(
            (
                "inplace operation",
                "sigues sobrescribiendo en su sitio un tensor que un nodo guardó para el paso hacia atrás: una "
                "asignación con máscara (t[...] = ...) también es una operación en su sitio, y torch.no_grad() no "
                "la esconde del contador de versiones.",
            ),
            (
                "does not require grad",
                "backward() no encontró un grafo: cortaste el cálculo con detach(), .item() o torch.no_grad() antes "
                "de la pérdida. La tangente hiperbólica también tiene que estar en el grafo.",
            ),
        ),
    )
    pista = _tensor_de_w(w, "el gradiente", resultado, esperado)
    if pista is None and not is_close(resultado, esperado):
        valor = _detach(resultado)
        with torch.no_grad():
            t = torch.tanh(g(w.clone()))
        anulados = t < umbral
        pista = diagnose(
            valor,
            esperado,
            (
                _gradiente_ponderado(g, w, lambda z: pesos * (1 - torch.tanh(z) ** 2)),
                "la máscara no está en tu cálculo: un t_i anulado vale 0 pase lo que pase, así que no depende de w.",
            ),
            (
                _gradiente_ponderado(g, w, lambda z: pesos * torch.where(anulados, 1.0, 1 - torch.tanh(z) ** 2)),
                "ese gradiente usa los valores anulados como si fueran la salida de la tangente hiperbólica: "
                "¿anulaste a espaldas de autograd (.data)? Así no hay error, pero el gradiente es falso.",
            ),
            (torch.zeros_like(esperado), "el gradiente se quedó en cero: ¿sacaste del grafo las t_i que no se anulan?"),
            name="el gradiente",
        )
    pista = (
        pista or "no coincide: ¿derivas Σ pesos_i · t_i con las t_i anuladas, para la f, el w y el umbral que recibes?"
    )
    check_properties(resultado, name=nombre, shape=tuple(w.shape), dtype=_float64, hint=pista)
    check_tensor(resultado, esperado, name=nombre, hint=pista)
    check_called_with_graph(f, funcion.__name__, donde)
    check_backward_passes(f, funcion.__name__, donde, times=1, hint="basta un paso hacia atrás, a través de f.")


def _pista_cadena(resultado, esperados):
    """Qué patrón sigue la lista de gradientes de la cadena que devolvió el alumno (o None)."""
    vacios = [k for k, r in enumerate(resultado) if r is None]
    if vacios:
        if vacios == list(range(len(resultado) - 1)):
            return (
                "solo el último eslabón recibió gradiente: ¿convertiste cada eslabón en una hoja nueva "
                "(detach().requires_grad_())? Así cortas la cadena y el gradiente ya no vuelve hacia atrás."
            )
        return (
            "un eslabón intermedio no es una hoja, y autograd no guarda su .grad salvo que se lo pidas, y a tiempo: "
            "antes del paso hacia atrás."
        )
    return None


def check_chain_gradients(funcion, g, texto, w, pasos, esperados):
    """Lección 07, ejercicio 4: ``funcion(f, w, pasos)`` da [dL/dh_0, …, dL/dh_pasos], con h_k = f(h_(k-1))."""
    w = torch.as_tensor(w, dtype=_float64)
    esperados = [torch.as_tensor(e, dtype=_float64) for e in esperados]
    f = CountingWatched(g, "f")
    donde = f"f(h) = {texto}, w = {describe(w)}, pasos = {pasos}"
    nombre = f"{funcion.__name__}(f, w, {pasos}) con {donde}"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # el aviso de .grad de un tensor que no es hoja: la pista lo explica
        resultado = call_student(funcion, f, w.clone(), pasos)
    if type(resultado) not in (list, tuple) or len(resultado) != pasos + 1:
        fail(
            f"{nombre} debía devolver una lista de {pasos + 1} gradientes (de h_0 = w a h_{pasos}), pero se obtuvo "
            f"{describe(resultado)}.",
            "devuelve dL/dh_k para cada eslabón, empezando por w: pasos + 1 tensores.",
        )
    pista = _pista_cadena(list(resultado), esperados)
    for k, (valor, esperado) in enumerate(zip(resultado, esperados, strict=True)):
        etiqueta = f"dL/dh_{k} en {nombre}"
        if valor is None:
            fail(f"{etiqueta} se obtuvo None.", pista)
        if not is_tensor(valor):
            fail(f"{etiqueta} debía ser un tensor, pero se obtuvo {describe(valor)}.", "cada gradiente es un tensor.")
        otro = pista
        if otro is None and k + 1 < len(esperados) and is_close(valor, esperados[k + 1]):
            otro = "los gradientes están corridos un eslabón: el primero es el de h_0 = w."
        elif otro is None and is_close(valor, -esperado):
            otro = "tiene el signo cambiado."
        check_properties(valor, name=etiqueta, shape=tuple(esperado.shape), dtype=_float64, hint=otro)
        check_tensor(
            valor, esperado, name=etiqueta, hint=otro or "dL/dh_k es el gradiente de la pérdida respecto a ese eslabón."
        )
    if pasos:
        check_called_with_graph(
            f,
            funcion.__name__,
            donde,
            times=pasos,
            hint="un solo paso hacia adelante: f se aplica una vez por eslabón, ni más ni menos.",
        )
        if not f.backward_passes:
            fail(
                f"{funcion.__name__} no hizo ningún paso hacia atrás a través de la cadena ({donde}).",
                "los gradientes se obtienen con autograd, con un paso hacia atrás desde la pérdida.",
            )


def check_shared_graph_prediction(prediccion, a1, a2, x0, esperado):
    """Lección 07, ejercicio 5: la predicción de x.grad cuando y1 e y2 comparten exp(x) y el segundo backward() "
    "falla."""
    llamada = f"{prediccion.__name__}({a1!r}, {a2!r}, {x0!r})"
    valor = prediccion(a1, a2, x0)
    numero = as_number(valor)
    e = math.exp(x0)
    if valor is None:
        pista = "x.grad no sigue vacío: el primer backward() llega a x antes de que nada falle."
    elif numero is None:
        pista = "se espera un número (float), o None si predices que x.grad seguirá vacío."
    elif is_close(numero, (a1 + a2) * e):
        pista = (
            "predijiste que el segundo backward() funciona y suma su parte: ¿qué guardó la exponencial para su paso "
            "hacia atrás, y qué hizo con eso el primer backward()?"
        )
    elif is_close(numero, a2 * e):
        pista = "el segundo backward() no llega a escribir nada en x.grad; el primero, sí."
    elif is_close(numero, a1) or is_close(numero, a1 + a2):
        pista = "la derivada de a1·exp(x) + 1 respecto a x depende de x0."
    elif is_close(numero, -esperado):
        pista = "tiene el signo cambiado."
    else:
        pista = "sigue la celda línea a línea: ¿qué deja en x.grad el primer backward(), y qué hace el segundo?"
    if valor is None or numero is None:
        fail(f"{llamada} se obtuvo {describe(valor)}, pero al final x.grad contiene un número.", pista)
    check_number(valor, esperado, name=llamada, hint=pista)


ETIQUETAS_DE_ERRORES = (
    "dtype_entero",
    "hoja_en_su_sitio",
    "tensor_de_inferencia",
    "numpy_con_grafo",
    "sin_grafo",
    "no_escalar",
    "forma_de_gradient",
    "segundo_backward",
    "version_cambiada",
    "grad_de_no_hoja",
    "otro",
)

_CONFUSIONES_DE_ERRORES = (
    (
        {"hoja_en_su_sitio", "version_cambiada", "tensor_de_inferencia"},
        "varios mensajes hablan de operaciones en su sitio: ¿de qué tensor se queja este? ¿De una hoja, de un "
        "tensor que el paso hacia atrás necesitaba y cambió, o de un tensor creado en modo de inferencia?",
    ),
    (
        {"sin_grafo", "numpy_con_grafo", "dtype_entero"},
        "varios mensajes hablan de requerir gradiente: ¿este se queja de que el tensor SÍ lo requiere, de que NO "
        "lo requiere (y no tiene grad_fn) o de que su dtype no PUEDE requerirlo?",
    ),
    (
        {"no_escalar", "forma_de_gradient"},
        "los dos hablan del gradiente con el que empieza backward(): ¿falta (PyTorch no puede crearlo solo) o lo "
        "diste con otra forma?",
    ),
    (
        {"forma_de_gradient", "otro"},
        "no todos los errores de formas vienen de backward(): ¿se queja este del gradiente que le diste a "
        "backward(), o de dos tensores que no encajan en una operación?",
    ),
)


def _pista_de_etiqueta(esperada, obtenida):
    for grupo, texto in _CONFUSIONES_DE_ERRORES:
        if esperada in grupo and obtenida in grupo:
            return texto
    if esperada == "grad_de_no_hoja":
        return (
            "este no es un error sino un aviso (UserWarning): el programa sigue. ¿De qué atributo, y de qué clase de "
            "tensor, habla?"
        )
    if obtenida == "grad_de_no_hoja":
        return "ese aviso es un caso aparte: este mensaje es una excepción, no un aviso."
    if esperada == "otro":
        return "este mensaje no es ninguno de los diez de la galería: no todo error de PyTorch es de autograd."
    if obtenida == "otro":
        return "este mensaje sí es de la galería: busca en qué sección salió uno parecido."
    return "vuelve a la sección de la galería donde salió un mensaje parecido: ¿qué causa describe?"


def error_message_of(codigo):
    """Ejecuta ``codigo()`` y devuelve lo que imprimiría la lección: la excepción o, si no la hay, el primer aviso."""
    import warnings

    with warnings.catch_warnings(record=True) as avisos:
        warnings.simplefilter("always")
        try:
            codigo()
        except Exception as error:
            return f"{type(error).__name__}: {error}"
    if not avisos:
        raise AssertionError("un ejemplo de la comprobación no produjo ni error ni aviso")
    return f"{avisos[0].category.__name__}: {avisos[0].message}"


def check_error_label(funcion, codigo, esperada):
    """Lección 07, ejercicio 6: ``funcion(mensaje)`` da ``esperada`` para el mensaje que produce ``codigo()``."""
    mensaje = error_message_of(codigo)
    obtenida = call_student(
        funcion,
        mensaje,
        hints=(
            (
                " lanzó ",
                f"{funcion.__name__} debe devolver una etiqueta para cualquier mensaje, también para los que no ha "
                "visto, sin lanzar errores: ¿buscas el mensaje entero en una tabla, o usas algo que no siempre está?",
            ),
        ),
    )
    nombre = f'{funcion.__name__}("{shorten(mensaje, 130)}")'
    if type(obtenida) is not str:
        fail(
            f"{nombre} debía devolver una etiqueta (str), pero se obtuvo {describe(obtenida)}.",
            "devuelve una de las etiquetas de la tabla, como texto.",
        )
    if obtenida not in ETIQUETAS_DE_ERRORES:
        fail(
            f"{nombre} devolvió {obtenida!r}, que no es ninguna de las etiquetas de la tabla.",
            "escríbela exactamente como en la tabla: en minúsculas, con guiones bajos y sin espacios.",
        )
    check_equal(obtenida, esperada, name=nombre, hint=_pista_de_etiqueta(esperada, obtenida))


class CountingWatched(Watched):
    """A :class:`Watched` whose hook only counts the backward passes through the output (it keeps no copy of the
    gradient, so it also works when the student's code asks for batched gradients, ``is_grads_batched=True``)."""

    def _record(self, gradient):
        self.backward_passes.append(None)


# Lesson 08 · Proyecto: regresión lineal desde cero: what each exercise's cases recognise.


def _pista_mse(valor, errores, esperado):
    """A qué se parece el valor de la pérdida que devolvió el alumno (o None si no se reconoce)."""
    n = errores.numel()
    if n > 1 and is_close(valor, esperado * n) and not is_close(valor, esperado):
        return f"es {n} veces lo esperado, y hay {n} datos: ¿sumaste los errores al cuadrado en lugar de promediarlos?"
    if is_close(valor, esperado / 2) and not is_close(valor, esperado):
        return "es justo la mitad de lo esperado: aquí no hay ningún factor 1/2 delante de la media."
    if is_close(valor, math.sqrt(esperado)) and not is_close(valor, esperado):
        return "es la raíz cuadrada de lo esperado: se pide la media de los errores al cuadrado, sin raíz."
    if is_close(valor, errores.abs().mean()) and not is_close(valor, esperado):
        return "es la media de los errores en valor absoluto: falta elevarlos al cuadrado."
    if is_close(valor, errores.mean() ** 2) and not is_close(valor, esperado):
        return "elevaste al cuadrado la media de los errores: cada error se eleva al cuadrado antes de promediar."
    if is_close(valor, errores.mean()) or is_close(valor, -errores.mean()):
        return "es la media de los errores sin elevar al cuadrado: los errores por arriba y por abajo se cancelan."
    return None


def check_mse(funcion, valores_prediccion, valores_y, esperado, gradiente, y_requiere=False):
    """Lección 08, ejercicio 1: ``funcion(prediccion, y)`` da el error cuadrático medio ``esperado``, en el grafo,
    con ``gradiente`` respecto a la predicción (y su opuesto respecto a y)."""
    prediccion = torch.tensor(valores_prediccion, dtype=_float64, requires_grad=True)
    y = torch.tensor(valores_y, dtype=_float64, requires_grad=y_requiere)
    p0, y0 = _detach(prediccion).clone(), _detach(y).clone()
    nombre = f"{funcion.__name__}(prediccion = {describe(p0)}, y = {describe(y0)})"
    resultado = funcion(prediccion, y)
    if not is_tensor(resultado):
        pista = "devuelve un tensor de PyTorch, no otro tipo de valor."
        if type(resultado) in (int, float):
            pista = (
                "se obtuvo un número de Python: con .item() o float() la pérdida sale del grafo y backward() ya no "
                "puede llegar a la predicción."
            )
        fail(f"{nombre} debía devolver un tensor, pero se obtuvo {describe(resultado)}.", pista)
    if resultado.dtype != _float64:
        pista = f"se obtuvo con dtype {resultado.dtype}: ¿convertiste algo a otro tipo, o creaste un tensor nuevo?"
    else:
        pista = "la pérdida es un solo número, un tensor de forma (): ¿falta promediar los errores al cuadrado?"
    check_properties(resultado, name=nombre, shape=(), dtype=_float64, hint=pista)
    pista = _pista_mse(float(_detach(resultado)), p0 - y0, esperado)
    check_tensor(resultado, esperado, name=nombre, hint=pista or "compara tu cálculo, paso a paso, con la definición.")
    if tensor_properties(resultado)["grad_fn"] is None:
        fail(
            f"el resultado de {nombre} no está en el grafo computacional (grad_fn es None).",
            "¿usaste .item(), .detach() o torch.no_grad(), o construiste un tensor nuevo con torch.tensor(...)? "
            "Así backward() no puede llegar a la predicción.",
        )
    hojas = (prediccion, y) if y_requiere else (prediccion,)
    gradientes = _autograd_grad(resultado, hojas, allow_unused=True)
    esperados = [torch.as_tensor(gradiente, dtype=_float64)]
    esperados.append(-esperados[0])
    for etiqueta, obtenido, deseado in zip(("prediccion", "y"), gradientes, esperados, strict=False):
        obtenido = torch.zeros_like(deseado) if obtenido is None else obtenido
        pista = (
            "el valor es correcto pero el gradiente no: ¿alguna parte del cálculo pasa por .detach() o por un número "
            "de Python?"
        )
        if bool(torch.isnan(obtenido).any()):
            pista = (
                "el gradiente salió nan con una predicción perfecta: ¿usaste una raíz u otra operación que no tiene "
                "derivada cuando el error es 0?"
            )
        check_tensor(obtenido, deseado, name=f"el gradiente de {nombre} respecto a {etiqueta}", hint=pista)


def _pista_paso(cambio, deseado, resto, tasa):
    """Qué error típico reproduce cómo se movió un parámetro en un paso de descenso (o None si no se reconoce).

    ``deseado`` es el cambio correcto (−tasa por el gradiente); ``resto``, lo que traía ``.grad`` al empezar.
    """
    if is_close(cambio, torch.zeros_like(cambio)) and not is_close(deseado, torch.zeros_like(deseado)):
        return (
            "no se movió: ¿guardaste el resultado en un nombre (p = p - ...) o en la lista? Eso crea un tensor nuevo, "
            "que ya no es una hoja, y deja igual el tensor que recibiste: actualízalo en su sitio."
        )
    if is_close(cambio, -deseado):
        return "se movió en el sentido del gradiente, cuesta arriba: así la pérdida sube en lugar de bajar."
    if resto is not None and is_close(cambio, deseado - tasa * resto):
        return (
            "el paso usó el gradiente nuevo sumado a los restos que ya había en .grad (acumulación de gradientes): "
            "vacía .grad antes del paso hacia atrás."
        )
    if tasa != 0 and is_close(cambio, deseado / tasa):
        return "se movió el gradiente entero: falta la tasa de aprendizaje."
    if is_close(cambio, 2 * deseado):
        return "se movió el doble de lo esperado: ¿retropropagaste dos veces la misma pérdida? Los gradientes se suman."
    return None


def check_descent_steps(funcion, construir, nombres, valores, tasa, texto, esperados, restos=None):
    """Lección 08, ejercicio 2: pasos seguidos de ``funcion(parametros, perdida, tasa)``.

    ``esperados`` tiene, por cada paso, los valores de los parámetros después; el gradiente de cada paso es
    (antes − después) / tasa. ``restos`` (uno por parámetro, o None) se dejan en ``.grad`` antes de cada paso.
    """
    hojas = [torch.tensor(v, dtype=_float64, requires_grad=True) for v in valores]
    for numero, nuevos in enumerate(esperados, start=1):
        if restos is not None:
            for hoja, resto in zip(hojas, restos, strict=True):
                hoja.grad = torch.full_like(_detach(hoja), resto)
        donde = f"llamada {numero} con la pérdida {texto} y tasa = {tasa}"
        if restos is not None:
            donde += (
                f", con restos en .grad ({', '.join(f'{r} en {n}.grad' for n, r in zip(nombres, restos, strict=True))})"
            )
        elif numero == 1:
            donde += ", con .grad vacío (None) al empezar"
        antes = [_detach(h).clone() for h in hojas]
        restos_antes = [None if h.grad is None else _detach(h.grad).clone() for h in hojas]
        with torch.no_grad():
            valor_esperado = construir(antes).item()
        devuelto = call_student(
            funcion,
            list(hojas),
            construir(hojas),
            tasa,
            hints=(
                (
                    "leaf Variable",
                    "modificaste un parámetro en su sitio con el seguimiento activado: la actualización no se debe "
                    "grabar en el grafo.",
                ),
                (
                    "NoneType",
                    "antes del primer backward(), .grad vale None: ¿lo usaste, o lo pusiste a cero con zero_(), cuando "
                    "todavía no existía?",
                ),
                ("second time", "retropropagaste dos veces la misma pérdida: basta un paso hacia atrás en cada paso."),
            ),
        )
        for nombre, hoja, previo, nuevo, resto in zip(nombres, hojas, antes, nuevos, restos_antes, strict=True):
            nuevo = torch.as_tensor(nuevo, dtype=_float64)
            gradiente = (previo - nuevo) / tasa
            check_properties(
                hoja,
                name=f"{nombre} después de la {donde}",
                is_leaf=True,
                requires_grad=True,
                hint="el parámetro debe seguir requiriendo gradiente para el paso siguiente: ¿desactivaste su marca "
                "para actualizarlo y no la volviste a activar?",
            )
            if not is_close(_detach(hoja), nuevo):
                pista = _pista_paso(_detach(hoja) - previo, nuevo - previo, resto, tasa) or (
                    "compara cuánto se movió el parámetro con su gradiente: ¿es el gradiente de la pérdida que "
                    "recibiste, calculado por autograd?"
                )
                check_tensor(hoja, nuevo, name=f"{nombre} después de la {donde}", hint=pista)
            # Al terminar, .grad puede quedar vacío, a cero o con el gradiente del paso (si se vació al principio).
            queda = None if hoja.grad is None else _detach(hoja.grad)
            if queda is not None and bool((queda != 0).any()) and not is_close(queda, gradiente):
                pista = (
                    "al terminar, .grad puede quedar vacío (None), a cero o con el gradiente con el que diste el paso; "
                    "nada más, o el próximo backward() se sumaría a eso."
                )
                if resto is not None and is_close(queda, gradiente + resto):
                    pista = (
                        ".grad tiene el gradiente del paso más los restos que ya traía: vacía antes de retropropagar."
                    )
                elif is_close(queda, 2 * gradiente):
                    pista = ".grad tiene el doble del gradiente: ¿retropropagaste dos veces la misma pérdida?"
                fail(
                    f"después de la {donde}, {nombre}.grad guarda {describe(queda)}, que no es el gradiente del paso.",
                    pista,
                )
        if type(devuelto) is not float:
            pista = "devuelve el valor de la pérdida como float de Python."
            if is_tensor(devuelto):
                pista = "¿devolviste el tensor de la pérdida, con su grafo? Devuelve solo su valor numérico."
            fail(
                f"{funcion.__name__} debía devolver la pérdida como float, pero se obtuvo {describe(devuelto)} "
                f"({donde}).",
                pista,
            )
        pista = "devuelve el valor de la pérdida que recibiste."
        with torch.no_grad():
            despues = construir([torch.as_tensor(n, dtype=_float64) for n in nuevos]).item()
        if is_close(devuelto, despues) and not is_close(devuelto, valor_esperado):
            pista = "esa es la pérdida con los parámetros nuevos: se pide la que recibiste, la de antes del paso."
        check_number(devuelto, valor_esperado, name=f"la pérdida que devolvió la {donde}", hint=pista)


def _pista_un_paso(w, b, ew, eb, tasa):
    def ambos(pw, pb):
        return is_close(w, pw) and is_close(b, pb)

    if ambos(-ew, -eb):
        return "los dos se movieron en sentido contrario: ese paso va cuesta arriba, a favor del gradiente."
    if ambos(eb, ew):
        return "parece que intercambiaste w y b: devuelve la pareja en el orden (w, b)."
    if ambos(ew / 2, eb / 2):
        return "es la mitad de lo esperado: al derivar un cuadrado aparece un factor que se te escapó."
    if ambos(-ew / tasa, -eb / tasa):
        return "eso es el gradiente en w = b = 0, no el valor de los parámetros después del paso."
    if ambos(ew / tasa, eb / tasa):
        return "falta la tasa de aprendizaje: el paso no es el gradiente entero."
    if is_close(b, eb) and is_close(w, eb):
        return "b está bien, pero w no: ¿cuánto cambia la predicción w·x0 + b cuando mueves w?"
    if is_close(b, eb):
        return "b está bien; revisa la derivada de la pérdida respecto a w."
    return "escribe la pérdida con un solo dato, deriva respecto a w y a b, y evalúa en w = b = 0."


def check_one_step_prediction(prediccion, x0, y0, tasa, ew, eb):
    """Lección 08, ejercicio 3: la predicción de (w, b) tras un paso desde w = b = 0 con un solo dato."""
    llamada = f"{prediccion.__name__}({x0!r}, {y0!r}, {tasa!r})"
    resultado = prediccion(x0, y0, tasa)
    if type(resultado) not in (tuple, list) or len(resultado) != 2:
        fail(
            f"{llamada} debía devolver una pareja (w, b), pero se obtuvo {describe(resultado)}.",
            "devuelve dos números separados por una coma: return w, b.",
        )
    w, b = (as_number(v) for v in resultado)
    if w is None or b is None:
        fail(f"{llamada} debía devolver dos números, pero se obtuvo {describe(resultado)}.", "devuelve dos float.")
    pista = _pista_un_paso(w, b, ew, eb, tasa)
    check_number(w, ew, name=f"el valor de w que predice {llamada}", hint=pista)
    check_number(b, eb, name=f"el valor de b que predice {llamada}", hint=pista)


class _ModeloVigilado:
    """El modelo que la comprobación pasa a ``entrenar``: cuenta sus llamadas y los pasos hacia atrás que atraviesan
    su salida (un gancho en la salida: al calificar, en el calificador), y recuerda los últimos w y b recibidos."""

    def __init__(self, modelo):
        self.modelo, self.__name__ = modelo, modelo.__name__
        self.llamadas, self.pasos_atras, self.ultimos = 0, 0, (None, None)

    def __call__(self, x, w, b):
        self.llamadas += 1
        self.ultimos = (w, b)
        salida = self.modelo(x, w, b)
        if is_tensor(salida) and salida.requires_grad:
            salida.register_hook(self._contar)
        return salida

    def _contar(self, gradiente):
        self.pasos_atras += 1


def _pista_historial(historial, inicio, n):
    """Qué error típico reproduce el historial, a partir de sus primeras pérdidas esperadas (o None)."""
    if len(historial) >= 2 and len(inicio) >= 2 and is_close(historial[0], inicio[1]):
        return (
            "tu historial va una época adelantado: guardaste la pérdida después de actualizar, y se pide la de antes."
        )
    if historial and n > 1 and is_close(historial[0], n * inicio[0]) and not is_close(historial[0], inicio[0]):
        return f"la primera pérdida es {n} veces la esperada: ¿sumas los errores al cuadrado en lugar de promediarlos?"
    if historial and not is_close(historial[0], inicio[0]):
        return "la primera pérdida no coincide: es la del modelo con w = b = 0, antes de ningún paso."
    if len(historial) >= 2 and len(inicio) >= 2 and not is_close(historial[1], inicio[1]):
        if (historial[1] - historial[0]) * (inicio[1] - inicio[0]) < 0:
            return (
                "después del primer paso la pérdida va en el otro sentido: ¿mueves los parámetros en contra del "
                "gradiente?"
            )
        return "el primer paso no es el esperado: ¿usas la tasa que recibes y el gradiente de la pérdida de esa época?"
    if len(historial) >= 3 and len(inicio) >= 3 and not is_close(historial[2], inicio[2]):
        return (
            "las dos primeras épocas están bien, pero desde la tercera el paso usa algo más que el gradiente de su "
            "época: ¿vacías .grad antes de retropropagar? (acumulación de gradientes)"
        )
    return None


def check_training(funcion, x, y, tasa, epocas, w, b, inicio, ultima, modelo=None, texto=None, monotona=False):
    """Lección 08, ejercicio 4: ``funcion(x, y, tasa, epocas[, modelo])`` entrena w y b desde 0.

    Se esperan ``w`` y ``b`` al final, las primeras pérdidas del historial (``inicio``) y la última (``ultima``).
    Con ``modelo`` (una función de la comprobación), se mira también desde aquí cómo se usó: una llamada y un
    paso hacia atrás a través de su salida por época, y que w y b devueltos sean los tensores que recibió.
    """
    x, y = torch.tensor(x, dtype=_float64), torch.tensor(y, dtype=_float64)
    descripcion = "la recta (el modelo por defecto)" if modelo is None else f"el modelo {texto}"
    argumentos = f"x, y, tasa={tasa}, epocas={epocas}" + ("" if modelo is None else ", modelo")
    llamada = f"{funcion.__name__}({argumentos}) con {descripcion}, x = {describe(x)} e y = {describe(y)}"
    vigilado = None if modelo is None else _ModeloVigilado(modelo)
    extra = () if vigilado is None else (vigilado,)
    resultado = funcion(x.clone(), y.clone(), tasa, epocas, *extra)
    if type(resultado) not in (tuple, list) or len(resultado) != 3:
        fail(
            f"{llamada} debía devolver la tupla (w, b, historial), pero se obtuvo {describe(resultado)}.",
            "devuelve los tres valores separados por comas, en ese orden.",
        )
    w_devuelto, b_devuelto, historial = resultado
    if type(historial) is not list:
        fail(
            f"el historial que devolvió {llamada} debía ser una lista, pero se obtuvo {describe(historial)}.",
            "guarda las pérdidas en una lista de Python, con append().",
        )
    if len(historial) != epocas:
        fail(
            f"el historial de {llamada} tiene {len(historial)} pérdidas, pero debía tener {epocas}.",
            "guarda una pérdida por época, ni más ni menos: ¿cuántas veces se repite tu ciclo?",
        )
    extranos = [v for v in historial if type(v) is not float]
    if extranos:
        pista = "guarda cada pérdida como float de Python."
        if is_tensor(extranos[0]):
            pista = (
                "guardaste tensores: guarda el número (.item()); un tensor con grad_fn mantiene vivo el grafo de su "
                "época."
            )
        elif extranos[0] is None:
            pista = "el historial tiene None: ¿devuelve tu función paso la pérdida?"
        fail(f"el historial de {llamada} debía contener números float, pero contiene {describe(extranos[0])}.", pista)
    if vigilado is not None and epocas > 0:
        if vigilado.llamadas == 0:
            fail(
                f"{llamada} no llamó nunca al modelo que recibió.",
                "usa el modelo que llega como argumento; la recta es solo el valor por defecto.",
            )
        if vigilado.llamadas > 2 * epocas + 1:
            fail(
                f"{llamada} llamó {vigilado.llamadas} veces al modelo en {epocas} épocas.",
                "¿estimas el gradiente evaluando el modelo en puntos cercanos (diferencias finitas)? Con una llamada "
                "por época, backward() te da el gradiente exacto.",
            )
        if vigilado.llamadas != epocas:
            fail(
                f"{llamada} llamó {vigilado.llamadas} veces al modelo en {epocas} épocas.",
                "una llamada por época basta: su resultado da la pérdida, y el paso hacia atrás parte de esa misma "
                "pérdida.",
            )
        if vigilado.pasos_atras != epocas:
            fail(
                f"{llamada} hizo {vigilado.pasos_atras} pasos hacia atrás a través de la salida del modelo en "
                f"{epocas} épocas.",
                "cada época da un paso hacia atrás de autograd desde la pérdida, a través del modelo que recibes: no "
                "derives a mano (tus derivadas serían las de una recta, y el modelo puede ser otro).",
            )
    for valor, nombre in ((w_devuelto, "w"), (b_devuelto, "b")):
        if not is_tensor(valor):
            fail(
                f"el {nombre} que devolvió {llamada} debía ser un tensor, pero se obtuvo {describe(valor)}.",
                "devuelve los propios parámetros entrenados (los tensores hoja), no su valor con .item().",
            )
        pista = "los parámetros son escalares: tensores de forma ()."
        if valor.dtype != _float64:
            pista = (
                f"se obtuvo con dtype {valor.dtype}: ¿creaste los parámetros sin indicar dtype=torch.float64? "
                "torch.tensor(0.0) y torch.zeros(()) dan float32."
            )
        check_properties(valor, name=f"el {nombre} que devolvió {llamada}", shape=(), dtype=_float64, hint=pista)
        check_properties(
            valor,
            name=f"el {nombre} que devolvió {llamada}",
            is_leaf=True,
            requires_grad=True,
            hint="se piden los tensores hoja que entrenaste, que siguen requiriendo gradiente: una copia sacada con "
            ".detach(), un número o un tensor nuevo no son esos parámetros.",
        )
    if vigilado is not None and epocas > 0:
        for valor, recibido, nombre in zip((w_devuelto, b_devuelto), vigilado.ultimos, ("w", "b"), strict=True):
            if not same_tensor(valor, recibido):
                fail(
                    f"el {nombre} que devolvió {llamada} no es el tensor con el que se llamó al modelo.",
                    "devuelve los mismos tensores hoja que creaste y entrenaste, no una copia (clone()) ni uno nuevo.",
                )
    pista = _pista_historial(historial, inicio, x.numel()) or (
        "¿empiezas con w = b = 0, das un solo paso por época con la tasa que recibes y calculas la pérdida con el "
        "modelo que recibes?"
    )
    for i, esperado in enumerate(inicio):
        check_number(
            historial[i], esperado, name=f"la pérdida de la época {i + 1} en el historial de {llamada}", hint=pista
        )
    if epocas:
        check_number(historial[-1], ultima, name=f"la última pérdida del historial de {llamada}", hint=pista)
    check_number(w_devuelto, w, name=f"el w que devolvió {llamada}", hint=pista)
    check_number(b_devuelto, b, name=f"el b que devolvió {llamada}", hint=pista)
    if monotona:
        for i in range(1, len(historial)):
            if historial[i] > historial[i - 1] * (1 + 1e-9) + 1e-12:
                fail(
                    f"con {llamada}, la pérdida subió de la época {i} a la {i + 1}: {historial[i - 1]!r} → "
                    f"{historial[i]!r}.",
                    "con esta tasa, cada paso debía bajar la pérdida.",
                )


def same_tensor(returned, received):
    """Whether the tensor the student's code returned is the very tensor it passed to a function of the test cell.

    In the student's notebook that is ``is``; when grading, both are the grader's copies of one tensor of the
    student's process (the one it returned and the one it passed), compared by that tensor's identity there.
    """
    if returned is received:
        return True
    from autograder.remote import REMOTE

    entry = REMOTE.get(returned) if is_tensor(returned) else None
    if entry is None or received is None:
        return False
    peer, theirs = entry[0], entry[2]
    return getattr(peer, "mirrors", {}).get(theirs) is received


def _pista_tasa(respuesta, esperada, candidatas, clases):
    estables = [t for t in candidatas if clases[t] == "estable"]
    if respuesta is not None and type(respuesta) not in (int, float):
        return "devuelve la tasa como un float de Python (la misma de la lista), o None."
    if respuesta is None:
        return (
            "hay tasas estables en la lista: ¿compruebas bien la condición? La última pérdida debe ser finita y "
            "menor que la primera."
        )
    if respuesta not in candidatas:
        if type(respuesta) is int and 0 <= respuesta < len(candidatas):
            return "parece una posición de la lista: devuelve la tasa, no su índice."
        return "devuelve una de las tasas candidatas, tal cual, o None."
    if esperada is None and clases[respuesta] != "estable":
        return "ninguna tasa de esta lista es estable: en ese caso se devuelve None."
    if clases[respuesta] == "nan":
        return (
            "con esa tasa la pérdida acaba en inf o nan: cualquier comparación con nan da False, así que «la pérdida "
            "no creció» no demuestra que sea estable. Comprueba que sea finita."
        )
    if clases[respuesta] == "diverge":
        return "con esa tasa la pérdida crece: diverge."
    if respuesta in estables and esperada is not None and respuesta < esperada:
        orden = [t for t in candidatas if t in estables]
        if respuesta in (orden[0], orden[-1]):
            return "hay otra tasa estable mayor: las candidatas no vienen ordenadas."
        return "hay otra tasa estable mayor en la lista."
    return "una tasa es estable si la última pérdida del historial es finita y menor que la primera."


def check_stable_rate(funcion, x, y, candidatas, esperada, clases, epocas=None):
    """Lección 08, ejercicio 5: ``funcion(x, y, candidatas[, epocas])`` da la mayor tasa estable, ``esperada``.

    ``clases`` dice, de cada candidata, si con ella el entrenamiento es "estable", "diverge" o acaba en "nan".
    """
    x, y = torch.tensor(x, dtype=_float64), torch.tensor(y, dtype=_float64)
    opciones = {} if epocas is None else {"epocas": epocas}
    llamada = f"{funcion.__name__}(x, y, {candidatas}, epocas={50 if epocas is None else epocas}) con x = {describe(x)}"
    respuesta = funcion(x.clone(), y.clone(), list(candidatas), **opciones)
    if respuesta is None and esperada is None:
        return
    if type(respuesta) in (int, float) and esperada is not None and respuesta == esperada:
        return
    fail(
        f"{llamada} debía devolver {esperada!r}, pero se obtuvo {describe(respuesta)}.",
        _pista_tasa(respuesta, esperada, candidatas, clases),
    )
