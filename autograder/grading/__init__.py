"""Grading one submission: read it (:mod:`.reader`, nothing run), choose its reference (:mod:`.references`),
score every prediction (:mod:`.scoring`, pure, a sentence for every score) through the one function every
path calls (:mod:`.grade`), and the checklist a student sees before submitting (:mod:`.checklist`). The
fairness check of a new reference (:mod:`.fairness`) grades with the same scoring function.

Above :mod:`autograder.bench` and :mod:`autograder.preread` (reached only through its package exports);
nothing here writes to disk: storing is :mod:`autograder.storage`."""
