"""Producing preference judgments: judges (LLM, simulated, replayed, people), pair selection within a budget, the
store that loses nothing, and the simulator of judging strategies."""

from ir_pref_measures.judging.protocol import ANSWERS, Answer, Judge, Pair

__all__ = ["ANSWERS", "Answer", "Judge", "Pair"]
