"""The hub's own pages in Spanish: JupyterHub's templates, with their English texts translated.

JupyterHub has no translations, but it lets a deployment put its own templates first
(``c.JupyterHub.template_paths``). Rather than keep copies that would go stale with every JupyterHub
release, ``jupyterhub_config.py`` writes these at start-up from the installed templates, replacing each
English text below. A text that is no longer there is an error (``PaginaCambiada``): a new JupyterHub
that changed its pages must not silently show English again.
"""

from pathlib import Path

from jupyterhub._data import DATA_FILES_PATH

ORIGINALES = Path(DATA_FILES_PATH) / "templates"
TRADUCCIONES = {
    "page.html": {
        '<html lang="en">': '<html lang="es">',
        ">Home</a>": ">Inicio</a>",
        ">Token</a>": ">Token de acceso</a>",
        ">Admin</a>": ">Administración</a>",
        ">Services</a>": ">Servicios</a>",
        "></i>Logout</a>": "></i>Cerrar sesión</a>",
        ">Login</a>": ">Iniciar sesión</a>",
        "JupyterHub requires JavaScript.": "JupyterHub necesita JavaScript.",
    },
    "login.html": {
        "Warning: JupyterHub seems to be served over an unsecured HTTP connection.": (
            "Aviso: JupyterHub parece servirse por una conexión HTTP sin cifrar."
        ),
        "We strongly recommend enabling HTTPS for JupyterHub.": "Te recomendamos activar HTTPS.",
        ">Sign in with {{ login_service }}</a>": ">Iniciar sesión con {{ login_service }}</a>",
        "<h1>Sign in</h1>": "<h1>Iniciar sesión</h1>",
        '<label for="username_input">Username:</label>': '<label for="username_input">Usuario:</label>',
        '<label for="password_input">Password:</label>': '<label for="password_input">Contraseña:</label>',
        "value='Sign in'": "value='Iniciar sesión'",
        "By logging into the platform you accept the": "Al iniciar sesión aceptas los",
        ">terms and conditions</a>": ">términos y condiciones</a>",
    },
    "home.html": {
        "JupyterHub home page": "Página de inicio de JupyterHub",
        ">Stop My Server</a>": ">Detener mi servidor</a>",
        "{% if not default_server.active %}Start{% endif %}\n          My Server": (
            "{% if not default_server.active %}Iniciar mi servidor{% else %}Mi servidor{% endif %}"
        ),
    },
    "404.html": {
        "Jupyter has lots of moons, but this is not one...": "Esta página no existe.",
    },
    "not_running.html": {
        "Spawn failed": "No se pudo iniciar el servidor",
        "Server not running": "El servidor no está en marcha",
        "The latest attempt to start your server {{ server_name }} has failed.": (
            "El último intento de iniciar tu servidor {{ server_name }} falló."
        ),
        "Would you like to retry starting it?": "¿Quieres volver a intentarlo?",
        "Your server {{ server_name }} is not running.": "Tu servidor {{ server_name }} no está en marcha.",
        "It will be restarted automatically.": "Se iniciará de nuevo automáticamente.",
        "If you are not redirected in a few seconds,": "Si en unos segundos no pasa nada,",
        "click below to launch your server.": "pulsa el botón para iniciarlo.",
        "Would you like to start it?": "¿Quieres iniciarlo?",
        "Relaunch": "Reiniciar",
        "Launch\n": "Iniciar\n",
        "Server {{ server_name }}": "el servidor {{ server_name }}",
    },
    "spawn_pending.html": {
        "<p>Your server is starting up.</p>": "<p>Tu servidor se está iniciando.</p>",
        "<p>You will be redirected automatically when it's ready for you.</p>": (
            "<p>Pasarás a él automáticamente cuando esté listo.</p>"
        ),
        "</span> Complete</span>": "</span> completado</span>",
        "<summary>Event log</summary>": "<summary>Registro de eventos</summary>",
        ">Stop Server</button>": ">Detener el servidor</button>",
        ".text('Stopping...')": ".text('Deteniendo…')",
        ".text('Stopping server...')": ".text('Deteniendo el servidor…')",
        ".text('Server stopped successfully!')": ".text('El servidor se detuvo.')",
        "'Error stopping server'": "'Error al detener el servidor'",
        ".text('Stop Server')": ".text('Detener el servidor')",
    },
}


class PaginaCambiada(RuntimeError):
    """The installed JupyterHub no longer has a text this module translates (message in Spanish)."""


def escribir(destino):
    """Write the Spanish templates into ``destino`` (a folder for ``template_paths``); return it."""
    destino = Path(destino)
    destino.mkdir(parents=True, exist_ok=True)
    for nombre, textos in TRADUCCIONES.items():
        pagina = (ORIGINALES / nombre).read_text(encoding="utf-8")
        for ingles, espanol in textos.items():
            if ingles not in pagina:
                raise PaginaCambiada(
                    f"la plantilla {nombre} de este JupyterHub ya no dice «{ingles}»: actualiza "
                    "despliegue/paginas_hub.py para la versión instalada."
                )
            pagina = pagina.replace(ingles, espanol)
        (destino / nombre).write_text(pagina, encoding="utf-8")
    return destino
