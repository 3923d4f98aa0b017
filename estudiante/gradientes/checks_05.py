"""Lección 05 · Acumulación de gradientes: las comprobaciones de sus ejercicios y lo que reconoce cada caso.

Las llaman las celdas de pruebas de la lección; lo común a todas está en :mod:`gradientes.checks`.
"""

import itertools

import torch

from gradientes.checks import (
    _autograd_grad,
    _detach,
    _float64,
    _passes,
    as_number,
    call_student,
    check_number,
    check_properties,
    check_tensor,
    describe,
    fail,
    gradient_list_hint,
    is_close,
    is_tensor,
    shorten,
    step_text,
)


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
    pista = gradient_list_hint(valores, esperados, restos_tensor, valores_perdidas)
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
        donde = f"{step_text(numero, len(esperados), antes)} a {funcion.__name__} con {perdida_de.__name__}, tasa = "
        donde += f"{tasa} y momento = {momento}"
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


class _PerdidaObservada:
    """``perdida_del_microlote(w, i)``: la pérdida media del microlote ``i``, que la prueba calcula cuando la pide el
    código del alumno. Anota con un reloj propio cada llamada y cada paso hacia atrás que llega a su salida (un gancho
    en el proceso del calificador: lo que él ve, no lo que dice el kernel del alumno)."""

    __name__ = __qualname__ = "perdida_del_microlote"

    def __init__(self, modelo, x, y, tamanos):
        self.modelo, self.trozos = modelo, list(zip(x.split(tamanos), y.split(tamanos), strict=True))
        self.salidas, self.reloj = [], itertools.count()

    def __call__(self, w, i):
        if type(i) is not int or not 0 <= i < len(self.trozos):
            raise IndexError(
                f"perdida_del_microlote(w, i): i es el número del microlote, de 0 a {len(self.trozos) - 1}; "
                f"llegó {shorten(repr(i))}."
            )
        salida = self.modelo(w, *self.trozos[i])
        anotada = {"i": i, "llamada": next(self.reloj), "atras": []}
        self.salidas.append(anotada)
        if is_tensor(salida) and salida.requires_grad:
            salida.register_hook(lambda _: anotada["atras"].append(next(self.reloj)))
        return salida


def _comprobar_pasos_separados(perdida, k, donde):
    """Un paso hacia atrás por microlote, cada uno antes de calcular la pérdida del siguiente."""
    for i in range(k):
        pasos = sum(len(salida["atras"]) for salida in perdida.salidas if salida["i"] == i)
        if pasos != 1:
            recibio = f"recibió {_passes(pasos)}" if pasos else "no recibió ningún paso hacia atrás"
            fail(
                f"la pérdida del microlote {i} {recibio} durante {donde}, y se pide uno.",
                "retropropaga la pérdida de cada microlote una vez: un backward() (o un torch.autograd.grad) por "
                "microlote.",
            )
    retropropagadas = sorted((s["llamada"], s["atras"][0], s["i"]) for s in perdida.salidas if s["atras"])
    for (_, atras, i), (llamada, _, j) in itertools.pairwise(retropropagadas):
        if llamada < atras:
            fail(
                f"durante {donde}, la pérdida del microlote {j} se calculó antes de retropropagar la del microlote "
                f"{i}: sus grafos estuvieron en memoria a la vez.",
                "calcula la pérdida de cada microlote justo antes de retropropagarla, y retropropágala antes de pedir "
                "la siguiente: un paso hacia atrás por microlote, no uno de su suma.",
            )


def check_microbatches(funcion, modelo, valores_w, restos, x, y, tamanos, gradiente, perdida):
    """Lección 05, ejercicio 5: ``funcion(w, perdida_del_microlote, tamanos)`` acumula el gradiente del lote por
    microlotes, pidiendo cada pérdida justo antes de retropropagarla (observado: :class:`_PerdidaObservada`).

    ``gradiente`` y ``perdida`` son el gradiente y la pérdida media esperados del lote completo.
    """
    w = torch.tensor(valores_w, dtype=_float64, requires_grad=True)
    x, y = torch.tensor(x, dtype=_float64), torch.tensor(y, dtype=_float64)
    if restos is not None:
        w.grad = torch.full_like(_detach(w), restos)
    restos_tensor = None if restos is None else _detach(w.grad).clone()
    esperado = torch.as_tensor(gradiente, dtype=_float64)
    partes = _partes_de_microlotes(modelo, w, x, y, tamanos)
    perdida_del_microlote = _PerdidaObservada(modelo, x, y, list(tamanos))
    estado = "w.grad = None" if restos is None else f"restos {restos} en w.grad"
    donde = (
        f"{funcion.__name__}(w, perdida_del_microlote, {list(tamanos)}) con w = {describe(_detach(w))}, {estado} "
        f"y el modelo {modelo.__name__}"
    )
    valor = call_student(
        funcion,
        w,
        perdida_del_microlote,
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
    _comprobar_pasos_separados(perdida_del_microlote, len(tamanos), donde)
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
