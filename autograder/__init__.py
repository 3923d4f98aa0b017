"""Gradientes en PyTorch: las herramientas del instructor (what a lesson imports is :mod:`gradientes`).

The path a submission takes through ``curso calificar`` (:mod:`autograder.batch`):

1. collect: :mod:`autograder.submissions` finds each notebook in a folder or LMS zip;
2. sandboxed run: :mod:`autograder.execute` (nbgrader's execution step) runs the student's cells
   in a sealed kernel: :mod:`autograder.sandbox` is the security boundary, :mod:`autograder.kernel`
   and :mod:`autograder.runner` what runs inside it, :mod:`autograder.remote` the plain-data wire;
3. verdict: :mod:`autograder.verdict` runs the test cells in the grader, against the kernel;
4. gradebook: :mod:`autograder.grade` lets nbgrader save the scores and write the feedback;
5. reports: :mod:`autograder.report` writes the CSV and the plots.

The lessons use the student package :mod:`gradientes` (``estudiante/``): its checks run in the student's
kernel for immediate feedback and, when grading, in the grader (step 3).
"""
