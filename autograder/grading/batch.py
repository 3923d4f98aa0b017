"""From a folder or zip of submissions to grades, feedback, CSV files and plots."""

import multiprocessing
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import nbformat
import torch
from rich.console import Console
from rich.progress import Progress

from autograder.course import available_lessons, find_lesson, gradebook_url
from autograder.grading import execute, grade, submissions
from autograder.reports import class_reports, grades
from autograder.sealed import sandbox
from autograder.sealed.kernel import FIRST_USES


@dataclass
class BatchResult:
    """Everything one grading run produced."""

    workspace: Path
    submissions: list
    outcomes: list
    tables: dict = field(default_factory=dict)
    seconds: float = 0.0

    def statuses(self, lesson_id):
        """``{student: Spanish status}`` for this run's submissions of one lesson."""
        notes = {}
        for submission in self.submissions:
            if submission.lesson == lesson_id:
                notes.setdefault(submission.student, []).extend(submission.problems + submission.warnings)
        for outcome in self.outcomes:
            if outcome.lesson == lesson_id and outcome.message:
                notes[outcome.student].append(outcome.message)
        return {student: "; ".join(texts) or grades.GRADED for student, texts in notes.items()}


def run(source, workspace, lesson_id=None, console=None, workers=None, sealed=True, spanish_csv=False):
    """Grade every submission in ``source`` inside the nbgrader workspace ``workspace``.

    ``workers`` submissions are graded at once (by default, one per core), each worker with
    its own sandbox whose imports are done before the first submission arrives. ``spanish_csv``
    writes the reports' CSV files for a spreadsheet in Spanish (see :mod:`autograder.reports.spreadsheets`).
    """
    with warnings.catch_warnings():
        # nbgrader's SQLAlchemy and nbformat warnings say nothing an instructor can act on.
        warnings.simplefilter("ignore")
        workers = workers or os.cpu_count() or 1
        return _run(source, workspace, lesson_id, console or Console(), workers, sealed, spanish_csv)


def _start_worker(sealed, uses):
    warnings.simplefilter("ignore")
    execute.kernel_uses = uses
    execute.sandbox(sealed)  # warm: torch and the rest imported before the first submission
    torch.set_num_threads(1)  # one core per worker, as in its kernels: more threads only wait for each other


def _collect(source, workspace, lesson_id, console):
    available = available_lessons()
    lessons = available if lesson_id is None else [find_lesson(lesson_id)]
    found = submissions.collect(
        source,
        workspace / "submitted",
        [lesson.id for lesson in available],
        default_lesson=lesson_id,
        expected_cells={lesson.id: lesson.cell_metadata() for lesson in lessons},
    )
    skipped = [s for s in found if s.lesson not in (lesson_id, None)] if lesson_id else []
    if skipped:
        console.print(f"Se omitieron {len(skipped)} entregas de otras lecciones (se pidió solo {lesson_id}).")
    found = [s for s in found if s not in skipped]
    for submission in found:
        for problem in submission.problems:
            console.print(f"[red]✗ {submission.student}[/red] ({submission.original}): {problem}")
        for warning in submission.warnings:
            console.print(f"[yellow]! {submission.student}[/yellow] ({submission.lesson}): {warning}")
        if submission.lesson and not submission.gradable:
            grade.forget(workspace, submission.student, submission.lesson)
    return found


def _first_uses(lessons):
    """The slow first uses (:data:`autograder.sealed.kernel.FIRST_USES`) that the lessons' code mentions: the only ones
    their sandboxes warm (an optimizer step costs half a second per sandbox, and most lessons take none)."""
    code = "\n".join(
        cell.source
        for lesson in lessons
        for cell in nbformat.read(lesson.source, as_version=4).cells
        if cell.cell_type == "code"
    )
    return sorted(use for use, mention in FIRST_USES.items() if mention in code)


@contextmanager
def _workers(count, sealed, lessons):
    """Grading processes, each with a sandbox warm for ``lessons``; they start at once, while the batch is
    collected."""
    uses = _first_uses(lessons)
    pool = ProcessPoolExecutor(
        count, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(sealed, uses)
    )
    try:
        yield pool
    finally:
        pool.shutdown(cancel_futures=True)


def _run(source, workspace, lesson_id, console, workers, sealed, spanish_csv):
    workspace = Path(workspace).resolve()
    result = BatchResult(workspace, [], [])
    lessons = available_lessons() if lesson_id is None else [find_lesson(lesson_id)]
    if sealed:
        sandbox.require_bubblewrap()  # here, in Spanish, not as a broken pool of workers
    with _workers(workers, sealed, lessons) as pool:
        pool.submit(time.sleep, 0)  # forks every worker now: their sandboxes warm up while we collect
        result.submissions = found = _collect(source, workspace, lesson_id, console)
        gradable = [s for s in found if s.gradable]
        if not gradable:
            console.print("[red]No hay ninguna entrega que se pueda calificar.[/red]")
        else:
            with console.status("Preparando el libro de calificaciones…"):
                names = {s.student: s.name for s in sorted(gradable, key=lambda s: s.student)}
                grade.prepare(workspace, sorted({s.lesson for s in gradable}), names)
            started = time.perf_counter()
            with Progress(console=console, transient=True) as progress:
                task = progress.add_task(f"Calificando ({workers} a la vez)", total=len(gradable))
                pending = [pool.submit(grade.grade_one, workspace, s.student, s.lesson, sealed) for s in gradable]
                for done, future in enumerate(as_completed(pending), start=1):
                    outcome = future.result()
                    result.outcomes.append(outcome)
                    if not outcome.graded:
                        console.print(f"[red]✗ {outcome.student}[/red] ({outcome.lesson}): {outcome.message}")
                    elif not console.is_terminal:  # a log has no progress bar: one line per submission
                        console.print(f"{done}/{len(pending)} calificada: {outcome.student} ({outcome.lesson})")
                    progress.advance(task)
            result.seconds = time.perf_counter() - started
    warn = partial(console.print, style="yellow", markup=False, soft_wrap=True)
    for lesson in sorted({s.lesson for s in found if s.lesson}):
        statuses = result.statuses(lesson)
        result.tables[lesson] = class_reports.write_reports(
            gradebook_url(workspace), lesson, statuses, workspace / "informes", spanish_csv, warn
        )
    why = class_reports.within_budget(class_reports.write_course, workspace) if result.tables else None
    if why:
        warn(class_reports.WARNING.format(what="la página del curso", why=why))
    return result
