"""Una clase entera a la vez en el JupyterHub del curso (despliegue/): la medida de cuántos alumnos aguanta.

    .venv/bin/python scripts/carga_de_clase.py 4 8 12 16      # como root, en la máquina del hub de pruebas

Arranca la clase de pruebas de tests/test_despliegue.py (la guía de despliegue/README.md, con cuentas,
PostgreSQL y el hub en 127.0.0.1) con tantas cuentas de alumno como el mayor de los números, y después, para
cada número N por orden, una ronda: N alumnos a la vez entran en el hub, arrancan su servidor, descargan la
lección 01, la ejecutan entera en un kernel (con sus respuestas), ven el ✔ de cada comprobación y la
entregan, mientras el instructor recoge, califica y devuelve. La ronda sale bien si cada alumno ve todos sus ✔
antes de ``LIMITE_ALUMNO`` segundos y el instructor ha recogido, calificado y devuelto las N entregas antes
de ``DURACION`` segundos; las rondas paran en la primera que sale mal. Al final escribe una tabla con el
tiempo de cada ronda y la memoria de cada servidor y de cada kernel. Todo va por loopback, cada ronda tiene
un número fijo de alumnos y una duración máxima, y termina sola.

El código que hace de alumno y de instructor (``Alumno``, ``Kernel``, ``ronda``) lo usa también la prueba
``test_una_clase_entera_a_la_vez`` con una clase pequeña.
"""

import concurrent.futures
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import psutil
import requests
import websocket

ROOT = Path(__file__).resolve().parent.parent
LIMITE_ALUMNO = 300  # s: de entrar en el hub a ver el último ✔ de la lección
DURACION = 900  # s: una ronda entera, hasta que el instructor devuelve la última retroalimentación
CHECK_MARK = "✔"


class Alumno:
    """One student, as their browser reaches the hub: log in with the password, then the REST APIs with a token."""

    def __init__(self, url, user, password):
        self.url, self.user, self.password = url, user, password
        self.token = None

    def entrar(self):
        session = requests.Session()
        session.get(f"{self.url}/hub/login", timeout=60).raise_for_status()
        form = {"username": self.user, "password": self.password, "_xsrf": session.cookies.get("_xsrf")}
        answer = session.post(f"{self.url}/hub/login", data=form, allow_redirects=False, timeout=120)
        assert answer.status_code == 302, f"{self.user} no pudo entrar: {answer.status_code}"
        headers = {"X-XSRFToken": session.cookies.get("_xsrf")}
        answer = session.post(
            f"{self.url}/hub/api/users/{self.user}/tokens", json={"note": "carga"}, headers=headers, timeout=120
        )
        assert answer.status_code == 201, answer.text
        self.token = answer.json()["token"]

    def request(self, method, path, timeout=120, **kwargs):
        headers = {"Authorization": f"token {self.token}"}
        return requests.request(method, f"{self.url}{path}", headers=headers, timeout=timeout, **kwargs)

    def arrancar(self, deadline):
        answer = self.request("POST", f"/hub/api/users/{self.user}/server")
        assert answer.status_code in (201, 202), answer.text
        while not self.request("GET", f"/hub/api/users/{self.user}").json()["servers"].get("", {}).get("ready"):
            assert time.monotonic() < deadline, f"el servidor de {self.user} no arrancó a tiempo"
            time.sleep(0.5)

    def lista(self, action, course, lesson):
        """A button of the «Lista de lecciones» (nbgrader's assignment list)."""
        body = {"course_id": course, "assignment_id": lesson}
        answer = self.request("POST", f"/user/{self.user}/assignments/{action}", json=body, timeout=300)
        assert answer.status_code == 200 and '"success": true' in answer.text, answer.text[-2000:]

    def cuaderno(self, lesson):
        path = f"/user/{self.user}/api/contents/{lesson}/{lesson}.ipynb"
        return nbformat.from_dict(self.request("GET", path).json()["content"])

    def guardar(self, lesson, notebook):
        path = f"/user/{self.user}/api/contents/{lesson}/{lesson}.ipynb"
        saved = self.request("PUT", path, json={"type": "notebook", "format": "json", "content": notebook})
        assert saved.status_code == 200, saved.text

    def kernel(self, path=""):
        return Kernel(self, path)


class Kernel:
    """A kernel in the student's server, run as JupyterLab runs it: the REST API and the kernel's websocket."""

    def __init__(self, student, path=""):
        self.student = student
        started = student.request("POST", f"/user/{student.user}/api/kernels", json={"name": "python3", "path": path})
        assert started.status_code == 201, started.text
        self.id = started.json()["id"]
        url = student.url.replace("http", "ws", 1) + f"/user/{student.user}/api/kernels/{self.id}/channels"
        self.socket = websocket.create_connection(
            url, header=[f"Authorization: token {student.token}"], timeout=LIMITE_ALUMNO
        )
        self.number = 0

    def ejecutar(self, code, timeout=LIMITE_ALUMNO):
        """Run ``code``; return what it printed and shows (text) and its error (``ename: evalue``) or ``None``."""
        self.number += 1
        msg_id = f"{self.student.user}-{self.number}-{time.monotonic_ns()}"
        request = {
            "header": {
                "msg_id": msg_id,
                "msg_type": "execute_request",
                "username": self.student.user,
                "session": self.id,
                "version": "5.3",
            },
            "parent_header": {},
            "metadata": {},
            "content": {"code": code, "silent": False, "store_history": True, "allow_stdin": False},
            "channel": "shell",
            "buffers": [],
        }
        self.socket.send(json.dumps(request))
        deadline = time.monotonic() + timeout
        texts, error, idle, replied = [], None, False, False
        while not (idle and replied):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"el kernel de {self.student.user} no respondió en {timeout} s")
            self.socket.settimeout(left)
            try:  # control frames too (the server's pings), so that the deadline is looked at between them
                opcode, data = self.socket.recv_data(control_frame=True)
            except websocket.WebSocketTimeoutException:
                continue
            except websocket.WebSocketConnectionClosedException:
                return "".join(texts), "el kernel se detuvo (se cerró su conexión)"
            if opcode != websocket.ABNF.OPCODE_TEXT:
                continue
            message = json.loads(data)
            kind, content = message["msg_type"], message["content"]
            if kind == "status" and content.get("execution_state") in ("restarting", "dead"):
                return "".join(texts), f"el kernel se detuvo ({content['execution_state']})"
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if kind == "stream":
                texts.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                texts.append(content["data"].get("text/plain", ""))
                texts.append(content["data"].get("text/html", ""))
            elif kind == "error":
                error = f"{content['ename']}: {content['evalue']}"
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
            elif kind == "execute_reply":
                replied = True
                if content["status"] == "error" and error is None:
                    error = f"{content.get('ename')}: {content.get('evalue')}"
        return "".join(texts), error

    def cerrar(self):
        self.socket.close()
        self.student.request("DELETE", f"/user/{self.student.user}/api/kernels/{self.id}")


def responder(notebook, answers):
    """The student writes ``answers`` (``{grade_id: source}``) in their copy of the lesson."""
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers and cell.metadata.nbgrader.get("solution"):
            cell.source = answers[grade_id]
    return notebook


def sesion(student, course, lesson, answers, start, deadline):
    """One student's class: log in, start the server, fetch the lesson, run it all with the answers, see every
    check's ✔, submit. Returns the times (s from ``start``) and what went wrong, in Spanish."""
    times, checks = {}, []
    try:
        student.entrar()
        student.arrancar(deadline)
        times["servidor"] = time.monotonic() - start
        student.lista("fetch", course, lesson)
        notebook = responder(student.cuaderno(lesson), answers)
        kernel = student.kernel(lesson)
        try:
            for cell in notebook.cells:
                if cell.cell_type != "code":
                    continue
                text, error = kernel.ejecutar(cell.source, timeout=max(1, deadline - time.monotonic()))
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                if error and not cell.metadata.get("nbgrader", {}).get("grade"):
                    return {**times, "fallo": f"la celda {grade_id or cell.source[:40]!r} falló: {error}"}
                if cell.metadata.get("nbgrader", {}).get("grade"):
                    checks.append(grade_id)
                    if CHECK_MARK not in text or error:
                        return {**times, "fallo": f"la comprobación {grade_id} no dio ✔: {error or text[-300:]}"}
                    times.setdefault("primer_ok", time.monotonic() - start)
            times["kernel_mib"] = kernel_memory(student.user)
        finally:
            kernel.cerrar()
        times["ultimo_ok"] = time.monotonic() - start
        student.guardar(lesson, notebook)
        student.lista("submit", course, lesson)
        times["entregada"] = time.monotonic() - start
        return {**times, "comprobaciones": len(checks)}
    except (AssertionError, OSError, TimeoutError, requests.RequestException, websocket.WebSocketException) as error:
        return {**times, "fallo": f"{type(error).__name__}: {str(error)[:500]}"}


def instructor_en_ronda(instructor, course, lesson, students, done, deadline, pause=15):
    """The instructor, while the students work: collect, grade what has arrived, until every student's
    submission is collected and graded, then give the feedback back. Returns a Spanish account of it."""
    ids = sorted(re.sub(r"[^a-z0-9]+", "_", user) for user in students)
    collected = []
    while time.monotonic() < deadline:
        finished = done.is_set()  # read before collecting: a submission made after this is collected next time
        said = instructor(f"curso recoger {lesson}")
        match = re.search(rf"entregas de {lesson} en \S+: ([\w, ]*)\.", " ".join(said.split()))
        collected = sorted(set(match[1].split(", ")) & set(ids)) if match else []
        if collected:
            instructor(f"curso calificar recogidas --directorio . --leccion {lesson}")
        if finished or collected == ids:
            break
        time.sleep(pause)
    returned = " ".join(instructor(f"curso devolver {lesson}").split())
    return {"recogidas": collected, "devolver": returned}


def kernel_memory(user):
    """MiB that the student's biggest kernel alone holds (USS), once it has run the whole lesson."""
    sizes = [0.0]
    for process in psutil.process_iter(["username", "cmdline"]):
        if process.info["username"] == user and "ipykernel_launcher" in " ".join(process.info["cmdline"] or []):
            with contextlib.suppress(psutil.Error):
                sizes.append(process.memory_full_info().uss / 2**20)
    return max(sizes)


def memoria(users, cgroups):
    """Per student: the peak of their server's cgroup (server, kernels and all they started) and what their
    server alone holds now (USS), in MiB."""
    rows = {}
    for user in users:
        row = {}
        for name in ("memory.max_usage_in_bytes", "memory.peak"):
            path = cgroups / user / name
            if path.exists():
                row["pico_cgroup"] = int(path.read_text()) / 2**20
        for process in psutil.process_iter(["username", "cmdline"]):
            if process.info["username"] != user:
                continue
            command = " ".join(process.info["cmdline"] or [])
            try:
                uss = process.memory_full_info().uss / 2**20
            except psutil.Error:
                continue
            if "jupyterhub-singleuser" in command:
                row["servidor"] = uss
        rows[user] = row
    return rows


def ronda(url, passwords, course, lesson, answers, instructor, workspace, cgroups, stop_servers=True):
    """N students at once (``passwords``: ``{user: password}``) and the instructor; stops by itself after
    ``DURACION`` s. Returns everything measured and ``ok``: every submission collected and graded, every ✔
    within ``LIMITE_ALUMNO`` s."""
    start = time.monotonic()
    deadline = start + DURACION
    students = [Alumno(url, user, password) for user, password in passwords.items()]
    done = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(len(students) + 1) as pool:
        teacher = pool.submit(instructor_en_ronda, instructor, course, lesson, list(passwords), done, deadline)
        sessions = {
            s.user: pool.submit(sesion, s, course, lesson, answers, start, start + LIMITE_ALUMNO) for s in students
        }
        results = {user: future.result() for user, future in sessions.items()}
        peak = memoria(list(passwords), cgroups)
        done.set()
        teaching = teacher.result()
    table = _grades(workspace, lesson)
    ids = {user: re.sub(r"[^a-z0-9]+", "_", user) for user in passwords}
    graded = [user for user, i in ids.items() if i in table and table[i][0] == table[i][1] > 0]
    if stop_servers:
        for s in students:
            s.request("DELETE", f"/hub/api/users/{s.user}/server")
    ok = all("fallo" not in r for r in results.values()) and len(graded) == len(passwords)
    return {
        "alumnos": len(passwords),
        "ok": ok,
        "segundos": round(time.monotonic() - start, 1),
        "alumnos_ok": results,
        "calificadas": graded,
        "instructor": teaching,
        "memoria_mib": peak,
    }


def _grades(workspace, lesson):
    """``{student: (automatic points, maximum)}`` from the lesson's CSV."""
    import pandas as pd

    path = Path(workspace) / "informes" / f"calificaciones_{lesson}.csv"
    if not path.exists():
        return {}
    table = pd.read_csv(path).set_index("alumno")
    return {i: (row.puntos_automaticos, row.maximo_automatico) for i, row in table.iterrows()}


def resumen(rounds):
    """The Spanish table of the rounds, and the figures for the guide."""
    lines = ["alumnos | bien | segundos | último ✔ (s, máx.) | pico por alumno (MiB, mediana/máx.) | servidor | kernel"]
    for r in rounds:
        last = [t.get("ultimo_ok", float("nan")) for t in r["alumnos_ok"].values()]
        peaks = sorted(m.get("pico_cgroup", 0) for m in r["memoria_mib"].values())
        servers = sorted(m.get("servidor", 0) for m in r["memoria_mib"].values())
        kernels = sorted(t.get("kernel_mib", 0) for t in r["alumnos_ok"].values())

        def median(values):
            return values[len(values) // 2] if values else 0

        lines.append(
            f"{r['alumnos']:>7} | {'sí' if r['ok'] else 'no':>4} | {r['segundos']:>8.0f} | {max(last):>18.0f} | "
            f"{median(peaks):>6.0f} / {max(peaks, default=0):<6.0f} | {median(servers):>8.0f} | {median(kernels):>6.0f}"
        )
        for user, result in r["alumnos_ok"].items():
            if "fallo" in result:
                lines.append(f"        ! {user}: {result['fallo']}")
    return "\n".join(lines)


def main(argv=None):
    sizes = [int(n) for n in (argv if argv is not None else sys.argv[1:])] or [4, 8, 12, 16]
    if os.geteuid() != 0:
        print("Error: hay que ejecutarlo como root (crea cuentas Unix y arranca el hub).", file=sys.stderr)
        return 1
    report = Path(tempfile.mkdtemp(prefix="curso-carga-")) / "rondas.json"
    environment = {**os.environ, "CURSO_CARGA": ",".join(map(str, sizes)), "CURSO_CARGA_INFORME": str(report)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/test_despliegue.py",
        "-q",
        "-k",
        "clase_entera",
        "-p",
        "no:cacheprovider",
    ]
    print(
        f"Clase de pruebas con {max(sizes)} alumnos; rondas de {', '.join(map(str, sizes))} (unos minutos)…", flush=True
    )
    subprocess.run(command, cwd=ROOT, env=environment)
    if not report.exists():
        print("Error: la prueba no llegó a ninguna ronda (su salida está arriba).", file=sys.stderr)
        return 1
    rounds = json.loads(report.read_text(encoding="utf-8"))
    print(resumen(rounds))
    held = [r["alumnos"] for r in rounds if r["ok"]]
    print(f"La mayor clase que aguantó esta máquina ({os.cpu_count()} núcleos): {max(held, default=0)} alumnos.")
    print(f"Detalle de cada ronda: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
