"""Limits for a grading kernel, applied before any student code runs."""

import resource

MEMORY_LIMIT = 4 * 1024**3


def limit_memory(limit=MEMORY_LIMIT):
    """Cap the kernel's address space: a runaway allocation then fails in its own cell
    (``RuntimeError``/``MemoryError``) instead of exhausting the grading machine."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
