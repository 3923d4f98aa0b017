"""nbgrader configuration for the course (loaded by the `curso` CLI)."""

from autograder.grading.preprocessors import RESTORED_CELL
from autograder.reports.feedback import TEMPLATES

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

c.ClearSolutions.code_stub = {"python": "# TU CÓDIGO AQUÍ\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "ESCRIBE AQUÍ TU RESPUESTA"
c.ClearSolutions.enforce_metadata = True

# Student cells run in a sealed kernel (bubblewrap); test cells run in the grader (autograder.grading.verdict).
# Lesson cells are quick: a cell that runs longer is an infinite loop.
c.SandboxedExecute.timeout = 30

# nbgrader fails a test cell that writes to stderr: warnings (PyTorch's UserWarning...),
# logging or debugging prints must not cost points, so stderr is dropped before grading.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"[\s\S]"

# A deleted or edited test cell comes back from the gradebook.
c.OverwriteCells.add_missing_cells = True
c.OverwriteCells.missing_cell_notification = RESTORED_CELL

c.Autograde.exporter_class = "autograder.grading.preprocessors.AutogradeExporter"
c.Autograde.autograde_preprocessors = [
    "autograder.grading.execute.SandboxedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
]  # nbgrader's list but its last CheckCellMetadata: nothing here changes the metadata it checked before running
# Feedback: the course's Spanish template (autograder/reports/plantillas/retroalimentacion) in place of
# nbgrader's English one; answers nobody has graded by hand yet say so; MathJax inside each page.
# Set on FeedbackExporter, not HTMLExporter, which is also the formgrader's (with its own template).
c.GenerateFeedback.exporter_class = "autograder.reports.feedback.FeedbackExporter"
c.FeedbackExporter.template_name = "retroalimentacion"
c.FeedbackExporter.extra_template_basedirs = [str(TEMPLATES)]
c.GenerateFeedback.preprocessors = [
    "autograder.reports.feedback.GetGradesAndPending",
    "autograder.grading.preprocessors.HideHiddenTests",
    "autograder.reports.feedback.InlineMathJax",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
