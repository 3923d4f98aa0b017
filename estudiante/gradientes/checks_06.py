"""Lección 06 · Desactivar el seguimiento: las comprobaciones de sus ejercicios y lo que reconoce cada caso.

Las llaman las celdas de pruebas de la lección; lo común a todas está en :mod:`gradientes.checks`.
"""

import math

import torch

from gradientes.checks import (
    Watched,
    _autograd_grad,
    _detach,
    _float64,
    as_number,
    call_student,
    check_backward_passes,
    check_called_with_graph,
    check_equal,
    check_number,
    check_prediction,
    check_properties,
    check_tensor,
    describe,
    diagnose,
    fail,
    is_close,
    is_tensor,
    step_text,
    tensor_properties,
)


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
    check_prediction(valor, esperado, name=f"{prediccion.__name__}({a!r})", hint=pista)  # without saying the answer


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


def _pista_redondeo_gradiente(gradiente, v, x):
    if not is_close(gradiente, v) and is_close(gradiente, v * torch.round(x) / x.masked_fill(x == 0, 1.0)):
        return (
            "tu gradiente es round(x) / x, no 1: en x * c.detach() autograd ve x multiplicado por una constante c, y "
            "la derivada de c·x es c. Para que sea la de la identidad, x debe entrar sumando: x más una corrección "
            "que autograd no vea."
        )
    if is_close(gradiente, torch.zeros_like(gradiente)):
        return (
            "el gradiente se quedó en cero: autograd está derivando el redondeo, y su derivada es 0. "
            "La parte que produce el salto no debe verla autograd."
        )
    if is_close(gradiente, 2 * v):
        return "el gradiente es el doble: ¿x llega al resultado por dos caminos que autograd ve?"
    return (
        "autograd deriva lo que ve: si x entra multiplicado por algo (x * c), la derivada es c, y si entra dos veces, "
        "se suman. Para la derivada 1 de la identidad, x debe entrar una sola vez y sumando, y el resto quedar fuera "
        "del grafo."
    )


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
        hint=_pista_redondeo_gradiente(gradiente, v, _detach(x)),
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
        donde = f"{step_text(numero, len(esperados), antes)} a {funcion.__name__} con {perdida_de.__name__}, "
        donde += f"tasa = {tasa} y norma_maxima = "
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
    f = Watched(g, "f")
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
    check_called_with_graph(
        f, funcion.__name__, donde, times=1, like=x, hint="una sola llamada a f, con tu copia de x."
    )
    check_backward_passes(
        f,
        funcion.__name__,
        donde,
        times=1,
        gradient=torch.ones_like(valor_f),  # el de f(x) respecto a sí misma: un paso de adorno (× 0) no lo trae
        hint="el enunciado pide el gradiente calculado con autograd: un paso hacia atrás a través de lo que devuelve "
        "f, desde f(x), y uno solo (una segunda vez, el gradiente se sumaría).",
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
