# Gradientes en PyTorch: dos órdenes lo preparan todo.
#   make lab    instala lo necesario y abre JupyterLab en el índice del curso (y escribe su dirección, con la clave)
#   make test   instala lo necesario y ejecuta todas las pruebas
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALADO := $(VENV)/.instalado
PROXY := despliegue/node_modules/.bin/configurable-http-proxy

.PHONY: lab test instalar proxy lint generar demo prueba-corta

lab: instalar
	@scripts/instalar-sistema.sh graphviz || echo "Aviso: sin Graphviz (dot) las lecciones no podrán dibujar los grafos."
	@scripts/instalar-sistema.sh aislamiento || echo "Aviso: sin bubblewrap (bwrap) no se podrán calificar entregas."
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) --LabApp.default_url=/lab/tree/notebooks/indice.md

test: instalar
	scripts/instalar-sistema.sh graphviz aislamiento navegador servidor
	$(MAKE) --no-print-directory proxy
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=8 -m "not maquina_entera"
	$(BIN)/python -m pytest --durations=3 -m maquina_entera

instalar: $(INSTALADO)

$(INSTALADO): requirements.txt pyproject.toml estudiante/pyproject.toml $(wildcard estudiante/gradientes/jupyterlab/*.json) estudiante/gradientes/lab_setup.py autograder/course/lab_setup.py
	@scripts/comprobar-python.sh $(PYTHON)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e ./estudiante -e .
	$(BIN)/python -m autograder.course.lab_setup
	touch $(INSTALADO)

# El proxy de JupyterHub (configurable-http-proxy, de npm), con las versiones de despliegue/package-lock.json.
proxy: $(PROXY)

$(PROXY): despliegue/package.json despliegue/package-lock.json
	cd despliegue && npm ci --no-audit --no-fund --loglevel=error
	touch -h $(PROXY)

lint: instalar
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

generar: instalar
	$(BIN)/curso generar

demo: instalar
	$(BIN)/curso demo

# Prueba corta de una instalación: una lección sin interfaz y una calificación aislada.
# Con otro Python: make prueba-corta PYTHON=/usr/bin/python3 VENV=/tmp/curso-debian
prueba-corta: instalar
	scripts/instalar-sistema.sh graphviz aislamiento
	$(BIN)/python scripts/prueba_corta.py
