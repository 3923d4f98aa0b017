"""Detect a student's monkeypatching of torch before trusting any comparison.

The snapshot is taken when this module is first imported: in the lesson's first
(read-only) cell and, at grading time, by the kernel before any student code.
"""

import torch

_NAMESPACES = {
    "torch": torch,
    "torch.Tensor": torch.Tensor,
    "torch.Tensor (base)": torch._C.TensorBase,
    "torch.autograd": torch.autograd,
}


def _snapshot():
    return {
        label: {name: value for name, value in vars(space).items() if callable(value)}
        for label, space in _NAMESPACES.items()
    }


_ORIGINAL = _snapshot()


def tampered_names():
    """Return the dotted names of torch callables replaced since the snapshot."""
    changed = []
    for label, space in _NAMESPACES.items():
        current = vars(space)
        for name, original in _ORIGINAL[label].items():
            if current.get(name) is not original:
                prefix = label.replace(" (base)", "")
                changed.append(f"{prefix}.{name}")
    return changed
