"""Checks of lesson 09 (más allá de backward): what an answer that writes its own
operation may reach (an allowlist of elementary operations, read in full and failing closed)."""

from gradientes.checks import check_statement, fail, outside_allowlist
from gradientes.reading import read

# What, inside torch, leads to any operation by name (``torch.ops.aten.sinc``); the private parts (``torch._C``)
# are refused by check_statement itself.
TORCH_OPS = "torch.ops"


# What an answer that writes its own operation may reach: ``warnings`` computes nothing (an answer may warn).
OWN_CODE_MODULES = ("torch", "math", "warnings")


# An answer that writes its own operation computes with these and nothing else of torch (an allowlist: a library
# function that already does the work, such as torch.special.spherical_bessel_j0 for sinc or
# torch.nn.functional.logsigmoid for softplus, is not one of them). Compared as objects, whatever the path.
ELEMENTARY = frozenset(
    "abs clamp clip clamp_min clamp_max exp expm1 log log1p sqrt rsqrt pow square reciprocal sin cos tan tanh "
    "sigmoid relu maximum minimum max min where sign signbit neg negative isfinite isnan isinf isclose zeros_like "
    "ones_like full_like empty_like zeros ones full tensor as_tensor float64 float32 double finfo pi e inf nan add "
    "sub mul div true_divide eq ne lt le gt ge logical_and logical_or logical_not masked_fill Tensor is_tensor".split()
)
ELEMENTARY_NAMES = frozenset({*(f"torch.{name}" for name in ELEMENTARY), "torch.nn.functional.relu"})
# What a tensor's methods and attributes may be in such an answer, besides those operations (and Python's own).
PLUMBING = frozenset(
    "abs_ add_ sub_ mul_ div_ neg_ exp_ log_ log1p_ clamp_ masked_fill_ any all shape dtype device ndim dim size "
    "numel reshape view view_as expand expand_as to clone detach new_zeros new_ones new_full new_tensor zero_ fill_ "
    "copy_ item tolist unsqueeze squeeze flatten contiguous type_as is_floating_point requires_grad append format "
    "join items get warn eps tiny".split()
)


def check_own_code(answers, *, forbidden, hint=None):
    """Each of ``answers`` (names of the notebook) reaches only ``torch`` and ``math`` (and ``warnings``), nothing
    ``forbidden`` (named in the failure), and of torch only elementary operations (:data:`ELEMENTARY`): read in full
    by :func:`check_statement`, failing closed (an unknown method fails too)."""
    for answer in answers:
        check_statement(answer, modules=OWN_CODE_MODULES, forbidden=(*forbidden, TORCH_OPS), hint=hint)
        outside = outside_allowlist(read(answer), ELEMENTARY_NAMES, ELEMENTARY | PLUMBING)
        if outside:
            fail(
                f"{answer} usa {', '.join(f'«{name}»' for name in outside[:3])}, que no es una de las operaciones "
                "elementales de este ejercicio.",
                (hint or "escribe tú la operación.") + " Se admiten las de torch elemento a elemento (exp, log, "
                "log1p, abs, clamp, where, sin, sigmoid, maximum…), las de math y los métodos de forma y tipo de "
                "los tensores (shape, reshape, to…).",
            )
