"""Lección 07 · Errores comunes: las comprobaciones de sus ejercicios y lo que reconoce cada caso.

Las llaman las celdas de pruebas de la lección; lo común a todas está en :mod:`gradientes.checks`.
"""

import math

import torch

from gradientes.checks import (
    CountingWatched,
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
    check_properties,
    check_tensor,
    describe,
    diagnose,
    fail,
    gradient_list_hint,
    is_close,
    is_tensor,
    shorten,
)


def _gradiente_ponderado(g, w, pesos_de):
    """Gradiente respecto a w de Σ_i q_i g(w)_i, con q = pesos_de(g(w)) fijo: los gradientes de errores típicos."""
    hoja = _detach(torch.as_tensor(w, dtype=_float64)).clone().requires_grad_(True)
    with torch.enable_grad():
        z = g(hoja)
        (gradiente,) = _autograd_grad((z * pesos_de(_detach(z))).sum(), hoja)
    return gradiente


def _tensor_de_w(w, nombre, resultado, esperado):
    """Una pista si ``resultado`` no es un tensor float64 con la forma de ``esperado`` (o None)."""
    if resultado is None:
        return (
            f"{nombre} es None: w.grad seguía vacío. ¿El grafo de la pérdida llega hasta tu hoja? Un tensor creado "
            "con torch.tensor(...) o torch.as_tensor(...) empieza un grafo nuevo, aunque requiera gradiente."
        )
    if not is_tensor(resultado):
        return f"{nombre} debía ser un tensor con la forma de w, no un número, una lista ni un arreglo de NumPy."
    if tuple(resultado.shape) != tuple(esperado.shape):
        return f"{nombre} tiene siempre la forma de w: ¿devolviste algo calculado a partir de f(w)?"
    if resultado.dtype != _float64:
        return (
            f"{nombre} se obtuvo con dtype {resultado.dtype}: w es float64, y su gradiente también debe serlo. "
            "¿Convertiste algo con .float() o pasaste por un arreglo float32?"
        )
    return None


def check_softplus_gradient(funcion, g, texto, w, esperado):
    """Lección 07, ejercicio 1: ``funcion(f, w)`` da el gradiente de Σ softplus(f(w)_i), con autograd."""
    w = torch.as_tensor(w, dtype=_float64)
    esperado = torch.as_tensor(esperado, dtype=_float64)
    f = Watched(g, "f")
    donde = f"f(w) = {texto}, w = {describe(w)}"
    nombre = f"{funcion.__name__}(f, w) con {donde}"
    resultado = call_student(
        funcion,
        f,
        w.clone(),
        hints=(
            (
                "numpy()",
                "es el error de la función rota: NumPy no sabe nada del grafo. ¿Puedes calcular lo mismo sin salir "
                "de PyTorch?",
            ),
            (
                "does not require grad",
                "backward() no encontró un grafo: entre f(w) y la pérdida, el cálculo salió de autograd (detach(), "
                "NumPy, torch.tensor(...)). El gradiente tiene que atravesar también el softplus.",
            ),
        ),
    )
    pista = _tensor_de_w(w, "el gradiente", resultado, esperado)
    if pista is None and not is_close(resultado, esperado):
        pista = diagnose(
            _detach(resultado),
            esperado,
            (
                _gradiente_ponderado(g, w, torch.ones_like),
                "coincide con el gradiente de Σ f(w)_i: el softplus no participa en tu gradiente. ¿Lo calculaste "
                "fuera del grafo?",
            ),
            (
                _gradiente_ponderado(g, w, torch.exp),
                "coincide con el gradiente de Σ exp(f(w)_i): ¿seguro que derivas la suma de los softplus?",
            ),
            name="el gradiente",
        )
    pista = pista or "no coincide: ¿derivas la suma de los softplus de f(w), con la f y el w que recibes?"
    check_properties(resultado, name=nombre, shape=tuple(w.shape), dtype=_float64, hint=pista)
    check_tensor(resultado, esperado, name=nombre, hint=pista)
    check_called_with_graph(f, funcion.__name__, donde, times=1, like=w, hint="una sola llamada a f, en w.")
    with torch.no_grad():
        llega = torch.sigmoid(g(w.clone()))  # d softplus(y)/dy: lo que el softplus, dentro del grafo, manda a f(w)
    check_backward_passes(
        f,
        funcion.__name__,
        donde,
        times=1,
        gradient=llega,
        hint="el gradiente se obtiene con autograd: un paso hacia atrás que atraviese el softplus y la salida de f, "
        "y uno solo.",
    )


def check_per_example_gradients(funcion, g, texto, w, esperados):
    """Lección 07, ejercicio 2: ``funcion(f, w)`` da el gradiente de cada L_i = log(1 + f(w)_i²), con f una vez."""
    w = torch.as_tensor(w, dtype=_float64)
    esperados = [torch.as_tensor(e, dtype=_float64) for e in esperados]
    f = CountingWatched(g, "f")
    donde = f"f(w) = {texto}, w = {describe(w)}"
    nombre = f"{funcion.__name__}(f, w) con {donde}"
    resultado = call_student(
        funcion,
        f,
        w.clone(),
        hints=(
            (
                "second time",
                "el primer paso hacia atrás liberó los valores que guardó el grafo de las pérdidas, y el siguiente los "
                "necesita. ¿Qué argumento de la lección 3 los conserva?",
            ),
            (
                "NoneType",
                "usaste un .grad que valía None: antes del primer backward(), o después de vaciarlo, no hay tensor.",
            ),
        ),
    )
    m = len(esperados)
    if type(resultado) not in (list, tuple) or len(resultado) != m:
        fail(
            f"{nombre} debía devolver una lista de {m} gradientes (uno por ejemplo), pero se obtuvo "
            f"{describe(resultado)}.",
            "devuelve una lista con el gradiente de la pérdida de cada ejemplo, en orden.",
        )
    for i, valor in enumerate(resultado):
        pista = _tensor_de_w(w, f"el gradiente {i}", valor, esperados[i])
        if pista is not None:
            fail(f"el gradiente {i} que devolvió {nombre} no sirve: {describe(valor)}.", pista)
    valores = [_detach(v).clone() for v in resultado]
    with torch.no_grad():
        perdidas = torch.log1p(g(w.clone()) ** 2)
    pista = gradient_list_hint(valores, esperados, None, [p for p in perdidas.reshape(-1)])
    for i, (valor, esperado) in enumerate(zip(resultado, esperados, strict=True)):
        check_tensor(
            valor,
            esperado,
            name=f"el gradiente de L_{i} en {nombre}",
            hint=pista or f"debe ser el gradiente de la pérdida del ejemplo {i} sola, respecto a w.",
        )
    check_called_with_graph(
        f,
        funcion.__name__,
        donde,
        times=1,
        hint="el paso hacia adelante es caro y se hace una sola vez: todos los gradientes salen del mismo grafo.",
    )
    if not f.backward_passes:
        fail(
            f"{funcion.__name__} no hizo ningún paso hacia atrás a través de la salida de f ({donde}).",
            "los gradientes se obtienen con autograd, retropropagando cada pérdida a través de f.",
        )


def check_masked_gradient(funcion, g, texto, w, pesos, umbral, esperado):
    """Lección 07, ejercicio 3: ``funcion(f, w, pesos, umbral)`` da el gradiente de Σ pesos_i · t_i, con los
    t_i = tanh(f(w))_i menores que ``umbral`` anulados."""
    w = torch.as_tensor(w, dtype=_float64)
    pesos = torch.as_tensor(pesos, dtype=_float64)
    esperado = torch.as_tensor(esperado, dtype=_float64)
    f = Watched(g, "f")
    donde = f"f(w) = {texto}, w = {describe(w)}, pesos = {describe(pesos)}, umbral = {umbral}"
    nombre = f"{funcion.__name__}(f, w, pesos, umbral) con {donde}"
    resultado = call_student(
        funcion,
        f,
        w.clone(),
        pesos.clone(),
        umbral,
        hints=(
            (
                "inplace operation",
                "sigues sobrescribiendo en su sitio un tensor que un nodo guardó para el paso hacia atrás: una "
                "asignación con máscara (t[...] = ...) también es una operación en su sitio, y torch.no_grad() no "
                "la esconde del contador de versiones.",
            ),
            (
                "does not require grad",
                "backward() no encontró un grafo: cortaste el cálculo con detach(), .item() o torch.no_grad() antes "
                "de la pérdida. La tangente hiperbólica también tiene que estar en el grafo.",
            ),
        ),
    )
    pista = _tensor_de_w(w, "el gradiente", resultado, esperado)
    if pista is None and not is_close(resultado, esperado):
        valor = _detach(resultado)
        with torch.no_grad():
            t = torch.tanh(g(w.clone()))
        anulados = t < umbral
        pista = diagnose(
            valor,
            esperado,
            (
                _gradiente_ponderado(g, w, lambda z: pesos * (1 - torch.tanh(z) ** 2)),
                "la máscara no está en tu cálculo: un t_i anulado vale 0 pase lo que pase, así que no depende de w.",
            ),
            (
                _gradiente_ponderado(g, w, lambda z: pesos * torch.where(anulados, 1.0, 1 - torch.tanh(z) ** 2)),
                "ese gradiente usa los valores anulados como si fueran la salida de la tangente hiperbólica: "
                "¿anulaste a espaldas de autograd (.data)? Así no hay error, pero el gradiente es falso.",
            ),
            (torch.zeros_like(esperado), "el gradiente se quedó en cero: ¿sacaste del grafo las t_i que no se anulan?"),
            name="el gradiente",
        )
    pista = (
        pista or "no coincide: ¿derivas Σ pesos_i · t_i con las t_i anuladas, para la f, el w y el umbral que recibes?"
    )
    check_properties(resultado, name=nombre, shape=tuple(w.shape), dtype=_float64, hint=pista)
    check_tensor(resultado, esperado, name=nombre, hint=pista)
    check_called_with_graph(f, funcion.__name__, donde, times=1, like=w, hint="una sola llamada a f, en w.")
    with torch.no_grad():
        t = torch.tanh(g(w.clone()))
        llega = pesos * (1 - t**2) * (t >= umbral)  # lo que la suma ponderada y la máscara mandan a f(w)
    check_backward_passes(
        f,
        funcion.__name__,
        donde,
        times=1,
        gradient=llega,
        hint="basta un paso hacia atrás, a través de la tangente hiperbólica, la máscara y f.",
    )


def _pista_cadena(resultado, esperados):
    """Qué patrón sigue la lista de gradientes de la cadena que devolvió el alumno (o None)."""
    vacios = [k for k, r in enumerate(resultado) if r is None]
    if vacios:
        if vacios == list(range(len(resultado) - 1)):
            return (
                "solo el último eslabón recibió gradiente: ¿convertiste cada eslabón en una hoja nueva "
                "(detach().requires_grad_())? Así cortas la cadena y el gradiente ya no vuelve hacia atrás."
            )
        return (
            "un eslabón intermedio no es una hoja, y autograd no guarda su .grad salvo que se lo pidas, y a tiempo: "
            "antes del paso hacia atrás."
        )
    return None


def check_chain_gradients(funcion, g, texto, w, pasos, esperados):
    """Lección 07, ejercicio 4: ``funcion(f, w, pasos)`` da [dL/dh_0, …, dL/dh_pasos], con h_k = f(h_(k-1))."""
    w = torch.as_tensor(w, dtype=_float64)
    esperados = [torch.as_tensor(e, dtype=_float64) for e in esperados]
    f = CountingWatched(g, "f")
    donde = f"f(h) = {texto}, w = {describe(w)}, pasos = {pasos}"
    nombre = f"{funcion.__name__}(f, w, {pasos}) con {donde}"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # el aviso de .grad de un tensor que no es hoja: la pista lo explica
        resultado = call_student(funcion, f, w.clone(), pasos)
    if type(resultado) not in (list, tuple) or len(resultado) != pasos + 1:
        fail(
            f"{nombre} debía devolver una lista de {pasos + 1} gradientes (de h_0 = w a h_{pasos}), pero se obtuvo "
            f"{describe(resultado)}.",
            "devuelve dL/dh_k para cada eslabón, empezando por w: pasos + 1 tensores.",
        )
    pista = _pista_cadena(list(resultado), esperados)
    for k, (valor, esperado) in enumerate(zip(resultado, esperados, strict=True)):
        etiqueta = f"dL/dh_{k} en {nombre}"
        if valor is None:
            fail(f"{etiqueta} se obtuvo None.", pista)
        if not is_tensor(valor):
            fail(f"{etiqueta} debía ser un tensor, pero se obtuvo {describe(valor)}.", "cada gradiente es un tensor.")
        otro = pista
        if otro is None and k + 1 < len(esperados) and is_close(valor, esperados[k + 1]):
            otro = "los gradientes están corridos un eslabón: el primero es el de h_0 = w."
        elif otro is None and is_close(valor, -esperado):
            otro = "tiene el signo cambiado."
        check_properties(valor, name=etiqueta, shape=tuple(esperado.shape), dtype=_float64, hint=otro)
        check_tensor(
            valor, esperado, name=etiqueta, hint=otro or "dL/dh_k es el gradiente de la pérdida respecto a ese eslabón."
        )
    if pasos:
        check_called_with_graph(
            f,
            funcion.__name__,
            donde,
            times=pasos,
            shape=tuple(w.shape),
            hint="un solo paso hacia adelante: f se aplica una vez por eslabón (uno cada vez), ni más ni menos.",
        )
        if not f.backward_passes:
            fail(
                f"{funcion.__name__} no hizo ningún paso hacia atrás a través de la cadena ({donde}).",
                "los gradientes se obtienen con autograd, con un paso hacia atrás desde la pérdida.",
            )


def check_shared_graph_prediction(prediccion, a1, a2, x0, esperado):
    """Lección 07, ejercicio 5: la predicción de x.grad cuando y1 e y2 comparten exp(x) y el segundo backward() "
    "falla."""
    llamada = f"{prediccion.__name__}({a1!r}, {a2!r}, {x0!r})"
    valor = prediccion(a1, a2, x0)
    numero = as_number(valor)
    e = math.exp(x0)
    if valor is None:
        pista = "x.grad no sigue vacío: el primer backward() llega a x antes de que nada falle."
    elif numero is None:
        pista = "se espera un número (float), o None si predices que x.grad seguirá vacío."
    elif is_close(numero, (a1 + a2) * e):
        pista = (
            "predijiste que el segundo backward() funciona y suma su parte: ¿qué guardó la exponencial para su paso "
            "hacia atrás, y qué hizo con eso el primer backward()?"
        )
    elif is_close(numero, a2 * e):
        pista = "el segundo backward() no llega a escribir nada en x.grad; el primero, sí."
    elif is_close(numero, a1) or is_close(numero, a1 + a2):
        pista = "la derivada de a1·exp(x) + 1 respecto a x depende de x0."
    elif is_close(numero, -esperado):
        pista = "tiene el signo cambiado."
    else:
        pista = "sigue la celda línea a línea: ¿qué deja en x.grad el primer backward(), y qué hace el segundo?"
    if valor is None or numero is None:
        fail(f"{llamada} se obtuvo {describe(valor)}, pero al final x.grad contiene un número.", pista)
    check_number(valor, esperado, name=llamada, hint=pista)


ETIQUETAS_DE_ERRORES = (
    "dtype_entero",
    "hoja_en_su_sitio",
    "tensor_de_inferencia",
    "numpy_con_grafo",
    "sin_grafo",
    "no_escalar",
    "forma_de_gradient",
    "segundo_backward",
    "version_cambiada",
    "grad_de_no_hoja",
    "otro",
)

_CONFUSIONES_DE_ERRORES = (
    (
        {"hoja_en_su_sitio", "version_cambiada", "tensor_de_inferencia"},
        "varios mensajes hablan de operaciones en su sitio: ¿de qué tensor se queja este? ¿De una hoja, de un "
        "tensor que el paso hacia atrás necesitaba y cambió, o de un tensor creado en modo de inferencia?",
    ),
    (
        {"sin_grafo", "numpy_con_grafo", "dtype_entero"},
        "varios mensajes hablan de requerir gradiente: ¿este se queja de que el tensor SÍ lo requiere, de que NO "
        "lo requiere (y no tiene grad_fn) o de que su dtype no PUEDE requerirlo?",
    ),
    (
        {"no_escalar", "forma_de_gradient"},
        "los dos hablan del gradiente con el que empieza backward(): ¿falta (PyTorch no puede crearlo solo) o lo "
        "diste con otra forma?",
    ),
    (
        {"forma_de_gradient", "otro"},
        "no todos los errores de formas vienen de backward(): ¿se queja este del gradiente que le diste a "
        "backward(), o de dos tensores que no encajan en una operación?",
    ),
)


def _pista_de_etiqueta(esperada, obtenida):
    for grupo, texto in _CONFUSIONES_DE_ERRORES:
        if esperada in grupo and obtenida in grupo:
            return texto
    if esperada == "grad_de_no_hoja":
        return (
            "este no es un error sino un aviso (UserWarning): el programa sigue. ¿De qué atributo, y de qué clase de "
            "tensor, habla?"
        )
    if obtenida == "grad_de_no_hoja":
        return "ese aviso es un caso aparte: este mensaje es una excepción, no un aviso."
    if esperada == "otro":
        return "este mensaje no es ninguno de los diez de la galería: no todo error de PyTorch es de autograd."
    if obtenida == "otro":
        return "este mensaje sí es de la galería: busca en qué sección salió uno parecido."
    return "vuelve a la sección de la galería donde salió un mensaje parecido: ¿qué causa describe?"


def error_message_of(codigo):
    """Ejecuta ``codigo()`` y devuelve lo que imprimiría la lección: la excepción o, si no la hay, el primer aviso."""
    import warnings

    with warnings.catch_warnings(record=True) as avisos:
        warnings.simplefilter("always")
        try:
            codigo()
        except Exception as error:
            return f"{type(error).__name__}: {error}"
    if not avisos:
        raise AssertionError("un ejemplo de la comprobación no produjo ni error ni aviso")
    return f"{avisos[0].category.__name__}: {avisos[0].message}"


def check_error_label(funcion, codigo, esperada):
    """Lección 07, ejercicio 6: ``funcion(mensaje)`` da ``esperada`` para el mensaje que produce ``codigo()``."""
    mensaje = error_message_of(codigo)
    obtenida = call_student(
        funcion,
        mensaje,
        hints=(
            (
                " lanzó ",
                f"{funcion.__name__} debe devolver una etiqueta para cualquier mensaje, también para los que no ha "
                "visto, sin lanzar errores: ¿buscas el mensaje entero en una tabla, o usas algo que no siempre está?",
            ),
        ),
    )
    nombre = f'{funcion.__name__}("{shorten(mensaje, 130)}")'
    if type(obtenida) is not str:
        fail(
            f"{nombre} debía devolver una etiqueta (str), pero se obtuvo {describe(obtenida)}.",
            "devuelve una de las etiquetas de la tabla, como texto.",
        )
    if obtenida not in ETIQUETAS_DE_ERRORES:
        fail(
            f"{nombre} devolvió {obtenida!r}, que no es ninguna de las etiquetas de la tabla.",
            "escríbela exactamente como en la tabla: en minúsculas, con guiones bajos y sin espacios.",
        )
    check_equal(obtenida, esperada, name=nombre, hint=_pista_de_etiqueta(esperada, obtenida))
