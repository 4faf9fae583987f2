"""What grading leaves on disk and in nbgrader's gradebook: one record per submission
(:mod:`.records_store`), the gradebook rows written as ``nbgrader autograde`` would (:mod:`.gradebook_sync`),
the autograded notebook formgrader opens (:mod:`.autograded`), the side file the native path's kernel
reads (:mod:`.context`) and what an explanation's comment becomes (:mod:`.feedback`).

Above :mod:`autograder.grading` (it stores what grading decided), below reports, the batch and the
preprocessors."""
