"""The judging server over real HTTP (uvicorn on loopback, httpx): access, CSRF, escaping, and nothing lost or
doubled when twenty assessors answer at once and the server is killed (SIGKILL) and restarted, on a SQLite file
and on a PostgreSQL server."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
import time

import httpx
import pytest

from ir_pref_measures.judging.database import connect

FIELD = re.compile(r'name="(csrf|assignment)" value="([^"]*)"')


def page_fields(html: str) -> dict[str, str]:
    return dict(FIELD.findall(html))


def token_of(link: str) -> str:
    return link.rsplit("/", 1)[1]


def test_every_route_needs_a_token(server):
    s = server()
    with httpx.Client(base_url=s.url) as client:
        assert client.get("/").status_code == 404
        assert client.get("/a/").status_code == 404
        assert client.get("/a/not-a-token").status_code == 403
        assert client.get("/admin/not-a-token").status_code == 403
        assert client.get("/admin/not-a-token/export/pairs").status_code == 403
        assert client.post("/a/not-a-token/answer", data={"answer": "left"}).status_code == 403
        assert client.get(s.links["alice"].replace(s.url, "")).status_code == 200


def test_the_admin_page_refuses_an_assessor_token(server):
    s = server()
    alice = token_of(s.links["alice"])
    with httpx.Client(base_url=s.url) as client:
        assert client.get(f"/admin/{alice}").status_code == 403
        assert client.get(f"/admin/{alice}/export/pairs").status_code == 403
        assert client.get(s.links["admin"].replace(s.url, "")).status_code == 200


def test_a_forged_csrf_token_and_another_assessors_csrf_are_refused(server):
    s = server()
    alice, bob = token_of(s.links["alice"]), token_of(s.links["bob"])
    with httpx.Client(base_url=s.url) as client:
        fields = page_fields(client.get(f"/a/{alice}").text)
        bob_fields = page_fields(client.get(f"/a/{bob}").text)
        forged = {"assignment": fields["assignment"], "answer": "left", "csrf": "0" * 64}
        assert client.post(f"/a/{alice}/answer", data=forged).status_code == 403
        missing = {"assignment": fields["assignment"], "answer": "left"}
        assert client.post(f"/a/{alice}/answer", data=missing).status_code == 403
        crossed = {"assignment": fields["assignment"], "answer": "left", "csrf": bob_fields["csrf"]}
        assert client.post(f"/a/{alice}/answer", data=crossed).status_code == 403
        assert client.post(f"/a/{alice}/undo", data={"csrf": "forged"}).status_code == 403
    with sqlite3.connect(s.store) as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0


def test_another_assessors_pair_is_refused(server):
    s = server()
    alice, bob = token_of(s.links["alice"]), token_of(s.links["bob"])
    with httpx.Client(base_url=s.url) as client:
        alice_fields = page_fields(client.get(f"/a/{alice}").text)
        bob_fields = page_fields(client.get(f"/a/{bob}").text)
        assert alice_fields["assignment"] != bob_fields["assignment"]
        steal = {"assignment": alice_fields["assignment"], "answer": "left", "csrf": bob_fields["csrf"]}
        assert client.post(f"/a/{bob}/answer", data=steal).status_code == 403
    with sqlite3.connect(s.store) as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0


def test_document_html_is_shown_as_text(server):
    s = server(assessors=["alice"])
    alice = token_of(s.links["alice"])
    seen = ""
    with httpx.Client(base_url=s.url, follow_redirects=True) as client:
        for _ in range(40):
            html = client.get(f"/a/{alice}").text
            seen += html
            fields = page_fields(html)
            if "assignment" not in fields:
                break
            client.post(f"/a/{alice}/answer", data={**fields, "answer": "left"})
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in seen
    assert "<script>document.title" not in seen
    assert "&lt;b&gt;<mark>panels</mark>&lt;/b&gt; &amp; <mark>efficiency</mark>" in seen


def answer_for(client: httpx.Client, token: str, choices: list[str], given: list, stop: threading.Event) -> None:
    """One assessor: read the page, answer, remember what the server acknowledged; retry through an outage."""
    k = 0
    while not stop.is_set():
        try:
            fields = page_fields(client.get(f"/a/{token}").text)
            if "assignment" not in fields:
                return
            answer = choices[k % len(choices)]
            k += 1
            response = client.post(f"/a/{token}/answer", data={**fields, "answer": answer})
            if response.status_code == 303:
                given.append((int(fields["assignment"]), answer))
        except httpx.TransportError:
            time.sleep(0.05)  # the server is down: a lost connection, try again


def test_twenty_assessors_a_kill_and_a_restart_lose_and_double_nothing(server, store_location):
    names = [f"assessor{i:02d}" for i in range(20)]
    s = server(assessors=names, overlap=0.5, store=store_location)
    tokens = {n: token_of(s.links[n]) for n in names}
    given = {n: [] for n in names}
    stop = threading.Event()
    clients = {n: httpx.Client(base_url=s.url, timeout=10) for n in names}
    threads = [
        threading.Thread(target=answer_for, args=(clients[n], tokens[n], ["left", "right", "tie"], given[n], stop))
        for n in names
    ]
    for t in threads:
        t.start()
    time.sleep(3)
    s.kill()
    with contextlib.closing(connect(s.store)) as db:
        open_before = dict(db.execute("SELECT assessor, id FROM assignments WHERE state = 'open'").fetchall())
    s.start()
    with httpx.Client(base_url=s.url) as probe:  # every queue resumes where it stopped: the same open pair
        for name, assignment in list(open_before.items())[:5]:
            assert int(page_fields(probe.get(f"/a/{tokens[name]}").text)["assignment"]) == assignment
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join(30)
    for c in clients.values():
        c.close()
    with contextlib.closing(connect(s.store)) as db:
        rows = db.execute(
            "SELECT a.assessor, s.id, a.answer, a.first, s.first FROM answers a JOIN assignments s "
            "ON s.request_id = a.request_id AND s.assessor = a.assessor"
        ).fetchall()
        doubled = db.execute(
            "SELECT COUNT(*) FROM (SELECT request_id, assessor FROM answers GROUP BY request_id, assessor "
            "HAVING COUNT(*) > 1) AS doubled"
        ).fetchone()[0]
    stored = {(who, assignment): answer for who, assignment, answer, _, _ in rows}
    acknowledged = [(n, a, ans) for n in names for a, ans in given[n]]
    assert sum(len(g) for g in given.values()) > 40, "the assessors answered too little to test anything"
    assert doubled == 0
    stored_as = {"left": "first", "right": "second", "tie": "tie"}
    for name, assignment, answer in acknowledged:  # every acknowledged answer is stored, once, as given
        assert stored[(name, assignment)] == stored_as[answer]
    assert all(first == shown_first for *_, first, shown_first in rows)  # stored in the order shown


@pytest.mark.parametrize("fmt", ["pairs", "winner", "carterette", "log"])
def test_export_in_every_format(server, fmt):
    s = server(assessors=["alice"])
    alice = token_of(s.links["alice"])
    admin = s.links["admin"].replace(s.url, "")
    with httpx.Client(base_url=s.url) as client:
        for _ in range(3):
            fields = page_fields(client.get(f"/a/{alice}").text)
            client.post(f"/a/{alice}/answer", data={**fields, "answer": "left"})
        response = client.get(f"{admin}/export/{fmt}")
    assert response.status_code == 200
    assert len(response.text.strip().splitlines()) >= 3
