"""``Experiment`` with a Dask cluster: :func:`ir_pref_measures.experiment.front.Experiment` whose ``client`` (a
``distributed.Client`` or a scheduler's address) computes the per-query values on the cluster
(:func:`~ir_pref_measures.dask.cluster.on_cluster`). This is ``ir_pref_measures.Experiment``."""

from __future__ import annotations

import functools
import inspect
from typing import Any

from ir_pref_measures.dask.cluster import on_cluster
from ir_pref_measures.experiment import front

CLIENT_DOC = """
    ``client``: a ``distributed.Client``: the per-query values are computed on its cluster
    (:func:`ir_pref_measures.dask.per_query_frames_on_cluster`; the same values); or a scheduler's address (``tcp://HOST:PORT``),
    reached within Dask's ``distributed.comm.timeouts.connect`` (:func:`ir_pref_measures.dask.connect`). Not with
    ``per_query``.
"""


@functools.wraps(front.Experiment, assigned=("__name__", "__doc__"))  # its own __module__ and __qualname__
def Experiment(*args: Any, client: Any = None, **kwargs: Any) -> Any:
    if client is not None:
        if kwargs.get("per_query") is not None:
            raise TypeError("Experiment() takes a client or a per_query computation, not both")
        kwargs["per_query"] = on_cluster(client)
    return front.Experiment(*args, **kwargs)


def _with_client(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` with a keyword ``client=None`` before ``per_query``."""
    parameters = list(signature.parameters.values())
    at = [p.name for p in parameters].index("per_query")
    client = inspect.Parameter("client", inspect.Parameter.KEYWORD_ONLY, default=None)
    return signature.replace(parameters=[*parameters[:at], client, *parameters[at:]])


Experiment.__signature__ = _with_client(inspect.signature(front.Experiment))  # type: ignore[attr-defined]
Experiment.__doc__ = (front.Experiment.__doc__ or "").replace("\n    Returns\n", CLIENT_DOC + "\n    Returns\n", 1)
del Experiment.__wrapped__  # help() and inspect show the signature above, with client
