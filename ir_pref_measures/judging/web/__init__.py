"""The web interface for people judging preferences (``pip install 'ir-pref-measures[web]'``): assessor pages fed
live by a pair selector, an admin page, tokens and CSRF protection, all state in the judging store."""

from __future__ import annotations

from collections.abc import Sequence

from ir_pref_measures.judging.gold import GoldPair
from ir_pref_measures.judging.texts import Texts
from ir_pref_measures.judging.web.desk import Desk, Shown
from ir_pref_measures.judging.web.security import new_token
from ir_pref_measures.judging.web.study import PARAMETER, PREFIX, SETTING, Study

__all__ = ["Desk", "Shown", "links", "open_desk", "serve"]


def open_desk(
    store,
    selector,
    assessors: Sequence[str],
    texts: Texts,
    *,
    seed: int = 0,
    overlap: float = 0.0,
    rule: str = "majority",
    name: str | None = None,
    gold: Sequence[GoldPair] = (),
    gold_share: float = 0.0,
    max_assessors: int = 2,
    study: bool = False,
    parameter: str = PARAMETER,
    completion_url: str | None = None,
    judgments: int | None = None,
) -> Desk:
    """A :class:`Desk` over ``store`` for the named ``assessors``. Their tokens, the admin token and the CSRF
    secret are made once and kept in the store's settings, so links stay valid across restarts; an assessor added
    later gets a token of their own. ``name`` (the admin page's heading) is by default the store's file name (a
    PostgreSQL store's database name). ``gold`` pairs (:mod:`~ir_pref_measures.judging.gold`) are a share
    ``gold_share`` of each assessor's assignments; a question two assessors disagree on goes to one more, up to
    ``max_assessors``. With ``study``, the open study link (:mod:`~ir_pref_measures.judging.web.study`) is enabled:
    participants named by the link's ``parameter`` join as assessors (those who joined before are read from the
    store) and are sent to ``completion_url`` after ``judgments`` answers."""
    stored = store.settings()
    wanted = {"web.secret": None, "web.admin": None, **{f"web.assessor.{a}": None for a in assessors}}
    wanted |= {SETTING: None} if study else {}
    store.settle({key: new_token() for key in wanted if key not in stored})
    stored = store.settings()
    tokens = {a: stored[f"web.assessor.{a}"] for a in assessors}
    if study:
        joined = f"web.assessor.{PREFIX}"
        tokens |= {key[len("web.assessor.") :]: token for key, token in stored.items() if key.startswith(joined)}
    return Desk(
        store=store,
        selector=selector,
        assessors=tokens,
        admin_token=stored["web.admin"],
        secret=stored["web.secret"].encode(),
        texts=texts,
        seed=seed,
        overlap=overlap,
        rule=rule,
        name=name or _store_name(store.path),
        gold=gold,
        gold_share=gold_share,
        max_assessors=max_assessors,
        study=Study(stored[SETTING], parameter, completion_url, judgments) if study else None,
    )


def _store_name(location: str) -> str:
    """The name of a store: its file name, or a URL's database name."""
    return location.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or location


def links(desk: Desk, base_url: str) -> dict[str, str]:
    """Every secret link of ``desk``: ``{"admin": URL, assessor: URL, ...}``, and ``"study"``, the open study link
    ending in its participant parameter (where enabled: the platform appends each participant's id)."""
    base_url = base_url.rstrip("/")
    study = {} if desk.study is None else {"study": f"{base_url}/s/{desk.study.token}?{desk.study.parameter}="}
    return {
        "admin": f"{base_url}/admin/{desk.admin_token}",
        **study,
        **{a: f"{base_url}/a/{t}" for a, t in desk.assessors.items()},
    }


def serve(desk: Desk, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``desk`` with uvicorn until interrupted: one process per store (the desk holds the store's state in
    memory and serialises its changes; its work runs in a thread pool, off the event loop)."""
    import uvicorn

    from ir_pref_measures.judging.web.app import create_app

    uvicorn.run(create_app(desk), host=host, port=port, log_level="warning")
