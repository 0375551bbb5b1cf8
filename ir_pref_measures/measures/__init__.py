"""Kernels: (ranking arrays, judgments) -> numbers, vectorised. No files, names or ecosystems here."""
