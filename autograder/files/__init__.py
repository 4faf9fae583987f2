"""Files on disk, read and written safely: the one atomic writer every store uses (:mod:`.atomic`) and
the path-safe, bounded reader of submitted files (:mod:`.safe_read`). Standard library only, so every
layer may use it."""
