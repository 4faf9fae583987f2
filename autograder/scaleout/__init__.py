"""Running grading work on a cluster (Slurm, through submitit)."""
