"""JupyterLab as students get it: in Spanish, opening the course index (real Chromium)."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import jupyterlab_language_pack_es_ES
import nbformat
import pytest
from helpers import LESSONS, chromium

from autograder.course import COURSE_DIR, ROOT, is_test_cell, release
from gradientes import lab_setup


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@contextmanager
def serve_lab(root, home, config_dir=None):
    """A JupyterLab server of this environment serving ``root``; with ``config_dir``, that Jupyter configuration."""
    port = free_port()
    env = {**os.environ, "HOME": str(home), "JUPYTER_RUNTIME_DIR": str(home / "runtime")}
    if config_dir:
        env["JUPYTER_CONFIG_DIR"] = str(config_dir)
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
            f"--ServerApp.root_dir={root}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                get(f"{base}/api/status")
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab no arrancó")
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server of this environment, serving the course."""
    with serve_lab(ROOT, tmp_path_factory.mktemp("home")) as base:
        yield base


def test_lab_defaults_to_spanish(lab):
    settings = get(f"{lab}/lab/api/settings/@jupyterlab/translation-extension:plugin")
    # overrides.json changes the schema's default, which is what a new user gets: the course's language pack.
    assert settings["schema"]["properties"]["locale"]["default"] == lab_setup.LANGUAGE
    assert settings["settings"].get("locale", lab_setup.LANGUAGE) == lab_setup.LANGUAGE
    spanish = get(f"{lab}/lab/api/translations/{lab_setup.LANGUAGE}")
    assert spanish["data"]["jupyterlab"]["Cut Cell"] == ["Cortar la celda", "Cortar las celdas"]
    assert spanish["data"]["jupyterlab"][""]["language"] == lab_setup.LANGUAGE  # or JupyterLab ignores it


# A text that JupyterLab's code translates: trans.__('…'), trans._n('…', …), trans._p('context', '…').
STRING = r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
TRANSLATED_TEXT = re.compile(rf"\.(__|_n|_p)\(\s*{STRING}(?:\s*,\s*{STRING})?")


def js_string(literal):
    """The value of a JavaScript string literal (quoted with " or ')."""
    body = literal[1:-1]
    if literal[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    return json.loads(f'"{body}"')


def texts_jupyterlab_translates():
    """Every text that the installed JupyterLab and its extensions pass to the translator (``context\x04text``)."""
    found = set()
    share = Path(sys.prefix) / "share" / "jupyter"
    for path in [*(share / "lab" / "static").glob("*.js"), *(share / "labextensions").rglob("*.js")]:
        for call, first, second in TRANSLATED_TEXT.findall(path.read_text("utf-8", "ignore")):
            if call == "_p" and second:
                found.add(f"{js_string(first)}\x04{js_string(second)}")
            elif call != "_p":
                found.add(js_string(first))
    return found


def test_the_course_translations_are_current_and_installed():
    ours = json.loads(lab_setup.TRANSLATIONS.read_text("utf-8"))
    asked = texts_jupyterlab_translates()
    stale = sorted(original for catalog in ours.values() for original in catalog if original not in asked)
    assert not stale, f"JupyterLab ya no usa estos textos: {stale}"
    for domain, translations in ours.items():
        catalog = json.loads((lab_setup.CATALOGS / f"{domain}.json").read_text("utf-8"))
        for original, translation in translations.items():
            assert catalog[original] == (translation if isinstance(translation, list) else [translation]), (
                "instala las traducciones: make instalar"
            )
    for domain in ("jupyterlab", "notebook", "jupyterlab_widgets"):  # the official pack's catalogs are there too
        assert len(json.loads((lab_setup.CATALOGS / f"{domain}.json").read_text("utf-8"))) > 1


# --- nbgrader's JupyterLab extension, translated at install (assets/jupyterlab/nbgrader.json) ---------------


def nbgrader_texts():
    return json.loads(lab_setup.NBGRADER_TRANSLATIONS.read_text("utf-8"))["textos"]


def pristine_nbgrader_bundle(prefix):
    """A copy, under ``prefix``, of the installed nbgrader extension's files as nbgrader installed them."""
    installed = Path(sys.prefix) / lab_setup.NBGRADER_BUNDLE
    folder = prefix / lab_setup.NBGRADER_BUNDLE
    folder.mkdir(parents=True)
    for path in installed.glob("*.js"):
        original = path.with_name(f"{path.name}.original")
        shutil.copyfile(original if original.exists() else path, folder / path.name)
    return folder


def bundle_files(folder):
    return {path.name: path.read_text("utf-8") for path in sorted(folder.iterdir())}


def test_only_whole_texts_are_translated():
    source = (
        'a.innerText="Fetch",b.innerText="Fetch Feedback",c="Prefetch",d=`Fetch`,e="Fetching",'
        "f='<div>\\n  Fetch\\n</div><p> Fetch more </p><b>Fetch</b>'"
    )
    translated, found = lab_setup.translate_js(source, {"Fetch": "Descargar…"})
    assert translated == (
        'a.innerText="Descargar\\u2026",b.innerText="Fetch Feedback",c="Prefetch",d=`Descargar\\u2026`,'
        "e=\"Fetching\",f='<div>\\n  Descargar\\u2026\\n</div><p> Fetch more </p><b>Descargar\\u2026</b>'"
    )
    assert found == {"Fetch": 4}


def test_nbgrader_is_translated_at_install_from_the_originals(tmp_path):
    folder = pristine_nbgrader_bundle(tmp_path)
    pristine = bundle_files(folder)
    texts = nbgrader_texts()
    assert lab_setup.translate_nbgrader(tmp_path) == folder
    translated = bundle_files(folder)
    bundle = "".join(text for name, text in translated.items() if name.endswith(".js"))
    _, left = lab_setup.translate_js(bundle, texts)
    assert not {english for english, count in left.items() if count}, "quedan textos en inglés"
    for spanish in texts.values():
        assert lab_setup.js_text(spanish) in bundle, spanish
    assert 'innerText="Descargar",' in bundle and 'innerText="Descargar la retroalimentaci\\u00f3n",' in bundle
    assert 'label:"Validar",' in bundle and 'tooltip:"Validar la lecci\\u00f3n"' in bundle
    assert 'title:"Resultados de la validaci\\u00f3n"' in bundle
    assert "\\n        Lecciones publicadas\\n" in bundle and 'title="Actualizar la lista de lecciones"' in bundle
    assert "Fetch Feedback" not in bundle and "Validation Results" not in bundle
    # The pristine files are kept beside the translated ones; the others are untouched.
    for name, text in pristine.items():
        if f"{name}.original" in translated:
            assert translated[f"{name}.original"] == text
            assert translated[name].endswith(lab_setup.TRANSLATED_MARK)
        else:
            assert translated[name] == text
    assert any(name.endswith(".original") for name in translated)

    lab_setup.translate_nbgrader(tmp_path)  # again: nothing changes
    assert bundle_files(folder) == translated
    for name, text in pristine.items():  # nbgrader reinstalled (pip writes its files again)
        (folder / name).write_text(text, "utf-8")
    lab_setup.translate_nbgrader(tmp_path)
    assert bundle_files(folder) == translated
    # A table with a text less: from the original, that text is English again.
    table = tmp_path / "nbgrader.json"
    table.write_text(json.dumps({"textos": {k: v for k, v in texts.items() if k != "Fetch"}}), "utf-8")
    lab_setup.translate_nbgrader(tmp_path, table)
    bundle = "".join(path.read_text("utf-8") for path in folder.glob("*.js"))
    assert 'innerText="Fetch",' in bundle and 'innerText="Descargar la retroalimentaci\\u00f3n",' in bundle


def test_a_text_that_nbgrader_no_longer_has_stops_the_install(tmp_path):
    folder = pristine_nbgrader_bundle(tmp_path)
    [chunk] = [path for path in folder.glob("*.js") if '"Fetch Feedback"' in path.read_text("utf-8")]
    chunk.write_text(chunk.read_text("utf-8").replace('"Fetch Feedback"', '"Get Feedback"'), "utf-8")
    before = bundle_files(folder)
    with pytest.raises(lab_setup.NbgraderChanged, match="ya no contiene este texto: «Fetch Feedback»"):
        lab_setup.translate_nbgrader(tmp_path)
    assert bundle_files(folder) == before, "nada a medias"
    with pytest.raises(lab_setup.NbgraderChanged, match="no se encontró la extensión de JupyterLab de nbgrader"):
        lab_setup.translate_nbgrader(tmp_path / "sin-nbgrader")


def test_nbgrader_is_translated_in_this_environment():
    folder = Path(sys.prefix) / lab_setup.NBGRADER_BUNDLE
    bundle = "".join(path.read_text("utf-8") for path in folder.glob("*.js"))
    _, left = lab_setup.translate_js(bundle, nbgrader_texts())
    assert not {english for english, count in left.items() if count}, "instala las traducciones: make instalar"


def test_formgrader_finds_the_course(lab):
    assignments = {a["name"]: a for a in get(f"{lab}/formgrader/api/assignments")}
    assert "01_tensores_y_requires_grad" in assignments
    assert assignments["01_tensores_y_requires_grad"]["source_path"] == "solutions/01_tensores_y_requires_grad"
    with urllib.request.urlopen(f"{lab}/formgrader", timeout=30) as response:
        page = response.read().decode()
    assert "Manage Assignments" in page
    assert "warning-exchange" not in page and "warning-course-id" not in page, "un intercambio local, sin avisos"


def test_the_index_is_served(lab):
    index = get(f"{lab}/api/contents/notebooks/{release.INDEX_NAME}")
    assert "01_tensores_y_requires_grad/01_tensores_y_requires_grad.ipynb" in index["content"]


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

    with chromium(tmp_path / "chromium") as driver:
        open_in_lab(driver, lab, f"notebooks/{release.INDEX_NAME}")
        menus = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel")]
        heading = driver.find_element(By.CSS_SELECTOR, ".jp-RenderedMarkdown h1").text
        open_in_lab(driver, lab, lesson_path(LESSONS[0]))
        tooltips = driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('.jp-NotebookPanel-toolbar [data-jp-item-name]')]"
            ".map(e => [e.dataset.jpItemName, (e.querySelector('[title]') || e).title]))"
        )
        driver.save_screenshot(str(tmp_path / "leccion.png"))
    assert "Archivo" in menus and "File" not in menus, menus
    # Menus the language pack leaves in English; the settings overrides rename them.
    assert "Ejecutar" in menus and "Pestañas" in menus, menus
    assert "Run" not in menus and "Tabs" not in menus, menus
    assert tooltips["run"].startswith("Ejecutar") and tooltips["cut"].startswith("Cortar"), tooltips
    assert heading.startswith("Gradientes en PyTorch")


# --- The student's lab, opened in Chromium --------------------------------------------------------------

ENGLISH_LIMIT = 20
LANGUAGE_PACK = Path(jupyterlab_language_pack_es_ES.__file__).parent / "locale" / "es_ES" / "LC_MESSAGES"
WORD = re.compile(r"[^\W\d_]+")
# English words that the catalog cannot tell from Spanish: the pack leaves them untranslated inside some
# Spanish string («Modo Command»), or no string of the catalog has them (nbgrader's, the kernel status...).
MORE_ENGLISH = {
    "activate", "assignment", "busy", "command", "disabled", "download", "english", "failed", "feedback",
    "fetch", "following", "has", "idle", "item", "keys", "licenses", "next", "passed", "passes",
    "results", "spain", "spanish", "submit", "success", "tests", "toolbar", "validate", "validating",
    "validation",
}  # fmt: skip
# Names that the Spanish interface keeps as they are, as the language pack does (the «Kernel» menu, «Guardar
# Notebook»), and «OK», usual in Spanish: they never make a string English.
NEUTRAL = {"kernel", "kernels", "notebook", "notebooks", "markdown", "python", "jupyter", "jupyterlab", "widget", "ok"}

# Every visible text of the interface: text nodes and tooltips (title, placeholder). Left out: the lesson
# itself (its Markdown, code and outputs), file names, keyboard shortcuts (Lumino writes key names, «Shift»,
# «Enter», with no translation) and the language names of the syntax highlighting menu.
VISIBLE_TEXTS = """
const skip = ['.jp-InputArea-editor', '.jp-RenderedMarkdown', '.jp-OutputArea-output', '.cm-editor',
  '.jp-DirListing-itemName', '.jp-DirListing-itemText', '.jp-DirListing-itemModified', '.lm-Menu-itemShortcut',
  '.lm-CommandPalette-itemShortcut', '.lm-TabBar-tabLabel', '.jp-Dialog pre',
  '[data-command="fileeditor:change-language"]'].join(', ');
const root = arguments[0] || document.body;
const shown = el => el && !el.closest(skip) && el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
const texts = [];
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const text = walker.currentNode.textContent.trim();
  const el = walker.currentNode.parentElement;
  if (text && !['STYLE', 'SCRIPT'].includes(el.tagName) && shown(el)) texts.push(text);
}
for (const el of root.querySelectorAll('[title], [placeholder]')) {
  if (shown(el)) texts.push(...[el.title, el.placeholder].filter(Boolean).map(t => t.trim()));
}
return texts;
"""


def words(text):
    """Lowercase words of ``text``, leaving out names: files, paths, versions and shortcuts (``Ctrl+S``)."""
    found = set()
    for chunk in text.split():
        chunk = chunk.strip(".,:;!?()[]{}«»\"'…|")
        if not re.search(r"[_./\\@+\d]", chunk):
            found |= {word.lower() for word in WORD.findall(chunk)}
    return found


def english_words():
    """Words of JupyterLab's English strings that its Spanish translations never use, plus ``MORE_ENGLISH``.

    From the catalog of the official language pack (JupyterLab's and Notebook's strings, each with its
    translation), not from the course's translations, so that the measure does not depend on what it measures:
    «cell», «run», «and», «the» are English; «a», «no», «editor» or «terminal» are also Spanish.
    """
    english, spanish = set(), set()
    for domain in ("jupyterlab", "notebook"):
        catalog = json.loads((LANGUAGE_PACK / f"{domain}.json").read_text("utf-8"))
        for original, translations in catalog.items():
            if original:
                english |= words(original)
                for translation in translations:
                    spanish |= words(translation)
    return (english - spanish | MORE_ENGLISH) - NEUTRAL


def english(texts):
    """The texts with at least one English word (half-translated ones too: «Reiniciar el kernel and ...»)."""
    vocabulary = english_words()
    return sorted({text for text in texts if words(text) & vocabulary})


def test_english_heuristic():
    assert english(["Run Selected Cell", "Reiniciar el intérprete and Ejecutar todas las celdas", "Modo: Command"]) == [
        "Modo: Command",
        "Reiniciar el intérprete and Ejecutar todas las celdas",
        "Run Selected Cell",
    ]
    spanish = ["Ejecutar todas las celdas", "Guardar Notebook", "Kernel", "Python 3 (ipykernel) | Inactivo"]
    assert english([*spanish, "01_tensores_y_requires_grad.ipynb", "Ctrl+Shift+Enter", "Markdown"]) == []


@pytest.fixture(scope="module")
def student_lab(tmp_path_factory):
    """The lab a student gets (``lab_setup --estudiante``: no instructor tools), with freshly generated lessons.

    The instructor extensions are turned off in a Jupyter configuration folder of its own, read before this
    environment's: the environment itself keeps the instructor's configuration.
    """
    folder = tmp_path_factory.mktemp("estudiante")
    home, config, root = folder / "home", folder / "config", folder / "curso"
    home.mkdir()
    lab_setup.disable_instructor_extensions(config)
    release.generate(root / "notebooks", lessons=[LESSONS[0]])
    # Copies to explore (nbgrader's «Validar» saves it) and to run whole; the generated lesson stays as generated.
    for copy in (EXPLORED, RUN_WHOLE):
        (root / copy).parent.mkdir()
        shutil.copy(root / lesson_path(LESSONS[0]), root / copy)
    with serve_lab(root, home, config) as base:
        yield base


@pytest.fixture(scope="module")
def student_browser(student_lab, tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


def lesson_path(lesson):
    return f"notebooks/{lesson.id}/{lesson.notebook_name}"


EXPLORED = f"explorar/{LESSONS[0].notebook_name}"
RUN_WHOLE = f"ejecutar/{LESSONS[0].notebook_name}"


def kernel_state(lab, path):
    """The state of the kernel of ``path`` (``idle``, ``busy``...), or None if it has none."""
    for session in get(f"{lab}/api/sessions"):
        if session["path"] == path and session.get("kernel"):
            return session["kernel"]["execution_state"]
    return None


def open_in_lab(driver, lab, path):
    """Open ``path`` in a fresh page of the lab; wait until its kernel (if any) is idle."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{lab}/lab/tree/{path}?reset")  # with no other document open (the workspace is reset)
    wait = WebDriverWait(driver, 120)
    if path.endswith(".ipynb"):
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-Cell"))
        wait.until(lambda d: kernel_state(lab, path) == "idle")
        time.sleep(2)  # JupyterLab copies the kernel's language_info into the notebook once it has it
    else:
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-MarkdownViewer .jp-RenderedMarkdown h1"))


def open_menus(driver):
    return driver.find_elements("css selector", ".lm-Menu")


def close_menus(driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    for _ in range(10):
        if not open_menus(driver):
            return
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        time.sleep(0.1)
    raise AssertionError("los menús no se cierran")


def open_submenu(driver, item):
    """Open the submenu of a menu ``item`` (hovering it, as a student does) and return it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    before = {m.id for m in open_menus(driver)}

    def opened(d):
        return [m for m in open_menus(d) if m.id not in before]

    ActionChains(driver).move_to_element(item).perform()
    try:
        return WebDriverWait(driver, 3).until(opened)[0]
    except Exception:
        item.click()
        return WebDriverWait(driver, 3).until(opened)[0]


def walk_menu(driver, menu, path, found):
    """Record ``{path: [texts]}`` for ``menu`` and, opening each, for each of its submenus."""
    found[path] = driver.execute_script(VISIBLE_TEXTS, menu)
    items = menu.find_elements("css selector", ":scope > .lm-Menu-content > .lm-Menu-item[data-type=submenu]")
    for item in items:
        if "lm-mod-disabled" not in item.get_attribute("class"):
            label = item.find_element("css selector", ".lm-Menu-itemLabel").text
            walk_menu(driver, open_submenu(driver, item), (*path, label), found)


def every_menu(driver):
    """``{(menu, submenu...): [texts]}`` for every main menu and submenu of the menu bar."""
    from selenium.webdriver.support.ui import WebDriverWait

    found = {}
    count = len(driver.find_elements("css selector", ".lm-MenuBar-item"))
    for index in range(count):
        item = driver.find_elements("css selector", ".lm-MenuBar-item")[index]
        label = item.text
        item.click()
        WebDriverWait(driver, 5).until(open_menus)
        walk_menu(driver, open_menus(driver)[0], (label,), found)
        close_menus(driver)
    return found


def everything_a_student_sees(driver, lab):
    """``{place: [texts]}``: the lab with a lesson open, every menu and submenu, a cell's context menu,
    the launcher, the command palette and nbgrader's «Validar» dialog."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    open_in_lab(driver, lab, EXPLORED)
    seen = {("página",): driver.execute_script(VISIBLE_TEXTS)}
    seen |= every_menu(driver)
    prompt = driver.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .jp-InputPrompt")[1]
    ActionChains(driver).context_click(prompt).perform()
    WebDriverWait(driver, 5).until(open_menus)
    context = {}
    walk_menu(driver, open_menus(driver)[0], ("menú contextual de una celda",), context)
    seen |= context
    close_menus(driver)
    driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Notebook").click()
    ActionChains(driver).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("c").key_up(Keys.SHIFT).key_up(
        Keys.CONTROL
    ).perform()
    palette = WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".lm-CommandPalette"))
    seen[("paleta de órdenes",)] = driver.execute_script(VISIBLE_TEXTS, palette[0])
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    driver.find_element(By.CSS_SELECTOR, ".lm-DockPanel-tabBar .lm-TabBar-addButton").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-Launcher-body"))
    seen[("lanzador",)] = driver.execute_script(VISIBLE_TEXTS)
    driver.find_element(By.CSS_SELECTOR, ".lm-DockPanel-tabBar .lm-TabBar-tab:first-child").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel-toolbar"))
    driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel-toolbar [data-jp-item-name=restart-and-run]").click()
    dialog = WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-Dialog"))
    seen[("diálogo «Reiniciar el kernel»",)] = driver.execute_script(VISIBLE_TEXTS, dialog[0])
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    WebDriverWait(driver, 10).until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".jp-Dialog"))
    driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel-toolbar .validate-button").click()  # nbgrader's
    dialog = WebDriverWait(driver, 180).until(
        lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".jp-Dialog") if "Validando" not in e.text]
    )
    seen[("diálogo «Validar»",)] = driver.execute_script(VISIBLE_TEXTS, dialog[0])
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    return seen


def test_the_student_lab_is_in_spanish(student_lab, student_browser, tmp_path):
    seen = everything_a_student_sees(student_browser, student_lab)
    student_browser.save_screenshot(str(tmp_path / "leccion.png"))
    where = {}
    for place, texts in seen.items():
        for text in texts:
            where.setdefault(text, " → ".join(place))
    (tmp_path / "textos.json").write_text(json.dumps(where, ensure_ascii=False, indent=1), "utf-8")
    found = english(where)
    palette = [text for text in found if where[text] == "paleta de órdenes"]
    print(f"\n{len(found)} textos en inglés de {len(where)} distintos ({len(palette)} solo en la paleta de órdenes):")
    for text in found:
        print(f"  {text!r}  [{where[text]}]")
    assert len(seen) > 15, "abre los menús y sus submenús"
    validate = seen[("diálogo «Validar»",)]
    assert "Resultados de la validación" in validate and "La celda siguiente falló:" in validate, validate
    assert "Validar" in seen[("página",)] and "Validar la lección" in seen[("página",)]  # nbgrader's button
    assert not english(validate), english(validate)
    assert not set(found) & {text.strip() for text in nbgrader_texts()}, "nbgrader, traducido al instalar"
    assert len(found) <= ENGLISH_LIMIT, found


# Where the lessons and the index name a menu path: in italics or between «», like *Kernel → Reiniciar…*.
MARKED_PATH = re.compile(r"\*([^*\n]*→[^*\n]*)\*|«([^«»\n]*→[^«»\n]*)»")
MAIN_MENUS = ("Archivo", "Editar", "Ver", "Ejecutar", "Kernel", "Pestañas", "Configuración", "Ayuda")


def menu_paths(markdown):
    """The «Menú → Opción» paths that a Markdown text names (code spans and formulas left out)."""
    prose = re.sub(r"`[^`\n]*`|\$[^$\n]*\$", "", markdown)
    paths = {tuple(part.strip() for part in (a or b).split("→")) for a, b in MARKED_PATH.findall(prose)}
    unmarked = re.findall(rf"\b({'|'.join(MAIN_MENUS)})\s*→", MARKED_PATH.sub("", prose))
    assert not unmarked, f"escribe la ruta del menú en cursiva (*{unmarked[0]} → …*) para que la prueba la encuentre"
    return {path for path in paths if path[0] in MAIN_MENUS}


def paths_named_by_the_course():
    """``{path: where}`` for the index and the Markdown cells of every lesson."""
    named = {path: "autograder/course/indice.md" for path in menu_paths((COURSE_DIR / "indice.md").read_text("utf-8"))}
    for lesson in LESSONS:
        for cell in nbformat.read(lesson.source, as_version=4).cells:
            if cell.cell_type == "markdown":
                named |= dict.fromkeys(menu_paths(cell.source), f"solutions/{lesson.id}")
    return named


def test_menu_paths_are_found_in_markdown():
    text = "Usa *Kernel → Reiniciar el kernel…* o «Ejecutar → Ejecutar todas las celdas»; `d → suma → a` no."
    assert menu_paths(text) == {("Kernel", "Reiniciar el kernel…"), ("Ejecutar", "Ejecutar todas las celdas")}
    with pytest.raises(AssertionError, match="cursiva"):
        menu_paths("usa Kernel → Reiniciar")


def menu_labels(menu):
    return [e.text for e in menu.find_elements("css selector", ":scope > .lm-Menu-content > .lm-Menu-item")]


def test_every_menu_path_the_course_names_exists_as_written(student_lab, student_browser):
    from selenium.webdriver.support.ui import WebDriverWait

    named = paths_named_by_the_course()
    assert ("Kernel", "Reiniciar el kernel y ejecutar todas las celdas…") in named  # the index's
    driver = student_browser
    open_in_lab(driver, student_lab, EXPLORED)
    missing = []
    for path, where in sorted(named.items()):
        bar = {e.text: e for e in driver.find_elements("css selector", ".lm-MenuBar-item")}
        bar[path[0]].click()
        WebDriverWait(driver, 5).until(open_menus)
        menu = open_menus(driver)[0]
        for depth, label in enumerate(path[1:], start=2):
            items = menu.find_elements("css selector", ":scope > .lm-Menu-content > .lm-Menu-item")
            found = [item for item in items if item.find_element("css selector", ".lm-Menu-itemLabel").text == label]
            if not found or "lm-mod-disabled" in found[0].get_attribute("class"):
                missing.append(f"{' → '.join(path)} ({where}): «{path[depth - 2]}» ofrece {menu_labels(menu)}")
                break
            if depth < len(path):
                menu = open_submenu(driver, found[0])
        close_menus(driver)
    assert not missing, "\n".join(missing)


def test_every_lesson_carries_what_its_kernel_reports():
    """What JupyterLab copies from a new kernel into the notebook it opens is already there: no lesson opens
    modified (the browser test below opens one)."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        info = client.kernel_info(reply=True, timeout=60)["content"]
        spec = manager.kernel_spec
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert info["language_info"]["version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert info["help_links"][0]["text"] == "Referencia de Python"
    for lesson in LESSONS:
        metadata = nbformat.read(lesson.released, as_version=4).metadata
        assert metadata.language_info == info["language_info"], lesson.id
        assert metadata.kernelspec == {"name": "python3", "display_name": spec.display_name, "language": spec.language}


def test_lessons_open_unmodified_and_the_index_starts_no_kernel(student_lab, student_browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = student_browser
    lesson = lesson_path(LESSONS[0])
    open_in_lab(driver, student_lab, lesson)  # waits until the kernel is idle and JupyterLab has its metadata
    tab = driver.find_element(By.CSS_SELECTOR, ".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current")
    assert "jp-mod-dirty" not in tab.get_attribute("class"), "la lección recién abierta aparece como modificada"
    tab.find_element(By.CSS_SELECTOR, ".lm-TabBar-tabCloseIcon").click()
    time.sleep(1)
    assert not driver.find_elements(By.CSS_SELECTOR, ".jp-Dialog"), "cerrar la lección sin tocarla pide guardarla"

    index = f"notebooks/{release.INDEX_NAME}"
    open_in_lab(driver, student_lab, index)
    # open_in_lab waited for it shown as a page (Markdown Preview), not as text to edit
    time.sleep(2)
    assert kernel_state(student_lab, index) is None, "el índice no arranca ningún kernel"
    links = f'.jp-RenderedMarkdown a[href*="{LESSONS[0].notebook_name}"]'
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, links))[0].click()  # opens the lesson
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell"))


def click_menu_item(driver, *path):
    """Open the main menu ``path[0]`` and click, through its submenus, the item ``path[-1]``."""
    from selenium.webdriver.support.ui import WebDriverWait

    bar = {e.text: e for e in driver.find_elements("css selector", ".lm-MenuBar-item")}
    bar[path[0]].click()
    menu = WebDriverWait(driver, 5).until(open_menus)[0]
    for depth, label in enumerate(path[1:], start=2):
        items = menu.find_elements("css selector", ":scope > .lm-Menu-content > .lm-Menu-item")
        found = [item for item in items if item.find_element("css selector", ".lm-Menu-itemLabel").text == label]
        assert found, f"«{path[depth - 2]}» ofrece {menu_labels(menu)}"
        if depth == len(path):
            found[0].click()
        else:
            menu = open_submenu(driver, found[0])


PROMPTS = "return [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')].map(e => e.textContent)"


def test_run_all_runs_an_unanswered_lesson_whole(student_lab, student_browser):
    """*Ejecutar → Ejecutar todas las celdas* on a lesson as generated: every code cell runs, and each exercise's
    test cell shows its ✗ «todavía no has escrito tu respuesta» (the cells that fail are tagged raises-exception)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    driver = student_browser
    open_in_lab(driver, student_lab, RUN_WHOLE)
    click_menu_item(driver, "Ejecutar", "Ejecutar todas las celdas")

    def finished(d):  # nothing waiting to run, twice in a row
        done = "[*]:" not in [text.strip() for text in d.execute_script(PROMPTS)]
        done = done and kernel_state(student_lab, RUN_WHOLE) == "idle"
        finished.before, was = done, finished.before
        return done and was

    finished.before = False
    WebDriverWait(driver, 300, poll_frequency=1).until(finished)
    # With widgets on, the lab shows the slider itself, not the picture meant for front ends without widgets.
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".jp-OutputArea .widget-slider"))
    assert "widgets están desactivados" not in driver.find_element(By.CSS_SELECTOR, ".jp-Notebook").text
    driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Notebook").click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()  # to read it here
    tab = ".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current"
    WebDriverWait(driver, 30).until(
        lambda d: "jp-mod-dirty" not in d.find_element(By.CSS_SELECTOR, tab).get_attribute("class")
    )
    notebook = nbformat.from_dict(get(f"{student_lab}/api/contents/{RUN_WHOLE}")["content"])
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code), [cell.source[:40] for cell in code if not cell.execution_count]
    tests = [cell for cell in code if is_test_cell(cell)]
    assert len(tests) >= 3
    for cell in tests:
        [error] = [output for output in cell.outputs if output.output_type == "error"]
        assert "todavía no has escrito tu respuesta" in error.evalue and "✗" in "".join(error.traceback), error


def test_the_kernel_menu_has_one_restart_and_run_all(student_lab, student_browser, tmp_path):
    """One item, named as the index and the lessons name it (JupyterLab's own, «…ejecutar todo», is hidden)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver = student_browser
    open_in_lab(driver, student_lab, EXPLORED)
    bar = {e.text: e for e in driver.find_elements("css selector", ".lm-MenuBar-item")}
    bar["Kernel"].click()
    labels = menu_labels(WebDriverWait(driver, 5).until(open_menus)[0])
    driver.save_screenshot(str(tmp_path / "menu_kernel.png"))
    close_menus(driver)
    restart_and_run = [label for label in labels if "reiniciar el kernel y ejecutar todas" in label.lower()]
    assert restart_and_run == ["Reiniciar el kernel y ejecutar todas las celdas…"], labels


def test_the_instructors_make_lab_prints_an_address_that_opens_the_index(tmp_path):
    """``make lab`` (its JupyterLab command, as make runs it, without a browser) writes the index's address with
    its token: the browser opens it, and it can be copied where no browser opens."""
    recipe = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    [command] = [line for line in recipe.splitlines() if "/jupyter lab" in line]
    port = free_port()
    env = {**os.environ, "HOME": str(tmp_path), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    env.pop("JUPYTER_TOKEN", None)
    server = subprocess.Popen(
        [*command.split(), "--no-browser", f"--port={port}", "--ServerApp.port_retries=0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    address = re.compile(rf"http://localhost:{port}/lab/tree/notebooks/indice\.md\?token=[0-9a-f]+")
    try:
        for line in server.stderr:
            if address.search(line):
                break
        else:
            pytest.fail("JupyterLab no escribió la dirección del índice")
        for _ in range(60):  # the address is written a moment before the server answers
            try:
                with urllib.request.urlopen(address.search(line)[0], timeout=30) as response:
                    assert '"treePath": "notebooks/indice.md"' in response.read().decode()
                break
            except urllib.error.URLError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab no respondió en la dirección que escribió")
    finally:
        server.terminate()
        server.wait(timeout=30)
