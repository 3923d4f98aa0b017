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
from autograder.statement import uses

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
    """Fail if the student's code replaced any torch function."""
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
    rtol=RTOL,
    atol=ATOL,
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
    "autograd": (reference_gradients, RTOL, ATOL),
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
