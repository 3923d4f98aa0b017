"""Detect a student's monkeypatching of torch before trusting any comparison.

The snapshot is taken when this module is first imported: in the lesson's first
(read-only) cell and, at grading time, by the kernel before any student code.
Lookups are static (no descriptor binding), so a method added to a subclass to
shadow an inherited one is caught as well.
"""

from inspect import getattr_static

import torch

_NAMESPACES = {"torch": torch, "torch.Tensor": torch.Tensor, "torch.autograd": torch.autograd}
_MISSING = object()


def _snapshot():
    snapshot = {}
    for label, space in _NAMESPACES.items():
        values = {name: getattr_static(space, name, _MISSING) for name in dir(space)}
        snapshot[label] = {name: value for name, value in values.items() if callable(value)}
    return snapshot


_ORIGINAL = _snapshot()


def tampered_names():
    """Return the dotted names of torch callables replaced since the snapshot."""
    return [
        f"{label}.{name}"
        for label, space in _NAMESPACES.items()
        for name, original in _ORIGINAL[label].items()
        if getattr_static(space, name, _MISSING) is not original
    ]
