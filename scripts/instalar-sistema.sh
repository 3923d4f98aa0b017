#!/usr/bin/env bash
# Instala los programas del sistema que el curso necesita, desde los paquetes de Debian/Ubuntu.
# Uso: scripts/instalar-sistema.sh graphviz [aislamiento] [navegador] [servidor]
#   graphviz   el programa `dot`, que dibuja los grafos de torchviz
#   navegador  Chromium y ChromeDriver, para las pruebas en un navegador real
#   aislamiento  bubblewrap (bwrap), que encierra el código de cada entrega al calificar
#   servidor   PostgreSQL (el libro de calificaciones de una clase en JupyterHub) y Node.js con npm
#              (el proxy de JupyterHub); ver despliegue/README.md
set -euo pipefail

faltan=()
for programa in "$@"; do
  case "$programa" in
    graphviz) command -v dot >/dev/null || faltan+=(graphviz) ;;
    aislamiento) command -v bwrap >/dev/null || faltan+=(bubblewrap) ;;
    navegador) { command -v chromium >/dev/null && command -v chromedriver >/dev/null; } || faltan+=(chromium chromium-driver) ;;
    servidor)
      compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || faltan+=(postgresql)
      command -v npm >/dev/null || faltan+=(nodejs npm) ;;
    *) echo "Programa desconocido: $programa (usa graphviz, aislamiento, navegador o servidor)" >&2; exit 2 ;;
  esac
done
[ ${#faltan[@]} -eq 0 ] && exit 0

echo "Instalando programas del sistema: ${faltan[*]}"
if command -v apt-get >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    sudo=(no)
  fi
  if [ "${sudo[*]}" != no ] && "${sudo[@]}" apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${faltan[@]}" >/dev/null; then
    exit 0
  fi
fi
echo "No se pudieron instalar ${faltan[*]} automáticamente." >&2
echo "Instálalos con el gestor de paquetes de tu sistema, por ejemplo:" >&2
echo "  sudo apt-get install ${faltan[*]}   (Debian/Ubuntu)" >&2
echo "  brew install graphviz                (macOS)" >&2
exit 1
