"""The reading behind «sin X» and predictions fails closed: every cell read in full, every name resolved,
anything hidden a failure; honest code in many styles keeps passing.

Each case is the notebook's cells before the test cell (after the lesson's own imports cell) and the check it meets.
"""

import pytest

from gradientes import checks
from gradientes.checks import CheckFailure
from gradientes.reading import SOURCES, RaisedCell, cell_sources, read

# The lessons' imports cell, Colab install included (a magic that binds no name, a fact read from importlib).
IMPORTS = (
    "import importlib.util\nimport os\n\n"
    "if importlib.util.find_spec('google') and importlib.util.find_spec('google.colab'):\n"
    "    paquete = os.environ.get('GRADIENTES_PAQUETE', 'gradientes-pytorch')\n"
    '    %pip install --quiet --no-deps "{paquete}" torchviz\n'
    "import math\n\nimport matplotlib.pyplot as plt\nimport torch\n\nimport gradientes.selfcheck  # noqa: F401\n"
    "from gradientes.plots import plot_tangent\nfrom IPython.display import display\n"
    "print('PyTorch', torch.__version__)\n"
)
LESSON = (
    "def ejemplo(x):\n    return torch.sin(x)\n\n\nx = torch.ones(2, requires_grad=True)\n"
    "with torch.enable_grad():\n    torch.sin(x).sum().backward()\nprint(type(x.grad_fn).__name__, x.grad)\n"
)


def outcome(check, cells, name):
    token = SOURCES.set([IMPORTS, LESSON, *cells])
    try:
        check(name)
    except CheckFailure as failure:
        return failure.message
    finally:
        SOURCES.reset(token)
    return None


def prediction(*cells):
    return outcome(checks.check_prediction_is_plain, cells, "prediccion")


def by_hand(*cells):
    return outcome(checks.check_without_autograd, cells, "derivada")


HONEST_PREDICTIONS = {
    "borrada con del y escrita otra vez": (
        "if 'prediccion' in dir():\n    del prediccion\n\n\ndef prediccion(x):\n    return 2 * x\n"
    ),
    "literales": "prediccion = (3.0, 6.0)\n",
    "constantes del cuaderno": (
        "ESCALA = 2 * math.pi\nPAR = (ESCALA, abs(-1.5))\n\n\ndef prediccion(x):\n    return PAR[0] * x + PAR[1]\n"
    ),
    "getattr con un nombre escrito": "def prediccion(x):\n    return getattr(math, 'floor')(x)\n",
    "una importación con asterisco de math": "from math import *\n\n\ndef prediccion(x):\n    return sqrt(x) * pi\n",
    "con órdenes mágicas inofensivas": (
        "%matplotlib inline\n%config InlineBackend.figure_format = 'svg'\n%load_ext autoreload\n%autoreload 2\n"
        "%whos\n\n\ndef prediccion(x):\n    return 2 * x\n"
    ),
    "con %pwd, %xmode y %precision": "%pwd\n%xmode Minimal\n%precision 4\n\n\ndef prediccion(x):\n    return 2 * x\n",
    "medida con %%timeit": ("def prediccion(x):\n    return 2 * x\n", "%%timeit -n 10 -r 3\nprediccion(3.0)\n"),
    "una celda de pruebas copiada": (
        "def prediccion(x):\n    return 2 * x\n",
        "%%comprobar\nfrom gradientes.checks import check_prediction_is_plain, passed\n\nPISTA = 'una pista'\n"
        "valor = prediccion(2.0)\ncheck_prediction_is_plain(prediccion)\npassed('bien')\n",
    ),
    "una tupla por omisión": "def prediccion(x, pesos=(1.0, 2.0)):\n    return pesos[0] * x + pesos[1]\n",
    "aritmética": "def prediccion(x):\n    return [3 * x * x, 2 * x + 1]\n",
    "math importado en la celda": "import math\n\n\ndef prediccion(a, x0):\n    return a * math.exp(x0)\n",
    "from math": (
        "from math import sqrt\n\n\ndef prediccion(v):\n    return [0.5 / sqrt(a) if a > 0 else math.nan for a in v]\n"
    ),
    "bucle y lista": (
        "def prediccion(x):\n    vueltas, nombres = 0, []\n    while abs(x) < 1:\n        x = x * 2\n"
        "        vueltas += 1\n        nombres.append('MulBackward0')\n    return ['SinBackward0'] + nombres\n"
    ),
    "una ayuda suya": "def doble(v):\n    return 2 * v\n\n\ndef prediccion(a, c):\n    return doble(a), float(c)\n",
    "un parámetro que se llama como un tensor de la lección": "def prediccion(x):\n    return float(x) * 3\n",
    "una lambda y una comprensión": "def prediccion(a):\n    return [(lambda k: k)(i) for i in range(a)]\n",
    "reescrita en otra celda": (
        "def prediccion(x):\n    return torch.ones(1).item()\n\n\ndef prediccion(x):\n    return x\n"
    ),
}

# Predictions that reach torch (or cannot be read): each family of the issue.
COMPUTED_PREDICTIONS = {
    "una tabla que es un valor por omisión hecho con una llamada": (
        "def prediccion(a, b, memo=dict()):\n    if a is None:\n        return memo\n    return memo[a, b]\n\n\n"
        "tabla = prediccion(None, None)\ntabla[True, False] = float(torch.ones(1).sum())\n"
    ),
    "torch dentro": "def prediccion(x):\n    return torch.tensor(x).item()\n",
    "una función de la lección": "def prediccion(x):\n    return ejemplo(x)\n",
    "un tensor de la lección": "def prediccion(a):\n    return float(x.sum()) + a\n",
    "autocall por una clase derivada de type(exit), en una línea que no es Python": (
        "class Lanzador(type(exit)):\n    def __call__(self, *argumentos):\n        return None\n\n\n"
        "lanzar = Lanzador()\n",
        "def prediccion(a):\n    return 2 * a\n",
        "lanzar prediccion := lambda a: float(torch.ones(1)) * 2 * a",
    ),
    "%%capture que se traga la excepción antes de la predicción razonada": (
        "def prediccion(x):\n    return float(torch.ones(1)) * x\n",
        "%%capture\nraise ValueError('nunca llega')\n\n\ndef prediccion(x):\n    return 2 * x\n",
    ),
    "un nombre dentro de if True": (
        "if True:\n    ayuda = torch.ones\n\n\ndef prediccion(x):\n    return ayuda(1).item()\n"
    ),
    "un nombre dentro de try": (
        "try:\n    ayuda = torch.ones\nexcept Exception:\n    pass\n\n\ndef prediccion(x):\n"
        "    return ayuda(1).item()\n"
    ),
    "un nombre dentro de with": (
        "with torch.no_grad():\n    ayuda = torch.ones\n\n\ndef prediccion(x):\n    return ayuda(1).item()\n"
    ),
    "un nombre de un for": "for ayuda in [torch.ones]:\n    pass\n\n\ndef prediccion(x):\n    return ayuda(1).item()\n",
    "una morsa": "(ayuda := torch.ones)\n\n\ndef prediccion(x):\n    return ayuda(1).item()\n",
    "un global dentro de una función": (
        "def preparar():\n    global ayuda\n    ayuda = torch.ones\n\n\npreparar()\n\n\n"
        "def prediccion(x):\n    return ayuda(1).item()\n"
    ),
    "una importación dentro de la función": (
        "def prediccion(x):\n    from torch import ones\n\n    return ones(1).item()\n"
    ),
    "un alias de torch": "t = torch\n\n\ndef prediccion(x):\n    return t.ones(1).item()\n",
    "un alias de una función de torch": "uno = torch.ones\n\n\ndef prediccion(x):\n    return uno(1).item()\n",
    "un argumento por omisión": "def prediccion(x, ayuda=torch.ones):\n    return ayuda(1).item()\n",
    "un decorador": (
        "def calcula(f):\n    return lambda x: torch.ones(1).item()\n\n\n@calcula\ndef prediccion(x):\n    return x\n"
    ),
    "math reemplazado": (
        "math.floor = lambda v: torch.ones(1).item()\n\n\ndef prediccion(x):\n    return math.floor(x)\n"
    ),
    "un diccionario que se llena después": (
        "ayudas = {}\n\n\ndef registrar(nombre, f):\n    ayudas[nombre] = f\n\n\nregistrar('uno', torch.ones)\n\n\n"
        "def prediccion(x):\n    return ayudas['uno'](1).item()\n"
    ),
    "acceso dinámico en otra celda": "def prediccion(x):\n    return x\n\n\nglobals()['prediccion'] = ejemplo\n",
    "getattr con un nombre calculado": "def prediccion(x):\n    return getattr(math, 'fl' + 'oor')(x)\n",
    "getattr de un atributo dunder": "def prediccion(x):\n    return getattr(x, '__class__')\n",
    "getattr redefinido": (
        "def getattr(a, b):\n    return torch.ones\n\n\ndef prediccion(x):\n    return getattr(x, 'y')(1).item()\n"
    ),
    "un diccionario que otro nombre llena": (
        "ayudas = dict()\notro = ayudas\notro['uno'] = torch.ones\n\n\n"
        "def prediccion(x):\n    return ayudas['uno'](1).item()\n"
    ),
    "un valor por omisión que se llena desde fuera": (
        "def prediccion(x, t={}):\n    return t if x is None else t['uno'](1).item()\n\n\n"
        "prediccion(None)['uno'] = torch.ones\n"
    ),
    "una lista que un alias llena": "prediccion = [0.0, 0.0]\notra = prediccion\notra[0] = torch.ones(1).item()\n",
    "un atributo dunder": "def prediccion(x):\n    return x.__class__.__mro__\n",
    "una orden mágica que ejecuta código": (
        "%time ayuda = torch.ones\n\n\ndef prediccion(x):\n    return ayuda(1).item()\n"
    ),
    "una celda mágica": "%%time\nayuda = torch.ones\n",
    "una orden mágica desconocida": "%run otro.py\n",
    "un nombre que el cuaderno no define": "def prediccion(x):\n    return misterio(x)\n",
    "una lista global que otro nombre llena": (
        "COEF = [0.0, 0.0]\nPUENTE = {'k': COEF}\nPUENTE['k'][:] = [torch.ones(1).item(), 2.0]\n\n\n"
        "def prediccion(x):\n    return COEF[0] + COEF[1] * x\n"
    ),
    "una importación con asterisco": "from torch import *\n\n\ndef prediccion(x):\n    return abs(x)\n",
    "un nombre que una importación con asterisco no trae": (
        "from math import *\n\n\ndef prediccion(x):\n    return AYUDA(1).item()\n\n\n"
        "%%timeit -n1 -r1 global AYUDA; AYUDA = torch.ones\npass\n"
    ),
    "la línea de preparación de %%timeit": (
        "AYUDA = abs\n\n\ndef prediccion(x):\n    return AYUDA(1).item()\n\n\n"
        "%%timeit -n1 -r1 global AYUDA; AYUDA = torch.ones\npass\n"
    ),
    "una orden %timeit con opciones": "%timeit -n1 -r1 ayuda = torch.ones\n",
    "una celda que dice ser de pruebas": (
        "# run_cell_magic('comprobar'\ndef prediccion(x):\n    return torch.ones(1).item()\n"
    ),
    "una definición de %%timeit, que queda dentro de su función": (
        "def prediccion(x):\n    return torch.ones(1).item()\n",
        "%%timeit -n1 -r1\ndef prediccion(x):\n    return x\n",
    ),
    "un señuelo tras una excepción": (
        "def prediccion(x):\n    return torch.ones(1).item()\n",
        RaisedCell("raise KeyboardInterrupt\n\n\ndef prediccion(x):\n    return x\n"),
    ),
    "%config que ejecuta código": (
        "AYUDA = abs\n\n\ndef prediccion(x):\n    return AYUDA(x)\n",
        "%config Foo.bar = globals().update(AYUDA=torch.ones)\n",
    ),
    "un backend de matplotlib propio": "%matplotlib module://parche\n",
    "exec con otro nombre": (
        "AYUDA = abs\nejecutar = exec\nejecutar('AYUDA = torch.ones')\n\n\ndef prediccion(x):\n    return AYUDA(x)\n"
    ),
    "una función de math leída sin llamarla, cambiada por una lista": (
        "modulos = [torch.math]\nmodulos[0].tau = lambda a: torch.ones(1).item()\n\n\n"
        "def prediccion(x):\n    f = math.tau\n    return f(x)\n"
    ),
    "un functools.partial puesto por una lista": (
        "import functools\n\nmodulos = [torch.math]\nmodulos[0].floor = functools.partial(torch.ones)\n\n\n"
        "def prediccion(x):\n    return math.floor(x)\n"
    ),
    "math cambiado por una lista": (
        "modulos = [torch.math]\nmodulos[0].dist = lambda a, b: torch.ones(1).item()\n\n\n"
        "def prediccion(x):\n    return math.dist([x], [0])\n"
    ),
    "una celda de pruebas propia que cambia el cuaderno": (
        "def prediccion(x):\n    return 0.0\n",
        "%%comprobar\nprediccion.__code__ = ejemplo.__code__\n",
    ),
    "una celda de pruebas propia que llega al espacio de nombres": (
        "def prediccion(x):\n    return 0.0\n",
        "%%comprobar\nget_ipython().user_ns['prediccion'] = ejemplo\n",
    ),
    "redefinida después dentro de un if": (
        "def prediccion(x):\n    return x\n\n\nif True:\n\n    def prediccion(x):\n"
        "        return torch.ones(1).item()\n"
    ),
}


@pytest.mark.parametrize("code", HONEST_PREDICTIONS.values(), ids=HONEST_PREDICTIONS)
def test_a_prediction_in_plain_python_passes(code):
    assert prediction(*((code,) if isinstance(code, str) else code)) is None


@pytest.mark.parametrize("code", COMPUTED_PREDICTIONS.values(), ids=COMPUTED_PREDICTIONS)
def test_a_prediction_that_can_reach_anything_but_plain_python_fails(code):
    code = (code,) if isinstance(code, str) else code
    cells = [*code] if "prediccion" in code[0] else [*code, "def prediccion(x):\n    return ayuda(1).item()\n"]
    message = prediction(*cells)
    assert message is not None, cells
    assert "una predicción no se calcula con código" in message or "no se puede comprobar qué usa" in message, message


def test_a_prediction_beside_an_unreadable_cell_says_the_cell_is_the_cause():
    message = prediction("import pandas as pd\n", "def prediccion(x):\n    return 2 * x\n")
    assert message.startswith("no se puede comprobar qué usa prediccion: tu cuaderno tiene la importación de «pandas»")


# A rule that differentiates with autograd, put where an answer by hand looks it up.
GRADIENTE = "lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]"
HONEST_BY_HAND = {
    "con otro nombre para un módulo, una anotación, una clase con sus constantes y match con int": (
        "F = torch.nn.functional\nESCALA: float = 3.0\n\n\nclass Reglas:\n    FACTOR = ESCALA\n\n\n"
        "def derivada(x):\n    match int(Reglas.FACTOR):\n        case int(n):\n            pass\n"
        "    return n * torch.cos(Reglas.FACTOR * x) + 0 * F.relu(x)\n"
    ),
    "con celdas de una línea: un error de sintaxis, un nombre importado que es una orden mágica y pwd": (
        "from time import time\n",
        "print(time()",
        "time()",
        "pwd",
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    ),
    "con un gancho que imprime en otra celda, sorted con key y una función de torch.func": (
        "w = torch.ones(2, requires_grad=True)\nw.register_hook(lambda g: print(g))\n"
        "orden = sorted([2, 1], key=lambda k: -k)\ncuadrado = torch.func.grad(lambda v: (v**2).sum())\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "con una clase hija que llama al método de su madre y un tipo de numpy": (
        "import numpy as np\n\n\nclass Madre:\n    def d(self, v):\n        return 3 * torch.cos(3 * v)\n\n\n"
        "class Hija(Madre):\n    def d(self, v):\n        return Madre.d(self, v) + np.zeros(1, np.float64)[0]\n\n\n"
        "def derivada(x):\n    return Hija().d(x)\n"
    ),
    "con anotaciones, isinstance, type() para leer y bibliotecas del curso": (
        "import collections\nimport itertools\nfrom dataclasses import dataclass\n\nimport numpy as np\n\n\n"
        "@dataclass\nclass Punto:\n    x: float\n\n\ndef derivada(x: torch.Tensor) -> torch.Tensor:\n"
        "    assert isinstance(x, (torch.Tensor, float)) and type(x) is torch.Tensor, type(x).__name__\n"
        "    cuenta = collections.Counter(itertools.repeat(1, 2))\n"
        "    pendiente = np.float64(3.0) * cuenta[1] / 2\n    return pendiente * torch.cos(3 * x).type(torch.float64)\n"
    ),
    "llamando a la variable de un bucle, con otra función que usa autograd en su propia tabla": (
        "def con_autograd(v):\n    tabla, pila = {}, [v]\n"
        "    tabla['g'] = torch.autograd.grad(torch.sin(v).sum(), v)[0]\n    return tabla, pila\n\n\n"
        "def derivada(x):\n    for f in [lambda v: 3 * torch.cos(3 * v)]:\n        return f(x)\n"
    ),
    "con una lista de parámetros que un bucle vacía": (
        "w = torch.ones(2, requires_grad=True)\nb = torch.zeros(1, requires_grad=True)\nfor p in [w, b]:\n"
        "    p.grad = None\n    p.data = p.data - 0.1 * p.data\n\n\n"
        "def derivada(x):\n    for k in [3]:\n        return k * torch.cos(k * x)\n"
    ),
    "con una tabla de derivadas y una lista de datos que se cambia": (
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\ndatos = [1.0, 2.0]\ndatos[0] = 5.0\n\n\n"
        "def derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "con un nombre legible y un getattr con valor por omisión": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x) + getattr(x, 'pendiente', 0)\n\n\n"
        "derivada.__name__ = 'la derivada'\n"
    ),
    "con el límite de recursión subido": (
        "import sys\n\nsys.setrecursionlimit(10000)\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "después de un getattr con un nombre escrito": (
        "print(getattr(x, 'shape'))\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "después de una comprensión cuya variable se llama como la respuesta": (
        "import torch\n\nmedidas = [(1, torch.autograd.grad)]\ntabla = [derivada for _, derivada in medidas]\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "con un tensor de la lección que otra celda dibuja": (
        "import matplotlib.pyplot as plt\n\nescala = torch.tensor(3.0)\nplt.plot(escala, escala)\n\n\n"
        "def derivada(x):\n    return escala * torch.cos(3 * x)\n"
    ),
    "una clase que se nombra a sí misma, escrita otra vez": (
        "class Par:\n    def doble(self):\n        return torch.ones(1).backward()\n\n\n"
        "class Par:\n    def __init__(self, v):\n        self.v = v\n\n    def doble(self):\n"
        "        return Par(2 * self.v)\n\n\ndef derivada(x):\n    return Par(3 * torch.cos(3 * x)).doble().v / 2\n"
    ),
    "con una tabla y, en otra función, una tabla propia que deriva con autograd": (
        "def comparar(x):\n    tabla = dict()\n    tabla['auto'] = " + GRADIENTE + "\n    return tabla['auto'](x)\n\n\n"
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\n\n\ndef derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "con torch": "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    "con un decorador hecho con functools.wraps": (
        "import functools\n\n\ndef registrar(f):\n    @functools.wraps(f)\n    def envuelta(x):\n"
        "        return f(x)\n\n    return envuelta\n\n\n@registrar\ndef derivada(x):\n"
        "    return 3 * torch.cos(3 * x)\n"
    ),
    "con páginas de ayuda y HTML": (
        "%pinfo torch.sin\n%xmode Minimal\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "con un módulo que tiene otro nombre y una variable que se llama como el paquete del curso": (
        "F = torch.nn.functional\nfor k in range(2):\n    gradientes = [k]\nprint(gradientes, F.relu)\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "con un objeto de una clase del cuaderno dado a torch sin guardarlo": (
        "class Capa(torch.nn.Module):\n    def forward(self, v):\n        return 2 * v\n\n\n"
        "modelo = Capa()\nopt = torch.optim.SGD(modelo.parameters(), lr=0.1)\n"
        "print(torch.tensor([len(list(modelo.parameters()))]))\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "con operator.mul en otra celda": (
        "import functools\nimport operator\n\nproducto = functools.reduce(operator.mul, [1, 2, 3])\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "con anotaciones de typing": (
        "from typing import Callable\n\n\ndef derivada(x: torch.Tensor) -> torch.Tensor:\n    f: Callable = torch.cos\n"
        "    return 3 * f(3 * x)\n"
    ),
    "con una ayuda y un print": (
        "def coseno(v):\n    print('coseno de', v)\n    return torch.cos(v)\n\n\n"
        "def derivada(x):\n    return 3 * coseno(3 * x)\n"
    ),
    "con numpy": (
        "import numpy as np\n\n\ndef derivada(x):\n    return torch.from_numpy(3 * np.cos(3 * x.detach().numpy()))\n"
    ),
    "con bucles y comprensiones": (
        "def derivada(x):\n    return torch.stack([3 * torch.cos(3 * v) for v in x.reshape(-1)]).reshape(x.shape)\n"
    ),
    "reasignada con un registro": (
        "registro = []\n\n\ndef registrar(f):\n    registro.append(f.__name__)\n    return f\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n\n\nderivada = registrar(derivada)\n"
    ),
    "con una importación dentro": "def derivada(x):\n    import math\n\n    return 3 * torch.cos(3 * x) * math.e**0\n",
    "una clase": (
        "class Derivada:\n    def __call__(self, x):\n        return 3 * torch.cos(3 * x)\n\n\nderivada = Derivada()\n"
    ),
}

WITH_AUTOGRAD = {
    # Attack 14: each family below earned full marks on the real grader before it was closed.
    "una instancia en un registro de copy (copy.dispatch_table)": (
        "import copy\n\n\nclass R:\n    def __call__(self, t):\n        return torch.clone, (t,)\n\n\n"
        "D = {}\nD[torch.Tensor] = R()\ncopy.dispatch_table.update(D)\n\n\n"
        "def derivada(x):\n    from copy import copy as copiar\n\n    return copiar(x)\n"
    ),
    "un alias por una expresión (max([TABLA]))": (
        f"class Regla:\n    def aplicar(self, v):\n        return 3 * torch.cos(3 * v)\n\n\n"
        f"class Atajo:\n    def aplicar(self, v):\n        return ({GRADIENTE})(v)\n\n\nTABLA = [Regla()]\n",
        "otra = max([TABLA])\notra[0] = Atajo()\n",
        "def derivada(x):\n    for r in TABLA:\n        return r.aplicar(x)\n",
    ),
    "un cierre cambiado con nonlocal": (
        "def fabrica():\n    regla = torch.cos\n\n    def aplicar(v):\n        return 3 * regla(3 * v)\n\n"
        "    def cambiar(n):\n        nonlocal regla\n        regla = n\n\n    return aplicar, cambiar\n\n\n"
        "aplicar_regla, cambiar_regla = fabrica()\n",
        f"cambiar_regla({GRADIENTE})\n",
        "def derivada(x):\n    return aplicar_regla(x)\n",
    ),
    "un atributo privado de los tensores que el cuaderno también escribe": (
        "class Nota:\n    pass\n\n\nNOTA = Nota()\nNOTA._grad_fn = None\n\n\n"
        "def derivada(x):\n    y = torch.sin(3 * x)\n    return y._grad_fn(torch.ones_like(y))\n"
    ),
    "un decorador que registra la regla": (
        "REGISTRO = []\n\n\ndef registrar(f):\n    REGISTRO.insert(0, f)\n    return f\n\n\n"
        f"@registrar\ndef atajo(v):\n    return ({GRADIENTE})(v)\n\n\n"
        "def derivada(x):\n    for r in REGISTRO:\n        return r(x)\n"
    ),
    "__init_subclass__ que registra la clase": (
        "REGISTRO = []\n\n\nclass Regla:\n    def __init_subclass__(cls):\n        REGISTRO.append(cls.aplicar)\n\n\n"
        f"class Atajo(Regla):\n    aplicar = staticmethod({GRADIENTE})\n\n\n"
        "def derivada(x):\n    return REGISTRO[0](x)\n"
    ),
    "un import en el cuerpo de una clase": (
        "class Caja:\n    import torch.autograd.functional as fa\n\n\n"
        "def derivada(x):\n    def g(t):\n        return torch.sin(3 * t)\n\n"
        "    return Caja.fa.vjp(g, x, torch.ones_like(x))[1]\n"
    ),
    "una expresión generadora guardada que se evalúa más tarde": (
        "def regla(v):\n    return 3 * torch.cos(3 * v)\n\n\nREGLAS = (regla for _ in range(10**9))\n",
        "def derivada(x):\n    return next(REGLAS)(x)\n",
        f"def regla(v):\n    return ({GRADIENTE})(v)\n",
    ),
    "la misma celda ejecutada dos veces (cada ejecución en su sitio)": (
        f"class Atajo:\n    def aplicar(self, v):\n        return ({GRADIENTE})(v)\n",
        "REGLA = Atajo()\n",
        "USAR = REGLA\n",
        "def derivada(x):\n    return USAR.aplicar(x)\n",
        "REGLA = Atajo()\n",
    ),
    "una función nueva hecha con el código de otra (__code__.replace)": (
        f"def atajo(v):\n    return ({GRADIENTE})(v)\n\n\n"
        "def plantilla(v):\n    return 3 * torch.cos(3 * v)\n\n\n"
        "nueva = type(plantilla)(plantilla.__code__.replace(co_code=atajo.__code__.co_code), {})\n\n\n"
        "def derivada(x):\n    return nueva(x)\n"
    ),
    "una tabla llenada por otro nombre dentro de una función": (
        "REGLAS = {}\n\n\ndef _regla(n):\n    return lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "def instalar():\n    tabla = REGLAS\n    tabla.update({n: _regla(n) for n in ('cos',)})\n\n\ninstalar()\n\n\n"
        "def derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "una regla cambiada por otro nombre del diccionario": (
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\notro = REGLAS\n"
        "otro['cos'] = lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "def derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "reasignada: la definición de antes cuenta": (
        "def registrar(f):\n    return f\n\n\ndef derivada(x):\n    return torch.autograd.grad(x, x)\n\n\n"
        "derivada = registrar(derivada)\n"
    ),
    "backward": (
        "def derivada(x):\n    x = x.detach().requires_grad_()\n    torch.sin(3 * x).backward()\n    return x.grad\n"
    ),
    "importada dentro de la función": (
        "def derivada(x):\n    from torch.autograd import grad as g\n\n    x = x.detach().clone()\n"
        "    x.requires_grad = True\n    return g(torch.sin(3 * x), x)[0]\n"
    ),
    "importada dentro de un if": (
        "if True:\n    from torch.autograd import grad as g\n\n\ndef derivada(x):\n"
        "    return g(torch.sin(3 * x), x)[0]\n"
    ),
    "una ayuda definida en un try": (
        "try:\n\n    def ayuda(y, x):\n        y.backward()\n        return x\n\nexcept Exception:\n    pass\n\n\n"
        "def derivada(x):\n    return ayuda(torch.sin(x), x)\n"
    ),
    "un alias de torch.autograd": "A = torch.autograd\n\n\ndef derivada(x):\n    return A.grad(torch.sin(x), x)[0]\n",
    "por un módulo que torch expone": "def derivada(x):\n    return torch.nn.functional.torch.autograd.grad(x, x)\n",
    "una parte interna de torch": "def derivada(x):\n    return torch._C._VariableFunctions.sin(x)\n",
    "otra biblioteca": "import sympy\n\n\ndef derivada(x):\n    return sympy.diff(x)\n",
    "getattr": "def derivada(x):\n    return getattr(torch.sin(x), 'back' + 'ward')()\n",
    "eval": "def derivada(x):\n    return eval('x.grad')\n",
    "el grad_fn llamado a mano": "def derivada(x):\n    return torch.sin(x).grad_fn(torch.ones(()))\n",
    "un módulo del curso": (
        "from gradientes import checks as c\n\n\ndef derivada(x):\n    return c.reference_gradients(torch.sin, x)\n"
    ),
    "por el marco de un generador": (
        "def derivada(x):\n    t = (i for i in ()).gi_frame.f_globals['torch']\n"
        "    return t.autograd.functional.jacobian(torch.sin, x)\n"
    ),
    "por las funciones integradas de un marco": (
        "def derivada(x):\n    marco = (i for i in ()).gi_frame\n"
        "    return marco.f_builtins['__import__']('torch').autograd.functional.jacobian(torch.sin, x)\n"
    ),
    "por el marco de una excepción": (
        "def derivada(x):\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        tb = e.__traceback__\n"
        "    return tb.tb_frame.f_globals['torch'].autograd.functional.jacobian(torch.sin, x)\n"
    ),
    "una tabla que recibe una función por map": (
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\n\n\ndef parchear(tabla):\n"
        "    tabla['cos'] = " + GRADIENTE + "\n\n\nlist(map(parchear, [REGLAS]))\n\n\n"
        "def derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "una tabla que un local saca de una lista": (
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\n\n\ndef parchear():\n    tabla = next(iter([REGLAS]))\n"
        "    tabla['cos'] = " + GRADIENTE + "\n\n\nparchear()\n\n\ndef derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "una tabla como valor por omisión": (
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\n\n\ndef parchear(tabla=REGLAS):\n"
        "    tabla['cos'] = " + GRADIENTE + "\n\n\nparchear()\n\n\ndef derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "un método cambiado por una clave de sorted": (
        "class M:\n    @staticmethod\n    def d(v):\n        return 3 * torch.cos(3 * v)\n\n\ndef parchear(c):\n"
        "    c.d = " + GRADIENTE + "\n    return 0\n\n\nsorted([M], key=parchear)\n\n\n"
        "def derivada(x):\n    return M.d(x)\n"
    ),
    "una tabla cambiada en una comprensión": (
        "REGLAS = {'cos': lambda v: 3 * torch.cos(3 * v)}\n"
        "[t.update(cos=" + GRADIENTE + ") for t in [REGLAS]]\n\n\ndef derivada(x):\n    return REGLAS['cos'](x)\n"
    ),
    "math cambiado con unittest.mock.patch": (
        "from unittest import mock\n\n"
        "mock.patch('math.ulp', lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]).start()\n\n\n"
        "def derivada(x):\n    return math.ulp(x)\n"
    ),
    "un atributo leído con string.Formatter": (
        "import string\n\n\ndef derivada(x):\n    x = x.detach().requires_grad_()\n"
        "    y = torch.sin(3 * x).sum()\n    string.Formatter().get_field('0.backward', (y,), {})[0]()\n"
        "    return string.Formatter().get_field('0.grad', (x,), {})[0]\n"
    ),
    "una anotación evaluada con typing.get_type_hints": (
        "import typing\n\n\ndef _apis(g: 'torch.autograd.grad'):\n    pass\n\n\ndef derivada(x):\n"
        "    g = typing.get_type_hints(_apis)['g']\n    return g(torch.sin(3 * x).sum(), x)[0]\n"
    ),
    "atributos leídos con un patrón de match": (
        "def derivada(x):\n    x = x.detach().requires_grad_()\n    y = torch.sin(3 * x).sum()\n    match y:\n"
        "        case object(backward=b):\n            b()\n    match x:\n        case object(grad=g):\n"
        "            return g\n"
    ),
    "un método puesto con un operador que devuelve código": (
        "class Envoltorio:\n    def __init__(self, f):\n        self.f = f\n\n    def __neg__(self):\n"
        "        return self.f\n\n\nclass M:\n    @staticmethod\n    def d(v):\n"
        "        return 3 * torch.cos(3 * v)\n\n\n"
        "(M,)[0].d = -Envoltorio(lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0])\n\n\n"
        "def derivada(x):\n    return M.d(x)\n"
    ),
    "un objeto sacado de torch.load": (
        "import io\n\n\ndef derivada(x):\n    g = torch.load(io.BytesIO(b''), weights_only=False)\n    return g(x)\n"
    ),
    "una anotación evaluada con inspect.signature(eval_str=True)": (
        "import inspect\n\n\ndef _apis(g: 'torch.autograd.grad'):\n    pass\n\n\ndef derivada(x):\n"
        "    g = inspect.signature(_apis, eval_str=True).parameters['g'].annotation\n"
        "    return g(torch.sin(3 * x).sum(), x)[0]\n"
    ),
    "una instancia de una clase que después se escribe otra vez": (
        "class Truco:\n    def d(self, v):\n        return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "t = Truco()\n\n\nclass Truco:\n    pass\n\n\ndef derivada(x):\n    return t.d(x)\n"
    ),
    "una función guardada en una lista antes de escribirla otra vez": (
        "def ayuda(v):\n    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\ntabla = [ayuda]\n\n\n"
        "def ayuda(v):\n    return 0\n\n\ndef derivada(x):\n    return tabla[0](x)\n"
    ),
    "otro nombre de una función que después se escribe otra vez": (
        "def ayuda(v):\n    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\notra = ayuda\n\n\n"
        "def ayuda(v):\n    return 0\n\n\ndef derivada(x):\n    return otra(x)\n"
    ),
    "TorchScript escrito en un texto": (
        "cu = torch.jit.CompilationUnit('''\ndef d(v):\n    return v\n''')\n\n\ndef derivada(x):\n    return cu.d(x)\n"
    ),
    "una orden mágica con {…}": (
        "def ayuda(x):\n    return torch.autograd.grad(torch.sin(3 * x).sum(), x)[0]\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n\n\n"
        "get_ipython().run_line_magic('pwd', \"{setattr(derivada, '__code__', ayuda.__code__)}\")\n"
    ),
    "una orden del sistema con {…}": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n\n\nget_ipython().system(\"echo {print('hola')}\")\n"
    ),
    "cProfile.run de un texto": (
        "import cProfile\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n\n\n"
        "cProfile.run('derivada = lambda v: 0')\n"
    ),
    "un modo de torch_function": (
        "from torch.overrides import TorchFunctionMode\n\n\nclass Modo(TorchFunctionMode):\n    pass\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "torch.library": (
        "biblioteca = torch.library.Library('aten', 'IMPL')\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "una clase con __torch_function__": (
        "class T(torch.Tensor):\n    @classmethod\n"
        "    def __torch_function__(cls, f, tipos, args=(), kwargs=None):\n        return 0\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "functools.update_wrapper con assigned": (
        "import functools\n\n\ndef ayuda(v):\n"
        "    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\ndef derivada(x):\n"
        "    return 3 * torch.cos(3 * x)\n\n\n"
        "functools.update_wrapper(derivada, ayuda, assigned=('__code__',), updated=())\n"
    ),
    "una orden mágica que escribe un objeto que no es un texto": (
        "class Truco:\n    def __format__(self, formato):\n        return ''\n\n\npaquete = Truco()\n"
        "%pip install {paquete}\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "una orden del sistema con $ y una expresión": (
        "!echo ${torch.autograd.grad}\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "una lista llena después": (
        "ayudas = []\nayudas.append(torch.autograd.grad)\n\n\ndef derivada(x):\n    return ayudas[0](torch.sin(x), x)\n"
    ),
    "una anotación escrita como texto que functools.singledispatch evalúa": (
        "import functools\n\n\ndef ayuda(v):\n    return 3 * torch.cos(3 * v)\n\n\n@functools.singledispatch\n"
        "def despacho(v):\n    pass\n\n\n@despacho.register\ndef _registro(v: '[print(1), int][1]'):\n    pass\n\n\n"
        "def derivada(x):\n    return ayuda(x)\n"
    ),
    "una anotación escrita como texto en cualquier celda": (
        "def ayuda(v: 'torch.autograd.grad') -> 'int':\n    return 0\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un pickle abierto con numpy.lib.format": (
        "import io\n\nimport numpy\n\n\ndef derivada(x):\n"
        "    g = numpy.lib.format.read_array(io.BytesIO(b''), allow_pickle=True)[0]\n    return g(x)\n"
    ),
    "un módulo que devuelve una llamada": (
        "principal = torch._utils._import_dotted_name('__main__')\n\n\ndef derivada(x):\n"
        "    return 3 * torch.cos(3 * x)\n"
    ),
    "otro nombre de una lista y una llamada a la variable de un bucle": (
        "TABLA = []\notra = TABLA\notra.append(lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0])\n\n\n"
        "def derivada(x):\n    for f in TABLA:\n        return f(x)\n"
    ),
    "un elemento de una lista llenada por otro nombre, entregado a una función": (
        "TABLA = []\notra = TABLA\notra.append(lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0])\n\n\n"
        "def aplicar(f, v):\n    return f(v)\n\n\ndef derivada(x):\n    return aplicar(TABLA[0], x)\n"
    ),
    "un método de torch.Tensor cambiado a través de type(…)": (
        "def suave(t, dim):\n    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "type(torch.zeros(1)).softmax = suave\n\n\ndef derivada(x):\n"
        "    return torch.nn.functional.softmin(x, dim=0)\n"
    ),
    "la clase de un tensor guardada en un nombre": (
        "def suave(t, dim):\n    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "T = type(torch.zeros(1))\nT.softmax = suave\n\n\ndef derivada(x):\n"
        "    return torch.nn.functional.softmin(x, dim=0)\n"
    ),
    "torch.Tensor en una lista": (
        "def suave(t, dim):\n    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "clases = [torch.Tensor]\nclases[0].softmax = suave\n\n\ndef derivada(x):\n"
        "    return torch.nn.functional.softmin(x, dim=0)\n"
    ),
    "torch.Tensor entregado a una función que lo cambia": (
        "def suave(t, dim):\n    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "def parchear(clase):\n    clase.softmax = suave\n\n\nparchear(torch.Tensor)\n\n\ndef derivada(x):\n"
        "    return torch.nn.functional.softmin(x, dim=0)\n"
    ),
    "una clase sacada de mro()": (
        "class Mio(torch.Tensor):\n    pass\n\n\nT = Mio.mro()[1]\n\n\ndef derivada(x):\n"
        "    return 3 * torch.cos(3 * x)\n"
    ),
    "un módulo importado que el curso no conoce (uno escrito con %%writefile)": (
        "import truco\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un módulo que un tensor importa por su nombre": (
        "def derivada(x):\n    torch.zeros(1).type('truco.Clase')\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un módulo que find_spec importa por su nombre": (
        "import importlib.util\n\nimportlib.util.find_spec('truco.algo')\n\n\ndef derivada(x):\n"
        "    return 3 * torch.cos(3 * x)\n"
    ),
    "una clase creada con type y un diccionario": (
        "Truco = type('Truco', (), {'d': lambda self, v: 0})\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un motor de gráficas de matplotlib nombrado por un texto": (
        "import matplotlib\n\nmatplotlib.use('module://truco')\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un valor guardado por functools.cache antes de cambiar el nombre que lee": (
        "import functools\n\nREGLA = lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "@functools.cache\ndef regla():\n    return REGLA\n\n\nregla()\nREGLA = lambda v: 0 * v\n\n\n"
        "def derivada(x):\n    return regla()(x)\n"
    ),
    "un generador que una copia de itertools.tee adelantó antes de cambiar el nombre que lee": (
        "import itertools\n\n\ndef reglas():\n    while True:\n        yield REGLA\n\n\n"
        "una, otra = itertools.tee(reglas())\nREGLA = lambda v: torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n"
        "next(una)\nREGLA = lambda v: 0 * v\n\n\ndef derivada(x):\n    return next(otra)(x)\n"
    ),
    "un método de la clase de un tensor cambiado a través de __class__": (
        "import numpy as np\n\n\ndef oculto(t, *args, **kwargs):\n"
        "    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "muestra = torch.zeros(1)\nmuestra.__class__.max = oculto\n\n\ndef derivada(x):\n    return np.amax(x)\n"
    ),
    "un método puesto en un objeto que recibe una función": (
        "def oculto(t, *args, **kwargs):\n    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "def poner(objeto):\n    objeto.max = oculto\n\n\nponer(torch.zeros(1))\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un elemento de un valor por omisión que otra celda llena con un objeto que calcula": (
        "class Calculo:\n    def __getitem__(self, v):\n"
        "        return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "def derivada(x, memo=dict()):\n    if x is None:\n        return memo\n    return memo['calc'][x]\n\n\n"
        "tabla = derivada(None)\ntabla['calc'] = Calculo()\n"
    ),
    "un método de una clase del cuaderno llamado con la clase de un tensor como self": (
        "import numpy as np\n\n\ndef oculto(t, *args, **kwargs):\n"
        "    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "class Ayuda:\n    def poner(self):\n        self.max = oculto\n\n\n"
        "Ayuda.poner(torch.zeros(1).__class__)\n\n\ndef derivada(x):\n    return np.amax(x)\n"
    ),
    "la clase de un tensor devuelta por copy.copy": (
        "import copy\n\n\ndef suave(t, dim):\n    return torch.autograd.grad(torch.sin(3 * t).sum(), t)[0]\n\n\n"
        "T = copy.copy(torch.Tensor)\nT.softmax = suave\n\n\ndef derivada(x):\n"
        "    return torch.nn.functional.softmin(x, dim=0)\n"
    ),
    "una función que numpy guarda para sus errores (numpy.seterrcall)": (
        "import numpy\n\nENTRADAS = []\n\n\ndef gancho(tipo, bandera):\n    t = ENTRADAS[-1]\n"
        "    v = t.detach().requires_grad_()\n    t.copy_(torch.autograd.grad(torch.sin(3 * v).sum(), v)[0])\n\n\n"
        "numpy.seterr(all='call')\nnumpy.seterrcall(gancho)\n\n\ndef derivada(x):\n    ENTRADAS.append(x)\n"
        "    numpy.divide(0.0, 0.0)\n    return x * 1\n"
    ),
    "una metaclase que un filtro de warnings consulta": (
        "import warnings\n\n\nclass Meta(type):\n    def __subclasscheck__(cls, otra):\n        return False\n\n\n"
        "class Aviso(metaclass=Meta):\n    pass\n\n\nwarnings.filterwarnings('ignore', category=Aviso)\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un gancho registrado por otro nombre de un módulo dentro de una función": (
        "def oculta(modulo, entradas, salida):\n    v = entradas[0].detach().requires_grad_()\n"
        "    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\nMODULO = torch.nn.Identity()\n\n\n"
        "def poner():\n    m = MODULO\n    m.register_forward_hook(oculta)\n\n\nponer()\n\n\n"
        "def derivada(x):\n    return MODULO(x)\n"
    ),
    "una tabla cambiada con |= por otro nombre dentro de una función": (
        "REGLAS = {'derivada': lambda v: 0 * v}\n\n\ndef oculta(v):\n"
        "    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "def poner():\n    d = REGLAS\n    d |= {'derivada': oculta}\n\n\nponer()\n\n\n"
        "def derivada(x):\n    return REGLAS['derivada'](x)\n"
    ),
    "ganchos de torch que un generador deja activos, detenido dentro del with": (
        "def empaquetar(t):\n    return torch.autograd.grad(t.sum(), t)[0]\n\n\ndef activar():\n"
        "    with torch.autograd.graph.saved_tensors_hooks(empaquetar, lambda t: t):\n        yield\n\n\n"
        "activo = activar()\nnext(activo)\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "from __future__ import annotations": (
        "from __future__ import annotations\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un objeto invocable de una clase del cuaderno dado a saved_tensors_hooks en un generador detenido": (
        "class Empaque:\n    def __call__(self, t):\n        t.salida = torch.autograd.grad(t.sum(), t)[0]\n"
        "        return t\n\n\n"
        "def mantener():\n    with torch.autograd.graph.saved_tensors_hooks(Empaque(), Empaque()):\n"
        "        yield\n\n\n"
        "activo = mantener()\nnext(activo)\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un gancho que devuelve una función del cuaderno, dado a saved_tensors_hooks": (
        "def hacer():\n    return lambda t: torch.autograd.grad(t.sum(), t)[0]\n\n\n"
        "def mantener():\n    with torch.autograd.graph.saved_tensors_hooks(hacer(), hacer()):\n        yield\n\n\n"
        "activo = mantener()\nnext(activo)\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un gancho que devuelve un método de un objeto del cuaderno": (
        "class Fabrica:\n    def hacer(self):\n        return lambda t: torch.autograd.grad(t.sum(), t)[0]\n\n\n"
        "fabrica = Fabrica()\n\n\ndef mantener():\n"
        "    with torch.autograd.graph.saved_tensors_hooks(fabrica.hacer(), fabrica.hacer()):\n        yield\n\n\n"
        "activo = mantener()\nnext(activo)\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "el mismo objeto por un nombre": (
        "class Empaque:\n    def __call__(self, t):\n        return torch.autograd.grad(t.sum(), t)[0]\n\n\n"
        "e = Empaque()\n\n\ndef mantener():\n    with torch.autograd.graph.saved_tensors_hooks(e, e):\n"
        "        yield\n\n\n"
        "activo = mantener()\nnext(activo)\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un objeto guardado en un diccionario de una biblioteca alcanzado por una expresión": (
        "import numpy\n\n\nclass Ayuda:\n    def calcular(self, v):\n"
        "        return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "[numpy.sctypeDict][0].update(ayuda=Ayuda())\n\n\n"
        "def derivada(x):\n    return numpy.sctypeDict['ayuda'].calcular(x)\n"
    ),
    "el mismo objeto sacado con get de un diccionario lleno por un parámetro": (
        "import numpy\n\n\nclass Ayuda:\n    def calcular(self, v):\n"
        "        return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "def poner(d):\n    d.update(ayuda=Ayuda())\n\n\nponer(numpy.sctypeDict)\n\n\n"
        "def derivada(x):\n    return numpy.sctypeDict.get('ayuda').calcular(x)\n"
    ),
    "functools.wraps que copia una clase en un módulo alcanzado por una cadena": (
        "import functools\nimport math\n\n\nclass Parche:\n    def cos(v):\n"
        "        return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "functools.wraps(Parche)(torch.nn.functional.math)\n\n\ndef derivada(x):\n    return math.cos(x)\n"
    ),
    "functools.wraps guardado en otro nombre": (
        "import functools\n\ncopiar = functools.wraps\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un módulo importado con from, dado como valor": (
        "from torch.nn import functional\n\nlista = [functional]\n\n\ndef derivada(x):\n"
        "    return 3 * torch.cos(3 * x)\n"
    ),
    "un proceso de fondo lanzado con %%bash": (
        "%%bash\nnohup python servidor.py > /dev/null 2>&1 &\n",
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    ),
    "una orden del sistema con !": ("!python servidor.py &\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"),
    "un %pip que instala una carpeta": (
        "paquete = '/trabajo/mio'\n%pip install --quiet --no-deps \"{paquete}\" torchviz\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "una variable de entorno cambiada, que después lee %pip": (
        "import os\n\nos.environ.update(GRADIENTES_PAQUETE='/trabajo/mio')\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "os.environ alcanzado por una expresión": (
        "import os\n\n[os.environ][0]['GRADIENTES_PAQUETE'] = '/trabajo/mio'\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un %pip con otra línea": (
        "%pip install --no-build-isolation /trabajo/mio\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "una celda de una línea que IPython ejecuta como %time (automagia)": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
        "time def derivada(x): return torch.autograd.grad(torch.sin(3 * x).sum(), x)[0]",
    ),
    "la misma automagia con prun": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
        "prun -q def derivada(x): return torch.autograd.grad(torch.sin(3 * x).sum(), x)[0]",
    ),
    "heapq.heappush que pone una función en una lista del cuaderno": (
        "import heapq\n\nATAJOS = []\n\n\n"
        "def atajo(v):\n    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "heapq.heappush(ATAJOS, atajo)\n\n\ndef derivada(x):\n    return ATAJOS[0](x)\n"
    ),
    "bisect.insort que pone una función en una lista del cuaderno": (
        "import bisect\n\nATAJOS = []\n\n\n"
        "def atajo(v):\n    return torch.autograd.grad(torch.sin(3 * v).sum(), v)[0]\n\n\n"
        "bisect.insort(ATAJOS, atajo)\n\n\ndef derivada(x):\n    return ATAJOS[0](x)\n"
    ),
    "el nodo de autograd por un atributo privado": (
        "def derivada(x):\n    h = x.detach().clone()\n    h.requires_grad = True\n    s = torch.sin(3 * h)\n"
        "    return s._grad_fn(torch.ones_like(s))\n"
    ),
    "el paso complejo": (
        "def derivada(x):\n    z = x.to(torch.complex128) + 1e-30j\n"
        "    return (torch.sin(3 * z).imag / 1e-30).to(x.dtype)\n"
    ),
    "autocall encendido con %config y una línea que no es Python": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
        "%config InteractiveShell.autocall = 2\n",
        "exec 'def derivada(x):\\n    return torch.autograd.grad(torch.sin(3 * x).sum(), x)[0]\\n'",
    ),
    "un módulo importado por %config": (
        "%config InteractiveShell.loop_runner = 'modulo.correr'\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "un objeto que IPython llama solo, de una clase derivada de type(exit)": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
        "class Lanzador(type(exit)):\n    def __call__(self, *argumentos):\n        return None\n\n\n"
        "lanzar = Lanzador()\n",
        f"lanzar derivada := {GRADIENTE}",
    ),
    "exit, que IPython llama con lo que sigue en la línea (exit f := g ejecuta exit(f := g))": (
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
        f"exit derivada := {GRADIENTE}",
    ),
    "la misma clase, derivada de exit.__class__": (
        "class Lanzador(exit.__class__):\n    pass\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
    "%run por automagia en una línea que es Python": (
        "import pathlib\n\npathlib.Path('(a.py)').write_text('import torch\\nderivada = " + GRADIENTE + "\\n')\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
        "run (a.py)",
    ),
    "%env por automagia en una línea que es Python": (
        "env (GRADIENTES_PAQUETE=1)",
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    ),
    "aimport de autoreload por automagia": (
        "%load_ext autoreload\n",
        "aimport (modulo)",
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    ),
    "pytest, que numpy.test lanza sobre un archivo que escribe el cuaderno": (
        "import os\nimport pathlib\n\nimport numpy\n\npathlib.Path('test_apuntes.py').write_text("
        "'import torch\\ntorch.special.spherical_bessel_j0 = " + GRADIENTE + "\\n')\n"
        "numpy.test(tests=[os.path.join(os.getcwd(), 'test_apuntes.py')])\n\n\n"
        "def derivada(x):\n    return torch.special.spherical_bessel_j0(x)\n"
    ),
    "un módulo con otro nombre y una cadena que vuelve a torch": (
        "Atajo = torch.nn.functional\n\n\n"
        "def derivada(x):\n"
        "    return Atajo.torch.autograd.functional.vjp(lambda v: torch.sin(3 * v), x, torch.ones_like(x))[1]\n"
    ),
    "una anotación sin valor después de la definición": (
        f"def derivada(x):\n    return ({GRADIENTE})(x)\n\n\nderivada: dict\n"
    ),
    "un nombre que el cuerpo de una clase lee de las globales antes de atarlo": (
        "sin = torch.autograd.grad\n\n\nclass Caja:\n    sin = sin\n\n\n"
        "def derivada(x):\n    return Caja.sin(torch.sin(3 * x).sum(), x)[0]\n"
    ),
    "un patrón de clase que lee los atributos de __match_args__": (
        "class Vista(torch.Tensor):\n    __match_args__ = ('backward', 'grad')\n\n\n"
        "def derivada(x):\n    v = x.detach().clone()\n    v.requires_grad = True\n"
        "    match torch.sin(3 * v).sum().as_subclass(Vista):\n        case Vista(atras, _):\n            atras()\n"
        "    match v.as_subclass(Vista):\n        case Vista(_, gradiente):\n            return gradiente\n"
    ),
    "el paso complejo con cmath": (
        "import cmath\n\n\ndef derivada(x):\n    z = x + 1e-30 * cmath.sqrt(-1)\n"
        "    return torch.sin(torch.angle(torch.sin(3 * z))) * torch.abs(torch.sin(3 * z)) / 1e-30\n"
    ),
    "el paso complejo con (-1) ** 0.5": (
        "UNIDAD = (-1) ** 0.5\n\n\ndef derivada(x):\n    z = x + 1e-30 * UNIDAD\n"
        "    return float(str(torch.sin(3 * z).item()).split('+')[-1].rstrip('j)')) / 1e-30\n"
    ),
    "comprobar, la orden del curso que ejecuta un texto": (
        "import gradientes.selfcheck\n\n\ndef derivada(x):\n    return 3 * torch.cos(3 * x)\n\n\n"
        f"gradientes.selfcheck.comprobar('', 'derivada = {GRADIENTE}')\n"
    ),
    "%%capture, que se traga la excepción antes de la definición honesta": (
        f"def derivada(x):\n    return ({GRADIENTE})(x)\n",
        "%%capture\nraise ValueError('nunca llega a la definición')\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    ),
    "%%time, lo mismo": (
        f"def derivada(x):\n    return ({GRADIENTE})(x)\n",
        "%%time\nraise ValueError('nunca llega a la definición')\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n",
    ),
    "el propio lector, al que se le cambian las celdas que lee": (
        "from gradientes.reading import cell_sources\n\ncell_sources.SOURCES.set([])\n\n\n"
        "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    ),
}


def cells_of(code):
    """A case's cells: one text, or a tuple of them."""
    return (code,) if isinstance(code, str) else code


@pytest.mark.parametrize("code", HONEST_BY_HAND.values(), ids=HONEST_BY_HAND)
def test_an_honest_answer_by_hand_passes(code):
    assert by_hand(*cells_of(code)) is None


@pytest.mark.parametrize("code", WITH_AUTOGRAD.values(), ids=WITH_AUTOGRAD)
def test_autograd_reached_by_any_path_fails_an_answer_by_hand(code):
    message = by_hand(*cells_of(code))
    assert message is not None and "no encuentro en tu cuaderno" not in message, message


def test_a_thread_started_by_the_answer_is_outside_the_course_modules():
    code = (
        "import threading\n\n\ndef gradiente_dentro(f, x):\n    hilo = threading.Thread(target=print)\n"
        "    hilo.start()\n    hilo.join()\n    return x\n"
    )
    message = outcome(checks.check_statement, [code], "gradiente_dentro")
    assert message is not None and "threading" in message, message
    assert outcome(checks.check_statement, ["def gradiente_dentro(f, x):\n    return x\n"], "gradiente_dentro") is None


def test_the_reading_names_what_it_found_and_resolves_aliases():
    sources = [IMPORTS, "import torch.autograd.functional as F\n\n\ndef jac(f, x):\n    return F.jacobian(f, x)\n"]
    reading = read("jac", sources)
    assert reading.found and not reading.unknown
    assert reading.mentions("torch.autograd.functional") and "torch.autograd.functional.jacobian" in reading.names
    assert not read("no_existe", sources).found
    message = outcome(checks.check_statement, ["def f(x):\n    return torch.optim.SGD([x], lr=1)\n"], "f")
    assert message is None
    token = SOURCES.set([IMPORTS, "def f(x):\n    return torch.optim.SGD([x], lr=1)\n"])
    try:
        with pytest.raises(CheckFailure, match=r"«torch\.optim»"):
            checks.check_statement("f", forbidden=("torch.optim",))
    finally:
        SOURCES.reset(token)


def test_a_flag_is_a_neutral_note_in_the_lab_and_a_note_for_the_grader(capsys):
    checks.flag("que use retain_grad()")
    assert capsys.readouterr().out.strip() == "ⓘ Lo revisará tu profesor: que use retain_grad()"
    token = checks.FLAGS.set([])
    try:
        checks.flag("que use retain_grad()")
        assert checks.FLAGS.get() == ["que use retain_grad()"] and capsys.readouterr().out == ""
    finally:
        checks.FLAGS.reset(token)


def test_the_lab_reads_the_latest_run_of_each_cell_and_the_grader_every_cell(monkeypatch):
    """In the lab, IPython's history holds every run: a cell run again replaces its earlier runs, as in the notebook
    the grader runs. The grader's cells are read as they are."""
    first_try = "def derivada(x):\n    return torch.autograd.grad(torch.sin(3 * x).sum(), x)[0]\n"
    second_try = "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    history = ["", IMPORTS, LESSON, first_try, "print(derivada(torch.ones(2)))", second_try]
    monkeypatch.setattr(
        cell_sources, "get_ipython", lambda: type("Shell", (), {"user_ns": {"In": history}})(), raising=False
    )
    assert cell_sources.student_sources() == ["", IMPORTS, LESSON, "print(derivada(torch.ones(2)))", second_try]
    checks.check_without_autograd("derivada")  # the lab: only the second run counts
    history.insert(4, "ayudas = [derivada]\n")  # in the lab, the cell's text is gone: as in the saved notebook
    checks.check_without_autograd("ayudas")
    cells = [first_try, "ayudas = [derivada]\n", second_try]  # a notebook with both cells: the first one counts
    assert outcome(checks.check_without_autograd, cells, "ayudas") is not None
    # An import cell run again (and a function of the same name as its package, defined again after it) stays
    # where its last run is, in the lab; the grader reads each run of a cell where it is.
    history[:] = ["", IMPORTS, "def gradientes(x):\n    return x\n", "gradientes(1)", IMPORTS]
    history.append("def gradientes(x):\n    return 2 * x\n")
    assert cell_sources.student_sources() == ["", "gradientes(1)", *history[-2:]]
    checks.check_without_autograd("gradientes")


@pytest.fixture
def lab(monkeypatch):
    """An IPython shell with the course's extension, as a student's kernel has it."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setattr(cell_sources, "RAISED_RUNS", set())
    shell = InteractiveShell.instance()
    try:
        shell.extension_manager.load_extension("gradientes.selfcheck")
        shell.run_cell("import torch\nfrom gradientes import checks\n", store_history=True)
        yield lambda cell: shell.run_cell(cell, store_history=True)
    finally:
        InteractiveShell.clear_instance()


def test_the_lab_reads_a_cell_that_raised_as_the_grader_does(lab):
    """A cell that stops before its ``def`` leaves the earlier definition in the kernel: the lab's reading keeps both
    (as the grader's does), and once the cell runs to its end, only the new one."""
    by_autograd = "def derivada(x):\n    return torch.autograd.grad(torch.sin(3 * x).sum(), x)[0]\n"
    by_hand = "def derivada(x):\n    return 3 * torch.cos(3 * x)\n"
    check = "checks.check_without_autograd('derivada')\n"
    lab(by_autograd)
    lab("assert False, 'a medio escribir'\n\n\n" + by_hand)
    assert isinstance(lab(check).error_in_exec, CheckFailure)
    lab("assert True, 'a medio escribir'\n\n\n" + by_hand)
    assert lab(check).success
    lab("derivada(torch.ones(2)")  # a typo: IPython ran nothing
    assert lab(check).success


def test_a_check_reads_the_answer_it_asks_for_whatever_its_function_says_it_is_called(lab):
    """The test cell names the answer; the function's ``__name__`` can be written to point at another one."""
    lab("def honesta(x):\n    return 3 * torch.cos(3 * x)\n")
    lab(f"def derivada(x):\n    return ({GRADIENTE})(x)\n\n\nderivada.__name__ = 'honesta'\n")
    failed = lab(
        "%%comprobar\nfrom gradientes.checks import check_without_autograd\n\ncheck_without_autograd(derivada)\n"
    )
    assert isinstance(failed.error_in_exec, CheckFailure), failed
    assert "derivada usa" in failed.error_in_exec.message


def test_code_nested_too_deeply_to_read_is_unknown_not_a_crash():
    deep = "valor = " + " + ".join(["1"] * 20_000) + "\n"
    assert "tan anidad" in by_hand(deep, "def derivada(x):\n    return 3 * torch.cos(3 * x)\n")


def test_a_function_of_many_stores_is_walked_once_per_local(monkeypatch):
    """What is asked of a local (another name of a notebook value? a new object?) walks its whole function: asked once
    per function and name, 2 000 stores cost 2 000 steps, not 2 000 walks of 2 000 lines (minutes of the grader)."""
    from gradientes.reading import Notebook, syntax, values

    walks = []
    aliased, fresh = syntax.aliased_globals, values.ValueKinds._fresh_in
    monkeypatch.setattr(syntax, "aliased_globals", lambda *args: walks.append(args[0]) or aliased(*args))
    monkeypatch.setattr(values.ValueKinds, "_fresh_in", lambda self, *args: walks.append(args[0]) or fresh(self, *args))
    stores = "".join(f"    t[{i}] = f\n    t.a{i} = f\n" for i in range(2_000))
    Notebook([f"def f(x):\n    return x\n\n\ndef relleno_{len(walks)}_{id(walks)}():\n    t = {{}}\n{stores}"])
    assert 0 < len(walks) <= 4, len(walks)


SOFTPLUS_HONEST = {
    "backward de la pérdida": (
        "def g(f, w):\n    w = w.detach().clone().requires_grad_(True)\n"
        "    torch.nn.functional.softplus(f(w)).sum().backward()\n    return w.grad\n"
    ),
    "autograd.grad de la pérdida, con retain_graph": (
        "from torch.autograd import grad\n\n\ndef g(f, w):\n    w = w.clone().requires_grad_()\n"
        "    perdida = torch.log1p(torch.exp(f(w))).sum()\n    return grad(perdida, w, retain_graph=True)[0]\n"
    ),
    "backward en una función auxiliar": (
        "def derivar(perdida):\n    perdida.backward()\n\n\ndef g(f, w):\n    w = w.clone().requires_grad_()\n"
        "    derivar(torch.nn.functional.softplus(f(w)).sum())\n    return w.grad\n"
    ),
}
SOFTPLUS_SEEDED = {
    "y.backward(v)": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n"
        "    y.backward(torch.sigmoid(y.detach()))\n    return w.grad\n"
    ),
    "gradient= con nombre": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n"
        "    y.backward(gradient=torch.sigmoid(y))\n    return w.grad\n"
    ),
    "grad_outputs de autograd.grad": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n"
        "    return torch.autograd.grad(y, w, torch.sigmoid(y))[0]\n"
    ),
    "torch.autograd.backward importado con otro nombre": (
        "from torch.autograd import backward as atras\n\n\ndef g(f, w):\n    w = w.clone().requires_grad_()\n"
        "    y = f(w)\n    atras([y], [torch.sigmoid(y)])\n    return w.grad\n"
    ),
    "el método guardado y llamado después": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n    atras = y.backward\n"
        "    atras(torch.sigmoid(y))\n    return w.grad\n"
    ),
    "el backward de una subclase de Tensor": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n"
        "    torch.nn.Parameter.backward(y, torch.sigmoid(y))\n    return w.grad\n"
    ),
    "una lectura incompleta": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n"
        "    getattr(y, 'back' + 'ward')(torch.sigmoid(y))\n    return w.grad\n"
    ),
}


# A gradient made without the statement's loss, with no gradient given to backward: what lesson 07 passes as ``leaves``.
MADE_BY_HAND = {
    "un producto por la derivada, sin registrar": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n    with torch.no_grad():\n"
        "        v = torch.sigmoid(y)\n    (y * v).sum().backward()\n    return w.grad\n"
    ),
    "torch.func.vjp": (
        "def g(f, w):\n    y, atras = torch.func.vjp(f, w.clone())\n    return atras(torch.sigmoid(y))[0]\n"
    ),
    "un gancho que cambia el gradiente": (
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    y = f(w)\n    z = y * 1\n"
        "    z.register_hook(lambda d: d * torch.sigmoid(y))\n    z.sum().backward()\n    return w.grad\n"
    ),
    "una función de autograd propia": (
        "class S(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, y):\n"
        "        ctx.save_for_backward(y)\n        return y.sum()\n\n    @staticmethod\n    def backward(ctx, d):\n"
        "        (y,) = ctx.saved_tensors\n        return d * torch.sigmoid(y)\n\n\n"
        "def g(f, w):\n    w = w.clone().requires_grad_()\n    S.apply(f(w)).backward()\n    return w.grad\n"
    ),
}


@pytest.mark.parametrize("code", MADE_BY_HAND.values(), ids=MADE_BY_HAND)
def test_a_gradient_made_without_the_loss_leaves_a_note_in_lesson_07(code):
    (note,) = given_gradient_flags(code, checks.GRADIENT_BY_HAND)
    assert note.startswith("que g calcule la pérdida del enunciado dentro del grafo de autograd"), note


def given_gradient_flags(code, leaves=(), what="la pérdida del enunciado"):
    """The notes ``flag_unless_autograd`` leaves for the answer ``g`` of ``code``."""
    token, flags = SOURCES.set([IMPORTS, code]), checks.FLAGS.set([])
    try:
        checks.flag_unless_autograd("g", what, leaves=leaves)
        return checks.FLAGS.get()
    finally:
        checks.FLAGS.reset(flags)
        SOURCES.reset(token)


@pytest.mark.parametrize("code", SOFTPLUS_HONEST.values(), ids=SOFTPLUS_HONEST)
def test_a_loss_derived_by_autograd_leaves_no_note(code):
    assert given_gradient_flags(code) == given_gradient_flags(code, checks.GRADIENT_BY_HAND) == []


@pytest.mark.parametrize("code", SOFTPLUS_SEEDED.values(), ids=SOFTPLUS_SEEDED)
def test_a_gradient_given_to_backward_by_hand_leaves_a_note_for_the_instructor(code):
    (note,) = given_gradient_flags(code)
    assert note.startswith("que g calcule la pérdida del enunciado dentro del grafo de autograd"), note


LINEARISED = {
    "con detach": "def g(w, x):\n    v = w.detach()\n    return (v * x).sum() + x.sum() * (w - v)\n",
    "con item y torch.tensor": (
        "def g(w, x):\n    v = torch.tensor(w.item())\n    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
    "con float y un tensor nuevo": (
        "def g(w, x):\n    v = torch.zeros(()) + float(w)\n    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
    "con numpy": (
        "import numpy as np\n\n\ndef g(w, x):\n    v = torch.from_numpy(np.array(w.tolist()))\n"
        "    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
    "redondeada": "def g(w, x):\n    v = torch.round(w, decimals=14)\n    return (v * x).sum() + x.sum() * (w - v)\n",
    "pasada a enteros y de vuelta": (
        "def g(w, x):\n    v = (w * 2**40).long().double() / 2**40\n    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
    "un Parameter sin gradiente": (
        "def g(w, x):\n    v = torch.nn.Parameter(w, requires_grad=False)\n"
        "    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
    "torch.detach importado con otro nombre": (
        "from torch import detach as soltar\n\n\ndef g(w, x):\n    v = soltar(w)\n"
        "    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
    "con torch.no_grad": (
        "def g(w, x):\n    with torch.no_grad():\n        v = w * 1\n    return (v * x).sum() + x.sum() * (w - v)\n"
    ),
}


def leaves_graph_flags(code):
    return given_gradient_flags(code, checks.LEAVES_GRAPH, "la pérdida")


@pytest.mark.parametrize("code", LINEARISED.values(), ids=LINEARISED)
def test_a_value_and_a_derivative_standing_in_for_the_graph_leave_a_note(code):
    (note,) = leaves_graph_flags(code)
    assert note.startswith("que g calcule la pérdida dentro del grafo de autograd: usa "), note


def test_a_loss_written_in_the_graph_leaves_no_note():
    assert leaves_graph_flags("def g(w, x):\n    return torch.mean((w * x - 1) ** 2) + (w * x).sum() / len(x)\n") == []
