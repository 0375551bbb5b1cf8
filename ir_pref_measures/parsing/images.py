"""Xie et al.'s image-study files (SIGIR 2020; thesis chapter 5): image-pair judgments and image positions.

The pair file (``image_pairs_annotation``) is tab-separated, one header line, then lines ``query, "left,right", tag,
tag, tag``: three assessors' tags in -2..2, negative = left image better; it becomes the ``carterette`` table, one row
per tag. The position file (``Image_position.json``) places each engine's images in a grid of rows. Both follow the
reading rules of :mod:`ir_pref_measures.parsing.formats` (UTF-8, no control characters).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.parsing.files import Source, check_text, load, text_lines

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made
    import pandas as pd

IMAGE_TAGS = "query<TAB>engine/query_i.jpg,engine/query_j.jpg<TAB>tag<TAB>tag<TAB>tag, tags in -2..2 (- = left better)"
IMAGE_ENGINES = {"0": "sogou", "1": "baidu"}


def read_image_pairs(source: Source) -> pd.DataFrame:
    """Xie et al.'s image-pair judgments (SIGIR 2020, ``image_pairs_annotation``) -> the carterette table,
    one row per assessor tag: tag -2/-1 (left image better) -> -1, 1/2 (right better) -> 1, 0 (tie) -> 0.

    Tab-separated with one header line: ``query, "left,right", tag, tag, tag``.

    Parameters
    ----------
    source
        The ``image_pairs_annotation`` file: a path or an open file.

    Returns
    -------
    pandas.DataFrame
        ``query_id, doc_id_a, doc_id_b, preference, line`` (carterette values).
    """
    import pandas as pd

    raw = load(source)
    rows: list[tuple] = []
    for line_no, line in list(text_lines(raw))[1:]:  # after the header line
        parts = line.strip(" ").split("\t")
        pair = parts[1].split(",") if len(parts) == 5 else []
        try:
            tags = [float(tag) for tag in parts[2:]] if len(pair) == 2 else []
        except ValueError:
            tags = []
        if not tags or any(tag not in (-2, -1, 0, 1, 2) for tag in tags):
            raw.fail("not an image-pair judgment", line_no=line_no, expected=IMAGE_TAGS)
        rows.extend((parts[0], pair[0], pair[1], int(np.sign(tag)), line_no) for tag in tags)
    if not rows:
        raw.fail("the file has no data lines", expected=IMAGE_TAGS)
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id_a", "doc_id_b", "preference", "line"])
    frame["preference"] = frame["preference"].astype(np.int8)
    return frame


def read_image_positions(source: Source) -> pd.DataFrame:
    """Xie et al.'s ``Image_position.json`` (``{query: {"0" sogou | "1" baidu: {index: [row, col,
    images in row]}}}``) -> ``query_id, engine, doc_id, row, col, width``, doc ids as in the pair file
    (``engine/query_index.jpg``).

    Parameters
    ----------
    source
        The JSON file, a path or an open file.

    Returns
    -------
    pandas.DataFrame
        One row per image of a result page.
    """
    import pandas as pd

    raw = load(source)
    check_text(raw)
    try:
        data = json.loads(raw.data)
    except json.JSONDecodeError as error:
        raw.fail(f"not JSON: {error.msg}", line_no=error.lineno)
    rows = []
    try:
        for query, engines in data.items():
            for code, images in engines.items():
                engine = IMAGE_ENGINES[code]
                for index, (row, col, width) in images.items():
                    rows.append((query, engine, f"{engine}/{query}_{index}.jpg", int(row), int(col), int(width)))
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise InputError(
            f"unexpected image-position entry ({error!r})",
            path=raw.name,
            expected='{query: {"0" (sogou) | "1" (baidu): {image index: [row, col, images in row]}}}',
        ) from None
    return pd.DataFrame(rows, columns=["query_id", "engine", "doc_id", "row", "col", "width"])
