"""The context audit's reuse per layer order, from a small file."""

from __future__ import annotations

from bounded.docgen.context_audit import reuse_by_layer_order


def test_reuse_of_each_layer_order_per_seed():
    orders = {
        "paper": {"reused_share": 0.5, "total": 1000},
        "legacy": {"reused_share": 0.25, "total": 1000},
        "cache": {"reused_share": 0.9, "total": 1200},
    }
    assert reuse_by_layer_order({"results": [{"seed": 1, "orders": orders}]}) == (
        "| seed | `paper` | `legacy` | `cache` |\n"
        "|---|---|---|---|\n"
        "| 1 | 50.0% of 1,000 | 25.0% of 1,000 | 90.0% of 1,200 |\n"
    )
