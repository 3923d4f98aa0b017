"""JupyterHub for one course of «Gradientes en PyTorch», as described by clase.toml ($CURSO_CLASE).

    CURSO_CLASE=/etc/curso/clase.toml .venv/bin/jupyterhub -f despliegue/jupyterhub_config.py

Modelled on nbgrader's own demos (demos/demo_one_class_multiple_graders): every account has its own
single-user server (LocalProcessSpawner, as its Unix user), the formgrader is a hub service that runs
as the instructor in the instructor's nbgrader workspace, and nbgrader's exchange moves files between
them. Run ``despliegue/preparar.py`` (as root) first.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paginas_hub
from clase import PROXY, leer
from limites import LimitedSpawner

clase = leer()
c = get_config()  # noqa: F821 (traitlets)

# The hub's login, home, error and waiting pages in Spanish (written from the installed templates).
c.JupyterHub.template_paths = [str(paginas_hub.escribir(clase.estado / "paginas"))]

# The hub and its proxy (configurable-http-proxy from npm, installed by «make proxy»).
c.JupyterHub.bind_url = clase.url
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{clase.puerto_hub}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{clase.puerto_api_proxy}"
c.ConfigurableHTTPProxy.command = [str(PROXY)]
c.ConfigurableHTTPProxy.pid_file = str(clase.estado / "proxy.pid")
c.JupyterHub.pid_file = str(clase.estado / "jupyterhub.pid")
c.JupyterHub.db_url = f"sqlite:///{clase.estado / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(clase.estado / "jupyterhub_cookie_secret")

# Who may log in: the course's accounts. «pam» checks their Unix passwords; a university plugs its own
# authenticator (LTI, OAuth, LDAP) here and configures it in configuracion_extra (see README.md).
c.JupyterHub.authenticator_class = clase.autenticador
c.Authenticator.allowed_users = set(clase.personas)
c.PAMAuthenticator.open_sessions = False

# Students' (and the instructor's own) servers: one process per account, as that Unix user, with the
# student edition's environment, the Spanish interface it sets up, and the course's Jupyter
# configuration first in line: course id and exchange for nbgrader, the «Assignments» list on, the
# formgrader, «Create Assignment» and the course list off.
alumnos = clase.entorno_alumnos / "bin"
# answer_yes: a server stops at once when the hub stops it (SIGINT), instead of asking on a terminal it has not.
STOP_AT_ONCE = "--ServerApp.answer_yes=True"
c.Spawner.cmd = [str(alumnos / "jupyterhub-singleuser"), STOP_AT_ONCE]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": str(clase.config_alumnos),
    "PATH": f"{alumnos}:/usr/local/bin:/usr/bin:/bin",
}
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# Each server and all it starts (kernels, terminals) in a cgroup of its own, within clase.toml's [limites].
c.JupyterHub.spawner_class = LimitedSpawner
c.LimitedSpawner.memory = clase.memoria
c.LimitedSpawner.cpu = clase.cpu
c.LimitedSpawner.processes = clase.procesos
c.LimitedSpawner.group = f"jupyterhub-{clase.id}"

# The formgrader: a single-user server run as the instructor in the nbgrader workspace, reached at
# /services/<id>/formgrader by the members of the group formgrade-<id> (nbgrader's convention).
instructor = clase.entorno / "bin"
c.JupyterHub.services = [
    {
        "name": clase.id,
        "url": f"http://127.0.0.1:{clase.puerto_formgrader}",
        "command": [str(instructor / "jupyterhub-singleuser"), STOP_AT_ONCE],
        "user": clase.instructor,
        "cwd": str(clase.directorio),
        "environment": {
            "JUPYTERHUB_DEFAULT_URL": "/formgrader",
            "PATH": f"{instructor}:/usr/local/bin:/usr/bin:/bin",  # nbgrader runs «alembic» from here
        },
        "oauth_no_confirm": True,
    }
]
c.JupyterHub.load_groups = {
    clase.grupo_formgrader: {"users": [clase.instructor, *clase.ayudantes]},
    clase.grupo_curso: {"users": list(clase.personas)},
}
c.JupyterHub.load_roles = [
    {
        "name": clase.grupo_formgrader,
        "groups": [clase.grupo_formgrader],
        "scopes": [f"access:services!service={clase.id}", "list:services", f"read:services!service={clase.id}"],
    },
    {
        "name": clase.grupo_curso,
        "groups": [clase.grupo_curso],
        "scopes": ["list:services", f"read:services!service={clase.id}"],
    },
]

if clase.configuracion_extra:
    load_subconfig(clase.configuracion_extra)  # noqa: F821 (traitlets)
