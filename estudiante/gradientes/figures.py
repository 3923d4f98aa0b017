"""Every figure of a lesson shown with a Spanish description that a screen reader reads.

JupyterLab 4.5 draws an image output as an ``<img>`` without ``alt`` (it ignores the output's metadata), and
nbconvert's templates give an SVG none, so the description is text: its own output right under the figure,
which both show. A PNG also carries a short ``alt`` in its metadata, which nbconvert's classic template (the
feedback page's) writes. ``show_figure`` records, in the output's metadata, the series of a plot that only
colour tells apart; the course's tests read it.
"""

import html

PREFIX = "Descripción de la figura:"
METADATA = "gradientes/figura"  # output metadata: {"solo_color": [...]} on the figure, {"descripcion": True} after


def colour_only(figure):
    """Series of ``figure`` that share line style, marker and kind with another series of other colour."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex

    problems = []
    for number, axes in enumerate(figure.axes, 1):
        styles = {}  # (kind, style...) -> {colour: label}
        for line in axes.get_lines():
            if len(line.get_xdata()):
                marker = line.get_marker() if line.get_marker() not in ("", " ", None) else "None"
                key = ("línea", line.get_linestyle(), str(marker))
                styles.setdefault(key, {})[to_hex(line.get_color())] = line.get_label()
        for points in axes.collections:
            if isinstance(points, PathCollection) and len(points.get_offsets()) and points.get_paths():
                faces = points.get_facecolors()
                filled = bool(len(faces)) and faces[0][3] > 0
                colour = to_hex(faces[0] if filled else points.get_edgecolors()[0])
                key = ("puntos", points.get_paths()[0].vertices.round(3).tobytes(), filled)
                styles.setdefault(key, {})[colour] = points.get_label()
        for key, labels in styles.items():
            if len(labels) > 1:
                problems.append(
                    f"ejes {number}: {key[0]} que solo se distinguen por el color: {sorted(labels.values())}"
                )
    return problems


def axes_text(axes):
    """«eje horizontal …, eje vertical …» of matplotlib ``axes``: each label and the range it shows (the data's, or
    the limits the code set)."""
    texts = []
    for name, label, limits, data, auto, scale in (
        ("horizontal", axes.get_xlabel(), axes.get_xlim(), axes.dataLim.intervalx, axes.get_autoscalex_on(), "x"),
        ("vertical", axes.get_ylabel(), axes.get_ylim(), axes.dataLim.intervaly, axes.get_autoscaley_on(), "y"),
    ):
        low, high = data if auto else limits
        log = "logarítmica" not in label and getattr(axes, f"get_{scale}scale")() == "log"
        low, high = (f"{value:.0f}" if 1000 <= abs(value) < 1e6 else f"{value:.3g}" for value in (low, high))
        texts.append(f"eje {name} «{label}» de {low} a {high}{', en escala logarítmica' if log else ''}")
    return " y ".join(texts)


def title(figure):
    """The figure's title, or its axes' titles."""
    return figure.get_suptitle() or " / ".join(axes.get_title() for axes in figure.axes if axes.get_title())


def image_metadata(figure):
    """Metadata of a PNG of ``figure``: its ``alt`` and the series that only colour tells apart."""
    alt = f"Gráfica «{title(figure)}»" if title(figure) else "Gráfica"
    alt += "; su descripción está justo debajo."
    return {"image/png": {"alt": alt}, METADATA: {"solo_color": colour_only(figure)}}


def describe(description):
    """Show ``description`` as a line of text right under a figure."""
    from IPython.display import display

    text = " ".join(description.split())
    bundle = {
        "text/html": f"<p><strong>{PREFIX}</strong> {html.escape(text)}</p>",
        "text/plain": f"{PREFIX} {text}",
    }
    display(bundle, raw=True, metadata={METADATA: {"descripcion": True}})


def draws_pictures():
    """Whether this kernel shows images (the grader's shows text only: there, the description stands alone)."""
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and bool({"image/png", "image/svg+xml"} & set(shell.display_formatter.active_types))


def show_figure(figure, description):
    """Show ``figure`` (a matplotlib figure or a graphviz graph) and, right under it, its ``description``."""
    from IPython.display import display

    if hasattr(figure, "savefig"):  # matplotlib
        import matplotlib.pyplot as plt

        if draws_pictures():
            display(figure, metadata=image_metadata(figure))
        plt.close(figure)
    elif draws_pictures():  # a graph: its nodes are told apart by their text, not checked here
        display(figure, metadata={METADATA: {"solo_color": []}})
    describe(description)
