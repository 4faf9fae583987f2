"""The fast batch: a whole class graded from the submitted notebooks, no kernel per notebook
(:mod:`.fast`), cut into shards (:mod:`.shards`), run in worker processes under a deadline
(:mod:`.supervise`), with the checks that need the whole class (:mod:`.cohort`).

Above grading, storage and config; :mod:`autograder.scaleout` runs its shards on Slurm."""
