"""Helpers shared by the tests."""

import re
import shutil
from contextlib import contextmanager

import nbformat

from autograder.course import available_lessons

LESSONS = available_lessons()
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


def autograded_tests(notebook):
    """Autograded test cells (grade, not solution), in order."""
    return [c for c in notebook.cells if nbgrader_meta(c).get("grade") and not nbgrader_meta(c).get("solution")]


def solution_code_cells(notebook):
    return [c for c in notebook.cells if nbgrader_meta(c).get("solution") and c.cell_type == "code"]


def read(path):
    return nbformat.read(path, as_version=4)


def points(cells):
    return sum(nbgrader_meta(cell)["points"] for cell in cells)


def row(result, lesson, student):
    """One student's row of a batch's grades table for a lesson."""
    table = result.tables[lesson.id]
    return table[table["alumno"] == student].iloc[0]


def autograded_notebook(result, lesson, student):
    return read(result.workspace / "autograded" / student / lesson.id / lesson.notebook_name)


CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@contextmanager
def chromium(profile, *flags):
    """Debian's headless Chromium, driven by selenium (``make test`` installs both)."""
    assert CHROMIUM and CHROMEDRIVER, "hace falta Chromium: scripts/instalar-sistema.sh navegador"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

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
        f"--user-data-dir={profile}",
        *flags,
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
