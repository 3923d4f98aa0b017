"""Checks of lesson 10 (ganchos y funciones propias): the test owns the graph and calls the student's pieces.

A hook the student returns is registered by the test cell on its own tensors, and the test runs the
backward pass; a forward and a backward the student writes are wrapped by the test in its own
``torch.autograd.Function``, checked with ``gradcheck`` and with backward passes the test makes. When
grading, all of that happens in the grader's process: the student's functions are called across the
boundary with tensors the grader chose, and what they return is all the grader uses.
"""

import torch

from gradientes.checks import (
    CheckFailure,
    call_text,
    check_tensor,
    describe,
    fail,
    is_close,
    is_tensor,
    student_raised,
    student_too_slow,
)
from gradientes.checks_09 import check_own_code  # noqa: F401 (lesson 10's softplus is written like 09's sinc)
from gradientes.reading import SOURCES
from gradientes.remote_errors import RemoteError, Timeout

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


def check_clipped(value, expected, *, unclipped, name, hint=None):
    """``value`` (a gradient the test got with the student's hook registered) is ``expected``; if it is the gradient
    without any hook, ``unclipped``, the failure says so: the hook left the gradient as it came."""
    unclipped = torch.as_tensor(unclipped, dtype=torch.float64)
    differs = not is_close(torch.as_tensor(expected, dtype=torch.float64), unclipped)
    if differs and is_tensor(value) and value.shape == unclipped.shape and is_close(value, unclipped):
        fail(f"{name} llegó sin recortar: se obtuvo {describe(value)}, lo mismo que sin ningún gancho.", hint)
    check_tensor(value, expected, name=name, hint=hint)


WATCHER_FACTORY = (
    "gancho_vigia no vigila nada todavía: fabrica el gancho (una función que recibe un gradiente) y lo devuelve."
)
WATCHER_COUNT = (
    "n es el número de componentes del gradiente que no son finitas (nan, inf y -inf): torch.isfinite te dice cuáles "
    "sí lo son."
)


def check_watcher(factory, f, g, x, *, on, where, seen, unhooked):
    """The hook that ``factory(avisar)`` returns, registered by the test on ``h = f(x)`` (``on="h"``) or on the leaf
    ``x``, with an ``avisar`` of the test: it must call ``avisar`` once, with the number of non-finite components of
    the gradient it receives (``seen``), and leave the gradient of ``x`` as it is without a hook (``unhooked``)."""
    received = []

    def avisar(n):
        received.append(n)

    hook = returned_function(factory(avisar), "tu gancho", "gancho_vigia(avisar)", WATCHER_FACTORY)
    came = gradient_with_hook(hook, f, g, x, on=on)
    seen = torch.as_tensor(seen, dtype=torch.float64)
    unhooked = torch.as_tensor(unhooked, dtype=torch.float64)
    count = int((~torch.isfinite(seen)).sum())
    if len(received) != 1:
        fail(
            f"{where}: tu gancho llamó a avisar {len(received)} veces en un paso hacia atrás.",
            "el gancho recibe el gradiente una vez: llama a avisar una sola vez, con la cuenta de todo el gradiente.",
        )
    if type(received[0]) is not int:
        fail(
            f"{where}: tu gancho llamó a avisar con {describe(received[0])}, y avisar espera un int de Python.",
            "convierte la cuenta en un número de Python con int(...).",
        )
    if received[0] != count:
        fail(
            f"{where}: tu gancho avisó de {received[0]}, y el gradiente que recibió, {describe(seen)}, tiene {count} "
            "componentes que no son finitas.",
            WATCHER_COUNT,
        )
    if not (is_tensor(came) and came.shape == unhooked.shape and torch.allclose(came, unhooked, equal_nan=True)):
        fail(
            f"{where}: con tu gancho, el gradiente de x es {describe(came)}, y sin gancho es {describe(unhooked)}: tu "
            "gancho lo cambió.",
            "un gancho que solo mira no devuelve nada: así el gradiente sigue su camino tal cual, también sus nan.",
        )
