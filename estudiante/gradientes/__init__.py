"""Gradientes en PyTorch: what a lesson's notebook imports.

:mod:`gradientes.selfcheck` gives ``%%comprobar``, the magic of every test cell; :mod:`gradientes.checks` (and
``checks_05`` … ``checks_11``, one lesson's own) the checks those cells call; :mod:`gradientes.plots` the
lessons' figures, which :mod:`gradientes.figures` shows with their Spanish description;
:mod:`gradientes.lab_setup` puts JupyterLab in Spanish. The instructor's grader (:mod:`autograder`) runs the same
checks outside the student's process.
"""
