"""What a statement promises, the grade keeps, for every lesson in ``solutions/``.

Graded by the real grader (``autograder.grading.batch.run``, sealed, with the hidden tests):

- **No answer within reach.** Every function defined in the visible part of a test cell (outside
  ``### BEGIN HIDDEN TESTS``), pasted as the answer (as the exercise's function, with its name), earns
  none of that exercise's points.
- **Statements enforced.** An answer with the right values that uses what the statement forbids (or
  leaves out what it requires) earns nothing, and the failure names that API in Spanish (``PROHIBIDAS``).
- **Predictions that cannot be computed.** The solution of every predict-then-run exercise (its heading
  says «Predice»), with one call to ``torch`` added, earns nothing; and a correct autograd answer wrapped in
  ``with torch.enable_grad():`` earns full marks (``CON_ENABLE_GRAD``): a guard that punishes it is gone.
- **A reading that fails closed.** The forbidden API hidden where a partial reader does not look (a name bound in
  a compound statement, an import inside the function, an alias, dynamic access) earns nothing, and so does a
  prediction that reaches torch that way; a «uses X» met only by a mention that never runs earns nothing where
  the grader observes the skill, and where it cannot, the points come with a note for the instructor
  (``MARCADAS``: in the cell and in the submission's status). Honest answers in other styles keep full marks
  (``HONESTAS``: helpers, prints, numpy, ``torch.autograd.grad``, an answer rebound as ``f = registrar(f)``).

Every case replaces one answer cell of the instructor's solution. Round ``k`` of a lesson is one submission
holding the ``k``-th case of each of its exercises, and all rounds of all lessons go in one batch.
"""

import ast
import copy
import re
from dataclasses import dataclass

import nbformat
import pytest
from helpers import HIDDEN, autograded_notebook, nbgrader_meta, read, row

from autograder.course import available_lessons, is_test_cell
from autograder.course.demo import answered
from autograder.grading import batch

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

# Correct values through a forbidden API (or without a required one): {lesson: {answer cell: [(case, code, named)]}}.
# ``named`` must appear in the failure message.
PROHIBIDAS = {
    "03_backward_y_regla_de_la_cadena": {
        "ej1_solucion": [
            (
                "la derivada escrita a mano",
                "def gradiente(f, x):\n    return 15 * x**2 + 4 * x + 4\n",
                "no llamó a f",
            )
        ],
        "ej2_solucion": [
            (
                "autograd en lugar de la derivada a mano",
                "def derivada_a_mano(x):\n"
                "    x = x.detach().clone().requires_grad_(True)\n"
                "    ((torch.sin(3 * x) + 2) ** 3).sum().backward()\n"
                "    return x.grad\n",
                "«.backward»",
            )
        ],
        "ej4_solucion": [
            (
                "autograd en lugar de la retropropagación a mano",
                "def retropropagar_a_mano(a, b):\n"
                "    a, b = (t.detach().clone().requires_grad_(True) for t in (a, b))\n"
                "    c = a * b\n"
                "    d = c + a\n"
                "    e = d * d\n"
                "    for nodo in (c, d, e):\n"
                "        nodo.retain_grad()\n"
                "    e.backward()\n"
                '    return {"e": e.grad, "d": d.grad, "c": c.grad, "a": a.grad, "b": b.grad}\n',
                "«.backward»",
            )
        ],
    },
    "04_gradientes_no_escalares": {
        "ej2_solucion": [
            (
                "torch.autograd.functional.vjp",
                "def vjp(f, x, v):\n    return torch.autograd.functional.vjp(f, x, v)[1]\n",
                "«torch.autograd.functional»",
            ),
            (
                "v por el jacobiano completo",
                "from torch.autograd.functional import jacobian\n\n\n"
                "def vjp(f, x, v):\n"
                "    completo = jacobian(f, x).reshape(v.numel(), x.numel())\n"
                "    return (v.reshape(1, -1) @ completo).reshape(x.shape)\n",
                "«torch.autograd.functional»",
            ),
        ],
        "ej3_solucion": [
            (
                "v preguntado a autograd",
                "def vector_equivalente(y, reduccion):\n"
                "    hoja = y.detach().clone().requires_grad_(True)\n"
                "    reducciones = {\n"
                '        "suma": lambda t: t.sum(),\n'
                '        "media": lambda t: t.mean(),\n'
                '        "media_del_lote": lambda t: t.sum() / t.shape[0],\n'
                '        "suma_de_cuadrados": lambda t: (t**2).sum(),\n'
                "    }\n"
                "    return torch.autograd.grad(reducciones[reduccion](hoja), hoja)[0]\n",
                "«torch.autograd»",
            )
        ],
        "ej4_solucion": [
            (
                "la diagonal del jacobiano de torch.autograd.functional",
                "def derivadas(f, x):\n"
                "    completo = torch.autograd.functional.jacobian(f, x).reshape(x.numel(), x.numel())\n"
                "    return completo.diagonal().reshape(x.shape)\n",
                "«torch.autograd.functional»",
            )
        ],
        "ej5_solucion": [
            (
                "torch.autograd.functional.jacobian",
                "def jacobiano(f, x):\n    return torch.autograd.functional.jacobian(f, x)\n",
                "«torch.autograd.functional»",
            )
        ],
    },
}

# Answer cells whose solution, wrapped whole in ``with torch.enable_grad():``, must keep full marks.
CON_ENABLE_GRAD = {
    "03_backward_y_regla_de_la_cadena": ["ej1_solucion", "ej3_solucion", "ej5_solucion"],
    "04_gradientes_no_escalares": ["ej2_solucion", "ej4_solucion", "ej5_solucion"],
}

# Lessons 05–08: the same promises, for the APIs their statements forbid or require.
_DIFERENCIAS_FINITAS = (
    "    h = 1e-6\n"
    "    plano = {x}.detach().clone().reshape(-1)\n"
    "    gradiente = torch.zeros_like(plano)\n"
    "    for i in range(plano.numel()):\n"
    "        mas, menos = plano.clone(), plano.clone()\n"
    "        mas[i] += h\n"
    "        menos[i] -= h\n"
    "        gradiente[i] = ({L}(mas.reshape({x}.shape)) - {L}(menos.reshape({x}.shape))) / (2 * h)\n"
    "    return gradiente.reshape({x}.shape)\n"
)
PROHIBIDAS.update(
    {
        "05_acumulacion_de_gradientes": {
            "ej2_solucion": [
                (
                    "el zero_grad() de un optimizador",
                    "def vaciar_y_retropropagar(parametros, perdida, set_to_none=True):\n"
                    "    torch.optim.SGD(list(parametros.values()), lr=0.1).zero_grad(set_to_none=set_to_none)\n"
                    "    perdida.backward()\n",
                    "«.zero_grad»",
                )
            ],
            "ej4_solucion": [
                (
                    "torch.optim.SGD con momento",
                    "def paso_con_momento(parametros, perdida, tasa, momento, velocidades):\n"
                    "    sgd = torch.optim.SGD(parametros, lr=tasa, momentum=momento)\n"
                    "    for p, v in zip(parametros, velocidades):\n"
                    "        if v is not None:\n"
                    '            sgd.state[p]["momentum_buffer"] = v.clone()\n'
                    "    sgd.zero_grad()\n"
                    "    perdida.backward()\n"
                    "    sgd.step()\n"
                    '    return perdida.item(), [sgd.state[p].get("momentum_buffer") for p in parametros]\n',
                    "«torch.optim»",
                )
            ],
        },
        "06_desactivar_el_seguimiento": {
            "ej4_solucion": [
                (
                    "torch.nn.utils.clip_grad_norm_",
                    "def paso_recortado(parametros, perdida, tasa, norma_maxima):\n"
                    "    entrenables = [p for p in parametros if p.requires_grad]\n"
                    "    for p in entrenables:\n"
                    "        p.grad = None\n"
                    "    perdida.backward()\n"
                    "    norma = float(torch.nn.utils.clip_grad_norm_(entrenables, norma_maxima))\n"
                    "    with torch.no_grad():\n"
                    "        for p in entrenables:\n"
                    "            p -= tasa * p.grad\n"
                    "    return norma\n",
                    "«torch.nn.utils»",
                ),
                (
                    "el gradiente escrito a mano, sin autograd",
                    "def paso_recortado(parametros, perdida, tasa, norma_maxima):\n"
                    "    entrenables = [p for p in parametros if p.requires_grad]\n"
                    "    with torch.no_grad():\n"
                    "        for p in entrenables:\n"
                    "            p.grad = 2 * (p - 3)\n"
                    "            p -= tasa * p.grad\n"
                    "    return 0.0\n",
                    "paso_recortado",
                ),
            ],
            "ej5_solucion": [
                (
                    "diferencias finitas, sin autograd",
                    "def gradiente_dentro(f, x):\n" + _DIFERENCIAS_FINITAS.format(x="x", L="f"),
                    "que no requieren gradiente",
                )
            ],
        },
        "07_errores_comunes": {
            "ej1_solucion": [
                (
                    "diferencias finitas, sin autograd",
                    "def gradiente_softplus(f, w):\n"
                    "    def L(v):\n"
                    "        return torch.log1p(torch.exp(f(v))).sum()\n\n" + _DIFERENCIAS_FINITAS.format(x="w", L="L"),
                    "que no requieren gradiente",
                )
            ],
            "ej2_solucion": [
                (
                    "el jacobiano de torch.autograd.functional",
                    "def gradientes_por_ejemplo(f, w):\n"
                    "    plano = w.detach().clone().reshape(-1)\n"
                    "    perdidas = lambda v: torch.log1p(f(v.reshape(w.shape)) ** 2)  # noqa: E731\n"
                    "    jac = torch.autograd.functional.jacobian(perdidas, plano)\n"
                    "    return [fila.reshape(w.shape) for fila in jac]\n",
                    "«torch.autograd.functional»",
                )
            ],
        },
        "08_proyecto_final": {
            "ej1_solucion": [
                (
                    "torch.nn.functional.mse_loss",
                    "def perdida_mse(prediccion, y):\n    return torch.nn.functional.mse_loss(prediccion, y)\n",
                    "«torch.nn»",
                )
            ],
            "ej2_solucion": [
                (
                    "torch.optim.SGD",
                    "def paso(parametros, perdida, tasa):\n"
                    "    optimizador = torch.optim.SGD(parametros, lr=abs(tasa), maximize=tasa < 0)\n"
                    "    optimizador.zero_grad()\n"
                    "    perdida.backward()\n"
                    "    optimizador.step()\n"
                    "    return perdida.item()\n",
                    "«torch.optim»",
                )
            ],
            "ej4_solucion": [
                (
                    "torch.optim.SGD",
                    "def entrenar(x, y, tasa, epocas, modelo=recta):\n"
                    "    w = torch.zeros((), dtype=torch.float64, requires_grad=True)\n"
                    "    b = torch.zeros((), dtype=torch.float64, requires_grad=True)\n"
                    "    optimizador = torch.optim.SGD([w, b], lr=abs(tasa), maximize=tasa < 0)\n"
                    "    historial = []\n"
                    "    for _ in range(epocas):\n"
                    "        optimizador.zero_grad()\n"
                    "        perdida = ((modelo(x, w, b) - y) ** 2).mean()\n"
                    "        perdida.backward()\n"
                    "        optimizador.step()\n"
                    "        historial.append(perdida.item())\n"
                    "    return w, b, historial\n",
                    "«torch.optim»",
                ),
                (
                    "copias sin historia en lugar de los tensores hoja",
                    "def entrenar(x, y, tasa, epocas, modelo=recta):\n"
                    "    w = torch.zeros((), dtype=torch.float64, requires_grad=True)\n"
                    "    b = torch.zeros((), dtype=torch.float64, requires_grad=True)\n"
                    "    historial = []\n"
                    "    for _ in range(epocas):\n"
                    "        perdida = ((modelo(x, w, b) - y) ** 2).mean()\n"
                    "        gw, gb = torch.autograd.grad(perdida, (w, b))\n"
                    "        with torch.no_grad():\n"
                    "            w -= tasa * gw\n"
                    "            b -= tasa * gb\n"
                    "        historial.append(perdida.item())\n"
                    "    return w.detach(), b.detach(), historial\n",
                    "los tensores hoja que entrenaste",
                ),
            ],
        },
    }
)
# What the reading cannot miss. A forbidden API hidden from a reader that skips compound statements,
# imports inside a function, aliases or dynamic access; and a «uses X» met only by a mention that never runs.
_AUTOGRAD_EN_UN_IF = (
    "if True:\n"
    "    from torch.autograd import grad as _derivar\n\n\n"
    "def derivada_a_mano(x):\n"
    "    x = x.detach().clone().requires_grad_(True)\n"
    "    return _derivar(((torch.sin(3 * x) + 2) ** 3).sum(), x)[0]\n"
)
_OCULTAS = {
    # Dynamic access anywhere leaves the whole notebook unreadable: alone in its round of lesson 01, where no other
    # exercise reads the code.
    "01_tensores_y_requires_grad": {
        "ej6_solucion": [
            (
                "requires_grad leído con getattr",
                "def prediccion(requiere_a, requiere_b):\n"
                "    c = torch.ones(1, requires_grad=requiere_a) * torch.ones(1, requires_grad=requiere_b)\n"
                "    return (getattr(c, 'requires_' + 'grad'), c.is_leaf, False, True)\n",
                "getattr()",
            )
        ]
    },
    "03_backward_y_regla_de_la_cadena": {
        "ej2_solucion": [("autograd importado dentro de un if", _AUTOGRAD_EN_UN_IF, "«torch.autograd»")],
        "ej4_solucion": [
            (
                "autograd importado dentro de la función",
                "def retropropagar_a_mano(a, b):\n"
                "    from torch.autograd import grad\n\n"
                "    a, b = (t.detach().clone().requires_grad_(True) for t in (a, b))\n"
                "    c = a * b\n"
                "    d = c + a\n"
                "    e = d * d\n"
                "    gd, gc, ga, gb = grad(e.sum(), (d, c, a, b))\n"
                "    return {'e': torch.ones_like(e), 'd': gd, 'c': gc, 'a': ga, 'b': gb}\n",
                "«torch.autograd»",
            )
        ],
    },
    "04_gradientes_no_escalares": {
        "ej5_solucion": [
            (
                "el jacobiano con un alias en un try",
                "try:\n    funcional = torch.autograd.functional\nexcept ImportError:\n    funcional = None\n\n\n"
                "def jacobiano(f, x):\n    return funcional.jacobian(f, x)\n",
                "«torch.autograd.functional»",
            )
        ],
    },
    "06_desactivar_el_seguimiento": {
        "ej5_solucion": [
            (
                "diferencias finitas con un backward() muerto",
                "def gradiente_dentro(f, x):\n    if False:\n        f(x).backward()\n"
                + _DIFERENCIAS_FINITAS.format(x="x", L="f"),
                "que no requieren gradiente",
            )
        ]
    },
    "07_errores_comunes": {
        "ej2_solucion": [
            (
                "el jacobiano por un módulo que torch expone",
                "def gradientes_por_ejemplo(f, w):\n"
                "    plano = w.detach().clone().reshape(-1)\n"
                "    perdidas = lambda v: torch.log1p(f(v.reshape(w.shape)) ** 2)  # noqa: E731\n"
                "    jac = torch.nn.functional.torch.autograd.functional.jacobian(perdidas, plano)\n"
                "    return [fila.reshape(w.shape) for fila in jac]\n",
                "«torch.autograd.functional»",
            )
        ]
    },
    "08_proyecto_final": {
        "ej1_solucion": [
            (
                "mse_loss importada dentro de la función",
                "def perdida_mse(prediccion, y):\n"
                "    from torch.nn.functional import mse_loss\n\n"
                "    return mse_loss(prediccion, y)\n",
                "«torch.nn»",
            )
        ],
        "ej2_solucion": [
            (
                "torch.optim con un alias dentro de un with",
                "with torch.no_grad():\n    O = torch.optim\n\n\n"
                "def paso(parametros, perdida, tasa):\n"
                "    optimizador = O.SGD(parametros, lr=abs(tasa), maximize=tasa < 0)\n"
                "    optimizador.zero_grad()\n"
                "    perdida.backward()\n"
                "    optimizador.step()\n"
                "    return perdida.item()\n",
                "«torch.optim»",
            )
        ],
    },
}
_OCULTAS["10_ganchos_y_funciones_propias"] = {
    "ej4_solucion": [
        (
            "la softplus de PyTorch importada dentro de un with",
            "with torch.no_grad():\n    from torch.nn.functional import softplus as _suave\n\n\n"
            "def adelante(x):\n    return _suave(x), (x,)\n\n\n"
            "def atras(guardado, grad_y):\n    (x,) = guardado\n    return grad_y * torch.sigmoid(x)\n",
            "softplus",
        )
    ],
}
_OCULTAS["09_mas_alla_de_backward"] = {
    "ej2_solucion": [
        (
            "torch.sinc con un alias en un try",
            "try:\n    _s = torch.sinc\nexcept AttributeError:\n    _s = None\n\n\n"
            "def sinc(x):\n    return _s(x / math.pi)\n",
            "«torch.sinc»",
        )
    ],
}
for _leccion, _respuestas in _OCULTAS.items():
    for _respuesta, _casos in _respuestas.items():
        PROHIBIDAS.setdefault(_leccion, {}).setdefault(_respuesta, []).extend(_casos)

# What the grader cannot observe earns no automatic point for that part: full marks for what it observed, and a
# note for the instructor in the cell's output and in the submission's status ({lesson: {answer: [(case, code)]}}).
MARCADAS = {
    "03_backward_y_regla_de_la_cadena": {
        "ej5_solucion": [
            (
                "un gancho en lugar de retain_grad()",
                "def gradiente_intermedio(g, x):\n"
                "    x = x.detach().clone().requires_grad_(True)\n"
                "    guardados = []\n"
                "    u = g(x)\n"
                "    u.register_hook(guardados.append)\n"
                "    (u**3).backward()\n"
                "    return guardados[0], x.grad\n",
            ),
            (
                "dy/du a mano con un retain_grad() muerto",
                "def gradiente_intermedio(g, x):\n"
                "    x = x.detach().clone().requires_grad_(True)\n"
                "    u = g(x)\n"
                "    if False:\n"
                "        u.retain_grad()\n"
                "    (u**3).backward()\n"
                "    return 3 * u.detach() ** 2, x.grad\n",
            ),
        ],
        "ej4_solucion": [
            (
                "cada gradiente derivado de golpe, sin recorrer el grafo",
                "def retropropagar_a_mano(a, b):\n"
                "    d = a * b + a\n"
                "    return {'e': 1.0, 'd': 2 * d, 'c': 2 * d, 'a': 2 * d * (b + 1), 'b': 2 * d * a}\n",
            )
        ],
    }
}
MARCA = "para revisar a mano"
# Lesson 09: forward mode (ej4) and vmap (ej5) cannot be observed; values the grader checks to float64's rounding (ej4)
# and at a size a loop cannot reach in time (ej5) keep full marks, with a note for the instructor.
MARCADAS["09_mas_alla_de_backward"] = {
    "ej2_solucion": [
        (
            "sin where: x desplazado un poco (el nan se esconde en -2**-50)",
            "def sinc(x):\n    z = x + 2.0**-50\n    return torch.sin(z) / z\n",
        )
    ],
    "ej4_solucion": [
        (
            "J v con la regla de la cadena escrita a mano",
            "def derivada_direccional(W1, W2, x, v):\n"
            "    s = torch.tanh(W1 @ x)\n"
            "    return W2 @ s, W2 @ ((1 - s**2) * (W1 @ v))\n",
        )
    ],
    "ej5_solucion": [
        (
            "el gradiente de cada ejemplo escrito a mano, sin vmap",
            "def gradientes_por_ejemplo(w, X, y):\n"
            "    t = torch.tanh(X @ w)\n"
            "    return (2 * (t - y) * (1 - t**2)).unsqueeze(1) * X\n",
        )
    ],
}
# A gradient written by hand and given to backward: the grader sees the honest gradient reach f, and the reading of
# the answer leaves the instructor a note.
NOTA_SI_HACE_FALTA = {
    "01_tensores_y_requires_grad": ("ej5_solucion",),
    "02_grafo_computacional": ("ej1_solucion", "ej4_solucion"),
    "07_errores_comunes": ("ej1_solucion", "ej2_solucion", "ej3_solucion"),
    "08_proyecto_final": ("ej1_solucion", "ej4_solucion"),
}
# A value and its derivative written by hand standing in for the graph (``v + d * (x - x.detach())``): the grader sees
# the honest gradient, and the reading leaves the same note.
MARCADAS["01_tensores_y_requires_grad"] = {
    "ej5_solucion": [
        (
            "el valor y la derivada a mano, unidos al grafo por w − w.detach()",
            "def perdida_cuadratica(w, x, y):\n"
            "    e = w.detach() * x - y\n"
            "    return (e**2).mean() + (2 * e * x).mean() * (w - w.detach())\n",
        )
    ]
}
MARCADAS["02_grafo_computacional"] = {
    "ej1_solucion": [
        (
            "el valor y las derivadas a mano, unidos al grafo por a − a.detach()",
            "def paso_adelante(a, b):\n"
            "    A, B = a.detach(), b.detach()\n"
            "    return (B + 1) * (a - A) + A * (b - B) + (A * B + A)\n",
        )
    ],
    "ej4_solucion": [
        (
            "el valor y la derivada a mano, unidos al grafo por x − x.detach()",
            "def f_con_control(x):\n"
            "    v = x.detach()\n"
            "    y, d = (v * v + 1, 2 * v) if v > 0 else (1 - v, -torch.ones_like(v))\n"
            "    while y < 10:\n"
            "        y, d = 2 * y, 2 * d\n"
            "    return d * (x - v) + y\n",
        )
    ],
}
MARCADAS["07_errores_comunes"] = {
    "ej1_solucion": [
        (
            "la derivada del softplus, fuera del grafo, dada a backward",
            "def gradiente_softplus(f, w):\n"
            "    w = w.detach().clone().requires_grad_(True)\n"
            "    y = f(w)\n"
            "    y.backward(torch.sigmoid(y.detach()))\n"
            "    return w.grad\n",
        )
    ],
    "ej2_solucion": [
        (
            "la derivada de cada pérdida, fuera del grafo, dada a autograd.grad",
            "def gradientes_por_ejemplo(f, w):\n"
            "    w = w.detach().clone().requires_grad_(True)\n"
            "    y = f(w)\n"
            "    d = 2 * y.detach() / (1 + y.detach() ** 2)\n"
            "    gradientes = []\n"
            "    for i in range(len(y)):\n"
            "        v = torch.zeros_like(y)\n"
            "        v[i] = d[i]\n"
            "        gradientes.append(torch.autograd.grad(y, w, v, retain_graph=True)[0])\n"
            "    return gradientes\n",
        )
    ],
    "ej3_solucion": [
        (
            "la derivada de la máscara, fuera del grafo, dada a backward",
            "def gradiente_anulado(f, w, pesos, umbral):\n"
            "    w = w.detach().clone().requires_grad_(True)\n"
            "    y = f(w)\n"
            "    t = torch.tanh(y.detach())\n"
            "    y.backward(pesos * (1 - t**2) * (t >= umbral))\n"
            "    return w.grad\n",
        )
    ],
}
MARCADAS["08_proyecto_final"] = {
    "ej1_solucion": [
        (
            "el valor y las derivadas a mano, unidos al grafo por p − p.detach()",
            "def perdida_mse(prediccion, y):\n"
            "    p, t = prediccion.detach(), y.detach()\n"
            "    d = 2 * (p - t) / (p - t).numel()\n"
            "    return (d * (prediccion - p)).sum() - (d * (y - t)).sum() + ((p - t) ** 2).mean()\n",
        )
    ],
    "ej4_solucion": [
        (
            "la derivada del error cuadrático medio, a mano, dada a backward",
            "def entrenar(x, y, tasa, epocas, modelo=recta):\n"
            "    w, b = [torch.zeros((), dtype=x.dtype, requires_grad=True) for _ in range(2)]\n"
            "    historial = []\n"
            "    for _ in range(epocas):\n"
            "        prediccion = modelo(x, w, b)\n"
            "        error = prediccion.detach() - y\n"
            "        historial.append(float((error**2).mean()))\n"
            "        prediccion.backward(2 * error / error.numel())\n"
            "        with torch.no_grad():\n"
            "            w -= tasa * w.grad\n"
            "            b -= tasa * b.grad\n"
            "        w.grad = None\n"
            "        b.grad = None\n"
            "    return w, b, historial\n",
        )
    ],
}

_REGISTRO = (
    "\n\nregistradas = []\n\n\n"
    "def registrar(f):\n    registradas.append(f)\n    print('registrada:', f.__name__)\n    return f\n"
)
# Honest answers in other styles keep full marks ({lesson: {answer: [(case, code, or None for the solution rebound
# by hand as ``f = registrar(f)``)]}}).
HONESTAS = {
    "03_backward_y_regla_de_la_cadena": {
        "ej2_solucion": [
            (
                "con numpy y una ayuda que imprime",
                "import numpy as np\n\n\ndef coseno(v):\n    print('coseno de', v.shape)\n    return np.cos(v)\n\n\n"
                "def derivada_a_mano(x):\n"
                "    v = x.detach().numpy()\n"
                "    return torch.from_numpy(np.asarray(9 * (np.sin(3 * v) + 2) ** 2 * coseno(3 * v)))\n",
            ),
            ("reasignada con un registro", None),
        ]
    },
    "04_gradientes_no_escalares": {
        "ej2_solucion": [
            (
                "con torch.autograd.grad y grad_outputs=v",
                "def vjp(f, x, v):\n"
                "    x = x.detach().clone().requires_grad_(True)\n"
                "    (gradiente,) = torch.autograd.grad(f(x), x, grad_outputs=v)\n"
                "    return gradiente\n",
            )
        ],
        "ej3_solucion": [("reasignada con un registro", None)],
    },
    "01_tensores_y_requires_grad": {"ej5_solucion": [("reasignada con un registro", None)]},
    "02_grafo_computacional": {
        "ej1_solucion": [("reasignada con un registro", None)],
        "ej4_solucion": [("reasignada con un registro", None)],
    },
    "05_acumulacion_de_gradientes": {"ej2_solucion": [("reasignada con un registro", None)]},
    "07_errores_comunes": {
        "ej1_solucion": [
            (
                "con torch.autograd.grad y una ayuda que deriva",
                "def derivar(perdida, w):\n    return torch.autograd.grad(perdida, w)[0]\n\n\n"
                "def gradiente_softplus(f, w):\n"
                "    w = w.clone().requires_grad_()\n"
                "    return derivar(torch.nn.functional.softplus(f(w)).sum(), w)\n",
            )
        ],
        "ej2_solucion": [("reasignada con un registro", None)],
        "ej3_solucion": [("reasignada con un registro", None)],
    },
    "08_proyecto_final": {
        "ej1_solucion": [("reasignada con un registro", None)],
        "ej4_solucion": [("reasignada con un registro", None)],
    },
    "09_mas_alla_de_backward": {"ej4_solucion": [("reasignada con un registro", None)]},
    "10_ganchos_y_funciones_propias": {"ej2_solucion": [("reasignada con un registro", None)]},
}

CON_ENABLE_GRAD.update(
    {
        "05_acumulacion_de_gradientes": ["ej2_solucion", "ej3_solucion", "ej4_solucion", "ej5_solucion"],
        "06_desactivar_el_seguimiento": ["ej2_solucion", "ej3_solucion", "ej4_solucion", "ej5_solucion"],
        "07_errores_comunes": ["ej1_solucion", "ej2_solucion", "ej3_solucion", "ej4_solucion"],
        # entrenar y tasa_maxima_estable call the student's paso and entrenar, which another case may replace.
        "08_proyecto_final": ["ej1_solucion", "ej2_solucion"],
    }
)


def _solucion_10(answer_id, old, new):
    """Lesson 10's solution of ``answer_id`` with ``old`` replaced by ``new`` (once); "" if the lesson is absent."""
    lesson = next((item for item in available_lessons() if item.id == "11_tu_propio_autograd"), None)
    if lesson is None:
        return ""
    cell = next(c for c in read(lesson.source).cells if nbgrader_meta(c).get("grade_id") == answer_id)
    code = "\n".join(line for line in cell.source.splitlines() if line.strip() not in MARKERS) + "\n"
    assert code.count(old) == 1, (answer_id, old)
    return code.replace(old, new)


# Lesson 10: the engine reaches only math and collections, however another module is brought in (an import inside a
# method, a compound statement); honest styles (an answer rebound by hand) keep full marks.
for _respuesta, _caso in {
    "ej1_solucion": (
        "tanh de torch importada dentro del método",
        _solucion_10(
            "ej1_solucion",
            "        t = math.tanh(self.dato)\n",
            "        from torch import tanh, tensor\n\n        t = float(tanh(tensor(self.dato)))\n",
        ),
        "«torch»",
    ),
    "ej2_solucion": (
        "graphlib importado dentro de un if",
        "if True:\n    import graphlib as _grafos\n\n\ndef orden_topologico(raiz, hijos):\n"
        "    grafo, pendientes = {}, [raiz]\n    while pendientes:\n        nodo = pendientes.pop()\n"
        "        if nodo not in grafo:\n            grafo[nodo] = tuple(hijos(nodo))\n"
        "            pendientes.extend(grafo[nodo])\n"
        "    return list(_grafos.TopologicalSorter(grafo).static_order())\n",
        "«graphlib»",
    ),
    "ej5_solucion": (
        "el paso con torch en un try",
        "try:\n    import torch as _t\nexcept ImportError:\n    _t = None\n\n\n"
        + _solucion_10(
            "ej5_solucion",
            "    return perdida.dato, [hoja.dato - tasa * hoja.grad for hoja in hojas.values()]\n",
            "    p = _t.tensor([h.grad for h in hojas.values()], dtype=_t.float64)\n"
            "    return perdida.dato, (_t.tensor(parametros, dtype=_t.float64) - tasa * p).tolist()\n",
        ),
        "«torch»",
    ),
}.items():
    PROHIBIDAS.setdefault("11_tu_propio_autograd", {}).setdefault(_respuesta, []).append(_caso)
HONESTAS["11_tu_propio_autograd"] = {
    "ej2_solucion": [("reasignada con un registro", None)],
    "ej5_solucion": [("reasignada con un registro", None)],
}


@dataclass
class Case:
    lesson: object
    answer_id: str  # the answer cell it replaces
    test_id: str  # the exercise's test cell
    kind: str  # "visible", "prohibida", "prediccion", "enable_grad", "marcada" or "honesta"
    label: str
    code: str
    full_marks: bool = False  # expected: full marks (else none)
    named: str = ""  # what the failure message must contain
    student: str = ""
    flagged: bool = False  # expected: a note for the instructor, in the cell and in the submission's status

    @property
    def id(self):
        return f"{self.lesson.id[:2]}-{self.answer_id}-{self.kind}-{self.label}"


def solution_code(cell):
    return "\n".join(line for line in cell.source.splitlines() if line.strip() not in MARKERS)


def exercises(lesson):
    """``[(answer cell, its test cell, the heading of its statement)]`` from the instructor's notebook."""
    found, pending, heading = [], [], ""
    for cell in read(lesson.source).cells:
        meta = nbgrader_meta(cell)
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            heading = cell.source.lstrip().splitlines()[0]
        elif meta.get("solution") and cell.cell_type == "code":
            pending.append((cell, heading))
        elif is_test_cell(cell):
            found += [(answer, cell, title) for answer, title in pending]
            pending = []
    return found


def visible_part(test_cell):
    lines = HIDDEN.sub("", test_cell.source).splitlines()
    return "\n".join(line for line in lines if not line.startswith("%%"))


def exercise_function(answer_cell):
    tree = ast.parse(solution_code(answer_cell))
    return next(node for node in tree.body if isinstance(node, ast.FunctionDef))


def pasted(function, name):
    """The source of ``function`` renamed ``name``, after the imports an answer cell may rely on."""
    renamed = copy.deepcopy(function)
    renamed.name = name
    return f"import math\n\nimport torch\n\n\n{ast.unparse(renamed)}\n"


def with_statement_first(function, statement):
    """The function with ``statement`` (source) run first, or with its whole body inside it if it ends in ``:``."""
    changed = copy.deepcopy(function)
    if statement.endswith(":"):
        block = ast.parse(f"{statement}\n    pass").body[0]
        block.body = changed.body
        changed.body = [block]
    else:
        changed.body = [*ast.parse(statement).body, *changed.body]
    return ast.fix_missing_locations(changed)


def cases_of(lesson):
    cases = []
    for answer, test, heading in exercises(lesson):
        answer_id, test_id = nbgrader_meta(answer)["grade_id"], nbgrader_meta(test)["grade_id"]
        function = exercise_function(answer)
        for node in ast.walk(ast.parse(visible_part(test))):
            if isinstance(node, ast.FunctionDef):
                cases.append(Case(lesson, answer_id, test_id, "visible", node.name, pasted(node, function.name)))
        for label, code, named in PROHIBIDAS.get(lesson.id, {}).get(answer_id, []):
            cases.append(Case(lesson, answer_id, test_id, "prohibida", label, code, named=named))
        if "predice" in heading.lower():
            for label, before, statement in (
                ("llama a torch", "", "torch.zeros(1)"),
                ("torch en un nombre de un if", "if True:\n    _ayuda = torch.zeros\n\n\n", "_ayuda(1)"),
                ("torch importado dentro", "", "from torch import zeros as _ceros\n_ceros(1)"),
            ):
                computed = with_statement_first(function, statement)
                code = f"import torch\n\n{before}\n{ast.unparse(computed)}\n"
                cases.append(Case(lesson, answer_id, test_id, "prediccion", label, code, named="«torch»"))
        for label, code in MARCADAS.get(lesson.id, {}).get(answer_id, []):
            cases.append(Case(lesson, answer_id, test_id, "marcada", label, code, full_marks=True, flagged=True))
        for label, code in HONESTAS.get(lesson.id, {}).get(answer_id, []):
            name = function.name
            code = code or f"{solution_code(answer)}{_REGISTRO}\n{name} = registrar({name})\n"
            cases.append(Case(lesson, answer_id, test_id, "honesta", label, code, full_marks=True))
        if answer_id in CON_ENABLE_GRAD.get(lesson.id, []):
            wrapped = with_statement_first(function, "with torch.enable_grad():")
            code = f"import torch\n\n\n{ast.unparse(wrapped)}\n"
            cases.append(Case(lesson, answer_id, test_id, "enable_grad", "solución", code, full_marks=True))
    return cases


LESSONS = available_lessons()
CASES = [case for lesson in LESSONS for case in cases_of(lesson)]


def rounds(cases):
    """``{student: [cases]}``: round ``k`` holds the ``k``-th case of each exercise of one lesson."""
    by_exercise = {}
    for case in cases:
        by_exercise.setdefault((case.lesson.id, case.answer_id), []).append(case)
    students = {}
    for (lesson_id, _), items in by_exercise.items():
        for k, case in enumerate(items):
            case.student = f"ronda{k}"
            students.setdefault((case.student, lesson_id), []).append(case)
    return students


def error_text(outputs):
    parts = []
    for output in outputs:
        if output.output_type == "error":
            parts += [output.get("evalue", ""), *output.get("traceback", [])]
    return ANSI.sub("", "\n".join(parts))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every case graded once, in one batch: ``{case id: (points, maximum, error text)}``."""
    workspace = tmp_path_factory.mktemp("enunciados")
    folder = workspace / "entregas"
    lessons = {lesson.id: lesson for lesson in LESSONS}
    for (student, lesson_id), cases in rounds(CASES).items():
        lesson = lessons[lesson_id]
        notebook = answered(lesson)
        replacements = {case.answer_id: case.code for case in cases}
        for cell in notebook.cells:
            grade_id = nbgrader_meta(cell).get("grade_id")
            if nbgrader_meta(cell).get("solution") and cell.cell_type == "code" and grade_id in replacements:
                cell.source = replacements[grade_id]
        path = folder / student / lesson_id / lesson.notebook_name
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)
    result = batch.run(folder, workspace, workers=2)
    maxima = {
        lesson.id: {grade_id: points for grade_id, points, automatic in lesson.graded_cells() if automatic}
        for lesson in LESSONS
    }
    outcomes = {}
    for case in CASES:
        grades = row(result, case.lesson, case.student)
        cells = autograded_notebook(result, case.lesson, case.student).cells
        outputs = next(c.outputs for c in cells if nbgrader_meta(c).get("grade_id") == case.test_id)
        notes = "".join(o.get("data", {}).get("text/plain", "") for o in outputs if o.output_type == "display_data")
        status = result.statuses(case.lesson.id)[case.student]
        points, maximum = float(grades[case.test_id]), maxima[case.lesson.id][case.test_id]
        outcomes[case.id] = (points, maximum, error_text(outputs), notes, status)
    return outcomes


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_grade_keeps_what_the_statement_promises(graded, case):
    points, maximum, error, notes, status = graded[case.id]
    if case.flagged:
        assert "Para revisar a mano" in notes and MARCA in status, f"{case.id}: sin nota para revisar ({status})"
    if case.kind == "honesta" and case.answer_id in NOTA_SI_HACE_FALTA.get(case.lesson.id, ()):
        assert "Para revisar a mano" not in notes, f"{case.id}: una respuesta honrada con nota ({notes})"
    if case.full_marks:
        assert points == maximum and not error, f"{case.id}: {points} de {maximum}\n{error}\n{case.code}"
        return
    assert points == 0, f"{case.id}: obtiene {points} de {maximum} con\n{case.code}"
    if case.named:
        assert case.named in error, f"{case.id}: el mensaje no dice {case.named}:\n{error}"


def test_every_lesson_checks_its_predictions_and_the_exercises_the_issue_names():
    kinds = {(case.lesson.id[:2], case.answer_id, case.kind) for case in CASES}
    for lesson in LESSONS:
        headings = [heading for _, _, heading in exercises(lesson)]
        if any("predice" in heading.lower() for heading in headings):
            assert any(k[0] == lesson.id[:2] and k[2] == "prediccion" for k in kinds), lesson.id
    for lesson_id, answers in [("04", ["ej2_solucion", "ej4_solucion", "ej5_solucion"]), ("03", ["ej1_solucion"])]:
        if any(lesson.id.startswith(lesson_id) for lesson in LESSONS):
            kind = "prohibida"
            assert all((lesson_id, answer, kind) in kinds for answer in answers), (lesson_id, answers)
    if any(lesson.id.startswith("03") for lesson in LESSONS):
        assert {("03", "ej1_solucion", "enable_grad"), ("03", "ej5_solucion", "enable_grad")} <= kinds
