"""A class on JupyterHub (despliegue/), for real: hub and proxy, PostgreSQL, Unix accounts, nbgrader's exchange.

Everything runs on this machine, on loopback (random ports) and a PostgreSQL socket in a temporary
folder, and is stopped and removed afterwards: the accounts ``curso-prof``, ``curso-ana`` and
``curso-beto``, their processes, the database cluster. The flow goes the way people do it: the
instructor publishes from the formgrader (a hub service), the students fetch, answer and submit
from their own servers (nbgrader's «Assignments» handlers, through the hub with their own tokens),
the instructor collects and returns feedback with ``curso recoger``/``curso devolver`` and grades with
``curso calificar``, both as the instructor's Unix user, and grades a reflection in the formgrader.
"""

import contextlib
import fcntl
import glob
import importlib.util
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pandas as pd
import psutil
import pytest
import requests
from helpers import chromium
from nbgrader.utils import is_solution

from autograder import cli
from autograder import course as curso
from autograder.course import PACKAGE_DIR, ROOT, find_lesson
from autograder.demo import answered, hardcoded

DESPLIEGUE = ROOT / "despliegue"
PROXY = DESPLIEGUE / "node_modules" / ".bin" / "configurable-http-proxy"
INITDB = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
COURSE = "gradientes"
LESSON = "01_tensores_y_requires_grad"
INSTRUCTOR, ANA, BETO = "curso-prof", "curso-ana", "curso-beto"
ACCOUNTS = (INSTRUCTOR, ANA, BETO)
PYTHON = Path(sys.executable)  # the instructor's environment: the hub, the formgrader and «curso» run from it
STUDENT_PYTHON = "/usr/bin/python3"  # Debian's, for the student edition's environment (the students' servers)
LOCK = Path(tempfile.gettempdir()) / "curso-despliegue-pruebas.lock"

missing = [
    reason
    for absent, reason in (
        (
            os.geteuid() != 0,
            "hace falta ser root: la prueba crea cuentas Unix y el hub arranca un servidor por cuenta",
        ),
        (not INITDB, "falta PostgreSQL (initdb): instálalo con «scripts/instalar-sistema.sh servidor»"),
        (not PROXY.exists(), "falta configurable-http-proxy: instálalo con «make proxy»"),
        (not all(map(shutil.which, ("runuser", "useradd", "userdel", "chpasswd"))), "faltan runuser o useradd"),
    )
    if absent
]
on_this_machine = pytest.mark.skipif(bool(missing), reason="; ".join(missing))


def despliegue_module(name):
    """A module of despliegue/ (a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, DESPLIEGUE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}\n{result.stderr}"
    return result


def kill_processes_of(users):
    """End every process of the test's accounts (the servers the hub started for them), by id."""
    uids = set()
    for user in users:
        with contextlib.suppress(KeyError):
            uids.add(pwd.getpwnam(user).pw_uid)
    theirs = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real in uids]
    for process in theirs:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(theirs, timeout=10)


def remove_accounts():
    kill_processes_of(ACCOUNTS)
    for user in ACCOUNTS:
        with contextlib.suppress(KeyError):
            home = pwd.getpwnam(user).pw_dir
            subprocess.run(["userdel", "--remove", user], capture_output=True)
            shutil.rmtree(home, ignore_errors=True)
        subprocess.run(["groupdel", user], capture_output=True)


@contextlib.contextmanager
def reachable_by_everyone(paths):
    """Let other accounts go through the folders on the way to ``paths`` (o+x, never o+r), while the test runs.

    The hub starts each server as its account's Unix user, with the course's Python. Where that Python
    lives under a closed folder (here, /root/.pyenv, mode 0700), nobody else could start it; a real
    deployment installs the course with a Python every account can reach (despliegue/README.md).
    """
    changed = {}
    for path in paths:
        path = Path(path).resolve()
        for folder in [*reversed(path.parents), path]:
            mode = folder.stat().st_mode
            if folder.is_dir() and not mode & 0o001 and folder not in changed:
                changed[folder] = mode & 0o7777
                folder.chmod(changed[folder] | 0o001)
    try:
        yield
    finally:
        for folder, mode in changed.items():
            folder.chmod(mode)


class Instructor:
    """What the instructor types in a terminal, as their Unix user, in their nbgrader workspace."""

    def __init__(self, clase, workspace):
        self.clase, self.workspace = clase, workspace

    def __call__(self, *args, check=True):
        env = {
            "HOME": pwd.getpwnam(INSTRUCTOR).pw_dir,
            "PATH": f"{PYTHON.parent}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "CURSO_CLASE": str(self.clase),
            "COLUMNS": "200",  # «curso» writes with rich: no line breaks inside what the test looks for
        }
        command = ["runuser", "-u", INSTRUCTOR, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items())]
        result = subprocess.run([*command, str(PYTHON), *args], capture_output=True, text=True, cwd=self.workspace)
        assert not check or result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
        return result


class Hub:
    """A running JupyterHub, reached as its users are: log in, get a token, use the REST APIs."""

    def __init__(self, url, passwords):
        self.url, self.passwords, self.tokens = url, passwords, {}

    def token(self, user):
        """Log in with the password (PAM) and ask the hub for an API token, as from the hub's Token page."""
        if user not in self.tokens:
            session = requests.Session()
            session.get(f"{self.url}/hub/login", timeout=30).raise_for_status()
            form = {"username": user, "password": self.passwords[user], "_xsrf": session.cookies.get("_xsrf")}
            answer = session.post(f"{self.url}/hub/login", data=form, allow_redirects=False, timeout=60)
            assert answer.status_code == 302, f"{user} no pudo entrar: {answer.status_code}"
            headers = {"X-XSRFToken": session.cookies.get("_xsrf")}
            answer = session.post(f"{self.url}/hub/api/users/{user}/tokens", json={"note": "prueba"}, headers=headers)
            assert answer.status_code == 201, answer.text
            self.tokens[user] = answer.json()["token"]
        return self.tokens[user]

    def request(self, method, user, path, as_user=None, **kwargs):
        headers = {"Authorization": f"token {self.token(as_user or user)}"}
        return requests.request(method, f"{self.url}{path}", headers=headers, timeout=120, **kwargs)

    def start_servers(self, users):
        """Ask the hub for the students' servers; they start while the test goes on."""
        for user in users:
            answer = self.request("POST", user, f"/hub/api/users/{user}/server")
            assert answer.status_code in (201, 202), answer.text

    def wait_for_servers(self, users):
        deadline = time.monotonic() + 150
        for user in users:
            while not self.request("GET", user, f"/hub/api/users/{user}").json()["servers"].get("", {}).get("ready"):
                assert time.monotonic() < deadline, f"el servidor de {user} no arrancó"
                time.sleep(0.5)

    def student(self, user, action):
        """Press a button of the student's «Assignments» list (nbgrader's server extension)."""
        body = {"course_id": COURSE, "assignment_id": LESSON}
        answer = self.request("POST", user, f"/user/{user}/assignments/{action}", json=body)
        assert answer.status_code == 200 and '"success": true' in answer.text, answer.text
        return answer.json()

    def formgrader(self, method, path, **kwargs):
        return self.request(method, INSTRUCTOR, f"/services/{COURSE}/formgrader{path}", **kwargs)

    def wait_for_formgrader(self):
        """The formgrader service, started by the hub as the instructor."""
        deadline = time.monotonic() + 150
        while True:
            with contextlib.suppress(requests.RequestException):
                if self.formgrader("GET", "/api/status").status_code == 200:
                    return
            assert time.monotonic() < deadline, f"el formgrader no arrancó:\n{self.log.read_text()[-5000:]}"
            time.sleep(0.5)


@pytest.fixture(scope="module")
def machine():
    """One run at a time on this machine (the accounts have fixed names); Python reachable by the accounts."""
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with reachable_by_everyone([PYTHON.resolve(), sys.prefix, PACKAGE_DIR, ROOT]):
            remove_accounts()  # left by a run that was killed
            try:
                yield
            finally:
                remove_accounts()


@pytest.fixture(scope="module")
def postgres(machine):
    """A PostgreSQL cluster of its own, run by the «postgres» user, reachable only through a socket in a temp folder."""
    folder = Path(tempfile.mkdtemp(prefix="curso-postgres-"))
    shutil.chown(folder, "postgres", "postgres")
    folder.chmod(0o755)
    bin_dir, port = Path(INITDB[-1]).parent, free_port()
    as_postgres = ["runuser", "-u", "postgres", "--"]
    run([*as_postgres, bin_dir / "initdb", "-D", folder / "datos", "-A", "peer", "-E", "UTF8", "--locale=C.UTF-8"])
    options = f"-k {folder} -p {port} -c listen_addresses=''"
    run([*as_postgres, bin_dir / "pg_ctl", "-D", folder / "datos", "-o", options, "-l", folder / "log", "-w", "start"])
    try:
        yield {"host": folder, "port": port}
    finally:
        subprocess.run([*as_postgres, bin_dir / "pg_ctl", "-D", folder / "datos", "-m", "immediate", "stop"])
        shutil.rmtree(folder, ignore_errors=True)


def sql(postgres, query):
    """A query on the gradebook's database, as the database administrator."""
    command = ["runuser", "-u", "postgres", "--", "psql", "-h", postgres["host"], "-p", str(postgres["port"])]
    return run([*command, "-d", COURSE, "-tAc", query]).stdout.split()


@pytest.fixture(scope="module")
def course(postgres):
    """clase.toml for this machine, and despliegue/preparar.py run on it."""
    folder = Path(tempfile.mkdtemp(prefix="curso-despliegue-"))
    folder.chmod(0o755)
    ports = {name: free_port() for name in ("hub", "proxy", "api", "formgrader")}
    database = f"postgresql://{INSTRUCTOR}@/{COURSE}?host={postgres['host']}&port={postgres['port']}"
    workspace = Path("/home") / INSTRUCTOR / COURSE
    # The students' servers run from the student edition's own environment, made as the guide says, with
    # Debian's Python: no solutions/, no grader, no instructor extensions.
    edition = folder / "estudiantes"
    assert cli.main(["publicar", str(edition)]) == 0
    run(["make", "-C", edition, "instalar", f"PYTHON={STUDENT_PYTHON}"])
    clase = folder / "clase.toml"
    clase.write_text(
        f'[curso]\nid = "{COURSE}"\ndirectorio = "{workspace}"\nintercambio = "{folder / "intercambio"}"\n'
        f'libro = "{database}"\n\n'
        f'[personas]\ninstructor = "{INSTRUCTOR}"\nalumnos = ["{ANA}", "{BETO}"]\ncrear_usuarios = true\n\n'
        f'[hub]\nestado = "{folder / "estado"}"\nurl = "http://127.0.0.1:{ports["proxy"]}"\n'
        f"puerto_hub = {ports['hub']}\npuerto_api_proxy = {ports['api']}\npuerto_formgrader = {ports['formgrader']}\n"
        f'autenticador = "pam"\nentorno_alumnos = "{edition / ".venv"}"\n',
        encoding="utf-8",
    )
    preparation = run([PYTHON, DESPLIEGUE / "preparar.py", clase])
    assert "Listo." in preparation.stdout and "AVISO" not in preparation.stdout, preparation.stdout
    passwords = {user: secrets.token_urlsafe(12) for user in ACCOUNTS}
    run(["chpasswd"], input="".join(f"{user}:{password}\n" for user, password in passwords.items()))
    try:
        yield {
            "clase": clase,
            "folder": folder,
            "workspace": workspace,
            "exchange": folder / "intercambio",
            "edition": edition,
            "url": f"http://127.0.0.1:{ports['proxy']}",
            "passwords": passwords,
            "preparation": preparation.stdout,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def hub(course):
    """JupyterHub with despliegue/jupyterhub_config.py, its proxy and the formgrader service, until the end."""
    state = course["folder"] / "estado"
    log = open(course["folder"] / "jupyterhub.log", "w")  # open until the hub stops
    process = subprocess.Popen(
        [PYTHON.with_name("jupyterhub"), "-f", DESPLIEGUE / "jupyterhub_config.py"],
        cwd=state,
        env={**os.environ, "CURSO_CLASE": str(course["clase"])},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    hub = Hub(course["url"], course["passwords"])
    hub.log = course["folder"] / "jupyterhub.log"
    try:
        deadline = time.monotonic() + 150
        while True:  # the hub and its proxy (the formgrader service may still be starting)
            assert process.poll() is None, hub.log.read_text()[-5000:]
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{hub.url}/hub/api/", timeout=10).status_code == 200:
                    break
            assert time.monotonic() < deadline, hub.log.read_text()[-5000:]
            time.sleep(0.5)
        yield hub
    finally:
        process.send_signal(signal.SIGTERM)  # the hub stops the servers, the formgrader and the proxy
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        with contextlib.suppress(OSError, ValueError, psutil.Error):  # the proxy, if the hub could not stop it
            proxy = psutil.Process(int((state / "proxy.pid").read_text()))
            if str(PROXY) in proxy.cmdline() and course["url"].rsplit(":", 1)[1] in proxy.cmdline():
                proxy.kill()
        kill_processes_of(ACCOUNTS)
        log.close()


def answer(hub, user, make):
    """The student writes their answers in the notebook they fetched, in their own server."""
    path = f"/user/{user}/api/contents/{LESSON}/{LESSON}.ipynb"
    notebook = nbformat.from_dict(hub.request("GET", user, path).json()["content"])
    answers = {c.metadata.nbgrader.grade_id: c.source for c in make(find_lesson(LESSON)).cells if is_solution(c)}
    for cell in notebook.cells:
        if is_solution(cell):
            cell.source = answers[cell.metadata.nbgrader.grade_id]
    saved = hub.request("PUT", user, path, json={"type": "notebook", "format": "json", "content": notebook})
    assert saved.status_code == 200, saved.text


def grades_table(course):
    return pd.read_csv(course["workspace"] / "informes" / f"calificaciones_{LESSON}.csv").set_index("alumno")


@pytest.fixture(scope="module")
def graded(course, hub):
    """Published, fetched, answered (Ana right, Beto with the printed values written by hand), submitted,
    collected and graded by ``curso calificar`` on the collected submissions."""
    instructor = Instructor(course["clase"], course["workspace"])
    hub.start_servers([ANA, BETO])
    hub.wait_for_formgrader()
    released = hub.formgrader("POST", f"/api/assignment/{LESSON}/release")
    assert released.status_code == 200 and released.json()["success"], released.text
    hub.wait_for_servers([ANA, BETO])
    for user, make in ((ANA, answered), (BETO, hardcoded)):
        listed = hub.request("GET", user, f"/user/{user}/assignments", params={"course_id": COURSE}).json()
        assert [a["status"] for a in listed["value"] if a["assignment_id"] == LESSON] == ["released"], listed
        hub.student(user, "fetch")
        answer(hub, user, make)
        hub.student(user, "submit")
    collected = instructor("-m", "autograder.cli", "recoger", LESSON)
    graded = instructor("-m", "autograder.cli", "calificar", "recogidas", "--directorio", ".", "--leccion", LESSON)
    return {"instructor": instructor, "collected": collected.stdout, "graded": graded.stdout}


def submission_grades(hub, student):
    """``{cell: grade}`` of a student's submission, from the formgrader's API."""
    submissions = hub.formgrader("GET", f"/api/submitted_notebooks/{LESSON}/{LESSON}").json()
    submission = next(s for s in submissions if s["student"] == student)
    grades = hub.formgrader("GET", "/api/grades", params={"submission_id": submission["id"]}).json()
    return submission["id"], {grade["name"]: grade for grade in grades}


def as_student(user, code):
    """Run Python as a student's Unix user: what they could read from a terminal of their server."""
    command = ["runuser", "-u", user, "--", "env", "-i", "HOME=/tmp", "LANG=C.UTF-8", str(PYTHON), "-c", code]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")


@on_this_machine
def test_una_clase_por_el_intercambio(course, hub, graded, postgres):
    instructor = graded["instructor"]
    workspace = course["workspace"]

    # The students' servers: Spanish interface, the «Assignments» list, none of the instructor's tools.
    settings = hub.request("GET", ANA, f"/user/{ANA}/lab/api/settings/@jupyterlab/translation-extension:plugin")
    assert settings.json()["schema"]["properties"]["locale"]["default"] == "es"
    page = hub.request("GET", ANA, f"/user/{ANA}/lab").text
    config = json.loads(re.search(r'id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)[1])
    disabled = set(config["disabledExtensions"])
    assert {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"} <= disabled
    assert "@jupyter/nbgrader:assignment-list" not in disabled
    assert hub.request("GET", ANA, f"/user/{ANA}/formgrader").status_code == 404
    assert hub.request("GET", ANA, f"/services/{COURSE}/formgrader/api/assignments").status_code == 403

    # Ana's server runs from the student edition's environment, where %%comprobar works and nothing of the
    # instructor's exists (no solutions, no grader).
    servers = [p for p in psutil.process_iter(["username", "cmdline"]) if p.info["username"] == ANA]
    commands = [" ".join(p.info["cmdline"] or []) for p in servers]
    assert any(str(course["edition"] / ".venv" / "bin" / "jupyterhub-singleuser") in c for c in commands), commands
    probe = (
        "import importlib.util, IPython\n"
        "shell = IPython.core.interactiveshell.InteractiveShell.instance()\n"
        "shell.run_cell('import autograder.selfcheck')\n"
        "result = shell.run_cell('%%comprobar\\nfrom autograder.checks import passed\\npassed(\"hola\")')\n"
        "print(result.success, [importlib.util.find_spec(m) is None for m in ('autograder.verdict', 'nbgrader')])\n"
    )
    python = course["edition"] / ".venv" / "bin" / "python"
    checked = subprocess.run(
        ["runuser", "-u", ANA, "--", "env", "-i", "HOME=/tmp", "LANG=C.UTF-8", str(python), "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )
    assert "✔ hola" in checked.stdout and "True [True, False]" in checked.stdout, checked.stdout + checked.stderr
    assert not (course["edition"] / "solutions").exists()

    # Collected under the ids «curso calificar» gives them, graded, in PostgreSQL and in the CSV.
    assert "curso_ana, curso_beto" in graded["collected"]
    assert f"Libro de calificaciones: postgresql://{INSTRUCTOR}@/{COURSE}" in graded["graded"]
    assert not (workspace / "gradebook.db").exists()
    table = grades_table(course)
    assert table.loc["curso_ana", "puntos_automaticos"] == table.loc["curso_ana", "maximo_automatico"] > 0
    assert table.loc["curso_beto", "puntos_automaticos"] == 0  # values written by hand fail the hidden tests
    stored = sql(postgres, "SELECT student_id FROM submitted_assignment ORDER BY student_id")
    assert stored == ["curso_ana", "curso_beto"]

    # A reflection graded by hand in the formgrader (its API), then the feedback returned.
    _, grades = submission_grades(hub, "curso_ana")
    reflection = grades["reflexion_1"]
    saved = hub.formgrader("PUT", f"/api/grade/{reflection['id']}", json={**reflection, "manual_score": 1})
    assert saved.status_code == 200, saved.text
    query = f"SELECT manual_score FROM grade WHERE id = '{reflection['id']}'"
    assert sql(postgres, query) == ["1"]
    returned = instructor("-m", "autograder.cli", "devolver", LESSON)
    assert "devuelta a 2 alumnos" in returned.stdout
    table = grades_table(course)
    assert table.loc["curso_ana", "reflexion_1"] == 1
    ana_total = table.loc["curso_ana", "total"]
    assert ana_total == table.loc["curso_ana", "puntos_automaticos"] + 1

    # Each student fetches their own feedback, in their own server.
    pages = {}
    for user in (ANA, BETO):
        hub.student(user, "fetch_feedback")
        folder = hub.request("GET", user, f"/user/{user}/api/contents/{LESSON}/feedback").json()["content"]
        [submitted] = folder  # one submission, one feedback folder named by its time
        files = hub.request("GET", user, f"/user/{user}/api/contents/{submitted['path']}").json()["content"]
        assert [item["name"] for item in files] == [f"{LESSON}.html"]
        pages[user] = hub.request("GET", user, f"/user/{user}/api/contents/{files[0]['path']}").json()["content"]
    maximum = table.loc["curso_ana", "maximo"]
    assert re.search(rf"\b{ana_total:g}(\.0)? / {maximum:g}\b", pages[ANA]), "Ana's feedback shows her total"
    beto_total = table.loc["curso_beto", "total"]
    assert re.search(rf"\b{beto_total:g}(\.0)? / {maximum:g}\b", pages[BETO]), "Beto's feedback shows his total"
    assert 'lang="es"' in pages[ANA] and "Puntuación" in pages[ANA]

    # Nobody reads what is not theirs: not through the hub, not as a Unix user, not in the database.
    assert hub.request("GET", ANA, f"/user/{ANA}/api/contents", as_user=BETO).status_code == 403
    inbound, feedback = course["exchange"] / COURSE / "inbound", course["exchange"] / COURSE / "feedback"
    probe = (
        "import os, sys\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n"
        "        os.listdir(path)\n"
        "        print('LEE', path)\n"
        "    except PermissionError:\n"
        "        print('NO', path)\n"
    )
    script = probe.replace("sys.argv[1:]", repr([str(p) for p in (inbound, feedback, workspace, f"/home/{ANA}")]))
    seen = as_student(BETO, script).stdout.split("\n")
    assert [line.split()[0] for line in seen if line] == ["NO"] * 4, seen
    connect = f"import psycopg; psycopg.connect('host={postgres['host']} port={postgres['port']} dbname={COURSE}')"
    refused = as_student(BETO, connect)
    assert refused.returncode != 0 and "curso-beto" in refused.stderr  # no role for a student in the gradebook

    # The next lesson, published from the instructor's terminal this time.
    following = "02_grafo_computacional"
    instructor("-m", "autograder.cli", "repartir", following)
    listed = hub.request("GET", BETO, f"/user/{BETO}/assignments", params={"course_id": COURSE}).json()["value"]
    assert {a["assignment_id"]: a["status"] for a in listed}[following] == "released"


@on_this_machine
def test_las_paginas_del_hub_estan_en_espanol(course, hub):
    login = requests.get(f"{course['url']}/hub/login", timeout=30).content.decode("utf-8")
    assert '<html lang="es">' in login and "<h1>Iniciar sesión</h1>" in login
    assert "Usuario:" in login and "Contraseña:" in login and "value='Iniciar sesión'" in login
    assert "Sign in" not in login and "Username" not in login and "Password:" not in login
    missing = requests.get(f"{course['url']}/hub/no-existe", timeout=30)
    assert missing.status_code == 404 and "Esta página no existe." in missing.content.decode("utf-8")


@on_this_machine
def test_el_instructor_califica_una_reflexion_en_el_navegador(course, hub, graded, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    submission, _ = submission_grades(hub, "curso_beto")
    with chromium(tmp_path / "chromium") as driver:
        wait = WebDriverWait(driver, 90)
        # The instructor logs in to the hub and goes to the formgrader's manual grading of the lesson.
        manual_grading = f"/services/{COURSE}/formgrader/gradebook/{LESSON}/{LESSON}"
        driver.get(f"{course['url']}/hub/login?next={manual_grading}")
        driver.find_element(By.ID, "username_input").send_keys(INSTRUCTOR)
        driver.find_element(By.ID, "password_input").send_keys(course["passwords"][INSTRUCTOR])
        driver.find_element(By.ID, "login_submit").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "tbody tr a"))
        driver.find_element(By.XPATH, "//button[contains(., 'Show All Names')]").click()
        wait.until(lambda d: d.find_elements(By.PARTIAL_LINK_TEXT, "curso_beto"))
        driver.find_element(By.PARTIAL_LINK_TEXT, "curso_beto").click()
        # Beto's notebook, with a score box for each reflection; the page saves a score when it loses focus.
        box = wait.until(lambda d: d.find_element(By.ID, "reflexion_2"))
        wait.until(lambda d: d.execute_script("return typeof formgrader !== 'undefined' && formgrader.grades.loaded"))
        assert submission in driver.current_url
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
        box.clear()
        box.send_keys("1", Keys.TAB)
        wait.until(lambda d: submission_grades(hub, "curso_beto")[1]["reflexion_2"]["manual_score"] == 1)
        driver.save_screenshot(str(tmp_path / "formgrader.png"))

    graded["instructor"]("-m", "autograder.cli", "informes", LESSON)
    table = grades_table(course)
    assert table.loc["curso_beto", "reflexion_2"] == 1
    assert table.loc["curso_beto", "total"] == table.loc["curso_beto", "puntos_automaticos"] + 1


def test_curso_calificar_lee_el_libro_del_espacio_de_trabajo(tmp_path):
    assert curso.gradebook_url(tmp_path) == f"sqlite:///{tmp_path / 'gradebook.db'}?timeout=60"
    assert curso.gradebook_course(tmp_path) == ""
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.db_url = 'postgresql://profe@/curso?host=/run/x'\n"
        "c.CourseDirectory.course_id = 'gradientes'\n"
    )
    assert curso.gradebook_url(tmp_path) == "postgresql://profe@/curso?host=/run/x"
    assert curso.gradebook_course(tmp_path) == "gradientes"
    assert curso.nbgrader_api(tmp_path).coursedir.db_url == "postgresql://profe@/curso?host=/run/x"
    curso.GRADEBOOKS[tmp_path.resolve()] = "sqlite:////otro/libro.db"
    try:
        assert curso.gradebook_url(tmp_path) == "sqlite:////otro/libro.db"
    finally:
        del curso.GRADEBOOKS[tmp_path.resolve()]
    assert (
        curso.without_password("postgresql://profe:secreto@servidor/curso") == "postgresql://profe:***@servidor/curso"
    )


def test_un_libro_que_no_se_abre_se_explica_en_espanol(tmp_path, capsys):
    missing = f"postgresql://nadie@/nada?host={tmp_path}"
    assert cli.main(["calificar", str(tmp_path), "--directorio", str(tmp_path), "--libro", missing]) == 1
    said = " ".join(capsys.readouterr().out.split())
    assert "no se pudo abrir el libro de calificaciones" in said and "Comprueba que la base de datos" in said
    (tmp_path / "nbgrader_config.py").write_text("c = get_config(\n")
    assert cli.main(["calificar", str(tmp_path), "--directorio", str(tmp_path)]) == 1
    assert "no se pudo leer la configuración" in " ".join(capsys.readouterr().out.split())


def test_la_clase_de_ejemplo_y_sus_errores(tmp_path):
    clase = despliegue_module("clase")
    example = clase.leer(DESPLIEGUE / "clase.toml")
    assert example.id == "gradientes" and example.instructor == "profesora" and example.alumnos == ("ana", "beto")
    assert example.db_url.startswith("postgresql://profesora@/gradientes")
    assert example.grupo_formgrader == "formgrade-gradientes"
    wrong = tmp_path / "clase.toml"
    for text, said in (
        ("[curso]\nid = 'Mi Curso'\n", "falta [curso] directorio"),
        ("[curso\n", "no es TOML válido"),
        (
            "[curso]\nid='c'\ndirectorio='/d'\nintercambio='/i'\n[personas]\ninstructor='Profe'\nalumnos=[]\n"
            "[hub]\nestado='/e'\n",
            "«Profe» no sirve como nombre de usuario",
        ),
        (
            "[curso]\nid='c'\ndirectorio='d'\nintercambio='/i'\n[personas]\ninstructor='p'\nalumnos=[]\n",
            "debe ser una ruta absoluta",
        ),
    ):
        wrong.write_text(text)
        with pytest.raises(clase.ClaseInvalida, match=re.escape(said)):
            clase.leer(wrong)


def test_la_configuracion_del_hub_sigue_a_la_clase(monkeypatch):
    from traitlets.config.loader import PyFileConfigLoader

    monkeypatch.setenv("CURSO_CLASE", str(DESPLIEGUE / "clase.toml"))
    config = PyFileConfigLoader("jupyterhub_config.py", path=str(DESPLIEGUE)).load_config()
    [service] = config.JupyterHub.services
    assert service["name"] == "gradientes" and service["user"] == "profesora"
    assert service["cwd"] == "/home/profesora/gradientes" and service["url"] == "http://127.0.0.1:9999"
    assert config.JupyterHub.authenticator_class == "pam"
    assert config.Authenticator.allowed_users == {"profesora", "ana", "beto"}
    assert config.JupyterHub.load_groups["formgrade-gradientes"]["users"] == ["profesora"]
    roles = {role["name"]: role["scopes"] for role in config.JupyterHub.load_roles}
    assert "access:services!service=gradientes" in roles["formgrade-gradientes"]
    assert not any(scope.startswith("access:services") for scope in roles["nbgrader-gradientes"])
    assert config.Spawner.cmd[0] == "/srv/curso/estudiantes/.venv/bin/jupyterhub-singleuser"
    assert config.Spawner.environment["JUPYTER_CONFIG_PATH"] == "/srv/jupyterhub/jupyter-alumnos"
    assert config.ConfigurableHTTPProxy.command == [str(PROXY)]
