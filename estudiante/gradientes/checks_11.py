"""Checks of lesson 11 (tu propio autograd): the engine is judged by what it computes and by all it can reach.

The grader cannot hold the student's ``Valor`` objects (only data crosses from the sealed kernel), so the
engine is observed through the data the lesson's helpers return on programs the test chooses: the children
each output records, the gradients other passes left behind (kept, never zeroed), and values compared with
a reference computed here, in plain Python floats, to a tolerance that follows the rounding of each
operation (:func:`evaluate`). That tolerance is a few units of float64's last place: an engine that writes
each local derivative gets there in any order of its sums; one that estimates derivatives by finite
differences, even of high order, does not (about 1e-14 at best). What the engine may use is read by
:func:`check_statement`, which fails closed: every name followed, and no module but ``math`` and
``collections``.
"""

import ast
import copy
import math

from gradientes.checks import (
    AUTOGRAD_APIS,
    NO_COMPLEX,
    check_number,
    check_statement,
    check_tensor,
    describe,
    fail,
    is_tensor,
    outside_allowlist,
)
from gradientes.reading import notebook_reading, read, student_sources

ENGINE_MODULES = ("math", "collections")
EPS = 2.0**-52
# Tolerance of a value computed by the engine, in units of EPS times its error scale (see evaluate): any honest
# order of the sums stays well inside; finite differences of any order land outside almost always.
ENGINE_ULPS = 8
# Exercise 1, one operation: the tolerance relative to |previous| + |local derivative · g|. Measured: writing the
# derivative of tanh another way (1/cosh², (1 - t)(1 + t)) moves it at most 1.1e-15 on [-1.5, 1.5]; an 8-point finite
# difference at its best step lands within 2e-15 about one time in ten (within 1e-15 for exp, one in three).
LOCAL_TOLERANCE = {"tanh": 2e-15, "exp": 1e-15, "**": 2e-15}
LOCAL_DEFAULT = 1e-15


def check_engine_code(answer, hint=None, modules=ENGINE_MODULES):
    """The engine behind ``answer`` (a name of the notebook) uses only Python's real numbers, ``math`` and
    ``collections`` (and whatever else of ``modules``: the network of section 7 may draw its weights with
    ``random``, which computes no derivative)."""
    check_statement(
        answer,
        modules=modules,
        forbidden=NO_COMPLEX,
        hint=hint
        or "tu motor calcula con números reales de Python y math (y collections, si te sirve), nada más: cada "
        "derivada local, con su fórmula.",
    )


def _local(operation, arguments, exponent=None):
    """``(value, its error scale, [(child, local derivative, its error scale)])`` of one operation; ``arguments`` are
    ``(child name or None for a number, value, error scale)``."""
    a, x, sx = arguments[0]
    if operation in ("+", "*"):
        b, y, sy = arguments[1]
        if operation == "+":
            return x + y, sx + sy + abs(x + y), [(a, 1.0, 1.0), (b, 1.0, 1.0)]
        return x * y, abs(y) * sx + abs(x) * sy + abs(x * y), [(a, y, sy), (b, x, sx)]
    if operation == "**":
        n = exponent
        value, derivative = x**n, n * x ** (n - 1)
        relative = abs(n - 1) * sx / abs(x) if x else 0.0
        return value, abs(derivative) * sx + abs(value), [(a, derivative, abs(derivative) * (1 + relative))]
    if operation == "externa":  # the same value, with the local derivative of the test's rule
        k = exponent
        return x, sx, [(a, k, abs(k))]
    if operation == "tanh":
        t = math.tanh(x)
        return t, (1 - t * t) * sx + abs(t), [(a, 1 - t * t, 1.0 + 2 * abs(t) * (1 - t * t) * sx)]
    if operation == "exp":
        e = math.exp(x)
        return e, e * sx + e, [(a, e, e * (1 + sx))]
    if operation == "relu":
        slope = 1.0 if x > 0 else 0.0
        return max(x, 0.0), slope * sx, [(a, slope, slope)]
    raise ValueError(f"operación desconocida: {operation!r}")


# Operations whose second argument is a number of the instruction (the exponent, the factor of an "externa" rule).
WITH_NUMBER = ("**", "externa")


def _backward(programa, valores, g):
    """``(nodes, grads, scales)`` of one backward pass from ``g`` at the output: each node's ``(value, scale)``, and
    the gradient of every node with its error scale."""
    nodes = {name: (float(value), abs(float(value))) for name, value in valores.items()}
    rules = []
    for destino, operacion, *argumentos in programa:
        operands = argumentos[:1] if operacion in WITH_NUMBER else argumentos
        arguments = [(a, *nodes[a]) if isinstance(a, str) else (None, float(a), abs(float(a))) for a in operands]
        exponent = argumentos[1] if operacion in WITH_NUMBER else None
        value, scale, local = _local(operacion, arguments, exponent)
        nodes[destino] = (value, scale)
        rules.append((destino, local))
    output = programa[-1][0]
    grads = dict.fromkeys(nodes, 0.0)
    scales = dict.fromkeys(nodes, 0.0)
    grads[output], scales[output] = float(g), abs(float(g))
    for destino, local in reversed(rules):
        for child, derivative, scale in local:
            if child is not None:
                grads[child] += derivative * grads[destino]
                scales[child] += scale * scales[destino]
    return nodes, grads, scales


def evaluate(programa, valores, previos=None, g=1.0):
    """The reference of a program, in plain Python floats: ``(dato, escala, gradientes, escalas)``.

    ``dato`` is the output's value and ``gradientes`` the gradient of each leaf after one backward pass that starts
    with ``g`` at the output and with ``previos`` (what earlier passes left) at the leaves. Each ``escala`` bounds how
    far rounding can move that number, in units of EPS (a running error bound: the same sums taken with absolute
    values): an honest engine lands within a few of them, whatever order it adds in.
    """
    previos = previos or {}
    nodes, grads, scales = _backward(programa, valores, g)
    dato, escala = nodes[programa[-1][0]]
    gradientes = {name: previos.get(name, 0.0) + grads[name] for name in valores}
    escalas = {name: abs(previos.get(name, 0.0)) + scales[name] for name in valores}
    return dato, escala, gradientes, escalas


def dyadic(rng, low, high, bits=10):
    """A number of [low, high] with ``bits`` binary places (exact in float64, and in its sums and products)."""
    return rng.randrange(round(low * 2**bits), round(high * 2**bits) + 1) / 2**bits


def random_program(rng, leaves, size, bound=50.0):
    """A program of ``size`` instructions over ``leaves`` (names), where each node may be used several times, with
    numbers among the arguments; a bound on each node's size keeps values below ``bound``."""
    bounds = dict.fromkeys(leaves, 1.5)
    programa = []
    while len(programa) < size:
        destino = f"n{len(programa)}"
        operacion = rng.choice(["+", "*", "**", "tanh", "exp", "relu"])
        x = rng.choice(list(bounds)[-4:])  # among the most recent nodes
        y = rng.choice(list(bounds)) if rng.random() < 0.8 else dyadic(rng, -2.0, 2.0, 4)
        if operacion in ("+", "*"):
            other = abs(y) if isinstance(y, float) else bounds[y]
            instruccion = (destino, operacion, x, y) if rng.random() < 0.7 else (destino, operacion, y, x)
            limit = bounds[x] + other if operacion == "+" else bounds[x] * other
        elif operacion == "**":
            exponente = rng.choice([2, 3])
            instruccion, limit = (destino, "**", x, exponente), bounds[x] ** exponente
        else:
            instruccion = (destino, operacion, x)
            limit = {"tanh": 1.0, "exp": math.exp(bounds[x]), "relu": bounds[x]}[operacion]
        if limit <= bound:
            programa.append(instruccion)
            bounds[destino] = limit
    return programa


def with_externals(rng, programa, count):
    """``programa`` with ``count`` "externa" nodes: each copies a node, has a random factor for local derivative and
    takes that node's place in some of the later instructions (so both may reach the output); fewer if no node is
    used by a later instruction."""
    programa = list(programa)
    for j in range(count):
        used_later = [i for i, (nombre, *_) in enumerate(programa) if any(nombre in r[2:] for r in programa[i + 1 :])]
        if not used_later:
            break
        i = rng.choice(used_later)
        nombre = programa[i][0]
        later = [k for k in range(i + 1, len(programa)) if nombre in programa[k][2:]]
        nuevo = f"{nombre}_e{j}"
        for k in later:
            if k == later[0] or rng.random() < 0.5:
                destino, operacion, *argumentos = programa[k]
                programa[k] = (destino, operacion, *[nuevo if a == nombre else a for a in argumentos])
        factor = rng.choice([-1, 1]) * dyadic(rng, 0.25, 1.75, 6)
        programa.insert(i + 1, (nuevo, "externa", nombre, factor))
    return programa


def external_rule(factor):
    """The local rule of an "externa" node, the test's own: the child's share is ``factor`` times the gradient the
    node received; each received gradient is kept in ``regla.recibidos``."""

    def regla(g):
        regla.recibidos.append(g)
        return factor * g if type(g) in (int, float) else math.nan

    regla.factor, regla.recibidos = factor, []
    return regla


def with_rules(programa):
    """What the student's engine receives: ``programa`` with each "externa" factor replaced by its rule; and the rules,
    by node name."""
    reglas = {d: external_rule(args[1]) for d, operacion, *args in programa if operacion == "externa"}
    return [(d, o, a[0], reglas[d]) if o == "externa" else (d, o, *a) for d, o, *a in programa], reglas


def shown(programa):
    """The program as a message shows it, each rule written as the factor it applies."""
    text = repr([(d, o, *a) for d, o, *a in programa])
    for regla in {id(a[-1]): a[-1] for _, o, *a in programa if o == "externa" and callable(a[-1])}.values():
        text = text.replace(repr(regla), f"<la regla de la prueba: g ↦ {regla.factor!r}·g>")
    return text


def expected_received(programa, valores, name_of=None):
    """The gradients each "externa" node of ``programa`` (with its factors) must receive in one backward pass from its
    output: ``{rule's node: [(gradient, scale)…]}``, one per reachable copy; ``name_of`` maps a node of ``programa`` to
    the node of its rule (the same name by default)."""
    _, grads, scales = _backward(programa, valores, 1.0)
    used, reachable = {d: [a for a in args if isinstance(a, str)] for d, _, *args in programa}, set()
    pending = [programa[-1][0]]
    while pending:
        node = pending.pop()
        if node not in reachable:
            reachable.add(node)
            pending += used.get(node, [])
    received = {}
    for destino, operacion, *_ in programa:
        if operacion == "externa" and destino in reachable:
            name = name_of(destino) if name_of else destino
            received.setdefault(name, []).append((grads[destino], scales[destino]))
    return received


def check_externals(reglas, esperados, *, call):
    """Each rule of the test (``reglas``, by node) was called once per reachable copy of its node, with the gradient
    that node had received in full (``esperados``, from :func:`expected_received`): the engine's own backward pass,
    seen from inside."""
    for nombre, regla in reglas.items():
        recibidos, deben = regla.recibidos, esperados.get(nombre, [])
        if len(recibidos) != len(deben):
            menos = len(recibidos) < len(deben)
            fail(
                f"en {call}, la _retro() del nodo {nombre!r} (una operación «externa», con la regla de la prueba) se "
                f"llamó {len(recibidos)} {'vez' if len(recibidos) == 1 else 'veces'}, y debía llamarse {len(deben)}.",
                "retropropagar llama a _retro() de todos los nodos del grafo, sea cual sea su operación: tu motor no "
                "necesita saber qué calcula cada una."
                if menos
                else "cada nodo reparte su gradiente una sola vez: ¿recorres el orden topológico una sola vez?",
            )
        if not all(type(g) in (int, float) for g in recibidos):
            fail(f"en {call}, la _retro() del nodo {nombre!r} recibió salida.grad = {describe(recibidos)}.")
        for got, (g, scale) in zip(sorted(recibidos), sorted(deben), strict=True):
            check_engine_number(
                got,
                g,
                scale,
                name=f"el salida.grad con el que se llamó a la _retro() del nodo {nombre!r} en {call}",
                hint="¿la llamaste antes de que le llegaran los aportes de todos los nodos que lo usan? Un nodo "
                "reparte su gradiente cuando ya lo recibió entero: recorre el orden topológico al revés.",
            )


def near_a_kink(programa, valores):
    """Whether a relu of the program sees a value within rounding of 0 (there engines may rightly disagree)."""
    nodes = dict(valores)
    for destino, operacion, *argumentos in programa:
        leaves = {k: nodes[k] for k in argumentos if k in nodes}
        nodes[destino] = evaluate([(destino, operacion, *argumentos)], leaves)[0]
        if operacion == "relu" and 0 < abs(nodes[argumentos[0]]) < 1e-9:
            return True
    return False


def check_engine_number(value, expected, scale, *, name, hint=None, ulps=ENGINE_ULPS):
    """``value`` within ``ulps`` units of rounding of ``expected`` (``scale`` is its error scale, see evaluate)."""
    check_number(value, expected, name=name, rtol=0.0, atol=ulps * EPS * scale, hint=hint)


CHILDREN_HINT = (
    "cada operación crea su salida con sus hijos, los operandos que son Valor (en x ** n, solo x): sin ellos en "
    "_hijos, el paso hacia atrás no llega a las hojas."
)
HELPER_HINT = "retro_local ya está escrita: vuelve a copiarla tal como venía, sin cambiarla."


def check_local_step(came, instruccion, previos, esperado, *, call, hint, dato_hint):
    """What ``retro_local([instruccion], …)`` returned (``came``): the output's value, the gradient of each leaf and the
    children the output recorded, against ``esperado = (dato, {hoja: gradiente})``.

    The tolerance is one of rounding (``LOCAL_TOLERANCE``): the local derivative written as a formula gets there in
    any of its usual forms; a finite-difference estimate does not.
    """
    if type(came) not in (tuple, list) or len(came) != 3 or type(came[1]) is not dict or type(came[2]) is not list:
        fail(f"{call} debía devolver (dato, gradientes, hijos), pero devolvió {describe(came)}.", HELPER_HINT)
    obtenido, gradientes, hijos = came
    _, operacion, *argumentos = instruccion
    operandos = argumentos[:1] if operacion in WITH_NUMBER else argumentos
    esperados = {a if isinstance(a, str) else float(a) for a in operandos}
    if set(map(_plain, hijos)) != esperados:
        shown = _shown(sorted(esperados, key=str))
        fail(f"la salida de {call} guarda en _hijos {_shown(hijos)}, y sus hijos son {shown}.", CHILDREN_HINT)
    dato, gradientes_esperados = esperado
    tolerance = LOCAL_TOLERANCE.get(operacion, LOCAL_DEFAULT)
    check_number(obtenido, dato, name=f"el dato de la salida de {call}", rtol=tolerance, atol=0.0, hint=dato_hint)
    for hoja, valor in gradientes_esperados.items():
        previo = previos.get(hoja, 0.0)
        scale = abs(previo) + abs(valor - previo)
        check_number(
            gradientes.get(hoja),
            valor,
            name=f"el gradiente de {hoja} en {call}",
            rtol=0.0,
            atol=tolerance * scale,
            hint=hint,
        )


def _plain(value):
    return float(value) if type(value) in (int, float) else value


def _shown(values):
    return "(" + ", ".join(repr(v) for v in values) + ("," if len(values) == 1 else "") + ")"


ZEROED_HINT = (
    "retropropagar no pone ningún gradiente a cero (como backward() en PyTorch, eso le toca a quien llama): cada hoja "
    "conserva lo que ya tenía en grad y le suma su aporte."
)


def _close(value, expected, scale, name, hint):
    """Within rounding of ``expected`` given its error ``scale`` (see evaluate); to 1e-12 for a literal (``None``)."""
    if scale is None:
        check_number(value, expected, name=name, rtol=1e-12, atol=1e-12, hint=hint)
    else:
        check_engine_number(value, expected, scale, name=name, hint=hint)


def check_backward(came, dato, esperados, previos, *, escalas=None, call, hint, dato_hint):
    """What ``gradientes(programa, valores, previos)`` returned (``came``) against the output's value ``dato`` and the
    gradient of each leaf (``esperados``): within rounding (``escalas``, ``(of dato, {of each leaf})`` from evaluate),
    or to 1e-12 for literal values; a backward pass that zeroed what earlier passes left is named."""
    if type(came) not in (tuple, list) or len(came) != 2 or type(came[1]) is not dict:
        fail(
            f"{call} debía devolver (dato, gradientes), pero devolvió {describe(came)}.", "gradientes ya está escrita."
        )
    obtenido, gradientes = came
    escala, de_hojas = escalas if escalas is not None else (None, {})
    _close(obtenido, dato, escala, f"el dato de la salida de {call}", dato_hint)
    for hoja, valor in esperados.items():
        got, previo, scale = gradientes.get(hoja), previos.get(hoja, 0.0), de_hojas.get(hoja)
        tolerance = 1e-12 * (1 + abs(valor)) if scale is None else ENGINE_ULPS * EPS * scale
        if previo and type(got) is float and abs(got - (valor - previo)) <= tolerance < abs(got - valor):
            fail(
                f"el gradiente de {hoja} en {call} es {got!r}: el aporte de este paso, sin el {previo!r} que la hoja "
                "ya tenía. Tu paso hacia atrás lo puso a cero.",
                ZEROED_HINT,
            )
        _close(got, valor, scale, f"el gradiente de {hoja} en {call}", hint)


def training_program(modelo, parametros, datos):
    """The loss of one training step as a single program (the mean of the squared errors over ``datos``) and the
    values of its leaves: the parameters ``p0``, ``p1``… and one input leaf per example."""
    valores = {f"p{i}": float(p) for i, p in enumerate(parametros)}
    programa, cuadrados = [], []
    for k, (x, y) in enumerate(datos):
        valores[f"x_{k}"] = float(x)
        nombres = {"x": f"x_{k}", **{n: n for n in valores if n.startswith("p")}}
        for destino, operacion, *argumentos in modelo:
            nombres[destino] = f"{destino}_{k}"
            if operacion in WITH_NUMBER:
                argumentos = [nombres[argumentos[0]], argumentos[1]]
            else:
                argumentos = [nombres[a] if isinstance(a, str) else a for a in argumentos]
            programa.append((nombres[destino], operacion, *argumentos))
        programa += [(f"error_{k}", "+", nombres[modelo[-1][0]], -float(y)), (f"cuadrado_{k}", "**", f"error_{k}", 2)]
        cuadrados.append(f"cuadrado_{k}")
    suma = cuadrados[0]
    for k, cuadrado in enumerate(cuadrados[1:]):
        programa.append((f"suma_{k}", "+", suma, cuadrado))
        suma = f"suma_{k}"
    programa.append(("perdida", "*", suma, 1.0 / len(datos)))
    return programa, valores


def training_reference(modelo, parametros, datos, tasa):
    """``(perdida, nuevos, escalas)`` of one step of gradient descent on ``modelo`` (see :func:`training_program`),
    with the error scale of the loss and of each new parameter."""
    programa, valores = training_program(modelo, parametros, datos)
    dato, escala, gradientes, escalas = evaluate(programa, valores)
    nuevos, de_nuevos = [], []
    for i, p in enumerate(parametros):
        gradiente, scale = gradientes[f"p{i}"], escalas[f"p{i}"]
        nuevos.append(p - tasa * gradiente)
        de_nuevos.append(abs(p) + abs(tasa) * scale + abs(p - tasa * gradiente))
    return dato, nuevos, (escala, de_nuevos)


def check_training_step(came, perdida, nuevos, *, escalas=None, call, hints):
    """What ``paso_de_entrenamiento(…)`` returned (``came``) against the loss before the step and the new parameters:
    within rounding (``escalas`` from :func:`training_reference`) or to 1e-12 for literal values. ``hints``: (of the
    loss, of the parameters)."""
    if type(came) not in (tuple, list) or len(came) != 2 or type(came[1]) not in (tuple, list):
        fail(f"{call} debía devolver (perdida, nuevos), pero devolvió {describe(came)}.", hints[1])
    obtenida, obtenidos = came
    if len(obtenidos) != len(nuevos):
        fail(f"{call} devolvió {len(obtenidos)} parámetros, y el modelo tiene {len(nuevos)}.", hints[1])
    escala, de_nuevos = escalas if escalas is not None else (None, [None] * len(nuevos))
    _close(obtenida, perdida, escala, f"la pérdida de {call}", hints[0])
    for i, (valor, scale) in enumerate(zip(nuevos, de_nuevos, strict=True)):
        _close(obtenidos[i], valor, scale, f"el parámetro p{i} de {call}", hints[1])


# --- Section 7: neurons, layers and a network built on the engine (exercise 6) -----------------------------

NETWORK_MODULES = (*ENGINE_MODULES, "random")


def network_size(entradas, tamanos):
    """How many parameters ``MLP(entradas, tamanos)`` has: each neuron, one weight per input and a bias."""
    total, anterior = 0, entradas
    for n in tamanos:
        total += n * (anterior + 1)
        anterior = n
    return total


def network_program(entradas, tamanos, valores, x, *, last_tanh=False, hidden_tanh=True, bias_first=False):
    """``MLP(entradas, tamanos)`` of the lesson, with parameters ``valores`` (in ``parametros()`` order: layer by
    layer, neuron by neuron, its weights and then its bias) at input ``x``, as a program over leaves ``q0``, ``q1``…
    (the parameters) and ``x0``, ``x1``… (the input): tanh on every hidden layer and a linear last layer. The options
    give typical mistakes: tanh on the last layer too, none on the hidden ones, each neuron's bias before its weights
    in ``parametros()``. The last layer must have one neuron."""
    hojas = {f"x{i}": float(v) for i, v in enumerate(x)}
    hojas.update({f"q{k}": float(v) for k, v in enumerate(valores)})
    programa, k, entrada = [], 0, [f"x{i}" for i in range(entradas)]
    for capa, n in enumerate(tamanos):
        salida = []
        for j in range(n):
            sesgo, primero = (k, k + 1) if bias_first else (k + len(entrada), k)
            acumulado = f"q{sesgo}"
            for i, xi in enumerate(entrada):
                programa.append((f"m{capa}_{j}_{i}", "*", f"q{primero + i}", xi))
                programa.append((f"s{capa}_{j}_{i}", "+", acumulado, f"m{capa}_{j}_{i}"))
                acumulado = f"s{capa}_{j}_{i}"
            k += len(entrada) + 1
            if (capa < len(tamanos) - 1 and hidden_tanh) or (capa == len(tamanos) - 1 and last_tanh):
                programa.append((f"h{capa}_{j}", "tanh", acumulado))
                acumulado = f"h{capa}_{j}"
            salida.append(acumulado)
        entrada = salida
    return programa, hojas


def network_reference(entradas, tamanos, valores, x, **mistake):
    """``(dato, [gradientes], escalas)`` of one forward and backward pass of the lesson's network (see
    :func:`network_program`), in plain Python floats, with the error scale of each number (see :func:`evaluate`)."""
    programa, hojas = network_program(entradas, tamanos, valores, x, **mistake)
    dato, escala, gradientes, escalas = evaluate(programa, hojas)
    nombres = [f"q{k}" for k in range(len(valores))]
    return dato, [gradientes[n] for n in nombres], (escala, [escalas[n] for n in nombres])


ORDER_HINT = (
    "tus gradientes son los de la red, en otro orden: parametros() da las capas en orden y, en cada neurona, sus "
    "pesos (uno por entrada) y después su sesgo."
)
LAST_LAYER_HINT = "tu salida es la tangente hiperbólica de la esperada: ¿aplicas tanh también en la última capa?"
# (a typical mistake, as options of network_program; its hint)
NETWORK_MISTAKES = (
    (
        {"bias_first": True},
        "¿da parametros() en cada neurona primero sus pesos, en el orden de las entradas, y después "
        "su sesgo? fijar_parametros reparte la lista en ese orden.",
    ),
    ({"last_tanh": True}, "¿aplicas tanh también en la última capa? La última capa de la red es lineal."),
    ({"hidden_tanh": False}, "¿aplicas tanh en las neuronas de las capas ocultas? Solo la última capa es lineal."),
)


def check_network(came, dato, gradientes, *, escalas=None, call, hint, red=None):
    """What ``red_local(*red)`` returned (``came``) against the output's value and the gradient of each parameter in
    ``parametros()`` order: within rounding (``escalas`` from :func:`network_reference`) or to 1e-12 for literal
    values. The usual mistakes are named (:data:`NETWORK_MISTAKES`, recognised from the output of the same network
    with that mistake; a tanh on the last layer; the right gradients in another order)."""
    if type(came) not in (tuple, list) or len(came) != 2 or type(came[1]) is not list:
        fail(f"{call} debía devolver (dato, gradientes), pero devolvió {describe(came)}.", "red_local ya está escrita.")
    obtenido, suyos = came
    escala, de_cada = escalas if escalas is not None else (None, [None] * len(gradientes))
    if type(obtenido) is float and abs(obtenido - math.tanh(dato)) < 1e-12 < abs(obtenido - dato):
        fail(f"la salida de {call} es {obtenido!r}.", LAST_LAYER_HINT)
    if red is not None and type(obtenido) is float and abs(obtenido - dato) > 1e-12 * (1 + abs(dato)):
        for options, mistake_hint in NETWORK_MISTAKES:
            other = network_reference(*red, **options)[0]
            if abs(other - dato) > 1e-9 and abs(obtenido - other) <= 1e-12 * (1 + abs(other)):
                fail(f"la salida de {call} es {obtenido!r}, y debía ser {dato!r}.", mistake_hint)
    _close(obtenido, dato, escala, f"la salida de {call}", hint)
    if len(suyos) != len(gradientes):
        fail(
            f"{call} devolvió {len(suyos)} gradientes, y la red tiene {len(gradientes)} parámetros.",
            "parametros() devuelve todos los pesos y los sesgos de todas las neuronas, capa a capa.",
        )
    if all(type(g) is float for g in suyos):

        def near(x, y):
            return abs(x - y) <= 1e-12 * (1 + abs(y))

        in_order = all(near(x, y) for x, y in zip(suyos, gradientes, strict=True))
        if not in_order and all(near(x, y) for x, y in zip(sorted(suyos), sorted(gradientes), strict=True)):
            fail(f"los gradientes de {call} no están en el orden de parametros().", ORDER_HINT)
    for k, (valor, scale) in enumerate(zip(gradientes, de_cada, strict=True)):
        _close(suyos[k], valor, scale, f"el gradiente del parámetro {k} (en el orden de parametros()) en {call}", hint)


# --- Section 8: broadcasting and reductions (exercise 7) ------------------------------------------------------

REDUCTION_FORBIDDEN = (*AUTOGRAD_APIS, ".sum_to_size", "torch.func")
# What reducir_a_forma may reach of torch (an allowlist, compared as objects): sums, shapes and types. Anything
# else (``sum_to_size``, ``torch.ops``, a library function that reduces to a shape) fails closed.
REDUCTION_NAMES = frozenset(
    f"torch.{name}"
    for name in "sum zeros zeros_like tensor as_tensor Size Tensor is_tensor float64 float32 int64 add".split()
)
REDUCTION_METHODS = frozenset(
    "sum add add_ shape dtype device ndim dim size numel reshape view view_as to clone detach unsqueeze squeeze "
    "flatten contiguous double float item tolist copy_ new_zeros zero_ fill_ mul mul_ sub sub_ div div_ neg "
    "append index count insert".split()
)


def check_reduction_code(answer):
    """``reducir_a_forma`` sums by itself: of torch only sums, shapes and types (an allowlist), read in full and
    failing closed."""
    hint = (
        "aquí se pide la suma a mano, con las operaciones de los tensores (sum, reshape…): sin autograd ni "
        "sum_to_size, que la hacen por ti."
    )
    check_statement(answer, modules=("torch", "math"), forbidden=REDUCTION_FORBIDDEN, hint=hint)
    outside = outside_allowlist(read(answer), REDUCTION_NAMES, REDUCTION_METHODS)
    if outside:
        fail(
            f"{answer} usa {', '.join(f'«{name}»' for name in outside[:3])}, que no es una suma ni una operación de "
            "forma o de tipo.",
            hint + " Se admiten sum y add; zeros y tensor; las de forma (reshape, view, squeeze, unsqueeze, "
            "flatten, shape, dim, size); las de tipo (to, double, float, clone, detach) y la aritmética "
            "(mul, sub, div, neg, también en su sitio: mul_, fill_, zero_…).",
        )


def reduced_reference(gradiente, forma):
    """What PyTorch's autograd gives an input of shape ``forma`` broadcast to ``gradiente``'s shape, when the
    gradient ``gradiente`` arrives at the result."""
    import torch

    with torch.enable_grad():  # whatever grad mode the student's code left
        entrada = torch.zeros(forma, dtype=gradiente.dtype, requires_grad=True)
        salida = entrada + torch.zeros(gradiente.shape, dtype=gradiente.dtype)
        salida.backward(gradiente.clone())
    return entrada.grad


KEEPDIM_HINT = (
    "los números están bien y la forma no: el gradiente tiene la forma de la entrada, también sus dimensiones de "
    "tamaño 1 (keepdim=True)."
)
LEADING_HINT = (
    "las dimensiones que el broadcasting añadió a la izquierda no existen en la entrada: su gradiente también se suma."
)
REPEATED_HINT = (
    "se suman las dimensiones en las que la entrada se repitió: las que le faltan y las que en ella miden 1."
)
MEAN_HINT = "cada copia de la entrada aporta su gradiente entero: ¿sumas o promedias?"


def check_reduced(came, esperado, gradiente, antes, forma, *, call):
    """What ``reducir_a_forma(gradiente, forma)`` returned against ``esperado`` (a tensor of shape ``forma``): the
    shape, the dtype of ``gradiente``, the values (sums of integers, exact in any order) and ``gradiente`` left as it
    was (``antes``, a copy taken before the call)."""
    import torch

    forma = tuple(forma)
    esperado = torch.as_tensor(esperado, dtype=gradiente.dtype).reshape(forma)
    if not is_tensor(came):
        fail(f"{call} debía devolver un tensor, pero devolvió {describe(came)}.", "devuelve el gradiente sumado.")
    if tuple(came.shape) != forma:
        if came.numel() == esperado.numel() and torch.equal(came.detach().reshape(forma).double(), esperado.double()):
            hint = KEEPDIM_HINT
        elif came.dim() > len(forma):
            hint = LEADING_HINT
        else:
            hint = REPEATED_HINT
        fail(f"{call} tiene forma {tuple(came.shape)}, y la entrada tenía forma {forma}.", hint)
    if came.dtype != gradiente.dtype:
        fail(
            f"{call} es {came.dtype}, y el gradiente que recibió era {gradiente.dtype}.",
            "conserva el dtype del gradiente: no lo conviertas.",
        )
    if not torch.equal(gradiente, antes):
        fail(
            f"{call} cambió el gradiente que recibió.",
            "calcula un tensor nuevo, sin operaciones en su sitio (sum_, +=…).",
        )
    veces = gradiente.numel() // max(1, esperado.numel())
    suyo, bueno = came.detach().double(), esperado.double()
    if (
        veces > 1
        and not torch.allclose(suyo, bueno, rtol=1e-12, atol=1e-12)
        and torch.allclose(suyo * veces, bueno, rtol=1e-12, atol=1e-12)
    ):
        fail(f"{call} no coincide con el gradiente que da autograd.", MEAN_HINT)
    check_tensor(came, esperado, name=call, rtol=1e-12, atol=1e-12, hint="¿sumas exactamente las dimensiones en las "
                 "que la entrada se repitió, y ninguna otra?")  # fmt: skip


# The lesson's helpers, as written (the checks observe the engine through them: they must be these).
HELPERS = {
    "externa": """\
def externa(hijo, regla):
    \"\"\"Un nodo con el dato de hijo y una regla local que no es de tu motor: su _retro suma a hijo.grad lo que
    devuelve regla(salida.grad). Lo usan las comprobaciones para ver tu paso hacia atrás desde dentro.\"\"\"
    salida = Valor(hijo.dato, (hijo,), "externa")

    def _retro():
        hijo.grad += regla(salida.grad)

    salida._retro = _retro
    return salida
""",
    "construir": """\
def construir(programa, valores):
    \"\"\"Ejecuta un programa con Valor y devuelve un diccionario con todos sus nodos por nombre.

    programa: lista de instrucciones (destino, operación, argumentos…); valores: el dato de cada hoja, o la hoja
    misma (un Valor que ya tengas, que se usa tal cual).
    \"\"\"
    nodos = {n: v if isinstance(v, Valor) else Valor(v, nombre=n) for n, v in valores.items()}

    def nodo(argumento):  # un nombre es un nodo ya construido; un número, una constante
        return nodos[argumento] if isinstance(argumento, str) else argumento

    for destino, operacion, *argumentos in programa:
        if operacion == "+":
            resultado = nodo(argumentos[0]) + nodo(argumentos[1])
        elif operacion == "*":
            resultado = nodo(argumentos[0]) * nodo(argumentos[1])
        elif operacion == "**":
            resultado = nodo(argumentos[0]) ** argumentos[1]
        elif operacion == "tanh":
            resultado = nodo(argumentos[0]).tanh()
        elif operacion == "exp":
            resultado = nodo(argumentos[0]).exp()
        elif operacion == "relu":
            resultado = nodo(argumentos[0]).relu()
        elif operacion == "externa":  # la usan las comprobaciones: el mismo dato, con la regla local que dan ellas
            resultado = externa(nodo(argumentos[0]), argumentos[1])
        else:
            raise ValueError(f"operación desconocida: {operacion!r}")
        resultado.nombre = destino
        nodos[destino] = resultado
    return nodos
""",
    "retro_local": """\
def retro_local(programa, valores, g, previos):
    \"\"\"Un solo paso de la regla de la cadena, para las comprobaciones (ya escrita: no la cambies).

    Construye el programa (de una instrucción), deja en cada hoja el gradiente que indica previos (como si
    otro camino ya hubiera aportado el suyo), pone g en el gradiente de la salida y llama solo a su _retro().
    Devuelve el dato de la salida, un diccionario con el gradiente de cada hoja y la lista de los hijos que guardó
    la salida (de cada uno, su nombre; de un número convertido en hoja, su dato).
    \"\"\"
    nodos = construir(programa, valores)
    for nombre, previo in previos.items():
        nodos[nombre].grad = previo
    salida = nodos[programa[-1][0]]
    salida.grad = g
    salida._retro()
    hijos = [hijo.nombre or hijo.dato for hijo in salida._hijos]
    return salida.dato, {nombre: nodos[nombre].grad for nombre in valores}, hijos
""",
    "gradientes": """\
def gradientes(programa, valores, previos=None):
    \"\"\"Para las comprobaciones (ya escrita: no la cambies): construye el programa con Valor, deja en cada hoja el
    gradiente que indica previos (lo que dejó un paso anterior), retropropaga desde su salida y devuelve el dato de
    la salida y un diccionario con el gradiente de cada hoja.\"\"\"
    nodos = construir(programa, valores)
    for nombre, previo in (previos or {}).items():
        nodos[nombre].grad = previo
    salida = nodos[programa[-1][0]]
    retropropagar(salida)
    return salida.dato, {nombre: nodos[nombre].grad for nombre in valores}
""",
    "fijar_parametros": """\
def fijar_parametros(modelo, valores):
    \"\"\"Pone los datos de la lista valores en los parámetros de modelo, en el orden de modelo.parametros().\"\"\"
    parametros = modelo.parametros()
    if len(parametros) != len(valores):
        raise ValueError(
            f"tu red tiene {len(parametros)} parámetros en parametros() y la lista trae {len(valores)} valores: "
            "¿da parametros() los pesos y el sesgo de cada neurona, de todas las capas?"
        )
    for parametro, valor in zip(parametros, valores):
        parametro.dato = float(valor)
""",
    "red_local": """\
def red_local(entradas, tamanos, valores, x):
    \"\"\"Para las comprobaciones (ya escrita: no la cambies): construye MLP(entradas, tamanos), le pone los parámetros
    de valores (en el orden de parametros()), calcula su salida en la entrada x (una lista de números), retropropaga
    desde ella y devuelve el dato de la salida y la lista de los gradientes de los parámetros, en el mismo orden.\"\"\"
    red = MLP(entradas, tamanos)
    fijar_parametros(red, valores)
    salida = red(x)
    retropropagar(salida)
    return salida.dato, [parametro.grad for parametro in red.parametros()]
""",
}


def _code(node):
    """A function's code, without its docstring and its layout (what a student may touch without changing it)."""
    node = copy.deepcopy(node)
    if ast.get_docstring(node) is not None:
        node.body = node.body[1:]
    return ast.dump(node, annotate_fields=False)


def check_helpers(*names):
    """The lesson's helpers ``names`` (those through which the checks see the engine) are the lesson's own: the only
    binding of each that may hold is its code as written, and nothing in the notebook changes it. The reading is that
    of :func:`check_statement` (complete: call this after it)."""
    notebook = notebook_reading(tuple(student_sources()))
    for name in names:
        live = [unit for unit, _ in notebook.live(name)]
        want = _code(ast.parse(HELPERS[name]).body[0])
        if (
            len(live) != 1
            or not isinstance(live[0], ast.FunctionDef)
            or _code(live[0]) != want
            or name in notebook.changes
        ):
            fail(
                f"{name} no es la de la lección: las comprobaciones ven tu motor a través de ella.",
                f"{name} ya está escrita: vuelve a copiarla tal como venía (de la lección o de una copia nueva del "
                "cuaderno) y ejecuta su celda.",
            )
