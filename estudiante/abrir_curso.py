"""Open the course «Gradientes en PyTorch» in JupyterLab, installing what it needs the first time.

Standard library only: any Python from 3.11.2 runs it, on Windows (PowerShell), macOS and Linux (WSL too).

1. Creates the virtual environment ``.venv`` next to this file, if it is missing.
2. Installs into it ``requirements.txt`` and the course package (``gradientes``), whenever either changed.
3. Sets JupyterLab up in Spanish (``python -m gradientes.lab_setup --estudiante``).
4. Starts JupyterLab on the course index and prints its address with its token: the address opens the index
   in any browser, also where none opens by itself (WSL, a remote machine).

Usage: ``python abrir_curso.py [--cpu] [--sin-navegador]``. ``make lab`` runs it too.
"""

import argparse
import hashlib
import importlib.util
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv"
INSTALLED = VENV / "curso-instalado.txt"  # what was installed: the fingerprint of the files below
REQUIREMENTS = HERE / "requirements.txt"
INDEX = "notebooks/indice.md"
OLDEST = (3, 11, 2)
NEWEST_PROVEN = (3, 13)
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PORT = 8888  # JupyterLab's usual one; another if it is taken
STARTUP_LIMIT = 300  # seconds to wait for JupyterLab before printing its address anyway


class Stop(Exception):
    """The course cannot open: the message says why, in Spanish, and what to do."""


def say(text=""):
    print(text, flush=True)


def check_python(version=sys.version_info[:3]):
    """Refuse a Python older than 3.11.2; warn about one newer than the proven ones."""
    text = ".".join(str(number) for number in version)
    if tuple(version) < OLDEST:
        raise Stop(
            f"Este Python es el {text}, y el curso necesita Python 3.11.2 o posterior (hasta la 3.13). "
            "Instala uno desde https://www.python.org/downloads/ y abre el curso con él, por ejemplo: "
            "py -3.13 abrir_curso.py (Windows) o python3.13 abrir_curso.py (macOS, Linux)."
        )
    if tuple(version[:2]) > NEWEST_PROVEN:
        say(
            f"Aviso: el curso está probado con Python 3.11, 3.12 y 3.13. Con el {text} puede que alguna versión "
            "fijada (PyTorch, sobre todo) todavía no se pueda instalar; si falla, usa un Python 3.13."
        )


def venv_python():
    """The Python of ``.venv`` (``Scripts\\python.exe`` on Windows, ``bin/python`` elsewhere)."""
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def run(command, what):
    """Run ``command`` (its output shown as it goes); if it fails, say what could not be done."""
    say(f"\n>> {what}")
    # Not from this folder: there, ``gradientes`` would be this folder's copy and not the installed one.
    if subprocess.run([str(part) for part in command], cwd=VENV).returncode != 0:
        raise Stop(
            f"No se pudo completar este paso: {what}. El mensaje de pip (o de Python) está arriba. Suele ser la "
            "conexión a internet (vuelve a ejecutar abrir_curso.py: sigue donde se quedó) o un Python para el que "
            "alguna versión fijada no tiene paquete (usa Python 3.11, 3.12 o 3.13)."
        )


def create_venv():
    """Create ``.venv`` with this Python, unless it exists."""
    if venv_python().exists():
        return
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("ensurepip") is None:
        raise Stop(
            "Este Python no puede crear entornos virtuales: le falta el módulo venv. En Debian, Ubuntu o WSL: "
            "sudo apt-get install python3-venv. En Windows y macOS, instala Python desde https://www.python.org."
        )
    say(f"Creando el entorno virtual del curso en {VENV} ...")
    if subprocess.run([sys.executable, "-m", "venv", str(VENV)]).returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)  # half made: the next run starts again
        raise Stop(
            f"No se pudo crear el entorno virtual {VENV} (el mensaje de Python está arriba). Comprueba que puedes "
            "escribir en esta carpeta y que queda espacio en el disco (el curso ocupa unos 2 GB)."
        )


def fingerprint():
    """What decides whether to install again: the requirements and the course package's files."""
    digest = hashlib.sha256()
    files = [REQUIREMENTS, HERE / "pyproject.toml", *sorted((HERE / "gradientes").rglob("*"))]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(HERE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def torch_requirement():
    """The PyTorch releases the course is proven on, as ``requirements.txt`` gives them."""
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#")[0].strip()
        if requirement.startswith("torch") and requirement[len("torch")] in "<>=!~":
            return requirement
    raise Stop(f"{REQUIREMENTS} no dice qué versiones de PyTorch instalar: descarga otra vez el curso.")


def install_steps(python, cpu):
    """``[(what, command)]`` that install the course into the environment of ``python``."""
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
    steps = []
    if cpu:
        steps.append(("PyTorch solo para CPU", [*pip, torch_requirement(), "--index-url", CPU_INDEX]))
    steps.append(("las bibliotecas del curso (la primera vez tarda unos minutos)", [*pip, "-r", REQUIREMENTS]))
    steps.append(("el paquete del curso", [*pip, "--no-deps", "--no-build-isolation", "--force-reinstall", HERE]))
    steps.append(("JupyterLab en español", [str(python), "-m", "gradientes.lab_setup", "--estudiante"]))
    return steps


def install(cpu):
    """Install the course into ``.venv`` unless what is there is current."""
    wanted = fingerprint()
    if INSTALLED.exists() and INSTALLED.read_text(encoding="utf-8").strip() == wanted:
        say("El curso ya está instalado en .venv.")
        return
    for what, command in install_steps(venv_python(), cpu):
        run(command, what)
    INSTALLED.write_text(wanted + "\n", encoding="utf-8")


def check_graphviz():
    """Graphviz's ``dot`` draws the lessons' graphs: say how to install it if it is missing."""
    if shutil.which("dot"):
        return
    if sys.platform == "win32":
        how = "winget install graphviz (y abre otra terminal)"
    elif sys.platform == "darwin":
        how = "brew install graphviz"
    else:
        how = "sudo apt-get install graphviz"
    say(f"\nAviso: falta Graphviz (la orden dot) y las lecciones no podrán dibujar los grafos. Instálalo con: {how}")


def free_port():
    """``PORT`` if it is free, else any free port."""
    for port in (PORT, 0):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise Stop("No hay ningún puerto libre para JupyterLab en esta máquina.")


def wait_until_up(server, port, token):
    """Wait until JupyterLab answers (True), or until it stops (False) or takes too long (True)."""
    status = f"http://localhost:{port}/api/status?token={token}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
    deadline = time.monotonic() + STARTUP_LIMIT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        try:
            with opener.open(status, timeout=5):
                return True
        except OSError:
            time.sleep(0.5)
    return True


def start_lab(browser):
    """Start JupyterLab on the course index, print its address and wait until it stops; return its exit code."""
    port, token = free_port(), secrets.token_hex(24)
    command = [
        venv_python(),
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={HERE}",
        f"--LabApp.default_url=/lab/tree/{INDEX}",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.use_redirect_file=False",  # the browser gets the address itself (a file does not open in WSL)
        "--ServerApp.answer_yes=True",  # Ctrl + C stops it at once, without asking
        "--ServerApp.log_level=WARN",
    ]
    if not browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    say("\n>> Abriendo JupyterLab ...")
    server = subprocess.Popen([str(part) for part in command], cwd=VENV, env={**os.environ, "JUPYTER_TOKEN": token})
    try:
        if not wait_until_up(server, port, token):
            raise Stop("JupyterLab no pudo arrancar: su mensaje está arriba.")
        say(
            "\nEl curso está abierto en JupyterLab. Si el navegador no se abrió solo, copia esta dirección en él:\n\n"
            f"    http://localhost:{port}/lab/tree/{INDEX}?token={token}\n\n"
            "Tus respuestas se guardan en los cuadernos de la carpeta notebooks. "
            "Para cerrar el curso, guarda tu trabajo y pulsa Ctrl + C en esta ventana.\n"
        )
        return server.wait()
    except KeyboardInterrupt:  # Ctrl + C reaches JupyterLab too, which stops by itself
        try:
            server.wait(timeout=30)
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            server.terminate()
            server.wait()
        say("\nJupyterLab se cerró. Para volver a abrir el curso: python abrir_curso.py")
        return 0
    finally:
        if server.poll() is None:
            server.terminate()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Instala el curso «Gradientes en PyTorch» (la primera vez) y lo abre en JupyterLab."
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="instala PyTorch solo para CPU (en Linux, un entorno de 1,3 GB en lugar de 5,8 GB)",
    )
    parser.add_argument(
        "--sin-navegador", action="store_true", help="no abre el navegador: solo escribe la dirección del curso"
    )
    args = parser.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):  # a console that cannot write «ñ» shows «?» instead of failing
        sys.stdout.reconfigure(errors="replace")
    try:
        check_python()
        create_venv()
        install(args.cpu)
        check_graphviz()
        return start_lab(browser=not args.sin_navegador)
    except Stop as stop:
        say(f"\nError: {stop}")
        return 1
    except KeyboardInterrupt:
        say("\nInterrumpido. La próxima vez, abrir_curso.py sigue donde se quedó.")
        return 1


if __name__ == "__main__":
    sys.exit(main())
