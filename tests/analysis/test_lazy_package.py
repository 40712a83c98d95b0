"""`bounded.analysis` loads its names when first used, so that importing the package (a
sweep's driver and workers do, through the CLI) does not import scipy."""

from __future__ import annotations

import subprocess
import sys

import pytest

import bounded.analysis


def test_importing_the_package_and_the_sweep_command_leaves_scipy_unloaded():
    probe = (
        "import sys, bounded.analysis, bounded.cli, bounded.sweeps.sweep; "
        "print('scipy' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "False"


def test_every_public_name_loads_from_its_module():
    from bounded.analysis.stats import wilson_interval

    assert bounded.analysis.wilson_interval is wilson_interval
    assert sorted(bounded.analysis.__all__) == sorted(bounded.analysis._WHERE)
    for name in bounded.analysis.__all__:
        assert getattr(bounded.analysis, name) is not None


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        bounded.analysis.nope  # noqa: B018
