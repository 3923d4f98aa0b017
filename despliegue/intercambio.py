"""Lo que el instructor mueve por el intercambio de nbgrader, con su cuenta (la del formgrader).

    intercambio.py publicar LECCION    los alumnos la ven en su lista «Assignments»
    intercambio.py recoger LECCION     la última entrega de cada alumno, en <directorio>/recogidas/
    curso calificar <directorio>/recogidas --directorio <directorio> --leccion LECCION
    (preguntas de reflexión en el formgrader)
    intercambio.py informes LECCION    el CSV y la gráfica, con las notas puestas a mano
    intercambio.py devolver LECCION    la retroalimentación de cada alumno (con todas sus notas) al intercambio

Each student's collected folder is renamed to the id that ``curso calificar`` gives them (``ana.garcia``
→ ``ana_garcia``): the gradebook, the CSV and the formgrader then name everyone the same way. nbgrader
finds each student's feedback by the secret of their submission, which ``devolver`` copies next to it.
"""

import logging
import os
import pwd
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clase import REPO, Argumentos, ClaseInvalida, leer

sys.path.insert(0, str(REPO))
from autograder import course
from autograder.submissions import student_id

RECOGIDAS = "recogidas"
# What nbgrader needs beside a feedback page to give it to the student who submitted.
SUBMISSION_FILES = ("timestamp.txt", "submission_secret.txt")


class Fallo(RuntimeError):
    """A step that could not be done (message in Spanish)."""


def exchange_api(clase, **coursedir):
    """nbgrader's API with the workspace's own configuration: exchange, course id, gradebook."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(clase.directorio)).load_config()
    for name, value in coursedir.items():
        config.CourseDirectory[name] = value
    config.Application.log_level = logging.INFO
    return NbGraderAPI(config=config)


def _check(result, clase, what):
    """An nbgrader result that failed becomes a Spanish error; its technical log stays in informes/registros/."""
    if result["success"]:
        return result
    log = clase.directorio / "informes" / "registros" / f"intercambio_{what}.txt"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"{result.get('log') or ''}\n{result.get('error') or ''}", encoding="utf-8")
    raise Fallo(f"nbgrader no pudo {what.replace('_', ' ')}; el detalle técnico está en {log}")


def publicar(clase, leccion):
    _check(exchange_api(clase).release_assignment(leccion), clase, f"publicar_{leccion}")
    print(f"Publicada {leccion}: cada alumno la ve en su lista «Assignments» (menú Nbgrader) y la descarga.")


def recoger(clase, leccion):
    """Collect the latest submission of each student into recogidas/<id>/<leccion>/."""
    carpeta = clase.directorio / RECOGIDAS
    api = exchange_api(clase, submitted_directory=RECOGIDAS)
    _check(api.collect(leccion, update=True), clase, f"recoger_{leccion}")
    for entrega in sorted(carpeta.glob(f"*/{leccion}")):
        usuario = entrega.parent.name
        alumno = student_id(usuario)
        if alumno != usuario:
            destino = carpeta / alumno / leccion
            shutil.rmtree(destino, ignore_errors=True)
            destino.parent.mkdir(parents=True, exist_ok=True)
            entrega.rename(destino)
            if not any(entrega.parent.iterdir()):
                entrega.parent.rmdir()
    recogidas = sorted(p.parent.name for p in carpeta.glob(f"*/{leccion}"))
    print(f"{len(recogidas)} entregas de {leccion} en {carpeta}: {', '.join(recogidas) or 'ninguna'}.")
    print(f"Califícalas con: curso calificar {carpeta} --directorio {clase.directorio} --leccion {leccion}")


def informes(clase, leccion):
    """The CSV and the plot again, with the grades given by hand in the formgrader."""
    from autograder import report  # pandas, matplotlib: only here

    table = report.write_reports(course.gradebook_url(clase.directorio), leccion, {}, clase.directorio / "informes")
    print(f"Calificaciones de {leccion}: {clase.directorio / 'informes' / f'calificaciones_{leccion}.csv'}")
    for row in table.itertuples():
        print(f"  {row.alumno}: {row.total:g} / {row.maximo:g}")


def retroalimentacion(clase, leccion):
    """Each collected student's feedback page again (with the grades given by hand), beside their submission's
    secret; returns the students."""
    api = course.nbgrader_api(clase.directorio)
    alumnos = []
    for entrega in sorted((clase.directorio / RECOGIDAS).glob(f"*/{leccion}")):
        alumno = entrega.parent.name
        if not course.workspace_notebook(clase.directorio, "autograded", alumno, leccion).exists():
            print(f"! {alumno}: su entrega aún no está calificada (curso calificar).")
            continue
        _check(api.generate_feedback(leccion, alumno, force=True), clase, f"retroalimentar_{alumno}_{leccion}")
        page = course.workspace_notebook(clase.directorio, "feedback", alumno, leccion).with_suffix(".html")
        for name in SUBMISSION_FILES:
            if (entrega / name).exists():
                shutil.copy2(entrega / name, page.parent / name)
        alumnos.append(alumno)
    return alumnos


def devolver(clase, leccion):
    """Feedback with every grade, the CSV, and each page to the exchange for its student."""
    alumnos = retroalimentacion(clase, leccion)
    informes(clase, leccion)
    api = exchange_api(clase)
    devueltas = []
    for alumno in alumnos:
        feedback = course.workspace_notebook(clase.directorio, "feedback", alumno, leccion).parent
        if not all((feedback / name).exists() for name in SUBMISSION_FILES):
            print(f"! {alumno}: no llegó por el intercambio; su retroalimentación está en {feedback}.")
            continue
        _check(api.release_feedback(leccion, student_id=alumno), clase, f"devolver_{alumno}_{leccion}")
        devueltas.append(alumno)
    print(
        f"Retroalimentación de {leccion} devuelta a {len(devueltas)} alumnos: {', '.join(devueltas) or 'ninguno'}. "
        "La descargan en su lista «Assignments» («Fetch Feedback»)."
    )


ACCIONES = {"publicar": publicar, "recoger": recoger, "informes": informes, "devolver": devolver}


def main(argv=None):
    parser = Argumentos(
        prog="intercambio.py",
        description="Publica, recoge y devuelve lecciones por el intercambio de nbgrader (con la cuenta del "
        "instructor). Entre recoger y devolver: curso calificar y las preguntas de reflexión en el formgrader.",
    )
    parser.add_argument("accion", choices=list(ACCIONES), metavar="ACCION", help=", ".join(ACCIONES))
    parser.add_argument("leccion", metavar="LECCION", help="id de la lección, p. ej. 01_tensores_y_requires_grad")
    parser.add_argument("--clase", help="descripción del curso (por defecto $CURSO_CLASE o clase.toml)")
    args = parser.parse_args(argv)
    try:
        clase = leer(args.clase)
        course.find_lesson(args.leccion)
        yo = pwd.getpwuid(os.geteuid()).pw_name
        if yo != clase.instructor:
            raise Fallo(
                f"ejecútalo con la cuenta del instructor, no como «{yo}»: "
                f"sudo -u {clase.instructor} {sys.executable} {' '.join(sys.argv)}"
            )
        ACCIONES[args.accion](clase, args.leccion)
    except (ClaseInvalida, Fallo, ValueError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
