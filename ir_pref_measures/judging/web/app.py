"""The judging web interface: an ASGI app (Starlette) over a :class:`~ir_pref_measures.judging.web.desk.Desk`.

Routes (every one needs a token; nothing is reachable without one):

* ``GET /a/{token}``: the assessor's page: the query, the next pair side by side, the progress;
* ``POST /a/{token}/answer`` (form: ``assignment``, ``answer``, ``csrf``) and ``POST /a/{token}/undo``
  (``csrf``): redirect back to the page (post/redirect/get, so a reload never answers twice);
* ``GET /admin/{token}``: progress, agreement, position bias and time per judgment;
  ``GET /admin/{token}/export/{format}``: the judgments in any format the package reads;
* ``GET /static/...``: the page's own CSS and script (no CDN: it works offline).

A request with an unknown token is refused (403) without saying whether the token exists; a form whose CSRF
token is not the one served to that token's pages is refused (403); an assignment of another assessor is refused
(403)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.web.desk import ANSWER_KEYS, Desk
from ir_pref_measures.judging.web.highlight import highlighted, query_terms
from ir_pref_measures.judging.web.security import csrf_ok, csrf_token

HERE = Path(__file__).parent
FORBIDDEN = PlainTextResponse("forbidden: this link is not valid\n", status_code=403)


def create_app(desk: Desk) -> Starlette:
    """The ASGI app serving ``desk``'s assessors and admin."""
    templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))

    def page(template: str, **context) -> HTMLResponse:
        html = templates.get_template(template).render(static="/static", **context)
        return HTMLResponse(
            html,
            headers={
                "Cache-Control": "no-store",
                "X-Frame-Options": "DENY",
                "Content-Security-Policy": "default-src 'self'; style-src 'self'",
            },
        )

    async def assessor_page(request: Request) -> Response:
        token = request.path_params["token"]
        assessor = desk.assessor_of(token)
        if assessor is None:
            return FORBIDDEN
        shown = desk.next_pair(assessor)
        done, total = desk.progress(assessor)
        context = dict(
            base=f"/a/{token}",
            csrf=csrf_token(desk.secret, token),
            done=done,
            total=total,
            percent=100 if total == 0 else int(100 * done / total),
            can_undo=desk.can_undo(assessor),
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

    async def posted(request: Request):
        """``(token, assessor, form)`` of a form posted with the CSRF token of the assessor's pages, else ``None``."""
        token = request.path_params["token"]
        assessor = desk.assessor_of(token)
        form = await request.form()
        if assessor is None or not csrf_ok(desk.secret, token, form.get("csrf")):
            return None
        return token, assessor, form

    async def answer(request: Request) -> Response:
        checked = await posted(request)
        if checked is None:
            return FORBIDDEN
        token, assessor, form = checked
        key = form.get("answer")
        try:
            assignment = int(form.get("assignment", ""))
        except ValueError:
            return PlainTextResponse("bad request: no assignment\n", status_code=400)
        if key not in ANSWER_KEYS:
            return PlainTextResponse(f"bad request: answer must be one of {', '.join(ANSWER_KEYS)}\n", status_code=400)
        if not desk.owns(assessor, assignment):
            return FORBIDDEN
        desk.answer(assessor, assignment, key)
        return RedirectResponse(f"/a/{token}", status_code=303)

    async def undo(request: Request) -> Response:
        checked = await posted(request)
        if checked is None:
            return FORBIDDEN
        token, assessor, _ = checked
        desk.undo(assessor)
        return RedirectResponse(f"/a/{token}", status_code=303)

    async def admin_page(request: Request) -> Response:
        token = request.path_params["token"]
        if not desk.is_admin(token):
            return FORBIDDEN
        report = desk.report()
        return page("admin.html", base=f"/admin/{token}", name=desk.name, formats=desk.formats(), **report)

    async def export(request: Request) -> Response:
        token = request.path_params["token"]
        if not desk.is_admin(token):
            return FORBIDDEN
        try:
            text = desk.export(request.path_params["format"])
        except InputError as error:
            return PlainTextResponse(f"{error}\n", status_code=404)
        return PlainTextResponse(text, headers={"Content-Disposition": "attachment"})

    routes = [
        Route("/a/{token}", assessor_page),
        Route("/a/{token}/answer", answer, methods=["POST"]),
        Route("/a/{token}/undo", undo, methods=["POST"]),
        Route("/admin/{token}", admin_page),
        Route("/admin/{token}/export/{format}", export),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(routes=routes)
