"""Shared test settings. Hypothesis deadlines are off: this machine is shared and noisy,
and speed is measured in bench/, not asserted in tests."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "bounded", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("bounded")
