"""Gradientes en PyTorch: las herramientas del instructor (what a lesson imports is :mod:`gradientes`).

One folder per part of the product, and ``curso`` (:mod:`autograder.cli`) in front of them:

- :mod:`autograder.course`: the lessons and their syllabus, the student edition and its publishing, the exchange
  with a class server, the lab's set-up and the demo;
- :mod:`autograder.grading`: ``curso calificar``, from a folder or LMS zip of submissions to grades;
- :mod:`autograder.sealed`: the sealed kernel a submission runs in (the security boundary);
- :mod:`autograder.bridge`: the plain-data bridge between the grader and that kernel, autograd included;
- :mod:`autograder.reports`: what comes after grading: tables, class pages, feedback, LMS files.

The path a submission takes through ``curso calificar`` (:mod:`autograder.grading.batch`):

1. collect: :mod:`autograder.grading.submissions` finds each notebook in a folder or LMS zip;
2. sandboxed run: :mod:`autograder.grading.execute` (nbgrader's execution step) runs the student's cells
   in a sealed kernel: :mod:`autograder.sealed.sandbox` is the security boundary, :mod:`autograder.sealed.kernel`
   and :mod:`autograder.sealed.runner` what runs inside it, :mod:`autograder.bridge` the plain-data wire;
3. verdict: :mod:`autograder.grading.verdict` runs the test cells in the grader, against the kernel;
4. gradebook: :mod:`autograder.grading.grade` lets nbgrader save the scores and write the feedback;
5. reports: :mod:`autograder.reports.class_reports` writes the CSV, the plots and the class pages.

The lessons use the student package :mod:`gradientes` (``estudiante/``): its checks run in the student's
kernel for immediate feedback and, when grading, in the grader (step 3).
"""
