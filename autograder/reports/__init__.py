"""After grading: the grades table and its plot (:mod:`.grades`), what the class got wrong and which submissions
look alike (:mod:`.class_reports`, :mod:`.diagnoses`, :mod:`.similarity`, :mod:`.pages`), the feedback page
(:mod:`.feedback`) and the files an LMS imports (:mod:`.lms`, :mod:`.spreadsheets`)."""
