"""``ir-pref-measures judge plan`` then ``judge serve`` (on a SQLite file or a PostgreSQL URL): the command prints
every secret link (on standard error: the server keeps running) and serves them."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx


def test_plan_then_serve_prints_working_links(tmp_path, free_port, store_location):
    (tmp_path / "qrels.txt").write_text("".join(f"q1 0 d{i} {i % 3}\n" for i in range(6)))
    (tmp_path / "queries.tsv").write_text("q1\tsolar panel efficiency\n")
    (tmp_path / "docs.tsv").write_text("".join(f"d{i}\tdocument {i} on solar panels\n" for i in range(6)))
    store = store_location
    command = [sys.executable, "-m", "ir_pref_measures", "judge"]
    plan = subprocess.run(
        [*command, "plan", str(store), "--selector", "all", "--qrels", str(tmp_path / "qrels.txt")],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    port = free_port
    server = subprocess.Popen(
        [*command, "serve", str(store), "--assessors", "ann", "ben", "--queries", str(tmp_path / "queries.tsv"),
         "--docs", str(tmp_path / "docs.tsv"), "--port", str(port)],
        stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )  # fmt: skip
    try:
        links = dict(server.stderr.readline().rstrip("\n").split("\t") for _ in range(3))
        assert set(links) == {"admin", "ann", "ben"}
        with httpx.Client() as client:
            for _ in range(100):
                try:
                    page = client.get(links["ann"])
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            assert page.status_code == 200
            assert "<mark>solar</mark>" in page.text and re.search(r'name="assignment" value="\d+"', page.text)
            assert client.get(links["admin"]).status_code == 200
    finally:
        server.terminate()
        server.wait(10)


def test_serve_without_a_plan_is_one_clear_error(tmp_path):
    (tmp_path / "t.tsv").write_text("q1\tx\n")
    done = subprocess.run(
        [sys.executable, "-m", "ir_pref_measures", "judge", "serve", str(tmp_path / "new.sqlite"), "--assessors", "a",
         "--queries", str(tmp_path / "t.tsv"), "--docs", str(tmp_path / "t.tsv")],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode != 0
    assert "no plan" in done.stderr and "Traceback" not in done.stderr
