"""The Kubernetes path (despliegue/kubernetes/): what can be checked without a cluster.

The values file is merged with the chart's defaults as helm does and validated against the chart's own
JSON schema (tests/z2jh/, from Zero to JupyterHub); its per-student limits are clase.toml's; its Python
snippets compile. Neither the image (no container builder here) nor the cluster is tried: README.md says so.
"""

import copy
import importlib.util

import jsonschema
import pytest
import yaml

from autograder.course import ROOT

CHART = ROOT / "tests" / "z2jh"
VALUES = ROOT / "despliegue" / "kubernetes" / "valores.yaml"


def our_values():
    """The values file as its install command gives it to helm: with ``--set-file`` of the Spanish pages."""
    values = yaml.safe_load(VALUES.read_text(encoding="utf-8"))
    values["hub"]["extraFiles"]["paginas"]["stringData"] = (ROOT / "despliegue" / "paginas_hub.py").read_text()
    return values


def merged(defaults, values):
    """helm's merge of ``values`` over the chart's ``defaults``: maps merge key by key, the rest is replaced."""
    result = copy.deepcopy(defaults)
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def validate(values):
    schema = yaml.safe_load((CHART / "values.schema.yaml").read_text(encoding="utf-8"))
    defaults = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(merged(defaults, values))


def test_los_valores_cumplen_el_esquema_del_chart():
    assert "--set-file hub.extraFiles.paginas.stringData=despliegue/paginas_hub.py" in VALUES.read_text()
    validate(our_values())


def test_el_esquema_rechaza_lo_que_no_es_del_chart():
    values = our_values()
    values["singleuser"]["memoria"] = "3G"  # a key the chart does not have
    with pytest.raises(jsonschema.ValidationError, match="memoria"):
        validate(values)


def test_los_limites_de_cada_alumno_son_los_de_clase_toml():
    spec = importlib.util.spec_from_file_location("clase", ROOT / "despliegue" / "clase.py")
    clase = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(clase)
    example = clase.leer(ROOT / "despliegue" / "clase.toml")
    singleuser = yaml.safe_load(VALUES.read_text(encoding="utf-8"))["singleuser"]
    assert clase.tamano(VALUES, singleuser["memory"]["limit"]) == example.memoria
    assert float(singleuser["cpu"]["limit"]) == example.cpu


def test_la_configuracion_de_python_del_hub_compila():
    hub = yaml.safe_load(VALUES.read_text(encoding="utf-8"))["hub"]
    for name, code in hub["extraConfig"].items():
        compile(code, name, "exec")
