"""The open study link for crowd platforms, over real HTTP (uvicorn on loopback, httpx): participants join from a
participant id in the link (idempotent, across a restart), are sent to the completion URL after N judgments; the
link never grants the admin page; participant ids are length-limited and shown escaped."""

from __future__ import annotations

import re

import httpx
import pytest

from ir_pref_measures.commands import main

FIELD = re.compile(r'name="(csrf|assignment)" value="([^"]*)"')
COMPLETE = "https://app.prolific.example/submissions/complete?cc=C0DE"


def joined(client: httpx.Client, study_link: str, participant: str, parameter: str = "PROLIFIC_PID") -> httpx.Response:
    base = study_link.split("?", 1)[0]
    return client.get(base, params={parameter: participant})


def token_at(response: httpx.Response) -> str:
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[1]


def test_without_the_study_option_the_open_link_does_not_exist(server):
    s = server()
    assert "study" not in s.links
    with httpx.Client(base_url=s.url) as client:
        assert client.get("/s/anything", params={"PROLIFIC_PID": "p1"}).status_code == 403


def test_a_participant_joins_once_and_keeps_their_link_across_a_restart(server):
    s = server(study=True)
    with httpx.Client(base_url=s.url) as client:
        first = token_at(joined(client, s.links["study"], "5f1a2b3c4d5e6f7a8b9c0d1e"))
        assert token_at(joined(client, s.links["study"], "5f1a2b3c4d5e6f7a8b9c0d1e")) == first
        other = token_at(joined(client, s.links["study"], "another"))
        assert other != first
        assert client.get(f"/a/{first}").status_code == 200
    s.kill()
    s.start()
    with httpx.Client(base_url=s.url) as client:
        assert token_at(joined(client, s.links["study"], "5f1a2b3c4d5e6f7a8b9c0d1e")) == first
        assert client.get(f"/a/{other}").status_code == 200


def test_the_open_link_never_grants_the_admin_page(server):
    s = server(study=True)
    secret = s.links["study"].split("/s/", 1)[1].split("?", 1)[0]
    with httpx.Client(base_url=s.url) as client:
        participant = token_at(joined(client, s.links["study"], "admin"))
        for token in (secret, participant):
            assert client.get(f"/admin/{token}").status_code == 403
            assert client.get(f"/admin/{token}/export/pairs").status_code == 403
        admin = s.links["admin"].rsplit("/", 1)[1]
        assert client.get(f"/s/{admin}", params={"PROLIFIC_PID": "p"}).status_code == 403  # not the study's secret
        assert client.get("/s/not-the-secret", params={"PROLIFIC_PID": "p"}).status_code == 403


def test_participant_ids_are_checked_and_shown_escaped(server):
    s = server(study=True)
    with httpx.Client(base_url=s.url) as client:
        base = s.links["study"].split("?", 1)[0]
        assert client.get(base).status_code == 400  # no id
        for bad in ("x" * 65, "two words", "tab\there", "new\nline"):
            refused = client.get(base, params={"PROLIFIC_PID": bad})
            assert refused.status_code == 400 and "participant id" in refused.text
        assert joined(client, s.links["study"], "x" * 64).status_code == 303
        assert joined(client, s.links["study"], "<b>bold</b>&").status_code == 303
        admin = client.get(s.links["admin"].replace(s.url, "")).text
    assert "participant-&lt;b&gt;bold&lt;/b&gt;&amp;" in admin and "<b>bold</b>" not in admin


def test_the_participant_parameter_is_configurable(server):
    s = server(study=True, parameter="workerId")
    assert s.links["study"].endswith("?workerId=")
    with httpx.Client(base_url=s.url) as client:
        assert joined(client, s.links["study"], "W1", "workerId").status_code == 303
        assert joined(client, s.links["study"], "W1", "PROLIFIC_PID").status_code == 400


def test_a_participant_is_sent_to_the_completion_url_after_n_judgments(server):
    s = server(study=True, completion_url=COMPLETE, judgments=3)
    with httpx.Client(base_url=s.url) as client:
        token = token_at(joined(client, s.links["study"], "p1"))
        for n in range(3):
            page = client.get(f"/a/{token}")
            assert page.status_code == 200, f"sent away after {n} judgments"
            assert "form-action 'self' https://app.prolific.example;" in page.headers["content-security-policy"]
            fields = dict(FIELD.findall(page.text))
            answer = "skip" if n == 1 else "left"  # a skip is no judgment
            assert client.post(f"/a/{token}/answer", data={**fields, "answer": answer}).status_code == 303
        assert client.get(f"/a/{token}").status_code == 200  # two judgments and a skip
        fields = dict(FIELD.findall(client.get(f"/a/{token}").text))
        client.post(f"/a/{token}/answer", data={**fields, "answer": "right"})
        done = client.get(f"/a/{token}")
        assert done.status_code == 303 and done.headers["location"] == COMPLETE
        alice = s.links["alice"].rsplit("/", 1)[1]
        assert client.get(f"/a/{alice}").status_code == 200  # a named assessor is never sent away


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--assessors", "a", "--completion-url", COMPLETE, "--completion-after", "3"], "give --study"),
        (["--assessors", "a", "--participant-param", "workerId"], "give --study"),
        (["--study", "--completion-url", COMPLETE], "go together"),
        (["--study", "--completion-url", "javascript:alert(1)", "--completion-after", "3"], "absolute http(s) URL"),
        ([], "--assessors NAME ...) or enable the open study link"),
    ],
)
def test_study_options_are_checked_before_serving(tmp_path, capsys, options, said):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    store = str(tmp_path / "s.sqlite")
    assert main(["judge", "plan", store, "--selector", "all", "--qrels", str(tmp_path / "qrels.txt")]) == 0
    capsys.readouterr()
    texts = str(tmp_path / "qrels.txt")
    assert main(["judge", "serve", store, "--queries", texts, "--docs", texts, *options]) == 2
    error = capsys.readouterr().err
    assert said in error and len(error.strip().splitlines()) == 1


def test_the_admin_page_shows_the_study_link(server):
    s = server(study=True)
    with httpx.Client(base_url=s.url) as client:
        page = client.get(s.links["admin"].replace(s.url, "")).text
    assert f'<code class="link">{s.links["study"]}</code>' in page
