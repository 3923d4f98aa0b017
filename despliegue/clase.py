"""One course on a JupyterHub, as ``clase.toml`` describes it: read, checked, with every path derived.

Used by ``jupyterhub_config.py`` and ``preparar.py``. Errors are in Spanish:
the instructor reads them.
"""

import argparse
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

HERE = Path(__file__).resolve().parent
REPO = HERE.parent  # the instructor's copy of the course, with solutions/ and .venv/
VARIABLE = "CURSO_CLASE"
EXAMPLE = HERE / "clase.toml"
PROXY = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
USER_NAME = re.compile(r"^[a-z_][a-z0-9_.-]{0,31}$")
COURSE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$", re.I)


class ClaseInvalida(ValueError):
    """``clase.toml`` is missing something or says something impossible (message in Spanish)."""


@dataclass(frozen=True)
class Clase:
    id: str
    directorio: Path
    intercambio: Path
    libro: str
    instructor: str
    ayudantes: tuple
    alumnos: tuple
    crear_usuarios: bool
    estado: Path
    url: str
    puerto_hub: int
    puerto_api_proxy: int
    puerto_formgrader: int
    autenticador: str
    configuracion_extra: str
    entorno_alumnos: Path
    memoria: int  # bytes for each student's server and all it starts (0: no limit)
    cpu: float  # cores
    procesos: int
    archivo: Path

    @property
    def entorno(self):
        """The instructor's Python environment: the formgrader, ``curso`` and nbgrader."""
        return REPO / ".venv"

    @property
    def personas(self):
        return (self.instructor, *self.ayudantes, *self.alumnos)

    @property
    def db_url(self):
        """The gradebook: PostgreSQL as configured, or SQLite in the workspace."""
        return self.libro or f"sqlite:///{self.directorio / 'gradebook.db'}"

    @property
    def config_alumnos(self):
        """Jupyter configuration of every single-user server (course id, exchange, extensions)."""
        return self.estado / "jupyter-alumnos"

    @property
    def grupo_formgrader(self):
        """nbgrader's convention: this JupyterHub group may use the course's formgrader."""
        return f"formgrade-{self.id}"

    @property
    def grupo_curso(self):
        """nbgrader's convention: the course's members."""
        return f"nbgrader-{self.id}"


def leer(archivo=None):
    """The course of ``archivo``, or of ``$CURSO_CLASE``, or the example beside this module."""
    archivo = Path(archivo or os.environ.get(VARIABLE) or EXAMPLE).resolve()
    try:
        datos = tomllib.loads(archivo.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ClaseInvalida(f"no existe «{archivo}» (la descripción del curso, ver despliegue/clase.toml).") from None
    except tomllib.TOMLDecodeError as error:
        raise ClaseInvalida(f"«{archivo}» no es TOML válido: {error}.") from None
    secciones = {parte: datos.get(parte, {}) for parte in ("curso", "personas", "hub", "limites")}

    def valor(seccion, nombre, tipo, defecto=None):
        value = secciones[seccion].get(nombre, defecto)
        if value is None:
            raise ClaseInvalida(f"«{archivo}»: falta [{seccion}] {nombre}.")
        if not isinstance(value, tipo) or isinstance(value, bool) is not (tipo is bool):
            raise ClaseInvalida(f"«{archivo}»: [{seccion}] {nombre} tiene un valor que no sirve: {value!r}.")
        return value

    def ruta(seccion, nombre, defecto=None):
        texto = valor(seccion, nombre, str, defecto)
        if not Path(texto).is_absolute():
            raise ClaseInvalida(f"«{archivo}»: [{seccion}] {nombre} debe ser una ruta absoluta, no «{texto}».")
        return Path(texto)

    clase = Clase(
        id=valor("curso", "id", str),
        directorio=ruta("curso", "directorio"),
        intercambio=ruta("curso", "intercambio"),
        libro=valor("curso", "libro", str, ""),
        instructor=valor("personas", "instructor", str),
        ayudantes=tuple(valor("personas", "ayudantes", list, [])),
        alumnos=tuple(valor("personas", "alumnos", list)),
        crear_usuarios=valor("personas", "crear_usuarios", bool, False),
        estado=ruta("hub", "estado"),
        url=valor("hub", "url", str, "http://0.0.0.0:8000"),
        puerto_hub=valor("hub", "puerto_hub", int, 8081),
        puerto_api_proxy=valor("hub", "puerto_api_proxy", int, 8001),
        puerto_formgrader=valor("hub", "puerto_formgrader", int, 9999),
        autenticador=valor("hub", "autenticador", str, "pam"),
        configuracion_extra=valor("hub", "configuracion_extra", str, ""),
        entorno_alumnos=Path(valor("hub", "entorno_alumnos", str, "") or REPO / ".venv"),
        memoria=tamano(archivo, valor("limites", "memoria", str, "0")),
        cpu=float(valor("limites", "cpu", (int, float), 0)),
        procesos=valor("limites", "procesos", int, 0),
        archivo=archivo,
    )
    if not COURSE_ID.match(clase.id):
        raise ClaseInvalida(f"«{archivo}»: el id del curso «{clase.id}» va en minúsculas, sin espacios ni acentos.")
    for nombre in clase.personas:
        if not isinstance(nombre, str) or not USER_NAME.match(nombre):
            raise ClaseInvalida(
                f"«{archivo}»: «{nombre}» no sirve como nombre de usuario (minúsculas, cifras, «_», «-» o «.»; "
                "hasta 32 caracteres)."
            )
    repetidos = sorted({nombre for nombre in clase.personas if clase.personas.count(nombre) > 1})
    if repetidos:
        raise ClaseInvalida(f"«{archivo}»: {', '.join(repetidos)} aparece más de una vez en [personas].")
    if clase.libro and not clase.libro.startswith(("postgresql:", "postgresql+", "sqlite:")):
        raise ClaseInvalida(f"«{archivo}»: el libro es una URL postgresql://... o sqlite:///..., no «{clase.libro}».")
    if clase.cpu < 0 or clase.procesos < 0:
        raise ClaseInvalida(f"«{archivo}»: [limites] cpu y procesos no pueden ser negativos.")
    return clase


def tamano(archivo, texto):
    """Bytes of a size written like «3G», «1536M» or «0» (no limit)."""
    match = SIZE.match(texto.strip())
    if not match:
        raise ClaseInvalida(f"«{archivo}»: [limites] memoria es un tamaño como «3G» o «1536M», no «{texto}».")
    number, unit = match.groups()
    return int(float(number) * 1024 ** "_KMGT".index(unit.upper() or "_"))


class Argumentos(argparse.ArgumentParser):
    """argparse in Spanish, like ``curso`` (whose parser is not imported here: that would load torch)."""

    class _Formato(argparse.HelpFormatter):
        def add_usage(self, usage, actions, groups, prefix=None):
            super().add_usage(usage, actions, groups, prefix="uso: " if prefix is None else prefix)

    TRADUCCIONES: ClassVar[dict] = {
        "the following arguments are required": "faltan argumentos obligatorios",
        "unrecognized arguments": "argumentos no reconocidos",
        "invalid choice": "opción no válida",
        "choose from": "elige entre",
        "argument ": "argumento ",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, add_help=False, formatter_class=self._Formato, **kwargs)
        self._positionals.title = "argumentos"
        self._optionals.title = "opciones"
        self.add_argument("-h", "--help", action="help", help="muestra esta ayuda y termina")

    def error(self, message):
        for english, spanish in self.TRADUCCIONES.items():
            message = message.replace(english, spanish)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")
