"""A class on JupyterHub (despliegue/), for real: hub and proxy, PostgreSQL, Unix accounts, nbgrader's exchange.

The class server's guide, despliegue/README.md, is followed as written (tests/guia.py): installed from a
clone of this repository with Debian's Python, prepared with ``preparar.py``, the hub started by hand,
one lesson from ``curso repartir`` to the feedback each student reads, and the gradebook's backup. Only
this machine's values replace the guide's examples, and the test does what the guide leaves to people
(passwords, editing ``clase.toml``, the students' clicks, through the hub with their own tokens).
Everything runs on this machine, on loopback (random ports) and a PostgreSQL socket in a temporary
folder, and is stopped and removed afterwards: the accounts ``curso-prof``, ``curso-ana`` and
``curso-beto``, their processes, the database cluster.
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
import tempfile
import time
from pathlib import Path

import guia
import nbformat
import pandas as pd
import psutil
import pytest
import requests
from helpers import chromium
from nbgrader.utils import is_solution

from autograder import cli
from autograder import course as curso
from autograder.course import ROOT, find_lesson
from autograder.course.demo import answered, hardcoded

DESPLIEGUE = ROOT / "despliegue"
PROXY = DESPLIEGUE / "node_modules" / ".bin" / "configurable-http-proxy"
INITDB = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
COURSE = "gradientes"
LESSON = "01_tensores_y_requires_grad"
INSTRUCTOR, ANA, BETO = "curso-prof", "curso-ana", "curso-beto"
# A whole class at once (test_una_clase_entera_a_la_vez): rounds of these many students, each round its own
# accounts. 3 here; scripts/carga_de_clase.py asks for more rounds and bigger ones.
LOAD_ROUNDS = [int(n) for n in os.environ.get("CURSO_CARGA", "3").split(",")]
LOAD_STUDENTS = tuple(f"curso-c{number:02d}" for number in range(1, sum(LOAD_ROUNDS) + 1))
ACCOUNTS = (INSTRUCTOR, ANA, BETO, *LOAD_STUDENTS)
DEBIAN_PYTHON = "/usr/bin/python3"  # the guide installs both environments with it
LOCK = Path(tempfile.gettempdir()) / "curso-despliegue-pruebas.lock"

missing = [
    reason
    for absent, reason in (
        (
            os.geteuid() != 0,
            "hace falta ser root: la prueba crea cuentas Unix y el hub arranca un servidor por cuenta",
        ),
        (not INITDB, "falta PostgreSQL (initdb): instálalo con «scripts/instalar-sistema.sh servidor»"),
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


class Hub:
    """A running JupyterHub, reached as its users are: log in, get a token, use the REST APIs."""

    def __init__(self, url, passwords, log):
        self.url, self.passwords, self.tokens, self.log = url, passwords, {}, log

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
        """Press a button of the student's «Lista de lecciones» (nbgrader's server extension)."""
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
    """One run at a time on this machine (the accounts have fixed names); no account left from a killed run."""
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        remove_accounts()
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


def edit_the_class(guide, match):
    """«nano clase.toml»: the instructor writes this machine's values (folders, accounts, ports) into the copy."""
    path = Path(match[1])
    text = guide.localize(path.read_text(encoding="utf-8"))
    ports = guide.record["ports"]
    text = text.replace('url = "http://0.0.0.0:8000"', f'url = "http://127.0.0.1:{ports["proxy"]}"')
    for key, port in (("puerto_hub", "hub"), ("puerto_api_proxy", "api"), ("puerto_formgrader", "formgrader")):
        text = re.sub(rf"^{key} = \d+", f"{key} = {ports[port]}", text, flags=re.M)
    text = text.replace(f'alumnos = ["{ANA}", "{BETO}"]', f"alumnos = {json.dumps([ANA, BETO, *LOAD_STUDENTS])}")
    path.write_text(text, encoding="utf-8")
    return text


def type_a_password(guide, match):
    """«passwd cuenta»: the password a person would type twice (PAM checks it when they log in to the hub)."""
    password = guide.record["passwords"][match[1]] = secrets.token_urlsafe(12)
    run(["chpasswd"], input=f"{match[1]}:{password}\n")
    return "contraseña puesta"


def without_systemd(guide, match):
    """The systemd way needs a machine booted with systemd; the guide's other way, «a mano», comes next."""
    return "omitido: esta máquina no arranca con systemd"


def start_the_hub(guide, match):
    """The hub's manual start, left running (as a person leaves it in a terminal) until the tests end."""
    log = guide.record["root"] / "jupyterhub.log"
    with open(log, "w") as output:
        guide.record["process"] = subprocess.Popen(
            ["bash", "-c", match.string], cwd=guide.cwd, stdout=output, stderr=subprocess.STDOUT
        )
    hub = guide.record["hub"] = Hub(guide.record["url"], guide.record["passwords"], log)
    deadline = time.monotonic() + 150
    while True:  # the hub and its proxy (the formgrader service may still be starting)
        assert guide.record["process"].poll() is None, log.read_text()[-5000:]
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{hub.url}/hub/api/", timeout=10).status_code == 200:
                return "en marcha"
        assert time.monotonic() < deadline, log.read_text()[-5000:]
        time.sleep(0.5)


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


def status(hub, user):
    """The lesson's status in the student's «Lista de lecciones» (released, fetched, submitted)."""
    listed = hub.request("GET", user, f"/user/{user}/assignments", params={"course_id": COURSE}).json()["value"]
    return [item["status"] for item in listed if item["assignment_id"] == LESSON]


def in_the_list_of_lessons(hub, user, profile):
    """The guide's clicks, in Chromium: log in, menú Nbgrader → Lista de lecciones → Descargar; then, once
    ``answer`` has written the answers in the notebook, Entregar. Yields between the two."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def click(xpath):
        wait.until(lambda d: d.find_element(By.XPATH, xpath).is_displayed())
        driver.find_element(By.XPATH, xpath).click()

    with chromium(profile) as driver:
        wait = WebDriverWait(driver, 90)
        driver.get(f"{hub.url}/hub/login?next=/user/{user}/lab")
        driver.find_element(By.ID, "username_input").send_keys(user)
        driver.find_element(By.ID, "password_input").send_keys(hub.passwords[user])
        driver.find_element(By.ID, "login_submit").click()
        click("//div[contains(@class, 'lm-MenuBar-itemLabel')][normalize-space()='Nbgrader']")
        click("//li[contains(@class, 'lm-Menu-item')][.//div[normalize-space()='Lista de lecciones']]")
        click(f"//div[@id='released_assignments_list']//div[contains(., '{LESSON}')]//button[.='Descargar']")
        wait.until(lambda d: status(hub, user) == ["fetched"], f"no se descargó: {status(hub, user)}")
        yield
        click("//button[@title='Actualizar la lista de lecciones']")
        click(f"//div[@id='fetched_assignments_list']//div[contains(., '{LESSON}')]//button[.='Entregar']")
        wait.until(lambda d: "submitted" in status(hub, user), f"no se entregó: {status(hub, user)}")


def students_answer(guide, match):
    """Each student, in their server's «Lista de lecciones»: fetch, answer (Ana right, Beto with the printed
    values written by hand) and submit. Ana clicks in Chromium as the guide says; Beto's server gets the
    same requests from the hub's API."""
    hub = guide.record["hub"]
    hub.start_servers([ANA, BETO])
    hub.wait_for_servers([ANA, BETO])
    assert status(hub, ANA) == status(hub, BETO) == ["released"]
    clicks = in_the_list_of_lessons(hub, ANA, guide.record["root"] / "chromium")
    next(clicks)
    answer(hub, ANA, answered)
    next(clicks, None)
    hub.student(BETO, "fetch")
    answer(hub, BETO, hardcoded)
    hub.student(BETO, "submit")
    return "entregada por los dos"


def grade_a_reflection(guide, match):
    """In the formgrader's «Manual Grading», the instructor gives Ana's first reflection its point."""
    hub = guide.record["hub"]
    hub.wait_for_formgrader()
    _, grades = submission_grades(hub, "curso_ana")
    reflection = grades["reflexion_1"]
    saved = hub.formgrader("PUT", f"/api/grade/{reflection['id']}", json={**reflection, "manual_score": 1})
    assert saved.status_code == 200, saved.text
    guide.record["reflection"] = reflection["id"]
    return "reflexión calificada"


def students_read_their_feedback(guide, match):
    """Each student, in «Lista de lecciones»: fetch the feedback and open it."""
    hub, pages = guide.record["hub"], guide.record["feedback"]
    for user in (ANA, BETO):
        hub.student(user, "fetch_feedback")
        folder = hub.request("GET", user, f"/user/{user}/api/contents/{LESSON}/feedback").json()["content"]
        [submitted] = folder  # one submission, one feedback folder named by its time
        files = hub.request("GET", user, f"/user/{user}/api/contents/{submitted['path']}").json()["content"]
        assert [item["name"] for item in files] == [f"{LESSON}.html"]
        pages[user] = hub.request("GET", user, f"/user/{user}/api/contents/{files[0]['path']}").json()["content"]
    return "retroalimentación leída"


PEOPLE = [  # what the guide leaves to a person, and who does it here
    (r"^nano (\S+)", edit_the_class),
    (r"^passwd (\S+)$", type_a_password),
    (r"systemctl |/etc/systemd/", without_systemd),
    (r"/bin/jupyterhub -f ", start_the_hub),
    (r"^#.*cada alumno:.*responde", students_answer),
    (r"^#.*Manual Grading", grade_a_reflection),
    (r"^#.*cada alumno:.*(Feedback|retroalimentación)", students_read_their_feedback),
]


@pytest.fixture(scope="module")
def guide(postgres):
    """despliegue/README.md followed as written on this machine: install from a clone of this repository
    (its committed state) with Debian's Python, prepare the class, start the hub by hand, go through a
    lesson from publishing to feedback, and back up the gradebook. Yields what the guide left running."""
    root = Path(tempfile.mkdtemp(prefix="curso-guia-"))
    root.chmod(0o755)  # every account goes through it, as through / on a real machine
    (root / "var" / "backups").mkdir(parents=True)
    values = [
        ("<repositorio-del-curso>", str(ROOT)),
        ("-h /var/run/postgresql", f"-h {postgres['host']} -p {postgres['port']}"),
        ("host=/var/run/postgresql", f"host={postgres['host']}&port={postgres['port']}"),
        ("/srv/", f"{root}/srv/"),
        ("/etc/curso", f"{root}/etc/curso"),
        ("/var/backups", f"{root}/var/backups"),
        ("profesora", INSTRUCTOR),
        ("ana", ANA),
        ("beto", BETO),
    ]
    steps = guia.Guide(values, PEOPLE)
    ports = {name: free_port() for name in ("hub", "proxy", "api", "formgrader")}
    steps.record.update(
        {
            "root": root,
            "ports": ports,
            "url": f"http://127.0.0.1:{ports['proxy']}",
            "passwords": {},
            "feedback": {},
            "repository": root / "srv" / "curso" / "gradientes-pytorch",
            "edition": root / "srv" / "curso" / "estudiantes",
            "exchange": root / "srv" / "nbgrader" / "exchange",
            "workspace": Path("/home") / INSTRUCTOR / COURSE,
        }
    )
    try:
        for block in guia.blocks((DESPLIEGUE / "README.md").read_text(encoding="utf-8")):
            steps.follow(block)
        yield steps
    finally:
        stop_the_hub(steps.record)
        shutil.rmtree(root, ignore_errors=True)


def stop_the_hub(record):
    """Ctrl-C in the hub's terminal: the hub stops the servers, the formgrader and the proxy."""
    process = record.get("process")
    if process is None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
    for survivor in psutil.process_iter(["cmdline"]):  # the proxy or the hub, if they could not stop
        with contextlib.suppress(psutil.Error):
            if str(record["root"]) in " ".join(survivor.info["cmdline"] or []):
                survivor.kill()
    kill_processes_of(ACCOUNTS)


def instructor(guide, line):
    """A command the instructor types later in their terminal (``su -``, «curso» on the PATH, in the workspace)."""
    return guide.shell_as(
        INSTRUCTOR, guide.record["workspace"], [f"export PATH={guide.record['repository']}/.venv/bin:$PATH"], line
    )


def grades_table(guide):
    return pd.read_csv(guide.record["workspace"] / "informes" / f"calificaciones_{LESSON}.csv").set_index("alumno")


def submission_grades(hub, student):
    """``{cell: grade}`` of a student's submission, from the formgrader's API."""
    submissions = hub.formgrader("GET", f"/api/submitted_notebooks/{LESSON}/{LESSON}").json()
    submission = next(s for s in submissions if s["student"] == student)
    grades = hub.formgrader("GET", "/api/grades", params={"submission_id": submission["id"]}).json()
    return submission["id"], {grade["name"]: grade for grade in grades}


def as_student(user, *command):
    """A command run as a student's Unix user: what they could do from a terminal of their server."""
    full = ["runuser", "-u", user, "--", "env", "-i", "HOME=/tmp", "LANG=C.UTF-8", *command]
    return subprocess.run(full, capture_output=True, text=True, timeout=120, cwd="/")


@on_this_machine
def test_la_guia_del_servidor_seguida_al_pie_de_la_letra(guide, postgres):
    record, hub = guide.record, guide.record["hub"]
    workspace = record["workspace"]

    # Installed with Debian's Python, as the guide says; the instructor's repository closed to the others.
    assert "Listo." in guide.output(r"preparar\.py") and "AVISO" not in guide.output(r"preparar\.py")
    version = ["-c", "import sys; print(sys.version)"]
    for environment in (record["repository"], record["edition"]):
        assert run([environment / ".venv" / "bin" / "python", *version]).stdout == run([DEBIAN_PYTHON, *version]).stdout
    assert as_student(ANA, "ls", str(record["repository"])).returncode != 0

    # The students' servers: Spanish interface, the «Lista de lecciones», none of the instructor's tools.
    settings = hub.request("GET", ANA, f"/user/{ANA}/lab/api/settings/@jupyterlab/translation-extension:plugin")
    assert settings.json()["schema"]["properties"]["locale"]["default"] == "es"
    page = hub.request("GET", ANA, f"/user/{ANA}/lab").text
    config = json.loads(re.search(r'id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)[1])
    disabled = set(config["disabledExtensions"])
    assert {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"} <= disabled
    assert not {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu"} & disabled
    assert hub.request("GET", ANA, f"/user/{ANA}/formgrader").status_code == 404
    assert hub.request("GET", ANA, f"/services/{COURSE}/formgrader/api/assignments").status_code == 403

    # Ana's server runs from the student edition's environment, where %%comprobar works and nothing of the
    # instructor's exists (no solutions, no grader).
    servers = [p for p in psutil.process_iter(["username", "cmdline"]) if p.info["username"] == ANA]
    commands = [" ".join(p.info["cmdline"] or []) for p in servers]
    assert any(str(record["edition"] / ".venv" / "bin" / "jupyterhub-singleuser") in c for c in commands), commands
    probe = (
        "import importlib.util, IPython\n"
        "shell = IPython.core.interactiveshell.InteractiveShell.instance()\n"
        "shell.run_cell('import gradientes.selfcheck')\n"
        "result = shell.run_cell('%%comprobar\\nfrom gradientes.checks import passed\\npassed(\"hola\")')\n"
        "print(result.success, [importlib.util.find_spec(m) is None for m in ('autograder', 'nbgrader')])\n"
    )
    checked = as_student(ANA, str(record["edition"] / ".venv" / "bin" / "python"), "-c", probe)
    assert "✔ hola" in checked.stdout and "True [True, False]" in checked.stdout, checked.stdout + checked.stderr
    assert not (record["edition"] / "solutions").exists()

    # Collected under the ids «curso calificar» gives them, graded, in PostgreSQL and in the CSV.
    assert "curso_ana, curso_beto" in guide.output(r"curso recoger")
    assert f"Libro de calificaciones: postgresql://{INSTRUCTOR}@/{COURSE}" in guide.output(r"curso calificar")
    assert not (workspace / "gradebook.db").exists()
    table = grades_table(guide)
    assert table.loc["curso_ana", "puntos_automaticos"] == table.loc["curso_ana", "maximo_automatico"] > 0
    assert table.loc["curso_beto", "puntos_automaticos"] == 0  # values written by hand fail the hidden tests
    stored = sql(postgres, "SELECT student_id FROM submitted_assignment ORDER BY student_id")
    assert stored == ["curso_ana", "curso_beto"]

    # The reflection graded by hand in the formgrader, then the feedback returned and read by each student.
    assert sql(postgres, f"SELECT manual_score FROM grade WHERE id = '{record['reflection']}'") == ["1"]
    assert "devuelta a 2 alumnos" in guide.output(r"curso devolver")
    assert table.loc["curso_ana", "reflexion_1"] == 1
    ana_total, maximum = table.loc["curso_ana", "total"], table.loc["curso_ana", "maximo"]
    assert ana_total == table.loc["curso_ana", "puntos_automaticos"] + 1
    pages = record["feedback"]
    assert re.search(rf"\b{ana_total:g}(\.0)? / {maximum:g}\b", pages[ANA]), "Ana's feedback shows her total"
    beto_total = table.loc["curso_beto", "total"]
    assert re.search(rf"\b{beto_total:g}(\.0)? / {maximum:g}\b", pages[BETO]), "Beto's feedback shows his total"
    assert 'lang="es"' in pages[ANA] and "Puntuación" in pages[ANA]

    # Nobody reads what is not theirs: not through the hub, not as a Unix user, not in the database.
    assert hub.request("GET", ANA, f"/user/{ANA}/api/contents", as_user=BETO).status_code == 403
    inbound, feedback = record["exchange"] / COURSE / "inbound", record["exchange"] / COURSE / "feedback"
    for path in (inbound, feedback, workspace, f"/home/{ANA}"):
        listed = as_student(BETO, "/usr/bin/python3", "-c", f"import os; os.listdir({str(path)!r})")
        assert "PermissionError" in listed.stderr, (path, listed.stdout, listed.stderr)
    refused = as_student(BETO, "psql", "-h", str(postgres["host"]), "-p", str(postgres["port"]), "-d", COURSE)
    assert refused.returncode != 0 and "curso-beto" in refused.stderr  # no role for a student in the gradebook

    # The guide's backup of the gradebook: a dump that pg_restore reads, with the grades in it.
    [dump] = (record["root"] / "var" / "backups").glob(f"{COURSE}-*.dump")
    assert "TABLE DATA public grade " in run(["pg_restore", "--list", dump]).stdout

    # The next lesson, published the guide's other way: «Release» in the formgrader.
    following = "02_grafo_computacional"
    hub.wait_for_formgrader()
    released = hub.formgrader("POST", f"/api/assignment/{following}/release")
    assert released.status_code == 200 and released.json()["success"], released.text
    listed = hub.request("GET", BETO, f"/user/{BETO}/assignments", params={"course_id": COURSE}).json()["value"]
    assert {a["assignment_id"]: a["status"] for a in listed}[following] == "released"


def test_la_guia_se_sigue_paso_a_paso():
    """The runner of the guide: blocks in order, values in place of the examples, unknown steps refused."""
    text = "x\n```bash\ncd /srv/a   # b\necho ana \\\n  anabel\n```\n   ```bash\n   # paso de una persona\n   ```\n"
    assert guia.blocks(text) == [["cd /srv/a   # b", "echo ana anabel"], ["# paso de una persona"]]
    steps = guia.Guide([("/srv/", "/tmp/"), ("ana", "curso-ana")], [])
    assert steps.localize("echo ana anabel /srv/ana curso-ana") == "echo curso-ana anabel /tmp/curso-ana curso-ana"
    steps.follow(["cd /srv/", "echo hola ana"])
    assert steps.done == [("root", "echo hola curso-ana", "hola curso-ana\n")] and steps.cwd == Path("/tmp")
    with pytest.raises(guia.StepFailed, match="no sabe hacer: # paso de una persona"):
        steps.follow(["# paso de una persona"])
    with pytest.raises(guia.StepFailed, match="falló «false»"):
        steps.follow(["false"])


@on_this_machine
def test_las_paginas_del_hub_estan_en_espanol(guide):
    url = guide.record["url"]
    login = requests.get(f"{url}/hub/login", timeout=30).content.decode("utf-8")
    assert '<html lang="es">' in login and "<h1>Iniciar sesión</h1>" in login
    assert "Usuario:" in login and "Contraseña:" in login and "value='Iniciar sesión'" in login
    assert "Sign in" not in login and "Username" not in login and "Password:" not in login
    missing = requests.get(f"{url}/hub/no-existe", timeout=30)
    assert missing.status_code == 404 and "Esta página no existe." in missing.content.decode("utf-8")


@on_this_machine
def test_el_instructor_califica_una_reflexion_en_el_navegador(guide, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    hub = guide.record["hub"]
    submission, _ = submission_grades(hub, "curso_beto")
    with chromium(tmp_path / "chromium") as driver:
        wait = WebDriverWait(driver, 90)
        # The instructor logs in to the hub and goes to the formgrader's manual grading of the lesson.
        manual_grading = f"/services/{COURSE}/formgrader/gradebook/{LESSON}/{LESSON}"
        driver.get(f"{hub.url}/hub/login?next={manual_grading}")
        driver.find_element(By.ID, "username_input").send_keys(INSTRUCTOR)
        driver.find_element(By.ID, "password_input").send_keys(hub.passwords[INSTRUCTOR])
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

    instructor(guide, f"curso informes {LESSON}")
    table = grades_table(guide)
    assert table.loc["curso_beto", "reflexion_2"] == 1
    assert table.loc["curso_beto", "total"] == table.loc["curso_beto", "puntos_automaticos"] + 1


PLANT = """
import json, os, sys
folder = os.path.join(sys.argv[1], sys.argv[2])
os.mkdir(folder)
os.chmod(folder, 0o777)  # as nbgrader's own submit leaves it
for name, text in json.loads(sys.stdin.read()).items():
    with open(os.path.join(folder, name), "w") as file:
        file.write(text)
"""


@on_this_machine
def test_nadie_entrega_a_nombre_de_otro(guide):
    """Beto, with his own account, puts in the inbound folder a submission named for Ana, later than hers
    (with answers that earn no point). The instructor collects, grades and returns again: the forgery is
    refused and reported in Spanish, Ana keeps her submission, her grade and her feedback."""
    record, hub = guide.record, guide.record["hub"]
    workspace, inbound = record["workspace"], record["exchange"] / COURSE / "inbound"
    collected = workspace / "recogidas" / "curso_ana" / LESSON
    before = {name: (collected / name).read_bytes() for name in ("timestamp.txt", f"{LESSON}.ipynb")}
    ana_total = grades_table(guide).loc["curso_ana", "total"]
    [genuine] = inbound.glob(f"{ANA}+{LESSON}+*")

    # Nobody but Ana renames or deletes her entry, even knowing its name (the inbound folder is sticky).
    assert inbound.stat().st_mode & 0o1000
    moved = as_student(
        BETO, "/usr/bin/python3", "-c", f"import os; os.rename({str(genuine)!r}, {str(genuine)!r} + 'x')"
    )
    assert "PermissionError" in moved.stderr, moved.stderr

    later = "2999-01-01 00:00:00.000000 UTC"
    files = {
        f"{LESSON}.ipynb": nbformat.writes(hardcoded(find_lesson(LESSON))),
        "timestamp.txt": later,
        "submission_secret.txt": "0" * 128,
    }
    forged = f"{ANA}+{LESSON}+{later}+falsa"
    planted = subprocess.run(
        ["runuser", "-u", BETO, "--", "/usr/bin/python3", "-c", PLANT, str(inbound), forged],
        input=json.dumps(files),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert planted.returncode == 0, planted.stderr
    assert pwd.getpwuid((inbound / forged).stat().st_uid).pw_name == BETO
    try:
        said = " ".join(instructor(guide, f"curso recoger {LESSON}").split())
        assert f"Entrega rechazada, no se recoge: «{forged}» dice ser de {ANA}, pero es de la cuenta «{BETO}»" in said
        assert "informes/entregas_rechazadas.csv" in said and "curso_ana, curso_beto" in said
        refused = pd.read_csv(workspace / "informes" / "entregas_rechazadas.csv")
        assert refused[["entrada", "a_nombre_de", "cuenta"]].values.tolist() == [[forged, ANA, BETO]]
        assert {name: (collected / name).read_bytes() for name in before} == before

        instructor(guide, f"curso calificar recogidas --directorio . --leccion {LESSON}")
        returned = " ".join(instructor(guide, f"curso devolver {LESSON}").split())
        assert "devuelta a 2 alumnos" in returned
        assert grades_table(guide).loc["curso_ana", "total"] == ana_total
        hub.student(ANA, "fetch_feedback")
        folder = hub.request("GET", ANA, f"/user/{ANA}/api/contents/{LESSON}/feedback").json()["content"]
        assert [item["name"] for item in folder] == [before["timestamp.txt"].decode().strip()]
    finally:
        shutil.rmtree(inbound / forged)


def script_module(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def students_cgroups():
    """The folder of the students' cgroups (memory's, on cgroup v1) that the hub's spawner makes."""
    places = despliegue_module("limites").own_cgroups()
    return places.get("memory", places.get("")) / f"jupyterhub-{COURSE}"


# Beto's attempts to take the class down, each bounded in size and time so that they stop by themselves even
# where no limit stops them: memory up to a quarter beyond his limit, 2000 processes that spin for 5 minutes.
HOG = """
held, block = [], 64 * 2**20
for _ in range({limit} * 5 // 4 // block):
    chunk = bytearray(block)
    chunk[::4096] = b"x" * len(chunk[::4096])
    held.append(chunk)
print("sin límite de memoria")
"""
FORKS = """
import os, time
ready, go = os.pipe()
made = refused = 0
for _ in range(2000):
    try:
        if os.fork() == 0:
            os.close(1), os.close(2), os.close(go)
            os.read(ready, 1)  # every process is made before any spins (the CPU limit would slow the making)
            deadline = time.time() + 300
            while time.time() < deadline:
                pass
            os._exit(0)
        made += 1
    except OSError:
        refused += 1
os.close(go)
print(made, refused)
"""
BOMB = (
    "import subprocess, sys\n"
    f"print(subprocess.run([sys.executable, '-c', {FORKS!r}], capture_output=True, text=True).stdout)"
)


@on_this_machine
def test_un_alumno_no_puede_detener_la_clase(guide):
    """Beto fills his memory and then forks without end, each in a kernel of his server; Ana's lab still answers
    and her check of exercise 1 still passes. Stopping Beto's server ends everything it started."""
    carga = script_module("carga_de_clase")
    clase = despliegue_module("clase").leer(guide.record["root"] / "etc" / "curso" / "clase.toml")
    hub, url, passwords = guide.record["hub"], guide.record["url"], guide.record["passwords"]
    assert clase.memoria and clase.cpu and clase.procesos  # the guide's clase.toml sets them
    ana, beto = carga.Alumno(url, ANA, passwords[ANA]), carga.Alumno(url, BETO, passwords[BETO])
    for student in (ana, beto):
        student.token = hub.token(student.user)
    hub.wait_for_servers([ANA, BETO])  # started by the guide's students
    peak = students_cgroups() / BETO / "memory.max_usage_in_bytes"

    said, error = beto.kernel().ejecutar(HOG.format(limit=clase.memoria), timeout=120)
    assert "sin límite" not in said and error and "kernel se detuvo" in error, (said, error)
    assert 0 < int(peak.read_text()) <= clase.memoria

    def betos_processes():
        return sum(p.info["username"] == BETO for p in psutil.process_iter(["username"]))

    try:
        made, refused = map(int, beto.kernel().ejecutar(BOMB, timeout=120)[0].split())
        assert made < clase.procesos and refused > 0, (made, refused)  # the rest of the 2000 were refused
        assert betos_processes() > 100  # spinning on his core
        started = time.monotonic()
        assert ana.request("GET", f"/user/{ANA}/api/status", timeout=30).status_code == 200
        cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in ana.cuaderno(LESSON).cells}
        cells["ej1_solucion"] = answered_source("ej1_solucion")
        kernel = ana.kernel(LESSON)
        try:
            for grade_id in ("importaciones", "ej1_solucion", "ej1_pruebas"):
                said, error = kernel.ejecutar(cells[grade_id], timeout=120)
                assert error is None, (grade_id, error)
        finally:
            kernel.cerrar()
        assert "✔" in said and time.monotonic() - started < 120, said
        assert betos_processes() > 100  # still there while Ana worked
    finally:
        hub.request("DELETE", BETO, f"/hub/api/users/{BETO}/server")
    deadline = time.monotonic() + 40  # well before the processes would end by themselves
    while any(p.info["username"] == BETO for p in psutil.process_iter(["username"])):
        assert time.monotonic() < deadline, "quedan procesos de Beto tras parar su servidor"
        time.sleep(0.5)


def answered_source(grade_id):
    cells = answered(find_lesson(LESSON)).cells
    return next(c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


@on_this_machine
def test_una_clase_entera_a_la_vez(guide):
    """LOAD_ROUNDS rounds: in each, its own students at once log in, run lesson 01 with every check ✔ and
    submit, while the instructor collects, grades and returns (scripts/carga_de_clase.py). The first round must
    hold; the next ones (from the script) measure how far the machine goes, up to the first that fails."""
    carga = script_module("carga_de_clase")
    record = guide.record
    answers = {c.metadata.nbgrader.grade_id: c.source for c in answered(find_lesson(LESSON)).cells if is_solution(c)}
    passwords = {user: secrets.token_urlsafe(12) for user in LOAD_STUDENTS}
    run(["chpasswd"], input="".join(f"{user}:{password}\n" for user, password in passwords.items()))
    rounds, accounts = [], iter(LOAD_STUDENTS)
    for size in LOAD_ROUNDS:
        students = {user: passwords[user] for user in [next(accounts) for _ in range(size)]}
        result = carga.ronda(
            record["url"],
            students,
            COURSE,
            LESSON,
            answers,
            lambda line: instructor(guide, line),
            record["workspace"],
            students_cgroups(),
        )
        rounds.append(result)
        if os.environ.get("CURSO_CARGA_INFORME"):
            Path(os.environ["CURSO_CARGA_INFORME"]).write_text(json.dumps(rounds, indent=2), encoding="utf-8")
        if not result["ok"]:
            break
    print(carga.resumen(rounds))
    assert rounds[0]["ok"], carga.resumen(rounds)
    assert all(r["segundos"] < carga.DURACION for r in rounds if r["ok"])


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
    assert clase.tamano("x", "1536M") == 1536 * 2**20 and clase.tamano("x", "0") == 0
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
        (
            "[curso]\nid='c'\ndirectorio='/d'\nintercambio='/i'\n[personas]\ninstructor='p'\nalumnos=[]\n"
            "[hub]\nestado='/e'\n[limites]\nmemoria='mucha'\n",
            "[limites] memoria es un tamaño como «3G»",
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
    assert config.JupyterHub.spawner_class.__name__ == "LimitedSpawner"
    assert (config.LimitedSpawner.memory, config.LimitedSpawner.cpu, config.LimitedSpawner.processes) == (
        3 * 2**30,
        1,
        512,
    )
