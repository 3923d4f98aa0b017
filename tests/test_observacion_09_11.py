# ruff: noqa: E501 (the cases are answers written as a student would, one string each)
"""Lessons 09 and 10 earn points only for what the grader observes.

Graded by the real grader (sealed, with the hidden tests). Each case replaces one answer cell of the
instructor's solution, as a student would write it: hostile ones (the values without the skill the
statement names, or with what it forbids) earn none of that exercise's points; honest ones in other
styles (helpers, prints, a lambda, an import inside the function) keep full marks.
"""

import re

import nbformat
import pytest
from helpers import autograded_notebook, nbgrader_meta, read, row

from autograder.course import find_lesson
from autograder.course.demo import answered
from autograder.grading import batch

L09 = find_lesson("09_mas_alla_de_backward")
L10 = find_lesson("10_ganchos_y_funciones_propias")
L11 = find_lesson("11_tu_propio_autograd")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def solution(lesson, grade_id):
    cell = next(c for c in read(lesson.source).cells if nbgrader_meta(c).get("grade_id") == grade_id)
    return "\n".join(line for line in cell.source.splitlines() if line.strip() not in MARKERS) + "\n"


def changed(lesson, grade_id, old, new):
    """The solution of ``grade_id`` with ``old`` replaced by ``new`` (once, and it must be there)."""
    code = solution(lesson, grade_id)
    assert code.count(old) == 1, (grade_id, old)
    return code.replace(old, new)


def softplus_with(forward):
    """Lesson 10's softplus with its forward's first line replaced by ``forward``."""
    return changed(
        L10, "ej4_solucion", "    y = x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))\n", f"    y = {forward}\n"
    )


# (lesson, answer cell, test cell, label, code, full marks?, text the failure must contain)
CASES = [
    # 09 ej1: a prediction that hides torch in a helper defined inside an if (the reader reads it).
    (
        L09, "ej1_solucion", "ej1_pruebas", "prediccion-oculta",
        "if True:\n    def _ayuda(v):\n        import torch\n        x = torch.tensor([v], requires_grad=True)\n"
        "        torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x)).sum().backward()\n        return x.grad.item()\n"
        "def prediccion(valores):\n    return [_ayuda(v) for v in valores]\n",
        False, "«torch»",
    ),
    # 09 ej2: torch.sinc imported inside the function, or as a method.
    (
        L09, "ej2_solucion", "ej2_pruebas", "sinc-importada",
        "import math\n\ndef sinc(x):\n    from torch import sinc as s\n    return s(x / math.pi)\n", False, "torch.sinc",
    ),
    (L09, "ej2_solucion", "ej2_pruebas", "sinc-metodo", "import math\n\ndef sinc(x):\n    return (x / math.pi).sinc()\n",
     False, ".sinc"),
    (
        L09, "ej2_solucion", "ej2_pruebas", "sinc-con-ayuda",
        "import torch\n\ndef _cociente(x):\n    return torch.sin(x) / x\n\ndef sinc(x):\n    print('sinc con', x.shape)\n"
        "    cero = x == 0\n    segura = x.masked_fill(cero, 1.0)\n    return torch.where(cero, torch.ones_like(x), _cociente(segura))\n",
        True, "",
    ),
    # 09 ej3: the Hessian built row by row does not finish with 100 000 elements; H v as a vjp of the gradient does.
    (
        L09, "ej3_solucion", "ej3_pruebas", "hessiano-por-filas",
        "import torch\n\ndef hvp(y, x, v):\n    (g,) = torch.autograd.grad(y, x, create_graph=True)\n    g = g.reshape(-1)\n"
        "    filas = [torch.autograd.grad(g[i], x, retain_graph=True)[0].reshape(-1) for i in range(g.numel())]\n"
        "    return (torch.stack(filas) @ v.reshape(-1)).reshape(x.shape)\n",
        False, "paso hacia atrás por cada elemento",
    ),
    (
        L09, "ej3_solucion", "ej3_pruebas", "vjp-del-gradiente",
        "import torch\n\ndef hvp(y, x, v):\n    (g,) = torch.autograd.grad(y, x, create_graph=True)\n"
        "    return torch.autograd.grad(g, x, grad_outputs=v)[0]\n",
        True, "",
    ),
    # 09 ej4: finite differences miss float64's precision; the Jacobian does not fit; jvp imported inside is fine.
    (
        L09, "ej4_solucion", "ej4_pruebas", "diferencias-finitas",
        "import torch\n\ndef derivada_direccional(W1, W2, x, v):\n    def red(z):\n        return W2 @ torch.tanh(W1 @ z)\n"
        "    h = 1e-6\n    return red(x), (red(x + h * v) - red(x - h * v)) / (2 * h)\n",
        False, "J v",
    ),
    (
        L09, "ej4_solucion", "ej4_pruebas", "jacobiano-completo",
        "import torch\n\ndef derivada_direccional(W1, W2, x, v):\n    def red(z):\n        return W2 @ torch.tanh(W1 @ z)\n"
        "    return red(x), torch.autograd.functional.jacobian(red, x) @ v\n",
        False, "",
    ),
    (
        L09, "ej4_solucion", "ej4_pruebas", "jvp-importada-dentro",
        "def derivada_direccional(W1, W2, x, v):\n    from torch.func import jvp\n    import torch\n\n"
        "    return jvp(lambda z: W2 @ torch.tanh(W1 @ z), (x,), (v,))\n",
        True, "",
    ),
    # 09 ej5: a Python loop of backward passes does not finish with 600 000 examples.
    (
        L09, "ej5_solucion", "ej5_pruebas", "bucle",
        "import torch\n\ndef gradientes_por_ejemplo(w, X, y):\n    filas = []\n    for i in range(X.shape[0]):\n"
        "        wi = w.clone().requires_grad_(True)\n"
        "        filas.append(torch.autograd.grad((torch.tanh(X[i] @ wi) - y[i]) ** 2, wi)[0])\n"
        "    return torch.stack(filas)\n",
        False, "600 000",
    ),
    # 10 (ganchos) ej2: the old exercise's answer returns no hook; a hook that does not clip; honest lambda and partial.
    (
        L10, "ej2_solucion", "ej2_pruebas", "sin-gancho",
        "def gancho_de_recorte(limite):\n    return None\n", False, "debía devolver una función",
    ),
    (L10, "ej2_solucion", "ej2_pruebas", "no-recorta", "def gancho_de_recorte(limite):\n    return lambda g: g\n",
     False, "sin recortar"),
    (
        L10, "ej2_solucion", "ej2_pruebas", "lambda",
        "import torch\n\ndef gancho_de_recorte(limite):\n    return lambda g: torch.clamp(g, min=-limite, max=limite)\n",
        True, "",
    ),
    (
        L10, "ej2_solucion", "ej2_pruebas", "partial",
        "import functools\nimport torch\n\ndef gancho_de_recorte(limite):\n"
        "    return functools.partial(torch.clamp, min=-limite, max=limite)\n",
        True, "",
    ),
    # 10 (ganchos) ej4: the forward through PyTorch's softplus; a backward that raises (one Spanish line); saving y.
    (
        L10, "ej4_solucion", "ej4_pruebas", "softplus-de-pytorch",
        changed(L10, "ej4_solucion", "    y = x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))\n",
                "    from torch.nn.functional import softplus\n    y = softplus(x)\n"),
        False, "softplus",
    ),
    (
        L10, "ej4_solucion", "ej4_pruebas", "atras-lanza",
        changed(L10, "ej4_solucion", "    (x,) = guardado\n", "    (x,) = guardado\n    raise ValueError('sin terminar')\n"),
        False, "atras(",
    ),
    (
        L10, "ej4_solucion", "ej4_pruebas", "guarda-y",
        changed(
            L10, "ej4_solucion", "    return y, (x,)\n", "    print('guardo y')\n    return y, (y,)\n",
        ).replace("    (x,) = guardado\n    return grad_y * torch.sigmoid(x)\n",
                  "    (y,) = guardado\n    return grad_y * -torch.expm1(-y)\n"),
        True, "",
    ),
    # 10 ej1: tanh without its children; an exp through numpy; a helper with a print keeps full marks.
    (
        L11, "ej1_solucion", "ej1_pruebas", "tanh-sin-hijos",
        changed(L11, "ej1_solucion", 'salida = Valor(t, (self,), "tanh")', 'salida = Valor(t, (), "tanh")'),
        False, "_hijos",
    ),
    (
        L11, "ej1_solucion", "ej1_pruebas", "exp-con-numpy",
        "import numpy\n" + changed(L11, "ej1_solucion", "Valor(math.exp(self.dato)", "Valor(float(numpy.exp(self.dato))"),
        False, "numpy",
    ),
    (
        L11, "ej1_solucion", "ej1_pruebas", "ayuda-y-print",
        "def _derivada_tanh(t):\n    return 1 - t * t\n\n"
        + changed(L11, "ej1_solucion", "            self.grad += (1 - t**2) * salida.grad\n",
                  "            print('tanh reparte', salida.grad)\n            self.grad += _derivada_tanh(t) * salida.grad\n"),
        True, "",
    ),
    # 10 ej2: sorting the names is not a topological order; an iterative one with collections.deque is.
    (
        L11, "ej2_solucion", "ej2_pruebas", "ordena-nombres",
        "def orden_topologico(raiz, hijos):\n    vistos, pendientes = set(), [raiz]\n    while pendientes:\n"
        "        nodo = pendientes.pop()\n        if nodo not in vistos:\n            vistos.add(nodo)\n"
        "            pendientes.extend(hijos(nodo))\n    return sorted(vistos, key=lambda n: (n == raiz, n))\n",
        False, "",
    ),
    (
        L11, "ej2_solucion", "ej2_pruebas", "iterativo-con-deque",
        "from collections import deque\n\ndef orden_topologico(raiz, hijos):\n    orden, vistos, pila = [], set(), deque([(raiz, False)])\n"
        "    while pila:\n        nodo, hecho = pila.pop()\n        if hecho:\n            orden.append(nodo)\n        elif nodo not in vistos:\n"
        "            vistos.add(nodo)\n            pila.append((nodo, True))\n"
        "            pila.extend((hijo, False) for hijo in reversed(hijos(nodo)) if hijo not in vistos)\n    return orden\n",
        True, "",
    ),
    # 10 ej3: a backward pass that first zeroes every gradient (the statement forbids it).
    (
        L11, "ej3_solucion", "ej3_pruebas", "pone-a-cero",
        changed(L11, "ej3_solucion", "    salida.grad = 1.0\n",
                "    for nodo in orden:\n        nodo.grad = 0.0\n    salida.grad = 1.0\n"),
        False, "a cero",
    ),
    # 10 ej4: a prediction that runs the engine.
    (
        L11, "ej4_solucion", "ej4_pruebas", "ejecuta-el-motor",
        "def prediccion(a, b):\n    nodos = construir([('c', '*', 'a', 'b'), ('d', '+', 'c', 'a')], {'a': a, 'b': b})\n"
        "    retropropagar(nodos['d'])\n    retropropagar(nodos['d'])\n    return nodos['a'].grad, nodos['b'].grad\n",
        False, "«.grad»",
    ),
    # 10 ej1: local derivatives estimated (an 8-point finite difference at its best step) or taken from sympy; the
    # derivatives written in other forms (1/cosh², math.e ** x) keep full marks.
    (
        L11, "ej1_solucion", "ej1_pruebas", "derivadas-por-diferencias",
        "def _derivada(f, x, h=2.0**-6):\n"
        "    c = (4 / 5, -1 / 5, 4 / 105, -1 / 280)\n"
        "    return sum(c[k] * (f(x + (k + 1) * h) - f(x - (k + 1) * h)) for k in range(4)) / h\n\n"
        + changed(L11, "ej1_solucion", "            self.grad += (1 - t**2) * salida.grad\n",
                  "            self.grad += _derivada(math.tanh, self.dato) * salida.grad\n")
        .replace("            self.grad += salida.dato * salida.grad\n",
                 "            self.grad += _derivada(math.exp, self.dato) * salida.grad\n"),
        False, "el gradiente de a en retro_local(",
    ),
    (
        L11, "ej1_solucion", "ej1_pruebas", "retro-local-sin-motor",
        solution(L11, "ej1_solucion").split("def retro_local(")[0]
        + "def retro_local(programa, valores, g, previos):\n    _, operacion, *argumentos = programa[0]\n"
        "    a = valores.get(argumentos[0], argumentos[0])\n"
        "    reglas = {'tanh': (math.tanh(a), 1 - math.tanh(a) ** 2), 'exp': (math.exp(a), math.exp(a))}\n"
        "    if operacion not in reglas:\n        nodos = construir(programa, valores)\n"
        "        for nombre, previo in previos.items():\n            nodos[nombre].grad = previo\n"
        "        salida = nodos[programa[-1][0]]\n        salida.grad = g\n        salida._retro()\n"
        "        hijos = [hijo.nombre or hijo.dato for hijo in salida._hijos]\n"
        "        return salida.dato, {nombre: nodos[nombre].grad for nombre in valores}, hijos\n"
        "    dato, derivada = reglas[operacion]\n"
        "    return dato, {'a': previos.get('a', 0.0) + derivada * g}, ['a']\n",
        False, "retro_local no es la de la lección",
    ),
    (
        L11, "ej1_solucion", "ej1_pruebas", "derivada-con-sympy",
        "import sympy\n\n_s = sympy.Symbol('s')\n_dtanh = sympy.lambdify(_s, sympy.diff(sympy.tanh(_s), _s))\n\n"
        + changed(L11, "ej1_solucion", "            self.grad += (1 - t**2) * salida.grad\n",
                  "            self.grad += float(_dtanh(self.dato)) * salida.grad\n"),
        False, "«sympy»",
    ),
    (
        L11, "ej1_solucion", "ej1_pruebas", "derivadas-con-cosh",
        changed(L11, "ej1_solucion", "            self.grad += (1 - t**2) * salida.grad\n",
                "            self.grad += salida.grad / math.cosh(self.dato) ** 2\n")
        .replace("            self.grad += salida.dato * salida.grad\n",
                 "            self.grad += math.e**self.dato * salida.grad\n"),
        True, "",
    ),
    # 10 ej2: a depth-first search that does not remember what it visited (it only avoids repeating a node in the
    # order) is right on small graphs; on the ladder it asks the test's hijos for the children once per path.
    (
        L11, "ej2_solucion", "ej2_pruebas", "sin-visitados",
        "def orden_topologico(raiz, hijos):\n    orden = []\n\n    def visitar(nodo):\n        for hijo in hijos(nodo):\n"
        "            visitar(hijo)\n        if nodo not in orden:\n            orden.append(nodo)\n\n    visitar(raiz)\n"
        "    return orden\n",
        False, "pidió los hijos más de",
    ),
    # 10 ej5: the gradient of RED derived by hand, without the engine; or estimated by finite differences of the loss.
    (
        L11, "ej5_solucion", "ej5_pruebas", "gradiente-a-mano",
        "import math\n\n\ndef paso_de_entrenamiento(modelo, parametros, datos, tasa):\n"
        "    w, b, v, c = parametros[0:3], parametros[3:6], parametros[6:9], parametros[9]\n"
        "    n, perdida, grad = len(datos), 0.0, [0.0] * 10\n    for x, y in datos:\n"
        "        h = [math.tanh(w[i] * x + b[i]) for i in range(3)]\n"
        "        e = v[0] * h[0] + v[1] * h[1] + v[2] * h[2] + c - y\n        perdida += e * e / n\n"
        "        for i in range(3):\n            d = 2 * e * v[i] * (1 - h[i] ** 2) / n\n"
        "            grad[i] += d * x\n            grad[3 + i] += d\n            grad[6 + i] += 2 * e * h[i] / n\n"
        "        grad[9] += 2 * e / n\n    return perdida, [p - tasa * g for p, g in zip(parametros, grad)]\n",
        False, "paso_de_entrenamiento(",
    ),
    (
        L11, "ej5_solucion", "ej5_pruebas", "diferencias-finitas",
        "def paso_de_entrenamiento(modelo, parametros, datos, tasa):\n    def perdida_con(ps):\n"
        "        hojas = {f'p{i}': p for i, p in enumerate(ps)}\n"
        "        errores = [(construir(modelo, {**hojas, 'x': x})[modelo[-1][0]].dato - y) ** 2 for x, y in datos]\n"
        "        return sum(errores) / len(datos)\n\n    gradiente = []\n    for i in range(len(parametros)):\n"
        "        mas, menos = list(parametros), list(parametros)\n        mas[i] += 1e-6\n        menos[i] -= 1e-6\n"
        "        gradiente.append((perdida_con(mas) - perdida_con(menos)) / 2e-6)\n"
        "    return perdida_con(parametros), [p - tasa * g for p, g in zip(parametros, gradiente)]\n",
        False, "paso_de_entrenamiento(",
    ),
    # 10 ej3 and ej5: forward mode. The local derivatives probed through each _retro() and pushed forward, one
    # derivative per leaf; or the program interpreted with dual numbers, one pass per parameter. Exact to rounding, but
    # the test's "externa" nodes see a _retro() called with the wrong gradient, or never called.
    (
        L11, "ej3_solucion", "ej3_pruebas", "hacia-adelante",
        changed(L11, "ej3_solucion",
                "    orden = orden_topologico(salida, lambda nodo: nodo._hijos)\n    salida.grad = 1.0\n"
                "    for nodo in reversed(orden):\n        nodo._retro()\n",
                "    orden = orden_topologico(salida, lambda nodo: nodo._hijos)\n    derivadas = {}\n"
                "    for nodo in orden:\n        if not nodo._hijos:\n            derivadas[id(nodo)] = {id(nodo): (nodo, 1.0)}\n"
                "            continue\n        hijos = {id(h): h for h in nodo._hijos}\n"
                "        antes = {k: h.grad for k, h in hijos.items()}\n        for h in hijos.values():\n"
                "            h.grad = 0.0\n        nodo.grad = 1.0\n        nodo._retro()\n        suma = {}\n"
                "        for k, h in hijos.items():\n            for hoja, (objeto, d) in derivadas[k].items():\n"
                "                previo = suma.get(hoja, (objeto, 0.0))[1]\n"
                "                suma[hoja] = (objeto, previo + h.grad * d)\n            h.grad = antes[k]\n"
                "        derivadas[id(nodo)] = suma\n    salida.grad = 1.0\n"
                "    for hoja, d in derivadas[id(salida)].values():\n        hoja.grad += d\n"),
        False, "la _retro() del nodo",
    ),
    (
        L11, "ej5_solucion", "ej5_pruebas", "numeros-duales",
        "import math\n\n\ndef paso_de_entrenamiento(modelo, parametros, datos, tasa):\n"
        "    def ejecutar(nodos):\n        for destino, op, *args in modelo:\n"
        "            a = nodos[args[0]] if isinstance(args[0], str) else (args[0], 0.0)\n"
        "            b = (nodos[args[1]] if isinstance(args[1], str) else (args[1], 0.0)) if op in '+*' else None\n"
        "            if op == '+':\n                nodos[destino] = (a[0] + b[0], a[1] + b[1])\n"
        "            elif op == '*':\n                nodos[destino] = (a[0] * b[0], a[1] * b[0] + a[0] * b[1])\n"
        "            elif op == '**':\n                nodos[destino] = (a[0] ** args[1], args[1] * a[0] ** (args[1] - 1) * a[1])\n"
        "            elif op == 'tanh':\n                t = math.tanh(a[0])\n                nodos[destino] = (t, (1 - t * t) * a[1])\n"
        "            elif op == 'exp':\n                e = math.exp(a[0])\n                nodos[destino] = (e, e * a[1])\n"
        "            elif op == 'relu':\n                nodos[destino] = (max(a[0], 0.0), a[1] if a[0] > 0 else 0.0)\n"
        "            else:\n                nodos[destino] = a\n        return nodos[modelo[-1][0]]\n\n"
        "    gradiente, perdida = [], 0.0\n    for i in range(len(parametros)):\n        perdida, d = 0.0, 0.0\n"
        "        for x, y in datos:\n            hojas = {f'p{j}': (p, 1.0 if j == i else 0.0) for j, p in enumerate(parametros)}\n"
        "            v, dv = ejecutar({**hojas, 'x': (x, 0.0)})\n"
        "            perdida += (v - y) ** 2 / len(datos)\n            d += 2 * (v - y) * dv / len(datos)\n"
        "        gradiente.append(d)\n    return perdida, [p - tasa * g for p, g in zip(parametros, gradiente)]\n",
        False, "se llamó 0 veces",
    ),
    # Attacks after the redesign: the forbidden softplus under another path (the same object), and the
    # complex-step derivative (exact to rounding with no derivative written).
    (
        L10, "ej4_solucion", "ej4_pruebas", "softplus-por-otra-ruta",
        softplus_with("torch.nn.modules.activation.F.softplus(x)"),
        False, "«torch.nn.modules», que la lectura no conoce",
    ),
    (
        L10, "ej4_solucion", "ej4_pruebas", "modulo-softplus-por-otra-ruta",
        softplus_with("torch.nn.modules.activation.Softplus()(x)"),
        False, "«torch.nn.modules», que la lectura no conoce",
    ),
    # Equivalent APIs by meaning, not by name: a library function that already computes the softplus.
    (
        L10, "ej4_solucion", "ej4_pruebas", "softplus-por-logsigmoid",
        softplus_with("-torch.nn.functional.logsigmoid(-x)"),
        False, "logsigmoid",
    ),
    (
        L10, "ej4_solucion", "ej4_pruebas", "softplus-por-logsumexp",
        softplus_with("torch.stack([x, torch.zeros_like(x)]).logsumexp(0)"),
        False, "logsumexp",
    ),
    (
        L11, "ej1_solucion", "ej1_pruebas", "paso-complejo",
        changed(L11, "ej1_solucion", "            self.grad += salida.dato * salida.grad\n",
                "            h = 1e-30\n            z = complex(self.dato, h)\n"
                "            self.grad += (math.e ** z).imag / h * salida.grad\n"),
        False, "complex",
    ),
    # Hiding from the reader, found by attacks: a decoy after an exception (it never ran: the real answer above is
    # read too), and a method replaced through another name (a list holding the class).
    (
        L11, "ej7_solucion", "ej7_pruebas", "senuelo-tras-una-excepcion",
        "def reducir_a_forma(gradiente, forma):\n    return gradiente.sum_to_size(forma)\n\n\nraise KeyboardInterrupt\n\n\n"
        "def reducir_a_forma(gradiente, forma):\n    return gradiente.sum(0).reshape(forma)\n",
        False, "sum_to_size",
    ),
    (
        L11, "ej7_solucion", "ej7_pruebas", "metodo-cambiado-por-otro-nombre",
        "import torch\n\n\ndef reducir_a_forma(gradiente, forma):\n    return gradiente.reshape(forma).clone()\n\n\n"
        "[torch.Tensor][0].reshape = torch.Tensor.sum_to_size\n",
        False, "la clase «torch.Tensor» guardada o entregada a otro código",
    ),
]  # fmt: skip


def _id(case):
    return f"{case[0].id}-{case[1]}-{case[3]}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every case graded once, in one batch: one submission per case. ``{case id: (points, maximum, error)}``."""
    workspace = tmp_path_factory.mktemp("observacion")
    folder = workspace / "entregas"
    students = {}
    for k, case in enumerate(CASES):
        lesson, answer_id = case[0], case[1]
        notebook = answered(lesson)
        for cell in notebook.cells:
            if nbgrader_meta(cell).get("grade_id") == answer_id:
                cell.source = case[4]
        student = f"caso{k:02d}"
        students[_id(case)] = student
        path = folder / student / lesson.id / lesson.notebook_name
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)
    # An honest submission of lesson 09 with a test cell pasted twice (Jupyter's copy and paste: same metadata, a new
    # id), before the exercises that read the code: the copy is the checks' code, not an answer.
    notebook = answered(L09)
    index, original = next(
        (i, c) for i, c in enumerate(notebook.cells) if nbgrader_meta(c).get("grade_id") == "ej1_pruebas"
    )
    copy = nbformat.from_dict(dict(original))
    copy.id = "copia-de-ej1"
    notebook.cells.insert(index + 1, copy)
    path = folder / "copia" / L09.id / L09.notebook_name
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, path)
    result = batch.run(folder, workspace, workers=2)
    outcomes = {"copia": (row(result, L09, "copia"), sum(points for _, points, auto in L09.graded_cells() if auto))}
    for case in CASES:
        lesson, test_id = case[0], case[2]
        maximum = next(points for grade_id, points, _ in lesson.graded_cells() if grade_id == test_id)
        student = students[_id(case)]
        cells = autograded_notebook(result, lesson, student).cells
        outputs = next(c.outputs for c in cells if nbgrader_meta(c).get("grade_id") == test_id)
        error = ANSI.sub("", "\n".join(o.get("evalue", "") for o in outputs if o.output_type == "error"))
        outcomes[_id(case)] = (float(row(result, lesson, student)[test_id]), maximum, error)
    return outcomes


def test_a_pasted_copy_of_a_test_cell_costs_nothing(graded):
    table_row, maximum = graded["copia"]
    assert table_row["puntos_automaticos"] == maximum, table_row.to_dict()


@pytest.mark.parametrize("case", CASES, ids=[_id(case) for case in CASES])
def test_a_point_only_for_what_the_grader_observes(graded, case):
    points, maximum, error = graded[_id(case)]
    full, named = case[5], case[6]
    if full:
        assert points == maximum and not error, f"{_id(case)}: {points} de {maximum}\n{error}\n{case[4]}"
        return
    assert points == 0, f"{_id(case)}: obtiene {points} de {maximum} con\n{case[4]}"
    assert named in error, f"{_id(case)}: el mensaje no dice {named!r}:\n{error}"
    assert "Traceback" not in error, error
