"""Checks of lesson 09 (más allá de backward): the test owns the graph and calls the student's pieces.

A hook the student returns is registered by the test cell on its own tensors, and the test runs the
backward pass; a forward and a backward the student writes are wrapped by the test in its own
``torch.autograd.Function``, checked with ``gradcheck`` and with backward passes the test makes. When
grading, all of that happens in the grader's process: the student's functions are called across the
boundary with tensors the grader chose, and what they return is all the grader uses.
"""

import types

import torch

from gradientes.checks import (
    CheckFailure,
    call_text,
    check_statement,
    check_tensor,
    describe,
    fail,
    is_close,
    is_tensor,
    named_object,
    student_raised,
    student_too_slow,
)
from gradientes.remote_errors import RemoteError, Timeout
from gradientes.statement import SOURCES, read

_autograd_grad = torch.autograd.grad
_gradcheck = torch.autograd.gradcheck


class ReturnedFunction:
    """A function the student's code returned (a hook, say), called with the same Spanish errors as the answer.

    In the lab it gets the answer's time limit (``LocalStudentFunction``); when grading, it is a function of the
    sealed kernel, called across the boundary with the grader's own limit.
    """

    def __init__(self, function, name):
        self.__name__ = name
        if SOURCES.get() is None:  # in the lab: imported here, since gradientes.selfcheck imports the checks
            from gradientes.selfcheck import LocalStudentFunction

            def called(*args):
                return function(*args)

            called.__name__ = name
            self.function = LocalStudentFunction(called)
        else:
            self.function = function

    def __call__(self, *args):
        try:
            return self.function(*args)
        except CheckFailure:
            raise
        except Timeout:
            student_too_slow(call_text(self.__name__, args, {}))
        except RemoteError as error:
            student_raised(call_text(self.__name__, args, {}), error.kind, error)


def returned_function(value, name, where, hint=None):
    """``value`` (what the student's function returned) as a :class:`ReturnedFunction`; fail if it is not one."""
    if not callable(value) or is_tensor(value):
        fail(f"{where} debía devolver una función, pero devolvió {describe(value)}.", hint)
    return ReturnedFunction(value, name)


def _checked_hook(hook, tensor_name):
    """A hook the test registers: it calls the student's and checks that what came back can replace the gradient."""

    def checked(gradient):
        came = hook(gradient.detach().clone())
        if came is None:
            return None
        if not is_tensor(came) or came.shape != gradient.shape or came.dtype != gradient.dtype:
            fail(
                f"tu gancho, registrado en {tensor_name}, recibió un gradiente de forma {tuple(gradient.shape)} y "
                f"devolvió {describe(came)}.",
                "un gancho devuelve None (deja el gradiente como está) o un tensor de la misma forma y dtype que el "
                "gradiente que recibe.",
            )
        return came.detach()

    return checked


def gradient_with_hook(hook, f, g, x, *, on="h"):
    """The gradient of ``g(f(x))`` with respect to ``x``, with ``hook`` registered by the test on ``h = f(x)``
    (``on="h"``, an intermediate node) or on the leaf ``x`` (``on="x"``); the test runs the backward pass."""
    leaf = x.detach().clone().requires_grad_(True)
    if on == "x":
        leaf.register_hook(_checked_hook(hook, "la hoja x"))
    h = f(leaf)
    if on == "h":
        h.register_hook(_checked_hook(hook, "el nodo intermedio h"))
    (gradient,) = _autograd_grad(g(h), leaf)
    return gradient


def custom_function(adelante, atras, name):
    """A function (called ``name`` in messages) that applies a ``torch.autograd.Function`` of the test whose forward
    calls ``adelante(x)`` (which returns ``(y, guardado)``, the tensors to save) and whose backward calls
    ``atras(guardado, grad_y)``."""

    class Propia(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            came = adelante(x.detach())
            if type(came) not in (tuple, list) or len(came) != 2:
                fail(
                    f"adelante({describe(x)}) debía devolver una tupla (y, guardado), pero devolvió {describe(came)}.",
                    "adelante devuelve dos cosas: el resultado y la tupla de tensores que necesitará atras.",
                )
            y, guardado = came
            if not is_tensor(y) or y.shape != x.shape or y.dtype != x.dtype:
                fail(
                    f"el y de adelante({describe(x)}) debía ser un tensor de la forma y el dtype de x, pero es "
                    f"{describe(y)}.",
                    "la softplus actúa elemento a elemento: conserva la forma y el dtype de la entrada.",
                )
            if type(guardado) not in (tuple, list) or not all(is_tensor(t) for t in guardado):
                fail(
                    f"el guardado de adelante({describe(x)}) debía ser una tupla de tensores, pero es "
                    f"{describe(guardado)}.",
                    "lo que guardas es lo que recibirá ctx.save_for_backward: una tupla de tensores, como (x,).",
                )
            ctx.save_for_backward(*(t.detach() for t in guardado))
            return y.detach().clone()

        @staticmethod
        def backward(ctx, grad_y):
            came = atras(tuple(ctx.saved_tensors), grad_y.detach())
            if not is_tensor(came) or came.shape != grad_y.shape:
                fail(
                    f"atras(guardado, grad_y) con grad_y de forma {tuple(grad_y.shape)} debía devolver un tensor de la "
                    f"forma de x, pero devolvió {describe(came)}.",
                    "atras devuelve el gradiente respecto a la entrada, un tensor de la forma de x.",
                )
            return came.detach().to(grad_y.dtype)

    def propia(x):
        return Propia.apply(x)

    propia.__name__ = name
    return propia


def check_gradcheck(apply, x, *, where, hint=None):
    """``torch.autograd.gradcheck`` of the test's own function at ``x`` (float64): the Jacobian the student's
    backward gives must match the one finite differences give."""
    if not _gradcheck(apply, (x.detach().clone().requires_grad_(True),), raise_exception=False):
        fail(
            f"gradcheck no acepta tu paso hacia atrás ({where}): el jacobiano que da atras no coincide con el de "
            "las diferencias finitas de adelante.",
            hint,
        )


# What, inside torch, leads to any operation by name (``torch.ops.aten.sinc``); the private parts (``torch._C``)
# are refused by check_statement itself.
TORCH_OPS = "torch.ops"


# What an answer that writes its own operation may reach: ``warnings`` computes nothing (an answer may warn).
OWN_CODE_MODULES = ("torch", "math", "warnings")


# An answer that writes its own operation computes with these and nothing else of torch (an allowlist: a library
# function that already does the work, such as torch.special.spherical_bessel_j0 for sinc or
# torch.nn.functional.logsigmoid for softplus, is not one of them). Compared as objects, whatever the path.
ELEMENTARY = frozenset(
    "abs clamp clip clamp_min clamp_max exp expm1 log log1p sqrt rsqrt pow square reciprocal sin cos tan tanh "
    "sigmoid relu maximum minimum max min where sign signbit neg negative isfinite isnan isinf isclose zeros_like "
    "ones_like full_like empty_like zeros ones full tensor as_tensor float64 float32 double finfo pi e inf nan add "
    "sub mul div true_divide eq ne lt le gt ge logical_and logical_or logical_not masked_fill Tensor is_tensor".split()
)
ELEMENTARY_NAMES = frozenset({*(f"torch.{name}" for name in ELEMENTARY), "torch.nn.functional.relu"})
# What a tensor's methods and attributes may be in such an answer, besides those operations (and Python's own).
PLUMBING = frozenset(
    "abs_ add_ sub_ mul_ div_ neg_ exp_ log_ log1p_ clamp_ masked_fill_ any all shape dtype device ndim dim size "
    "numel reshape view view_as expand expand_as to clone detach new_zeros new_ones new_full new_tensor zero_ fill_ "
    "copy_ item tolist unsqueeze squeeze flatten contiguous type_as is_floating_point requires_grad append format "
    "join items get warn".split()
)


def check_own_code(answers, *, forbidden, hint=None):
    """Each of ``answers`` (names of the notebook) reaches only ``torch`` and ``math`` (and ``warnings``), nothing
    ``forbidden`` (named in the failure), and of torch only elementary operations (:data:`ELEMENTARY`): read in full
    by :func:`check_statement`, failing closed (an unknown method fails too)."""
    for answer in answers:
        check_statement(answer, modules=OWN_CODE_MODULES, forbidden=(*forbidden, TORCH_OPS), hint=hint)
        outside = not_elementary(read(answer))
        if outside:
            fail(
                f"{answer} usa {', '.join(f'«{name}»' for name in outside[:3])}, que no es una de las operaciones "
                "elementales de este ejercicio.",
                (hint or "escribe tú la operación.") + " Se admiten las de torch elemento a elemento (exp, log, "
                "log1p, abs, clamp, where, sin, sigmoid, maximum…), las de math y los métodos de forma y tipo de "
                "los tensores (shape, reshape, to…).",
            )


def not_elementary(reading):
    """What a reading reaches of torch that is not an elementary operation: names, and methods (``.logaddexp``)."""
    allowed = {id(value) for name in ELEMENTARY_NAMES if (value := named_object(name)) is not None}
    outside, parts = [], set()
    for name in sorted(reading.names):
        value = named_object(name)
        if not name.startswith("torch.") or isinstance(value, types.ModuleType) or id(value) in allowed:
            parts.update(name.split(".")[1:])
        else:
            outside.append(name)
    methods = reading.attributes - parts - ELEMENTARY - PLUMBING
    return outside + sorted(f".{method}" for method in methods)


def check_to_rounding(value, expected, *, name, hint=None, close_hint=None, rtol=1e-12, atol=1e-12):
    """``value`` matches ``expected`` to float64's rounding (``rtol``, ``atol``), which an approximation such as
    finite differences cannot meet; if it matches only to a few digits, the failure gets ``close_hint``."""
    try:
        check_tensor(value, expected, name=name, rtol=rtol, atol=atol, hint=hint)
    except CheckFailure as failure:
        message, better = failure.message, failure.hint
        if close_hint and is_close(value, expected, rtol=1e-4, atol=1e-6):
            better = close_hint
        fail(message, better)


def check_clipped(value, expected, *, unclipped, name, hint=None):
    """``value`` (a gradient the test got with the student's hook registered) is ``expected``; if it is the gradient
    without any hook, ``unclipped``, the failure says so: the hook left the gradient as it came."""
    unclipped = torch.as_tensor(unclipped, dtype=torch.float64)
    differs = not is_close(torch.as_tensor(expected, dtype=torch.float64), unclipped)
    if differs and is_tensor(value) and value.shape == unclipped.shape and is_close(value, unclipped):
        fail(f"{name} llegó sin recortar: se obtuvo {describe(value)}, lo mismo que sin ningún gancho.", hint)
    check_tensor(value, expected, name=name, hint=hint)
