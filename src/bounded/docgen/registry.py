"""Which renderer writes each generated region: the marker's NAME in
`<!-- generated: NAME from FILES -->` -> a function of the region's data files (parsed, in
the order the marker names them) returning the Markdown the region holds."""

from __future__ import annotations

from collections.abc import Callable

from bounded.docgen import (
    archive,
    balrog,
    comparisons,
    context_audit,
    environments,
    epicstar,
    memory_designs,
    quickstart,
    replies,
    retrieval,
    speed,
    sweeps,
)

Renderer = Callable[..., str]

RENDERERS: dict[str, Renderer] = {
    # the archive at scale
    "archive-bytes": archive.bytes_and_write_time_by_size,
    "archive-readers": archive.reader_time_and_memory_by_size,
    "archive-writes": archive.write_time_before_and_after,
    "archive-transcript": archive.transcript_bytes_per_decision,
    "archive-fill": archive.replayed_against_played,
    "archive-peak-memory": archive.peak_memory_large_over_small,
    "archive-audit-by-code": archive.audit_by_code,
    "archive-attribute-plan-by-code": archive.attribute_plan_by_code,
    # BALROG
    "balrog-experts": balrog.scripted_progression,
    "balrog-small-summary": balrog.balrog_small_games,
    "textworld-first-use": balrog.textworld_first_use,
    # comparisons through the paper-table path
    "epicstar-paper-table": comparisons.epicstar_table_of_wins,
    "epicstar-parity": comparisons.epicstar_parity,
    "epicstar-discordant": comparisons.epicstar_discordant_pairs,
    "epicstar-findings": comparisons.epicstar_findings,
    "epicstar-replay-steps": comparisons.replay_steps_paired,
    "memory-designs-paper-table": comparisons.memory_designs_table_of_scores,
    "balrog-small-paper-table": comparisons.balrog_small_table_of_progression,
    "summary-parity": comparisons.summary_parity,
    # the spire's context audit
    "context-audit-cost": context_audit.reuse_and_cost,
    "context-audit-fresh": context_audit.reuse_fresh_tokens_and_cost,
    "context-audit-orders": context_audit.reuse_by_layer_order,
    "context-audit-full": context_audit.typed_against_transcripts,
    "context-audit-raw": context_audit.prompt_totals,
    "context-audit-layers": context_audit.layer_slopes,
    "layer-order-replays": context_audit.layer_order_replays,
    # the environments
    "spire-calibration": environments.spire_expert_calibration,
    "spire-calibration-full": environments.spire_calibration_cells,
    "spire-throughput": environments.spire_decisions_per_cpu_second,
    "spire-throughput-full": environments.spire_throughput_by_player,
    "craft-calibration": environments.craft_win_rates,
    "workbench": environments.workbench_cells,
    "nethack-context-audit": environments.nethack_prompt_growth,
    "textworld-first-game": environments.textworld_first_game,
    # EpicStar
    "epicstar-scripted": epicstar.scripted_agents_by_level,
    "epicstar-token-ratio": epicstar.episodic_over_summary_tokens,
    "epicstar-steps": epicstar.expert_wins_by_step,
    "epicstar-agents": epicstar.calibrated_agent_settings,
    "epicstar-bank": epicstar.calibration_bank,
    "epicstar-replays": epicstar.replay_wins_by_step,
    "episodic-tokens": epicstar.episodic_agent_tokens,
    # the memory designs
    "memory-designs-audit": memory_designs.prompt_and_cost_by_design,
    "memory-designs-small-summary": memory_designs.memory_designs_small_games,
    "warehouse-tokens": memory_designs.warehouse_tokens_by_horizon,
    "recovery-scripted": memory_designs.recovery_of_scripted_games,
    "recovery-embedded": memory_designs.recovery_of_embedded_games,
    # the quick start
    "quickstart-summary": quickstart.quickstart_game_sentence,
    "quickstart-demo": quickstart.quickstart_demo_timing_and_tokens,
    # model replies
    "reply-modes": replies.reply_modes,
    "reasoning-budget": replies.reasoning_under_caps,
    "paper-reply-tokens": replies.paper_reply_limits,
    # retrieval
    "rag-retrieval": retrieval.rag_search_times,
    "episodic-retrieval": retrieval.episodic_search_by_window,
    "episodic-retrieval-rows": retrieval.episodic_search_rows,
    # speed and memory use
    "harness-before-after": speed.harness_cpu_before_and_after_fixes,
    "harness-episodic": speed.harness_cpu_of_episodic,
    "harness-after": speed.harness_cpu_before_and_after_episodic_fix,
    "harness-side-by-side": speed.harness_before_and_after_side_by_side,
    "harness-side-by-side-flat": speed.harness_flatness_before_and_after,
    "embedded-rates": speed.embedded_token_rates,
    "embedded-games": speed.embedded_games_against_token_cost,
    "embedded-profile": speed.embedded_game_profile,
    "endpoint-client": speed.endpoint_client_cpu,
    "memory-scaling": speed.game_memory_by_length,
    # sweeps
    "sweep-estimates": sweeps.sweep_estimate_errors,
    "sweep-throughput": sweeps.sweep_wall_time_by_games_in_flight,
    "sweep-scale": sweeps.sweep_at_scale,
    "sequential-example": sweeps.sequential_against_fixed_design,
    "kill-trials": sweeps.kill_trials,
}
"""Region name -> its renderer."""
