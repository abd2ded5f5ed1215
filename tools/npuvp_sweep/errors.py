"""Errors and exit statuses of `npuvp sweep` (the same meanings as `npuvp run`'s, docs/cli.md)."""

EXIT_OK = 0
EXIT_RUNS_FAILED = 1      # the study finished, but some runs failed (recorded in the table)
EXIT_BAD_INPUT = 125      # the study file or the command line: one line, nothing ran
EXIT_INTERNAL = 127       # the engine itself failed (e.g. sbatch refused the job)
EXIT_INTERRUPTED = 130    # Ctrl-C: finished runs are kept, a re-run resumes


class StudyError(Exception):
    """Bad input found before anything runs: printed as one line, exit status 125."""


class EngineError(Exception):
    """An engine could not run the study (e.g. Slurm refused the job array): exit status 127."""
