"""Running the fast batch's shards on a cluster (Slurm, through submitit): the top layer of the batch,
below only the CLI. Its settings record is :class:`autograder.config.SlurmSettings`."""
