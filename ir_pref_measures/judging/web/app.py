"""The judging web interface: an ASGI app (Starlette) over a :class:`~ir_pref_measures.judging.web.desk.Desk`.

Routes (every one needs a token; nothing is reachable without one):

* ``GET /a/{token}``: the assessor's page: the query, the next pair side by side, the progress;
* ``POST /a/{token}/answer`` (form: ``assignment``, ``answer``, ``csrf``) and ``POST /a/{token}/undo``
  (``csrf``): redirect back to the page (post/redirect/get, so a reload never answers twice);
* ``GET /admin/{token}``: progress, agreement, position bias and time per judgment;
  ``GET /admin/{token}/export/{format}``: the judgments in any format the package reads (``?exclude-flagged=1``:
  without the answers of the assessors flagged on gold pairs);
* ``GET /s/{secret}?PROLIFIC_PID=ID`` (the open study link, where enabled; :mod:`.study`): the participant joins
  as an assessor (idempotent) and is redirected to their page; a participant past the study's judgments is
  redirected from their page to its completion URL;
* ``GET /static/...``: the page's own CSS and script (no CDN: it works offline), held in memory and served on the
  event loop without touching the store.

A request with an unknown token is refused (403) without saying whether the token exists, and before its body is
read; a form whose CSRF token is not the one served to that token's pages is refused (403); an assignment of
another assessor is refused (403); a body larger than ``max_body`` bytes is refused (413) before it is read. Every
response carries the security headers of :mod:`~ir_pref_measures.judging.web.security`.

The desk's work (the store, the selector, the texts) and the rendering of pages run in a pool of threads (anyio's,
as Starlette's ``run_in_threadpool``, limited to ``workers``), never on the event loop, so a slow request holds up
no other and the static files never wait; the desk serialises its changes with its own lock.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import anyio
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.gold import MIN_ACCURACY, MIN_GOLD
from ir_pref_measures.judging.web.desk import ANSWER_KEYS, Desk
from ir_pref_measures.judging.web.highlight import highlighted, query_terms
from ir_pref_measures.judging.web.security import (
    MAX_BODY,
    BodyLimit,
    SecurityHeaders,
    csrf_ok,
    csrf_token,
    headers,
    same_token,
)
from ir_pref_measures.judging.web.study import PREFIX, origin

HERE = Path(__file__).parent
MEDIA_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
WORKERS = 8  # threads for the desk's work: it serialises its changes, so more would only contend for the GIL


def forbidden() -> Response:
    return PlainTextResponse("forbidden: this link is not valid\n", status_code=403)


def static_files(folder: Path) -> dict[str, tuple[bytes, str, str]]:
    """The files of ``folder`` by name: ``(content, media type, ETag)``, read once."""
    found = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix in MEDIA_TYPES:
            content = path.read_bytes()
            found[path.name] = (content, MEDIA_TYPES[path.suffix], f'"{hashlib.sha256(content).hexdigest()[:16]}"')
    return found


def create_app(desk: Desk, max_body: int = MAX_BODY, workers: int = WORKERS) -> Starlette:
    """The ASGI app serving ``desk``'s assessors and admin; request bodies are limited to ``max_body`` bytes; the
    desk's work runs in a pool of ``workers`` threads."""
    templates = Environment(
        loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]), auto_reload=False
    )
    pages = {name: templates.get_template(name) for name in ("assessor.html", "admin.html")}
    assets = static_files(HERE / "static")
    limiter = anyio.CapacityLimiter(workers)

    async def run_in_threadpool(call, *args):
        """``call(*args)`` in the app's thread pool (limited to ``workers`` threads)."""
        return await anyio.to_thread.run_sync(functools.partial(call, *args), limiter=limiter)

    def page(template: str, **context) -> HTMLResponse:
        return HTMLResponse(pages[template].render(static="/static", **context))

    def assessor_page(token: str, assessor: str) -> Response:
        view = desk.view(assessor)
        shown = view.pair
        study = desk.study
        if study is not None and assessor.startswith(PREFIX) and study.complete(desk.judged(assessor), shown is None):
            return RedirectResponse(str(study.completion_url), status_code=303)
        context = dict(
            base=f"/a/{token}",
            csrf=csrf_token(desk.secret, token),
            done=view.done,
            total=view.total,
            percent=100 if view.total == 0 else int(100 * view.done / view.total),
            can_undo=view.can_undo,
            pair=shown,
        )
        if shown is not None:
            query = desk.query_text(shown.query_id)
            terms = query_terms(" ".join(filter(None, (query.title, query.description))))
            context |= dict(
                query_id=shown.query_id,
                query=query,
                assignment=shown.assignment,
                left_id=shown.left,
                right_id=shown.right,
                left_text=highlighted(desk.doc_text(shown.left), terms),
                right_text=highlighted(desk.doc_text(shown.right), terms),
            )
        return page("assessor.html", **context)

    async def assessor(request: Request) -> Response:
        token = request.path_params["token"]
        who = desk.assessor_of(token)
        if who is None:
            return forbidden()
        return await run_in_threadpool(assessor_page, token, who)

    async def posted(request: Request):
        """``(token, assessor, form)`` of a form posted with the CSRF token of the assessor's pages, else ``None``
        (an unknown token is refused before the body is read)."""
        token = request.path_params["token"]
        who = desk.assessor_of(token)
        if who is None:
            return None
        form = await request.form()
        if not csrf_ok(desk.secret, token, form.get("csrf")):
            return None
        return token, who, form

    def answered(token: str, who: str, assignment: int, key: str) -> Response:
        if not desk.owns(who, assignment):
            return forbidden()
        desk.answer(who, assignment, key)
        return RedirectResponse(f"/a/{token}", status_code=303)

    async def answer(request: Request) -> Response:
        checked = await posted(request)
        if checked is None:
            return forbidden()
        token, who, form = checked
        key = form.get("answer")
        try:
            assignment = int(form.get("assignment", ""))
        except (TypeError, ValueError):
            return PlainTextResponse("bad request: no assignment\n", status_code=400)
        if key not in ANSWER_KEYS:
            return PlainTextResponse(f"bad request: answer must be one of {', '.join(ANSWER_KEYS)}\n", status_code=400)
        return await run_in_threadpool(answered, token, who, assignment, key)

    async def undo(request: Request) -> Response:
        checked = await posted(request)
        if checked is None:
            return forbidden()
        token, who, _ = checked
        await run_in_threadpool(desk.undo, who)
        return RedirectResponse(f"/a/{token}", status_code=303)

    async def join(request: Request) -> Response:
        study = desk.study
        if study is None or not same_token(study.token, request.path_params["token"]):
            return forbidden()
        try:
            token = await run_in_threadpool(desk.admit, request.query_params.get(study.parameter, ""))
        except InputError as error:
            return PlainTextResponse(f"bad request: {error.message}\n", status_code=400)
        return RedirectResponse(f"/a/{token}", status_code=303)

    def admin_page(token: str, base_url: str) -> Response:
        report = desk.report()
        for row in report["assessors"]:
            row["link"] = base_url + row["link"].lstrip("/")
        flag_rule = dict(min_gold=MIN_GOLD, min_accuracy=f"{MIN_ACCURACY:.0%}")
        study = None if desk.study is None else f"{base_url}s/{desk.study.token}?{desk.study.parameter}="
        return page(
            "admin.html", base=f"/admin/{token}", name=desk.name, formats=desk.formats(), flag_rule=flag_rule,
            study_link=study, **report,
        )  # fmt: skip

    async def admin(request: Request) -> Response:
        token = request.path_params["token"]
        if not desk.is_admin(token):
            return forbidden()
        return await run_in_threadpool(admin_page, token, str(request.base_url))

    def exported(format: str, exclude_flagged: bool) -> Response:
        try:
            text = desk.export(format, exclude_flagged)
        except InputError as error:
            return PlainTextResponse(f"{error}\n", status_code=404)
        return PlainTextResponse(text, headers={"Content-Disposition": "attachment"})

    async def export(request: Request) -> Response:
        if not desk.is_admin(request.path_params["token"]):
            return forbidden()
        exclude_flagged = request.query_params.get("exclude-flagged") == "1"
        return await run_in_threadpool(exported, request.path_params["format"], exclude_flagged)

    async def static(request: Request) -> Response:
        found = assets.get(request.path_params["name"])
        if found is None:
            return PlainTextResponse("not found\n", status_code=404)
        content, media_type, etag = found
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(content, media_type=media_type, headers=headers)

    routes = [
        Route("/a/{token}", assessor),
        Route("/a/{token}/answer", answer, methods=["POST"]),
        Route("/a/{token}/undo", undo, methods=["POST"]),
        Route("/admin/{token}", admin),
        Route("/admin/{token}/export/{format}", export),
        Route("/static/{name}", static),
        Route("/s/{token}", join),
    ]
    targets = () if desk.study is None or desk.study.completion_url is None else (origin(desk.study.completion_url),)
    middleware = [Middleware(SecurityHeaders, headers=headers(targets)), Middleware(BodyLimit, limit=max_body)]
    return Starlette(routes=routes, middleware=middleware)
