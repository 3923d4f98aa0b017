"""Detect a student's monkeypatching of torch before trusting any comparison.

The snapshot is taken when this module is first imported: in the lesson's first
(read-only) cell and, at grading time, by the kernel before any student code.
"""

import torch

# torch.Tensor's methods live on its C base class: a patch on either must be seen.
_NAMESPACES = {
    "torch": torch,
    "torch.Tensor": torch.Tensor,
    "torch._C.TensorBase": torch._C.TensorBase,
    "torch.autograd": torch.autograd,
}
_ORIGINAL = {label: {k: v for k, v in vars(space).items() if callable(v)} for label, space in _NAMESPACES.items()}
_TENSOR_NAMES = set(_ORIGINAL["torch.Tensor"]) | set(_ORIGINAL["torch._C.TensorBase"])


def _is_original(value, original):
    """``value`` is the original callable, or torch's own wrapper of it (``torch._dynamo``, imported by
    the first optimizer, wraps ``torch.manual_seed`` with ``functools.wraps``)."""
    for _ in range(4):
        if value is original:
            return True
        value = getattr(value, "__wrapped__", None)
    return False


def tampered_names():
    """Return the dotted names of torch callables replaced, deleted or shadowed since the snapshot."""
    changed = []
    for label, space in _NAMESPACES.items():
        current = vars(space)
        original = _ORIGINAL[label]
        changed += [f"{label}.{name}" for name, value in original.items() if not _is_original(current.get(name), value)]
    added = set(vars(torch.Tensor)) - set(_ORIGINAL["torch.Tensor"])
    changed += [f"torch.Tensor.{name}" for name in sorted(added & _TENSOR_NAMES)]
    return changed
