"""``curso recoger`` takes a submission's owner from the operating system, never from its name.

Fast and without a hub: the inbound folder of a temporary exchange, with entries given to system accounts
by ``chown`` (so it runs as root). tests/test_despliegue.py does the same with real students on a hub.
"""

import os
import pwd

import pytest

from autograder.course import exchange

LESSON = "01_tensores_y_requires_grad"
STUDENT, OTHER = "nobody", "daemon"  # accounts every Debian system has

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="hace falta ser root para dar archivos a otras cuentas")


def entry(inbound, name, owner, timestamp, **extra):
    """An inbound entry as nbgrader's submit leaves it, owned by ``owner``."""
    folder = inbound / f"{name}+{LESSON}+{timestamp}+abc"
    folder.mkdir()
    (folder / "timestamp.txt").write_text(timestamp)
    (folder / f"{LESSON}.ipynb").write_text("{}")
    for file, make in extra.items():
        make(folder / file)
    account = pwd.getpwnam(owner)
    for path in (folder, *folder.iterdir()):
        os.lchown(path, account.pw_uid, account.pw_gid)
    return folder


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "intercambio"
    inbound = root / "curso" / "inbound"
    inbound.mkdir(parents=True)
    space = tmp_path / "espacio"
    space.mkdir()
    (space / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(space)!r}\n"
        "c.CourseDirectory.course_id = 'curso'\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{space}/gradebook.db'\n"
        f"c.Exchange.root = {str(root)!r}\n"
    )
    return space, inbound


def test_una_entrega_a_nombre_de_otro_no_se_recoge(workspace):
    space, inbound = workspace
    entry(inbound, STUDENT, STUDENT, "2024-01-01 10:00:00.000000 UTC")
    forged = entry(inbound, STUDENT, OTHER, "2024-01-02 10:00:00.000000 UTC")
    said = []
    assert exchange.collect(space, LESSON, say=said.append) == [STUDENT]
    collected = space / "recogidas" / STUDENT / LESSON
    assert (collected / "timestamp.txt").read_text() == "2024-01-01 10:00:00.000000 UTC"
    assert f"«{forged.name}» dice ser de {STUDENT}, pero es de la cuenta «{OTHER}», no de «{STUDENT}»" in said[0]
    table = (space / exchange.REFUSED).read_text().splitlines()
    assert table[0] == ",".join(exchange.REFUSED_COLUMNS) and len(table) == 2
    exchange.collect(space, LESSON, say=said.append)  # reported again, listed once
    assert len((space / exchange.REFUSED).read_text().splitlines()) == 2


def test_una_entrega_con_enlaces_tuberias_o_un_nombre_sin_fecha_no_se_recoge(workspace, tmp_path):
    space, inbound = workspace
    secret = tmp_path / "de_otro.txt"
    secret.write_text("trabajo de otra persona")
    cases = {"enlace.txt": lambda path: path.symlink_to(secret), "tuberia": os.mkfifo}
    for day, (name, make) in enumerate(cases.items(), start=1):
        folder = entry(inbound, STUDENT, STUDENT, f"2024-01-0{day} 10:00:00.000000 UTC", **{name: make})
        assert f"contiene «{name}», que no es un archivo ni una carpeta" in exchange.refusal(folder)
    undated = entry(inbound, STUDENT, STUDENT, "ayer")
    assert exchange.refusal(undated) == "su nombre no tiene la fecha de una entrega"
    assert exchange.refusal(entry(inbound, "no-existe", STUDENT, "2024-01-04 10:00:00.000000 UTC")) == (
        "no existe la cuenta «no-existe»"
    )
    said = []
    assert exchange.collect(space, LESSON, say=said.append) == []  # nbgrader alone stops at the undated name
    assert sum("Entrega rechazada" in line for line in said) == 4
    assert not (space / "recogidas" / STUDENT / LESSON / "tuberia").exists()
