"""Reports for the instructor, read from the stored records and the gradebook: a class summary, a CSV,
a calibration plot (:mod:`.report`), a whole course's scores and the LMS export (:mod:`.course_report`).
Above :mod:`autograder.storage`; only the CLI imports it."""
