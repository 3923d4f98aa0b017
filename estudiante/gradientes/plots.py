"""Plots that the lessons share: a function with its tangent, and a slider to move it."""

import base64
import io

import matplotlib.pyplot as plt
import torch

from .figures import describe, image_metadata, show_figure


def value_and_slope(fn, x0):
    """Value of ``fn`` at ``x0`` and its derivative there, computed by autograd."""
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    y = fn(x)
    y.backward()
    return y.item(), x.grad.item()


def plot_tangent(fn, x0, *, xlim=(-3.0, 3.0), title=None, ax=None):
    """Draw ``fn`` and its tangent line at ``x0`` (slope from autograd); return the axes."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    xs = torch.linspace(*xlim, 200, dtype=torch.float64)
    with torch.no_grad():
        ys = fn(xs)
    y0, slope = value_and_slope(fn, x0)
    ax.plot(xs, ys, "-", label="f(x)")
    ax.plot(xs, y0 + slope * (xs - x0), "--", label=f"tangente en x = {x0:.2f}")
    ax.plot([x0], [y0], "o", color="black")
    margin = 0.15 * float(ys.max() - ys.min() + 1e-9)
    ax.set_ylim(float(ys.min()) - margin, float(ys.max()) + margin)
    ax.set_title(title or f"Pendiente en x = {x0:.2f}: f'(x) = {slope:.3f}")
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    return ax


def describe_tangent(fn, x0, *, xlim=(-3.0, 3.0)):
    """What ``plot_tangent(fn, x0, xlim=xlim)`` shows, in Spanish, with the numbers it draws."""
    y0, slope = value_and_slope(fn, x0)
    if abs(slope) < 5e-4:
        trend = "es horizontal"
    else:
        trend = f"{'sube' if slope > 0 else 'baja'} de izquierda a derecha"
    return (
        f"eje horizontal x, de {xlim[0]:g} a {xlim[1]:g}, y eje vertical f(x). La curva f(x) va en línea continua y "
        f"su recta tangente en x = {x0:.2f} en línea discontinua; el punto de tangencia, (x, f(x)) = ({x0:.2f}, "
        f"{y0:.3f}), es un círculo negro. La pendiente de la tangente es f'(x) = {slope:.3f}: la tangente {trend}."
    )


def _picture(fn, x0, xlim):
    """The tangent at ``x0`` as a base64 PNG, and the PNG's metadata."""
    figure, ax = plt.subplots(figsize=(6, 4))
    plot_tangent(fn, x0, xlim=xlim, ax=ax)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    metadata = image_metadata(figure)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii"), metadata


def tangent_slider(fn, *, xlim=(-3.0, 3.0), x0=0.0, step=0.05):
    """An ipywidgets slider that moves ``x`` and redraws the tangent and its gradient; where widgets do not
    render, the tangent at ``x0`` as a picture. Shows it and returns the widget."""
    from IPython.display import display
    from ipywidgets import FloatSlider, interactive

    def draw(x):
        figure, ax = plt.subplots(figsize=(6, 4))
        plot_tangent(fn, x, xlim=xlim, ax=ax)
        show_figure(figure, "La tangente que elige el deslizador: " + describe_tangent(fn, x, xlim=xlim))

    slider = FloatSlider(value=x0, min=xlim[0], max=xlim[1], step=step, description="x", continuous_update=False)
    widget = interactive(draw, x=slider)
    # One output: the slider where widgets render; its first picture and a Spanish line where they do not (Colab
    # with widgets off, a static view of the notebook). The view is written out, as ipywidgets 7 and 8 both read it.
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    picture, metadata = _picture(fn, x0, xlim)
    bundle = {
        "application/vnd.jupyter.widget-view+json": view,
        "image/png": picture,
        "text/plain": (
            f"(Aquí los widgets están desactivados y el deslizador no se muestra: la figura es la tangente en "
            f"x = {x0:.2f}. Cambia x0 en la llamada para verla en otro punto.)"
        ),
    }
    display(bundle, raw=True, metadata=metadata)
    describe(
        f"un deslizador mueve x entre {xlim[0]:g} y {xlim[1]:g} (pasos de {step:g}) y redibuja la curva con su "
        f"tangente en ese x; debajo de cada dibujo se describe la tangente elegida. Sin widgets, la figura fija es "
        f"la de x = {x0:.2f}: " + describe_tangent(fn, x0, xlim=xlim)
    )
    return widget
