"""The sealed kernel a submission runs in: bubblewrap and resource limits around it (:mod:`.sandbox`), the
process that starts it (:mod:`.kernel`) and what serves the student's cells inside it (:mod:`.runner`)."""
