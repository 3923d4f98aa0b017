"""``curso``: the instructor's command line, in Spanish."""

import argparse
import errno
import sys
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.table import Table

from autograder import course
from autograder.course import NOTEBOOKS, ROOT, exchange, find_lesson, publish, release
from autograder.course.demo import build_demo
from autograder.grading import batch
from autograder.reports import class_reports, lms, pages
from autograder.sealed.sandbox import SandboxUnavailable

console = Console()
# One line, whatever it quotes (brackets too).
warn = partial(console.print, style="yellow", markup=False, soft_wrap=True)


OS_ERRORS = {
    errno.ENOENT: "no existe",
    errno.EACCES: "no tienes permiso para usarlo",
    errno.EPERM: "no tienes permiso para usarlo",
    errno.ENOSPC: "no queda espacio en el disco",
    errno.EROFS: "el sistema de archivos es de solo lectura",
}
ARGPARSE_ERRORS = {
    "the following arguments are required": "faltan argumentos obligatorios",
    "unrecognized arguments": "argumentos no reconocidos",
    "invalid choice": "opción no válida",
    "choose from": "elige entre",
    "expected one argument": "se esperaba un valor",
    "argument ": "argumento ",
}


class SpanishFormatter(argparse.HelpFormatter):
    """Help text that starts with «uso:»."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, prefix="uso: " if prefix is None else prefix)


class SpanishParser(argparse.ArgumentParser):
    """argparse with its fixed English words in Spanish."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("add_help", False)
        kwargs.setdefault("formatter_class", SpanishFormatter)
        super().__init__(*args, **kwargs)
        self._positionals.title = "argumentos"
        self._optionals.title = "opciones"
        self.add_argument("-h", "--help", action="help", help="muestra esta ayuda y termina")

    def error(self, message):
        for english, spanish in ARGPARSE_ERRORS.items():
            message = message.replace(english, spanish)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def cmd_generar(args):
    lessons = [find_lesson(lesson_id) for lesson_id in args.lecciones] or None
    done = release.generate(args.destino, lessons)
    for lesson in done:
        console.print(f"[green]✔[/green] {lesson.id}")
    console.print(f"Cuadernos del estudiante en [bold]{args.destino}[/bold] (con el índice {release.INDEX_NAME}).")


def cmd_publicar(args):
    repository = args.repositorio or publish.github_repository()
    edition = publish.build(args.destino, repository)
    console.print(f"[green]✔[/green] Edición del estudiante en [bold]{edition}[/bold].")
    if repository:
        console.print(f"Los enlaces de Binder y de Colab apuntan a la rama estudiantes de {repository} (GitHub).")
    else:
        console.print(
            f"[yellow]Los enlaces de Binder y de Colab dicen {publish.PLACEHOLDER}[/yellow]: este repositorio no "
            "tiene un origin en GitHub. Publica otra vez con --repositorio USUARIO/REPOSITORIO (el repositorio de "
            "GitHub al que subirás la rama estudiantes)."
        )
    if args.rama:
        commit = publish.commit_to_branch(edition, args.rama)
        console.print(
            f"[green]✔[/green] Rama [bold]{args.rama}[/bold] en {commit[:10]}; "
            f"súbela con «git push origin {args.rama}»."
        )


def show_results(result):
    for lesson_id, table in result.tables.items():
        view = Table(title=f"{lesson_id}")
        for column in ("alumno", "automática", "total", "estado"):
            view.add_column(column)
        for row in table.itertuples():
            view.add_row(
                row.alumno,
                f"{row.puntos_automaticos:g} / {row.maximo_automatico:g}",
                f"{row.total:g} / {row.maximo:g}",
                row.estado,
            )
        console.print(view)
    if result.outcomes:
        count = len(result.outcomes)
        what = "Se calificó 1 entrega" if count == 1 else f"Se calificaron {count} entregas"
        console.print(f"{what} en {result.seconds:.0f} s ({result.seconds / count:.1f} s por entrega).")
    console.print(
        f"Calificaciones y gráficas en [bold]{result.workspace / 'informes'}[/bold]; "
        f"retroalimentación en [bold]{result.workspace / 'feedback'}[/bold]."
    )


def cmd_calificar(args):
    workspace = Path(args.directorio).resolve()
    if args.libro:
        course.GRADEBOOKS[workspace] = args.libro
    if args.libro or course.configured_gradebook(workspace):
        url = course.gradebook_url(workspace)
        course.check_gradebook(url)
        console.print(f"Libro de calificaciones: [bold]{course.without_password(url)}[/bold]")
    if args.sin_aislamiento:
        console.print("[yellow]Aviso:[/yellow] el código de los alumnos se ejecutará sin aislamiento (sin bubblewrap).")
    result = batch.run(
        args.entregas, args.directorio, args.leccion, console, args.procesos, not args.sin_aislamiento, args.csv_es
    )
    show_results(result)
    if args.formato_lms and result.tables:
        show_lms_export(workspace, args.formato_lms, args.csv_es)


def show_lms_export(workspace, formats, spanish_csv):
    paths, left_out = class_reports.export_lms(workspace, formats, spanish_csv)
    for path in paths:
        console.print(f"[green]✔[/green] Para el LMS: [bold]{path}[/bold]")
    if left_out:
        console.print(f"[yellow]Notas que no van en el archivo del LMS ({len(left_out)}):[/yellow]")
        for lesson, student, why in left_out:
            console.print(f"  {student} ({lesson.id}): {why}")


def cmd_resumen(args):
    workspace = Path(args.directorio).resolve()
    tables = []
    for lesson in class_reports.graded_lessons(workspace):
        url = course.gradebook_url(workspace)
        failed = []
        table = class_reports.write_reports(url, lesson.id, {}, workspace / "informes", args.csv_es, failed.append)
        tables.append((lesson, table))
        if failed:
            warn(*failed)
        else:
            console.print(f"[green]✔[/green] {lesson.id}: {len(table)} entregas; informe en clase_{lesson.id}.html")
    if not tables:
        raise ValueError(f"«{workspace}» no tiene ninguna lección calificada: califica antes con «curso calificar».")
    why = class_reports.within_budget(class_reports.write_course, workspace, tables)
    if why:
        warn(class_reports.WARNING.format(what="la página del curso", why=why))
    else:
        console.print(f"Informe del curso: [bold]{workspace / 'informes' / pages.COURSE_PAGE}[/bold]")
    if args.formato_lms:
        show_lms_export(workspace, args.formato_lms, args.csv_es)


def _exchange(step):
    """A ``curso`` command for one step of a class on JupyterHub (see :mod:`autograder.course.exchange`)."""

    def command(args):
        try:
            step(args.directorio, args.leccion, say=console.print)
        except exchange.ExchangeError as error:
            raise RuntimeError(str(error)) from None

    return command


def cmd_demo(args):
    lessons = [find_lesson(lesson_id) for lesson_id in args.lecciones] or None
    folder = Path(args.directorio) / "entregas_demo"
    build_demo(folder, lessons)
    console.print(f"Entregas de ejemplo creadas en [bold]{folder}[/bold].")
    show_results(batch.run(folder, args.directorio, console=console))


def _report_options(command):
    command.add_argument(
        "--formato-lms",
        action="append",
        choices=lms.FORMATS,
        metavar="{moodle,moodle-en,canvas}",
        help="escribe también las notas finales para importarlas en el LMS: moodle (la hoja de calificaciones de "
        "cada tarea, con Moodle en español), moodle-en (la misma, con Moodle en inglés) o canvas (el libro de "
        "calificaciones); puede repetirse. Una nota aún pendiente de revisión, o que no se pudo calificar, va vacía "
        "(nunca 0) y se avisa",
    )
    command.add_argument(
        "--csv-es",
        action="store_true",
        help="escribe los CSV para una hoja de cálculo en español (LibreOffice, Excel): separados por «;» y con "
        "coma decimal",
    )


def parser():
    main = SpanishParser(
        prog="curso",
        description="Herramientas del instructor de «Gradientes en PyTorch»: generar los cuadernos del "
        "estudiante y calificar entregas con nbgrader.",
    )
    commands = main.add_subparsers(title="órdenes", dest="orden", metavar="ORDEN", parser_class=SpanishParser)
    commands.required = True

    generar = commands.add_parser(
        "generar", help="regenera notebooks/ desde solutions/", description="Regenera los cuadernos del estudiante."
    )
    generar.add_argument("lecciones", nargs="*", metavar="LECCION", help="lecciones a generar (por defecto, todas)")
    generar.add_argument("--destino", type=Path, default=NOTEBOOKS, help="carpeta de salida (por defecto notebooks/)")
    generar.set_defaults(func=cmd_generar)

    calificar = commands.add_parser(
        "calificar",
        help="califica una carpeta o un .zip de entregas",
        description="Califica entregas: una carpeta alumno/leccion/leccion.ipynb, o el .zip que descarga el LMS "
        "(Moodle, Canvas). Escribe notas, retroalimentación HTML, un CSV por lección y gráficas.",
    )
    calificar.add_argument("entregas", type=Path, metavar="ENTREGAS", help="carpeta o archivo .zip con las entregas")
    calificar.add_argument("--leccion", help="califica solo esta lección (y asígnala a cuadernos con nombre ambiguo)")
    calificar.add_argument(
        "--directorio",
        type=Path,
        default=ROOT,
        help="espacio de trabajo de nbgrader (por defecto, la raíz del curso)",
    )
    calificar.add_argument(
        "--libro",
        metavar="URL",
        help="libro de calificaciones de nbgrader, p. ej. postgresql://usuario@/curso?host=/var/run/postgresql "
        "(por defecto, el CourseDirectory.db_url del nbgrader_config.py del espacio de trabajo o, si no lo hay, "
        "su gradebook.db)",
    )
    calificar.add_argument(
        "--procesos", type=int, default=None, help="entregas que se califican a la vez (por defecto, una por núcleo)"
    )
    calificar.add_argument(
        "--sin-aislamiento",
        action="store_true",
        help="ejecuta el código de los alumnos sin bubblewrap (solo si confías en todas las entregas)",
    )
    _report_options(calificar)
    calificar.set_defaults(func=cmd_calificar)

    resumen = commands.add_parser(
        "resumen",
        help="rehace los informes de todas las lecciones calificadas y la página del curso",
        description="Rehace, con las notas puestas a mano hasta ahora, los informes de cada lección calificada en el "
        "espacio de trabajo (calificaciones, qué falló la clase, entregas parecidas y la página de la clase) y escribe "
        "informes/curso.html, con todas las lecciones. Con --formato-lms, también los archivos para importar las notas "
        "en Moodle o Canvas.",
    )
    resumen.add_argument(
        "--directorio",
        type=Path,
        default=ROOT,
        help="espacio de trabajo de nbgrader (por defecto, la raíz del curso)",
    )
    _report_options(resumen)
    resumen.set_defaults(func=cmd_resumen)

    publicar = commands.add_parser(
        "publicar",
        help="crea la edición del estudiante (sin soluciones ni pruebas ocultas)",
        description="Crea la edición del estudiante: los cuadernos de notebooks/, el paquete del estudiante "
        "(estudiante/: las comprobaciones que importan, su README, requirements.txt, abrir_curso.py y el Makefile) "
        "y binder/; nada de solutions/, de las pruebas ocultas ni de las herramientas del instructor. Con --rama la "
        "guarda también como una rama de git lista para subir.",
    )
    publicar.add_argument(
        "destino",
        type=Path,
        nargs="?",
        default=ROOT.parent / f"{ROOT.name}-estudiantes",
        help="carpeta de salida (por defecto, junto al repositorio: <curso>-estudiantes)",
    )
    publicar.add_argument("--rama", metavar="RAMA", help="guarda la edición como el siguiente commit de esta rama")
    publicar.add_argument(
        "--repositorio",
        metavar="USUARIO/REPOSITORIO",
        help="repositorio de GitHub de la edición, para los enlaces de Binder y Colab "
        "(por defecto, el del origin de este repositorio, si está en GitHub)",
    )
    publicar.set_defaults(func=cmd_publicar)

    steps = (
        ("repartir", exchange.release, "reparte una lección a la clase por el intercambio de nbgrader"),
        ("recoger", exchange.collect, "recoge la última entrega de cada alumno en recogidas/"),
        ("informes", exchange.reports, "rehace el CSV y la gráfica con las notas puestas a mano"),
        ("devolver", exchange.give_back, "devuelve a cada alumno su retroalimentación, con todas sus notas"),
    )
    for name, step, text in steps:
        command = commands.add_parser(
            name,
            help=f"{text} (clase en JupyterHub)",
            description=f"{text[0].upper()}{text[1:]}. Se ejecuta con la cuenta del instructor, en su espacio de "
            "trabajo (el del nbgrader_config.py que crea despliegue/preparar.py). El recorrido de cada semana: "
            "repartir, recoger, curso calificar, reflexiones en el formgrader, devolver.",
        )
        command.add_argument("leccion", metavar="LECCION", help="id de la lección, p. ej. 01_tensores_y_requires_grad")
        command.add_argument(
            "--directorio", type=Path, default=Path("."), help="espacio de trabajo de la clase (por defecto, este)"
        )
        command.set_defaults(func=_exchange(step))

    demo = commands.add_parser(
        "demo",
        help="crea entregas de ejemplo y las califica",
        description="Crea entregas de ejemplo (correcta, en blanco, con valores fijos, rotas...) y las califica.",
    )
    demo.add_argument("lecciones", nargs="*", metavar="LECCION", help="lecciones (por defecto, todas)")
    demo.add_argument("--directorio", type=Path, default=ROOT / "demo", help="espacio de trabajo (por defecto demo/)")
    demo.set_defaults(func=cmd_demo)
    return main


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except OSError as error:
        reason = OS_ERRORS.get(error.errno, error.strerror or "error del sistema")
        console.print(f"[red]Error:[/red] «{error.filename or ''}»: {reason}.")
        return 1
    except SandboxUnavailable as error:
        console.print(f"[red]Error:[/red] {error}")
        return 3
    except (ValueError, RuntimeError) as error:
        console.print(f"[red]Error:[/red] {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
