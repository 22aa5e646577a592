"""pytest plugin for ``run.py``: records, per call of a function the ordo
backend implements, whether it ran on ordo or was declined (and why), one
line per call in the file named by ``ORDO_NX_COUNTS``."""

import os


def pytest_configure(config):
    path = os.environ.get("ORDO_NX_COUNTS")
    if not path:
        return
    from ordo.nx import BackendInterface, IMPLEMENTATIONS

    out = open(path, "a", encoding="utf-8")
    config._ordo_counts = out
    can_run = BackendInterface.can_run

    def counting_can_run(name, args, kwargs):
        verdict = can_run(name, args, kwargs)
        if name in IMPLEMENTATIONS:
            reason = "" if verdict is True else str(verdict).replace("\t", " ").replace("\n", " ")
            out.write(f"{'ran' if verdict is True else 'declined'}\t{name}\t{reason}\n")
        return verdict

    BackendInterface.can_run = staticmethod(counting_can_run)


def pytest_unconfigure(config):
    out = getattr(config, "_ordo_counts", None)
    if out is not None:
        out.close()
