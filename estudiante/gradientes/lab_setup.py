"""Configure JupyterLab in this environment for the course: Spanish interface, ``%%comprobar`` in every kernel.

Where nbgrader is installed (the class hub's student environment), its JupyterLab extension writes its texts
with no translator: ``translate_nbgrader`` writes them in Spanish into its installed files
(``jupyterlab/nbgrader.json``), and ``--estudiante`` turns off its instructor-only parts.

Run as ``python -m gradientes.lab_setup``; the instructor's environment runs ``python -m autograder.course.lab_setup``.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
OVERRIDES = PACKAGE_DIR / "jupyterlab" / "overrides.json"
TRANSLATIONS = PACKAGE_DIR / "jupyterlab" / "traducciones.json"
NBGRADER_TRANSLATIONS = PACKAGE_DIR / "jupyterlab" / "nbgrader.json"
NBGRADER_BUNDLE = Path("share", "jupyter", "labextensions", "@jupyter", "nbgrader", "static")  # under the prefix
# At the end of a bundle file that translate_nbgrader wrote (a JavaScript comment): its original is next to it.
TRANSLATED_MARK = "\n/* gradientes.lab_setup: textos en español; el original está en este archivo + .original */\n"
# The mark of the course's earlier releases, whose set-up lived in autograder.lab_setup.
EARLIER_MARKS = ("\n/* autograder.lab_setup: textos en español; el original está en este archivo + .original */\n",)
LANGUAGE = "es"  # the course's language pack (estudiante/gradientes/idioma), the one overrides.json chooses
CATALOGS = PACKAGE_DIR / "idioma" / "locale" / LANGUAGE / "LC_MESSAGES"
INSTRUCTOR_LAB_PLUGINS = [
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
    "@jupyter/nbgrader:assignment-list",
    "@jupyter/nbgrader:menu",
]
INSTRUCTOR_SERVER_EXTENSIONS = [
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.course_list",
    "nbgrader.server_extensions.assignment_list",
]


def install_overrides(prefix=Path(sys.prefix)):
    """Copy the settings overrides (Spanish locale) into JupyterLab's application folder."""
    target = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OVERRIDES, target)
    return target


def install_translations(target=CATALOGS):
    """Write the course's language pack: the official Spanish catalogs completed with the course's translations.

    ``traducciones.json`` gives, per catalog (``jupyterlab``, ``notebook``...), JupyterLab's original text and
    its translation (two, singular and plural, for a text with a count; ``context\\u0004text`` for a text with
    a context). The official pack translates only part of JupyterLab 4 and mixes «kernel», «núcleo» and
    «intérprete»: the course's translations fill the gaps and say «kernel», as the «Kernel» menu does.
    """
    import jupyterlab_language_pack_es_ES

    official = Path(jupyterlab_language_pack_es_ES.__file__).parent / "locale" / "es_ES" / "LC_MESSAGES"
    ours = json.loads(TRANSLATIONS.read_text("utf-8"))
    target.mkdir(parents=True, exist_ok=True)
    for domain in sorted({path.stem for path in official.glob("*.json")} | set(ours)):
        path = official / f"{domain}.json"
        catalog = json.loads(path.read_text("utf-8")) if path.exists() else {"": {"domain": domain}}
        catalog[""] = {"plural_forms": "nplurals=2; plural=(n != 1);", **catalog[""], "language": LANGUAGE}
        for original, translation in ours.get(domain, {}).items():
            catalog[original] = translation if isinstance(translation, list) else [translation]
        (target / f"{domain}.json").write_text(json.dumps(catalog, ensure_ascii=False, indent=0), encoding="utf-8")
    return target


class NbgraderChanged(RuntimeError):
    """The installed nbgrader extension is not the one ``nbgrader.json`` translates (message in Spanish)."""


def js_text(text):
    """``text`` as it goes inside a JavaScript string literal: escaped, in ASCII (``…`` is ``\\u2026``)."""
    return json.dumps(text)[1:-1]


def translate_js(source, texts):
    """``source`` with each English text of ``texts`` in Spanish, and how many times each was found.

    Only whole texts: a string literal (``"Fetch"``, quoted with ", ' or a backtick) or the whole text of an element
    of an HTML template string (``<div> Loading, please wait... </div>``, with ``\\n`` between lines), never
    part of another text (``"Fetch"`` is not in ``"Fetch Feedback"``).
    """
    found = {}
    for english, spanish in texts.items():
        found[english], escaped = 0, js_text(spanish)
        for quote in "\"'`":
            literal = f"{quote}{english}{quote}"
            found[english] += source.count(literal)
            source = source.replace(literal, f"{quote}{escaped}{quote}")
        element = re.compile(rf"(>(?:\s|\\n)*){re.escape(english)}((?:\s|\\n)*<)")
        source, count = element.subn(lambda match, escaped=escaped: f"{match[1]}{escaped}{match[2]}", source)
        found[english] += count
    return source, found


def _write(path, text):
    """Write ``path`` at once (never half a file, if interrupted)."""
    temporary = path.with_name(f"{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def translate_nbgrader(prefix=Path(sys.prefix), table=NBGRADER_TRANSLATIONS):
    """Write Spanish into nbgrader's JupyterLab extension, installed under ``prefix``; return its folder.

    Its «Assignments» list, course list and «Validate» button and dialog have no translator: each English
    text of ``table`` (``nbgrader.json``) becomes its translation in the bundle files. The pristine file is
    kept next to each (``<file>.original``) and the translation is always made from it, so running this again,
    or with a changed table, is harmless; a file with no ``TRANSLATED_MARK`` is pristine (a new or reinstalled
    nbgrader). A text found nowhere raises ``NbgraderChanged`` before anything is written: a new nbgrader
    must not show English again without anybody noticing.
    """
    folder = Path(prefix) / NBGRADER_BUNDLE
    texts = json.loads(Path(table).read_text("utf-8"))["textos"]
    bundles = sorted(folder.glob("*.js")) if folder.is_dir() else []
    if not bundles:
        raise NbgraderChanged(
            f"no se encontró la extensión de JupyterLab de nbgrader en {folder}: instala nbgrader "
            "(requirements.txt) antes de traducirla."
        )
    found, files = dict.fromkeys(texts, 0), []
    for path in bundles:
        original = path.with_name(f"{path.name}.original")
        current = path.read_text("utf-8")
        if current.endswith((TRANSLATED_MARK, *EARLIER_MARKS)):
            if not original.exists():
                raise NbgraderChanged(
                    f"falta {original.name}, el original de {path}: reinstala nbgrader "
                    "(python -m pip install --force-reinstall --no-deps nbgrader) y vuelve a instalar."
                )
            source = original.read_text("utf-8")
        else:
            source = current
        translated, counts = translate_js(source, texts)
        for english, count in counts.items():
            found[english] += count
        target = translated + TRANSLATED_MARK if translated != source else source
        files.append((path, original, current, source, target))
    missing = [english for english, count in found.items() if not count]
    if missing:
        raise NbgraderChanged(
            f"la extensión de JupyterLab de nbgrader instalada ({folder}) ya no contiene "
            f"{'este texto' if len(missing) == 1 else 'estos textos'}: {', '.join(f'«{text}»' for text in missing)}. "
            f"Actualiza {Path(table).name} para la versión instalada de nbgrader; si no, se verían en inglés."
        )
    for path, original, current, source, target in files:
        if target != source and (not original.exists() or original.read_text("utf-8") != source):
            _write(original, source)
        if current != target:
            _write(path, target)
        if target == source:  # nothing of this file to translate (any more)
            original.unlink(missing_ok=True)
    for original in folder.glob("*.js.original"):  # left by an nbgrader that is no longer installed
        if not original.with_name(original.name.removesuffix(".original")).exists():
            original.unlink()
    return folder


def install_kernel_extension(prefix=Path(sys.prefix)):
    """Load ``gradientes.selfcheck`` in every kernel: ``%%comprobar`` works even before the imports cell.

    And this module: the kernel reports the ``language_info`` that the lessons carry (see ``language_info``).
    """
    target = prefix / "etc" / "ipython" / "ipython_kernel_config.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        "c = get_config()  # noqa: F821\n"
        "c.InteractiveShellApp.extensions = ['gradientes.selfcheck', 'gradientes.lab_setup']\n",
        encoding="utf-8",
    )
    return target


def language_info(reported=None):
    """The ``language_info`` of the course's kernels: ipykernel's, with Python's version without its patch number.

    JupyterLab copies the kernel's ``language_info`` into the notebook it opens, and any difference from the
    file (Python 3.11.2 on Debian, 3.11.7 elsewhere...) marks an untouched lesson as modified, so closing it
    asks to save. The generator writes this value into every lesson and the kernel reports the same one.
    """
    if reported is None:
        from ipykernel.ipkernel import IPythonKernel

        reported = IPythonKernel.language_info
    return {**reported, "version": f"{sys.version_info.major}.{sys.version_info.minor}"}


def help_links(links):
    """The kernel's links for JupyterLab's Help menu, in Spanish: «Python Reference» is «Referencia de Python»."""
    return [{**link, "text": re.sub(r"^(.+) Reference$", r"Referencia de \1", link["text"])} for link in links]


def load_ipython_extension(shell):
    """IPython extension hook (``install_kernel_extension``): the kernel reports the course's ``language_info``
    and its Help links in Spanish."""
    kernel = getattr(shell, "kernel", None)
    if kernel is not None:
        kernel.language_info = language_info(kernel.language_info)
        kernel.help_links = help_links(kernel.help_links)


def disable_instructor_extensions(config_dir=None):
    """Hide nbgrader's instructor tools (formgrader, create assignment...) from students.

    In this environment's configuration; given ``config_dir``, in that Jupyter configuration folder
    instead (a lab started with ``JUPYTER_CONFIG_DIR=config_dir`` reads it before the environment's):
    the tests run a student's lab that way without changing the instructor's environment.
    """
    if config_dir is not None:
        # What the two commands below write, at the user's level. (``jupyter server extension disable
        # --user`` refuses to disable an extension that the environment enables.)
        config_dir = Path(config_dir)
        (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
        page_config = {"disabledExtensions": dict.fromkeys(INSTRUCTOR_LAB_PLUGINS, True)}
        (config_dir / "labconfig" / "page_config.json").write_text(json.dumps(page_config, indent=2))
        server_config = {"ServerApp": {"jpserver_extensions": dict.fromkeys(INSTRUCTOR_SERVER_EXTENSIONS, False)}}
        (config_dir / "jupyter_server_config.json").write_text(json.dumps(server_config, indent=2))
        return
    jupyter = str(Path(sys.executable).with_name("jupyter"))
    for plugin in INSTRUCTOR_LAB_PLUGINS:
        subprocess.run([jupyter, "labextension", "disable", "--level=sys_prefix", plugin], check=True)
    for extension in INSTRUCTOR_SERVER_EXTENSIONS:
        subprocess.run([jupyter, "server", "extension", "disable", "--sys-prefix", extension], check=True)


def has_nbgrader():
    """Whether nbgrader is installed here (the instructor's environment, or the class hub's student one)."""
    return importlib.util.find_spec("nbgrader") is not None


def main(argv=None):
    parser = argparse.ArgumentParser(description="Configura JupyterLab para el curso.")
    parser.add_argument(
        "--estudiante", action="store_true", help="desactiva las herramientas del instructor de nbgrader, si está"
    )
    args = parser.parse_args(argv)
    setup(student=args.estudiante)


def setup(student):
    """Everything ``main`` does; the instructor's ``autograder.course.lab_setup`` adds nbgrader's course config."""
    print(f"Interfaz en español: {install_overrides()}")
    print(f"Traducciones de JupyterLab: {install_translations()}")
    if has_nbgrader():
        print(f"Extensión de nbgrader en español: {translate_nbgrader()}")
    if LANGUAGE not in {entry.name for entry in entry_points(group="jupyterlab.languagepack")}:
        print(
            f"Aviso: JupyterLab no conoce el idioma «{LANGUAGE}» del curso y se verá en inglés. Instala el paquete "
            "del curso en este entorno: python -m pip install ./estudiante"
        )
    print(f"Comprobaciones en cada kernel: {install_kernel_extension()}")
    if student and has_nbgrader():
        disable_instructor_extensions()
        print("Herramientas del instructor desactivadas.")


if __name__ == "__main__":
    main()
