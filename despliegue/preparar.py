"""Prepara esta máquina para un curso en JupyterHub, según clase.toml. Se ejecuta como root y se puede repetir.

    .venv/bin/python despliegue/preparar.py /etc/curso/clase.toml

Crea las cuentas que falten (con la carpeta personal cerrada a los demás), la carpeta de intercambio
de nbgrader, el estado del hub con la configuración de Jupyter de los alumnos, el espacio de trabajo
del instructor con su nbgrader_config.py, y la base de datos de PostgreSQL del libro de calificaciones.
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clase import PROXY, REPO, Argumentos, ClaseInvalida, leer

# Spanish UI comes from the environment (gradientes.lab_setup). On a hub, students fetch and submit from
# the «Assignments» list; the formgrader, «Create Assignment» and the course list are the instructor's.
sys.path.insert(0, str(REPO))
from gradientes.lab_setup import INSTRUCTOR_LAB_PLUGINS, INSTRUCTOR_SERVER_EXTENSIONS

STUDENT_LAB_PLUGINS = {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu"}
STUDENT_SERVER_EXTENSIONS = {"nbgrader.server_extensions.assignment_list"}


class Fallo(RuntimeError):
    """A step that could not be done (message in Spanish)."""


def say(text):
    print(f"· {text}", flush=True)


def cuentas(clase):
    """Every account of the course exists, with a home only its owner can open."""
    for nombre in clase.personas:
        try:
            cuenta = pwd.getpwnam(nombre)
        except KeyError:
            if not clase.crear_usuarios:
                raise Fallo(
                    f"no existe la cuenta «{nombre}». Créala (adduser {nombre}, como root) o pon crear_usuarios = true."
                ) from None
            subprocess.run(
                ["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", nombre],
                check=True,
                capture_output=True,
            )
            cuenta = pwd.getpwnam(nombre)
            say(f"cuenta creada: {nombre} (sin contraseña: la comprueba el autenticador; con PAM, «passwd {nombre}»)")
        home = Path(cuenta.pw_dir)
        if home.is_dir() and home.stat().st_uid == cuenta.pw_uid:
            home.chmod(0o700)  # fetched lessons, the submission cache and feedback are there


def inaccesibles(ruta):
    """Folders on the way to ``ruta`` that other accounts cannot go through."""
    ruta = Path(ruta).resolve()
    return [p for p in [*reversed(ruta.parents), ruta] if p.is_dir() and not p.stat().st_mode & 0o001]


def entornos(clase):
    """Every account runs Python from these environments: say so if some cannot."""
    for entorno, quien in ((clase.entorno, "el formgrader"), (clase.entorno_alumnos, "los alumnos")):
        python = entorno / "bin" / "python"
        if not python.exists():
            raise Fallo(f"no existe «{python}», el entorno de {quien}: créalo con «make instalar».")
        cerradas = inaccesibles(python.resolve().parent) + inaccesibles(entorno)
        if cerradas:
            say(
                f"AVISO: las cuentas del curso no pueden entrar en {', '.join(map(str, dict.fromkeys(cerradas)))}, "
                f"así que no pueden ejecutar {python}: instala el curso con un Python del sistema "
                "(make instalar PYTHON=/usr/bin/python3) en una carpeta que todos puedan leer."
            )
    if not PROXY.exists():
        raise Fallo(f"falta el proxy de JupyterHub ({PROXY}): instálalo con «make proxy» (npm ci en despliegue/).")


def intercambio(clase):
    """nbgrader's exchange: everyone writes, nobody deletes what is not theirs (like /tmp)."""
    clase.intercambio.mkdir(parents=True, exist_ok=True)
    os.chown(clase.intercambio, 0, 0)
    clase.intercambio.chmod(0o1777)
    say(f"intercambio de nbgrader: {clase.intercambio} (1777)")


def estado(clase):
    """The hub's own folder, and the Jupyter configuration every single-user server reads."""
    clase.estado.mkdir(parents=True, exist_ok=True)
    clase.estado.chmod(0o755)
    config = clase.config_alumnos
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "nbgrader_config.py").write_text(
        "# Configuración de nbgrader de cada servidor de la clase (la escribe despliegue/preparar.py).\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {clase.id!r}\n"
        f"c.Exchange.root = {str(clase.intercambio)!r}\n",
        encoding="utf-8",
    )
    extensions = {name: name in STUDENT_SERVER_EXTENSIONS for name in INSTRUCTOR_SERVER_EXTENSIONS}
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": extensions}}, indent=2) + "\n", encoding="utf-8"
    )
    plugins = {name: name not in STUDENT_LAB_PLUGINS for name in INSTRUCTOR_LAB_PLUGINS}
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": plugins}, indent=2) + "\n", encoding="utf-8"
    )
    for path in [config, config / "labconfig", *config.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    say(f"estado del hub: {clase.estado}; configuración de los servidores: {config}")


def espacio_del_instructor(clase):
    """The instructor's nbgrader workspace, closed to everyone else, and its nbgrader_config.py."""
    cuenta = pwd.getpwnam(clase.instructor)
    directorio = clase.directorio
    directorio.mkdir(parents=True, exist_ok=True)
    os.chown(directorio, cuenta.pw_uid, cuenta.pw_gid)
    directorio.chmod(0o700)
    config = directorio / "nbgrader_config.py"
    config.write_text(
        f"# nbgrader del curso «{clase.id}» en JupyterHub: lo escribe despliegue/preparar.py desde clase.toml.\n"
        "# Lo leen el formgrader, las órdenes de nbgrader y «curso calificar --directorio» (el libro).\n"
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(REPO / 'autograder' / 'nbgrader_config.py')!r})  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(directorio)!r}\n"
        f"c.CourseDirectory.course_id = {clase.id!r}\n"
        f"c.CourseDirectory.source_directory = {str(REPO / 'solutions')!r}\n"
        f"c.CourseDirectory.release_directory = {str(REPO / 'notebooks')!r}\n"
        "# Lo que se recoge del intercambio (curso recoger); curso calificar deja su copia en submitted/.\n"
        "c.CourseDirectory.submitted_directory = 'recogidas'\n"
        f"c.CourseDirectory.db_url = {clase.db_url!r}\n"
        f"c.Exchange.root = {str(clase.intercambio)!r}\n"
        "# El dueño de una entrega es la cuenta que la hizo: una a nombre de otro no se recoge.\n"
        "c.ExchangeFactory.collect = 'autograder.course.exchange.OwnerCheckedCollect'\n",
        encoding="utf-8",
    )
    os.chown(config, cuenta.pw_uid, cuenta.pw_gid)
    config.chmod(0o600)
    say(f"espacio de trabajo del instructor: {directorio} (solo {clase.instructor})")


def libro(clase):
    """The gradebook's PostgreSQL role and database, owned by the instructor (peer authentication)."""
    if not clase.libro.startswith("postgresql"):
        say(f"libro de calificaciones: {clase.db_url}")
        return
    from sqlalchemy.engine import make_url

    url = make_url(clase.libro)
    host = url.query.get("host") or url.host or "/var/run/postgresql"
    if not str(host).startswith("/"):
        say(f"libro de calificaciones en {host}: crea tú el rol y la base de datos «{url.database}» en ese servidor.")
        return
    role, database = url.username or clase.instructor, url.database
    if role != clase.instructor:
        say(f"AVISO: el libro entra como «{role}», no como el instructor «{clase.instructor}»: revisa pg_hba.conf.")
    psql = shutil.which("psql")
    if psql is None:
        raise Fallo("no está PostgreSQL: instálalo con «scripts/instalar-sistema.sh servidor» (postgresql).")

    def sql(query):
        port = url.port or url.query.get("port") or 5432
        command = ["runuser", "-u", "postgres", "--", psql, "-h", str(host), "-p", str(port)]
        result = subprocess.run(
            [*command, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-tAc", query], capture_output=True, text=True
        )
        if result.returncode != 0:
            raise Fallo(
                f"PostgreSQL no respondió en {host}: {result.stderr.strip()} "
                "¿Está instalado y en marcha? (como root: apt-get install postgresql; service postgresql start)"
            )
        return result.stdout.strip()

    quoted = '"' + role.replace('"', '""') + '"'
    if not sql(f"SELECT 1 FROM pg_roles WHERE rolname = '{role}'"):
        sql(f"CREATE ROLE {quoted} LOGIN")
    if not sql(f"SELECT 1 FROM pg_database WHERE datname = '{database}'"):
        sql(f'CREATE DATABASE "{database}" OWNER {quoted}')
    sql(f'REVOKE CONNECT ON DATABASE "{database}" FROM PUBLIC')
    sql(f'GRANT CONNECT ON DATABASE "{database}" TO {quoted}')
    say(f"libro de calificaciones: PostgreSQL, base «{database}» de «{role}» en {host} (solo entra {role})")


def main(argv=None):
    parser = Argumentos(
        prog="preparar.py",
        description="Prepara la máquina para un curso en JupyterHub (como root; se puede repetir).",
    )
    parser.add_argument("clase", nargs="?", help="descripción del curso (por defecto $CURSO_CLASE o clase.toml)")
    args = parser.parse_args(argv)
    try:
        clase = leer(args.clase)
        if os.geteuid() != 0:
            raise Fallo("hay que ejecutarlo como root (sudo): crea cuentas y carpetas de otros usuarios.")
        entornos(clase)
        cuentas(clase)
        intercambio(clase)
        estado(clase)
        espacio_del_instructor(clase)
        libro(clase)
    except (ClaseInvalida, Fallo) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as error:
        detail = (error.stderr or b"").decode(errors="replace").strip()
        print(f"Error: falló «{' '.join(error.cmd)}»: {detail}", file=sys.stderr)
        return 1
    print(
        f"Listo. Arranca el hub con CURSO_CLASE={clase.archivo} {clase.entorno / 'bin' / 'jupyterhub'} "
        f"-f {Path(__file__).resolve().with_name('jupyterhub_config.py')} (o con despliegue/jupyterhub.service)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
