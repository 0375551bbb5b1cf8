"""The compiled fast path of the readers (``_fields.c``), as a type checker sees it."""

import os

def split_file(
    path: str | os.PathLike[str],
    n_fields: int,
    text_fields: tuple[int, ...],
    number_fields: tuple[int, ...],
    hashed_fields: tuple[int, ...],
    /,
) -> tuple[int, list[tuple[bytes, bytes, bytes | None]], list[bytes]] | None:
    """``(rows, [(offsets, text, hashes or None), ...], [values, ...])`` of a file of plain lines, or ``None``."""
