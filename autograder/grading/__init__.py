"""The grader (``curso calificar``): collect submissions, run each in a sealed kernel, decide every test cell in
the grader, save the scores in nbgrader's gradebook. Nothing here trusts the student's process."""
