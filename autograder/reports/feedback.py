"""The feedback page in Spanish: nbgrader's exporter with the course's template, pending answers, MathJax inside.

``nbgrader_config.py`` wires these into nbgrader's GenerateFeedback, so ``curso calificar``, the
formgrader's «Generate Feedback» button and ``nbgrader generate_feedback`` all write the same page.
"""

import copy
import functools
import importlib.resources
import secrets
from pathlib import Path

import bleach
import jinja2
import nbformat
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbgrader.preprocessors import GetGrades, NbGraderPreprocessor
from traitlets import Bool

from autograder.grading.preprocessors import ValidatedOnce

# nbconvert templates of the course; ``retroalimentacion`` is the feedback page.
TEMPLATES = Path(__file__).resolve().parent / "plantillas"
# A page's size in bytes, MathJax aside (a lesson's page is about 0.5 MB); a notebook too big for it is cut.
PAGE_LIMIT = 2 * 1024**2
CELL_BUDGET, MIN_CELL_BUDGET = 20_000, 100  # characters first kept of each cell when cutting, and the fewest
CELLS_SHOWN = 40  # when cutting, ungraded cells are shown until they add up to this many cells' budgets
# Where MathJax goes in the rendered page (unguessable, so that no output of the student's can take its place).
MATHJAX_MARK = f"/* mathjax-{secrets.token_hex(16)} */"
# What the HTML of the page's text may hold: what Markdown writes, and the lessons' ``<details>``. The student edits
# every text and every output of the notebook, and the instructor opens the page where a script would act for them.
SAFE_TAGS = frozenset(bleach.ALLOWED_TAGS) | {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "span", "div", "table", "thead", "tbody", "tr",
    "th", "td", "img", "details", "summary", "sub", "sup", "del", "s", "dl", "dt", "dd", "kbd",
}  # fmt: skip
SAFE_ATTRIBUTES = {"*": ["class", "id", "title"], "a": ["href", "title"], "img": ["src", "alt"], "details": ["open"]}


class FeedbackExporter(ValidatedOnce, HTMLExporter):
    """The HTML exporter of feedback only.

    Its template is configured on this class (``c.FeedbackExporter``), not on ``HTMLExporter``: the
    formgrader renders its grading pages with an ``HTMLExporter`` of the same configuration, with
    its own template.
    """

    sanitize_html = Bool(True, help="El HTML del alumno (textos y salidas) sin scripts ni atributos activos.").tag(
        config=True
    )

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = _COMPILED
        environment.filters["clean_html"] = clean_html
        return environment

    def from_notebook_node(self, nb, resources=None, **kw):
        """The page, at most ``PAGE_LIMIT`` bytes besides MathJax: a notebook too big for it is shown with
        its cells cut shorter and shorter (graded cells always stay), each cut said in Spanish."""
        html, resources = self._page(nb, resources, **kw)
        budget = CELL_BUDGET
        while _size(html) > PAGE_LIMIT and budget >= MIN_CELL_BUDGET:
            html, resources = self._page(bounded(nb, budget), resources, **kw)
            budget //= 8
        if _size(html) > PAGE_LIMIT:
            html, resources = self._page(bounded(nb, 0), resources, **kw)
        # MathJax (2 MB of script) goes in last, into the finished page.
        return html.replace(MATHJAX_MARK, mathjax_source(), 1), resources

    def _page(self, nb, resources, **kw):
        # HTMLExporter's own steps but its last pass over the page with an HTML parser (BeautifulSoup), which
        # marks images and JupyterLab cells: a feedback page has neither (no figures are drawn while grading,
        # and the template is the classic one). That pass took a third of the time of writing a page.
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        resources = self._init_resources(resources)
        widgets = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
        self.register_filter("highlight_code", functools.partial(_highlighted, default=lexer))
        self.register_filter("filter_data_type", widgets)
        return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    @jinja2.pass_context
    def markdown2html(self, context, source):
        # The lesson's text is the same in every submission: each one rendered once per process.
        if context.get("cell", {}).get("attachments") or self.embed_images or self.lexer_options:
            return clean_html(super().markdown2html(context, source))
        return _markdown(source, self.anchor_link_text, self.exclude_anchor_links)


def clean_html(html):
    """``html`` with only :data:`SAFE_TAGS` and :data:`SAFE_ATTRIBUTES` (no script, handler or ``javascript:``)."""
    return bleach.clean(str(html), tags=SAFE_TAGS, attributes=SAFE_ATTRIBUTES)


def _size(html):
    return len(html.encode("utf-8", errors="replace"))


def _cut(text, limit, what):
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {what} recortado en esta página: {len(text) - limit} caracteres más]\n"


def bounded(nb, budget):
    """A copy of ``nb`` for a page of bounded size: each cell's code or text and its outputs cut to ``budget``
    characters, and, past ``budget * CELLS_SHOWN`` characters in all, the ungraded cells left out (said in a
    note). Graded cells (their score and the grader's message) always stay; with ``budget`` 0 they alone do.
    """
    nb = copy.deepcopy(nb)
    cells, shown, left_out = [], 0, 0
    for cell in nb.cells:
        if not cell.metadata.get("nbgrader", {}).get("grade"):
            if shown > budget * CELLS_SHOWN:
                left_out += 1
                continue
            cell.source = _cut(cell.source, budget, "texto" if cell.cell_type == "markdown" else "código")
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output.text = _cut(output.text, budget, "salida")
            elif "data" in output:
                output.data = {"text/plain": _cut(str(output.data.get("text/plain", "")), budget, "salida")}
            elif output.get("output_type") == "error":
                output.traceback = [_cut("\n".join(map(str, output.get("traceback", []))), budget, "error")]
        shown += len(cell.source) + sum(len(str(output)) for output in cell.get("outputs", []))
        cells.append(cell)
    if left_out:
        cells.append(nbformat.v4.new_markdown_cell(f"*[{left_out} celdas más no caben en esta página.]*"))
    nb.cells = cells
    return nb


@functools.lru_cache(maxsize=4096)
def _markdown(source, anchor_link_text, exclude_anchor_links):
    renderer = IPythonRenderer(
        escape=False, anchor_link_text=anchor_link_text, exclude_anchor_links=exclude_anchor_links
    )
    return clean_html(MarkdownWithMath(renderer=renderer).render(source))


@functools.lru_cache(maxsize=4096)
def _highlight(source, language, magics_language):
    metadata = {"magics_language": magics_language} if magics_language else None
    return Highlight2HTML(pygments_lexer=language)(source, metadata=metadata)


def _highlighted(source, language=None, metadata=None, *, default):
    """nbconvert's ``highlight_code`` filter, each cell's code highlighted once per process (most cells are
    the lesson's own, the same in every submission)."""
    return _highlight(source, language or default, (metadata or {}).get("magics_language"))


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in memory for the whole process: every feedback page uses a new exporter
    (and a new jinja environment), which would compile the same templates again."""

    def __init__(self):
        self.compiled = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket):
        self.compiled[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()


class GetGradesAndPending(GetGrades):
    """nbgrader's scores and comments, and which answers still wait for the instructor.

    An answer graded by hand that nobody has graded yet has neither an automatic nor a manual
    score: nbgrader counts it as 0, the template says it is pending. A blank answer is not
    pending: nbgrader gives it 0 automatically.
    """

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        pending = [cell.metadata.nbgrader for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("pending")]
        resources["nbgrader"]["pending"] = len(pending)
        resources["nbgrader"]["pending_points"] = sum(float(meta["points"]) for meta in pending)
        return nb, resources

    def _get_score(self, cell, resources):
        # nbgrader's, and whether it is pending, from the same query.
        meta = cell.metadata.nbgrader
        grade = self.gradebook.find_grade(meta["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        meta["score"], meta["points"] = grade.score, grade.max_score
        meta["pending"] = grade.auto_score is None and grade.manual_score is None


@functools.cache
def mathjax_source():
    """MathJax 3 in one file (TeX input, SVG output, every TeX extension): it downloads nothing else."""
    try:
        path = importlib.resources.files("mathjax") / "static" / "mathjax" / "es5" / "tex-svg-full.js"
    except ModuleNotFoundError:
        raise RuntimeError(
            "falta MathJax (el paquete django-static-mathjax de requirements.txt): ejecuta «make instalar»"
        ) from None
    # Inside a <script> element, "</script" would end it early.
    return path.read_text(encoding="utf-8").replace("</script", "<\\/script")


class InlineMathJax(NbGraderPreprocessor):
    """Put MathJax inside each feedback page, so that its formulas render offline wherever the page goes."""

    def preprocess(self, nb, resources):
        mathjax_source()  # if it is missing, say so before writing any page
        resources["mathjax_inline"] = MATHJAX_MARK
        return nb, resources
