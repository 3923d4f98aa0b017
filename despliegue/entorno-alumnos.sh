#!/usr/bin/env bash
# El entorno de Python de los servidores de los alumnos en el JupyterHub (ver despliegue/README.md):
#   despliegue/entorno-alumnos.sh CARPETA_DE_LA_EDICION [PYTHON]      (PYTHON: /usr/bin/python3 por defecto)
# Crea CARPETA_DE_LA_EDICION/.venv con lo que instala la edición del estudiante (su requirements.txt y el paquete
# gradientes) y lo que necesita un servidor de la clase (jupyterhub-singleuser y la «Lista de lecciones» de
# nbgrader, de requirements-servidor.txt), con las versiones del instructor, y pone JupyterLab en español.
set -euo pipefail
edicion="$(realpath "${1:?uso: despliegue/entorno-alumnos.sh CARPETA_DE_LA_EDICION [PYTHON]}")"
python="${2:-/usr/bin/python3}"
aqui="$(dirname "$(realpath "$0")")"
if [ ! -f "$edicion/requirements.txt" ] || [ ! -d "$edicion/gradientes" ]; then
    echo "Error: «$edicion» no es una edición del estudiante: créala con «curso publicar $edicion»." >&2
    exit 1
fi
test -x "$edicion/.venv/bin/python" || "$python" -m venv "$edicion/.venv"
pip=("$edicion/.venv/bin/python" -m pip install --quiet)
"${pip[@]}" -r "$edicion/requirements.txt" -r "$aqui/requirements-servidor.txt" -c "$aqui/../requirements.txt"
"${pip[@]}" --no-deps --no-build-isolation "$edicion"
"$edicion/.venv/bin/python" -m gradientes.lab_setup --estudiante
echo "Entorno de los servidores de los alumnos: $edicion/.venv"
