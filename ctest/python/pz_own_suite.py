# SPDX-License-Identifier: BSD-3-Clause
"""Run pyzoltan's own test suite without its wall-clock limit.

pyzoltan's run_parallel_script kills each test script after 30 s (90 s for
one) of wall time and fails the test.  On a 2-core machine running other
tests beside it, a script can take longer without anything being wrong (a
CI run failed that way with the library preloaded, while the same test
passed in 3 s alone), and our rule is that no assertion depends on the
machine's load.  This wrapper lifts that limit to a hang detector (HANG_S, below
CTest's TIMEOUT, so that a hung script's own output is printed by pyzoltan's
runner before the test fails).  Arguments are pytest's.

pyzoltan's runner starts a bare `mpiexec`, not the suite's launcher
(cmake/zp-mpiexec.in), so it would share OpenMPI's session folder with the
jobs CTest runs beside it, which race to remove and re-create it: each
pyzoltan job gets a session folder of its own here, as the launcher gives
every other job.  The folder goes when the suite ends.
"""
import os
import shutil
import sys
import tempfile

import pytest
from pyzoltan.tools import run_parallel_script

HANG_S = 240.0

_run = run_parallel_script.run


def _run_without_limit(filename, args=None, nprocs=2, timeout=30.0, path=None):
    # The test module looks run up on the module at every call, so this
    # replacement is what it calls.  timeout is kept in the signature only.
    del timeout
    session = tempfile.mkdtemp(prefix="zp-pz-mpi-")
    saved = {k: os.environ.get(k) for k in ("TMPDIR", "OMPI_MCA_orte_tmpdir_base")}
    os.environ["TMPDIR"] = session
    os.environ["OMPI_MCA_orte_tmpdir_base"] = session
    try:
        return _run(filename, args=args, nprocs=nprocs, timeout=HANG_S, path=path)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(session, ignore_errors=True)


run_parallel_script.run = _run_without_limit
sys.exit(pytest.main(sys.argv[1:]))
