"""Command functions of the `bounded` CLI, grouped by area; `bounded.cli` registers them."""
