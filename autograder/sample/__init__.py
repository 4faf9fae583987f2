"""Sample submissions for a lesson: a class of students generated from its notebook (:mod:`.generate`),
filled in (:mod:`.fill`) and executed (:mod:`.execute`), for ``autograder demo`` and the authoring checks.
Above the lesson API it drives; below authoring and the CLI."""
