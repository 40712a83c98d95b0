"""Price files shipped with bounded (`bounded.analysis.cost.PRICE_FILES`), each named by its
stem; a command uses one only when it is named (`--prices list-2025`)."""
