"""Measuring a lesson's reference: time each variant of the workload (:mod:`.harness`, :mod:`.timing`,
:mod:`.clocks`), fingerprint the device (:mod:`.fingerprint`), derive and merge the quantities across
processes (:mod:`.derive`, :mod:`.merge`) and store the run (:mod:`.store`).

Above records, workload, kinds and spec; it knows nothing of grading (the fairness check that grades a
new reference is :mod:`autograder.grading.fairness`)."""
