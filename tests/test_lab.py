"""JupyterLab as students get it: in Spanish, opening the course index (real Chromium)."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers import chromium

from autograder import lab_setup
from autograder.course import ROOT


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server of this environment, serving the course."""
    port = free_port()
    home = tmp_path_factory.mktemp("home")
    env = {**os.environ, "HOME": str(home), "JUPYTER_RUNTIME_DIR": str(home / "runtime")}
    jupyter = Path(sys.executable).with_name("jupyter")
    server = subprocess.Popen(
        [
            str(jupyter),
            "lab",
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={ROOT}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            get(f"{base}/api/status")
            break
        except OSError:
            time.sleep(0.5)
    else:
        server.kill()
        pytest.fail("JupyterLab no arrancó")
    yield base
    server.terminate()
    server.wait(timeout=30)


def test_lab_defaults_to_spanish(lab):
    settings = get(f"{lab}/lab/api/settings/@jupyterlab/translation-extension:plugin")
    # overrides.json changes the schema's default, which is what a new user gets.
    assert settings["schema"]["properties"]["locale"]["default"] == "es_ES"
    assert settings["settings"].get("locale", "es_ES") == "es_ES"
    spanish = get(f"{lab}/lab/api/translations/es_ES")
    assert spanish["data"], "the Spanish language pack is installed"


def test_formgrader_finds_the_course(lab):
    assignments = {a["name"]: a for a in get(f"{lab}/formgrader/api/assignments")}
    assert "01_tensores_y_requires_grad" in assignments
    assert assignments["01_tensores_y_requires_grad"]["source_path"] == "solutions/01_tensores_y_requires_grad"


def test_index_notebook_is_served(lab):
    index = get(f"{lab}/api/contents/notebooks/indice.ipynb")
    text = index["content"]["cells"][0]["source"]
    assert "01_tensores_y_requires_grad/01_tensores_y_requires_grad.ipynb" in text


def menus_and_toolbars(settings):
    """Main menus (``id: label``) and toolbar items (``name``) that JupyterLab settings define."""
    menus, items = {}, set()

    def walk(menu):
        menus[menu["id"]] = menu.get("label")
        for item in menu.get("items", []):
            if item.get("submenu"):
                walk(item["submenu"])

    for schema in settings:
        for menu in schema.get("jupyter.lab.menus", {}).get("main", []):
            walk(menu)
        for toolbar in schema.get("jupyter.lab.toolbars", {}).values():
            items |= {item["name"] for item in toolbar}
    return menus, items


def test_overrides_rename_menus_and_toolbar_items_that_exist(lab):
    overrides = json.loads(lab_setup.OVERRIDES.read_text("utf-8"))
    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert json.loads(installed.read_text("utf-8")) == overrides, "instala la configuración: make instalar"
    schemas = [entry["schema"] for entry in get(f"{lab}/lab/api/settings")["settings"]]
    menus, items = menus_and_toolbars(schemas)
    main_menu = overrides["@jupyterlab/mainmenu-extension:plugin"]["menus"]
    renamed, _ = menus_and_toolbars([{"jupyter.lab.menus": {"main": main_menu}}])
    assert set(renamed) <= set(menus), set(renamed) - set(menus)
    for plugin in ("@jupyterlab/notebook-extension:panel", "@jupyterlab/cell-toolbar-extension:plugin"):
        names = {item["name"] for item in overrides[plugin]["toolbar"]}
        assert names <= items, names - items


def test_browser_opens_the_index_in_spanish(lab, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium(tmp_path / "chromium") as driver:
        driver.get(f"{lab}/lab/tree/notebooks/indice.ipynb")
        wait = WebDriverWait(driver, 90)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-RenderedMarkdown h1"))
        menus = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel")]
        heading = driver.find_element(By.CSS_SELECTOR, ".jp-RenderedMarkdown h1").text
        tooltips = driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('.jp-NotebookPanel-toolbar [data-jp-item-name]')]"
            ".map(e => [e.dataset.jpItemName, (e.querySelector('[title]') || e).title]))"
        )
        driver.save_screenshot(str(tmp_path / "indice.png"))
    assert "Archivo" in menus and "File" not in menus, menus
    # Menus the language pack leaves in English; the settings overrides rename them.
    assert "Ejecutar" in menus and "Pestañas" in menus, menus
    assert "Run" not in menus and "Tabs" not in menus, menus
    assert tooltips["run"].startswith("Ejecutar") and tooltips["cut"].startswith("Cortar"), tooltips
    assert heading.startswith("Gradientes en PyTorch")
