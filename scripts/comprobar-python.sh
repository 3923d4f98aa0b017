#!/usr/bin/env bash
# Comprueba que el Python elegido sirve para el curso: de la 3.11.2 (la de Debian 12) a la 3.13.
# Uso: scripts/comprobar-python.sh PYTHON
set -euo pipefail
python="${1:-python3}"
if ! command -v "$python" >/dev/null; then
  echo "No se encontró «$python». El curso necesita Python 3.11.2 o posterior (hasta la 3.13)." >&2
  echo "En Debian o Ubuntu: apt-get install python3 python3-venv, y make ... PYTHON=/usr/bin/python3" >&2
  exit 1
fi
if ! version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3]); sys.exit(0 if sys.version_info[:3] >= (3, 11, 2) else 1)'); then
  echo "«$python» es Python ${version:-desconocido}, y el curso necesita Python 3.11.2 o posterior (hasta la 3.13)." >&2
  echo "Elige otro con PYTHON, por ejemplo: make lab PYTHON=/usr/bin/python3" >&2
  exit 1
fi
case "$version" in
  3.11.* | 3.12.* | 3.13.*) ;;
  *) echo "Aviso: el curso está probado con Python 3.11, 3.12 y 3.13; con $version puede que alguna versión fijada no se instale." >&2 ;;
esac
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "«$python» ($version) no puede crear entornos virtuales: falta el módulo venv o ensurepip." >&2
  echo "En Debian o Ubuntu: apt-get install python3-venv" >&2
  exit 1
fi
