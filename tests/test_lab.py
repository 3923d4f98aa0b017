"""JupyterLab as students get it: in Spanish, opening the course index (real Chromium)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from autograder.course import ROOT

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


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


def test_browser_opens_the_index_in_spanish(lab, tmp_path):
    assert CHROMIUM and CHROMEDRIVER, "hace falta Chromium: scripts/instalar-sistema.sh navegador"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,900",
        f"--user-data-dir={tmp_path / 'chromium'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.get(f"{lab}/lab/tree/notebooks/indice.ipynb")
        wait = WebDriverWait(driver, 90)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-RenderedMarkdown h1"))
        menus = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel")]
        heading = driver.find_element(By.CSS_SELECTOR, ".jp-RenderedMarkdown h1").text
        driver.save_screenshot(str(tmp_path / "indice.png"))
    finally:
        driver.quit()
    assert "Archivo" in menus and "File" not in menus, menus
    assert heading.startswith("Gradientes en PyTorch")
