"""Names registered at run time, handed from a sweep's driver to its worker processes.

Entry points and import paths need nothing: a worker finds them as the driver does. A
name registered in the driver's Python (`register_contract`, `register_model`,
`register_env`, `register_preset`) lives only in that process, so the driver takes a
`registrations()` snapshot and each worker restores it before its first game.
"""

from __future__ import annotations

from typing import Any

Registrations = dict[str, Any]


def registrations() -> Registrations:
    """What this process registered at run time (import-path targets and presets)."""
    from bounded.contracts import CONTRACTS, PRESETS
    from bounded.envs import ENV_RECORDS
    from bounded.models import MODELS

    return {
        "contracts": CONTRACTS.snapshot(),
        "models": MODELS.snapshot(),
        "envs": ENV_RECORDS.snapshot(),
        "presets": {name: [p.contract, p.overrides] for name, p in PRESETS.items()},
    }


def restore_registrations(plugins: Registrations) -> None:
    """Register in this process what `registrations()` took in another."""
    from bounded.contracts import CONTRACTS, PRESETS, register_preset
    from bounded.envs import ENV_RECORDS, register_env
    from bounded.models import MODELS

    CONTRACTS.restore(plugins.get("contracts", {}))
    MODELS.restore(plugins.get("models", {}))
    for record in plugins.get("envs", []):
        if ENV_RECORDS.get(record.env_id) is None:
            register_env(record)
    for name, (contract, overrides) in plugins.get("presets", {}).items():
        if name not in PRESETS:
            register_preset(name, contract, overrides)


__all__ = ["Registrations", "registrations", "restore_registrations"]
