"""Lección 08 · Proyecto final, regresión lineal desde cero: las comprobaciones de sus ejercicios y lo que
reconoce cada caso.

Las llaman las celdas de pruebas de la lección; lo común a todas está en :mod:`gradientes.checks`.
"""

import math

import torch

from gradientes.checks import (
    _autograd_grad,
    _detach,
    _float64,
    as_number,
    call_student,
    check_number,
    check_properties,
    check_tensor,
    describe,
    fail,
    is_close,
    is_tensor,
    step_text,
    tensor_properties,
)


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
        antes = [_detach(h).clone() for h in hojas]
        donde = f"{step_text(numero, len(esperados), antes)} con la pérdida {texto} y tasa = {tasa}"
        if restos is not None:
            donde += (
                f", con restos en .grad ({', '.join(f'{r} en {n}.grad' for n, r in zip(nombres, restos, strict=True))})"
            )
        elif numero == 1:
            donde += ", con .grad vacío (None) al empezar"
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
        self.formas = set()  # las de los w y b de cada llamada: escalares, no varios puntos apilados

    def __call__(self, x, w, b):
        self.llamadas += 1
        self.ultimos = (w, b)
        self.formas.add(tuple(tuple(t.shape) if is_tensor(t) else None for t in (w, b)))
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
        if vigilado.formas != {((), ())}:
            forma = next(iter(vigilado.formas - {((), ())}))
            fail(
                f"{llamada} llamó al modelo con w y b de formas {forma[0]} y {forma[1]}, y son escalares (forma ()).",
                "llama al modelo con tus dos parámetros escalares, uno de cada, no con varios valores apilados.",
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
    from gradientes.remote_errors import REMOTE

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
