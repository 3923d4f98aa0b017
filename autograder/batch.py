"""From a folder or zip of submissions to grades, feedback, CSV files and plots."""

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from autograder import grade, report, submissions
from autograder.course import available_lessons, find_lesson, gradebook_url


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
        return {student: "; ".join(texts) or report.GRADED for student, texts in notes.items()}


def run(source, workspace, lesson_id=None, console=None):
    """Grade every submission in ``source`` inside the nbgrader workspace ``workspace``."""
    with warnings.catch_warnings():
        # nbgrader's SQLAlchemy and nbformat warnings say nothing an instructor can act on.
        warnings.simplefilter("ignore")
        return _run(source, workspace, lesson_id, console or Console())


def _collect(source, workspace, lesson_id, console):
    available = available_lessons()
    lessons = available if lesson_id is None else [find_lesson(lesson_id)]
    found = submissions.collect(
        source,
        workspace / "submitted",
        [lesson.id for lesson in available],
        default_lesson=lesson_id,
        expected_ids={lesson.id: lesson.cell_ids() for lesson in lessons},
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


def _run(source, workspace, lesson_id, console):
    workspace = Path(workspace).resolve()
    found = _collect(source, workspace, lesson_id, console)
    gradable = [s for s in found if s.gradable]
    result = BatchResult(workspace, found, [])
    if not gradable:
        console.print("[red]No hay ninguna entrega que se pueda calificar.[/red]")
    else:
        with console.status("Preparando el libro de calificaciones…"):
            grade.prepare(workspace, sorted({s.lesson for s in gradable}))
        started = time.perf_counter()
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("Calificando", total=len(gradable))
            for submission in gradable:
                progress.update(task, description=f"Calificando {submission.student} · {submission.lesson}")
                outcome = grade.grade_one(workspace, submission.student, submission.lesson)
                result.outcomes.append(outcome)
                if not outcome.graded:
                    console.print(f"[red]✗ {outcome.student}[/red] ({outcome.lesson}): {outcome.message}")
                progress.advance(task)
        result.seconds = time.perf_counter() - started
    for lesson in sorted({s.lesson for s in found if s.lesson}):
        statuses = result.statuses(lesson)
        result.tables[lesson] = report.write_reports(gradebook_url(workspace), lesson, statuses, workspace / "informes")
    return result
