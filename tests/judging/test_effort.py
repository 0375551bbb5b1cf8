"""A judging effort on the command line against a PostgreSQL URL: plan, run (resumed), status and export give what
the same effort gives in a SQLite file, line for line."""

from __future__ import annotations

from ir_pref_measures.commands import main


def effort(tmp_path, store: str, capsys) -> tuple[dict[str, str], str]:
    """Plan, run to a budget, resume to the end, and export ``store``: its status (without the timestamps'
    settings) and its judging log."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {(d + q) % 4}\n" for q in range(3) for d in range(8)))
    run = tmp_path / "a.run"
    run.write_text("".join(f"q{q} Q0 d{d} 0 {8 - d} a\n" for q in range(3) for d in range(8)))
    assert main(["judge", "plan", store, "--selector", "insertion", "--runs", str(run), "--depth", "5"]) == 0
    judge = ["--judge", "simulated", "--qrels", str(qrels), "--noise", "0.2", "--judge-seed", "4"]
    assert main(["judge", "run", store, *judge, "--budget", "5"]) == 0
    assert main(["judge", "run", store, *judge]) == 0
    capsys.readouterr()
    assert main(["judge", "status", store]) == 0
    status = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert main(["judge", "export", store, "--format", "log"]) == 0
    return status, capsys.readouterr().out


def test_a_postgresql_effort_gives_what_a_sqlite_one_gives(tmp_path, postgresql_server, capsys):
    in_sqlite = effort(tmp_path, str(tmp_path / "e.sqlite"), capsys)
    in_postgresql = effort(tmp_path, postgresql_server.new_database(), capsys)
    assert int(in_sqlite[0]["answers"]) > 5 and in_sqlite[1].count("\n") == int(in_sqlite[0]["answers"])
    assert in_postgresql == in_sqlite


def test_a_postgresql_store_is_planned_once(postgresql_server, tmp_path, capsys):
    url = postgresql_server.new_database()
    assert main(["judge", "status", url]) == 0  # a URL exists as far as the command can tell: its server says
    capsys.readouterr()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 1\n")
    assert main(["judge", "plan", url, "--selector", "all", "--qrels", str(qrels)]) == 0
    assert capsys.readouterr().out == f"{url}: 1 queries, 2 docs, 1 pairs\n"
    assert main(["judge", "plan", url, "--selector", "random", "--qrels", str(qrels)]) == 2
    assert "selector: stored 'all', given 'random'" in capsys.readouterr().err


def test_a_rating_effort_keeps_the_rule_it_was_made_with(tmp_path):
    """A new rating effort stores its share of uniform questions; one stored without it (made before the share
    existed) keeps asking every question by the targeted rule, also when it is planned again."""
    from ir_pref_measures.judging import RatingDriven, Store, plan, selector_of

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q1 0 d{d} {d % 3 + 1}\n" for d in range(12)))
    plan(tmp_path / "new.sqlite", "rating", qrels=str(qrels), seed=3, batch=4)
    with Store(tmp_path / "new.sqlite") as store:
        assert store.settings()["uniform"] == "0.5" and selector_of(store.settings()).uniform == 0.5
    old = tmp_path / "old.sqlite"
    with Store(old) as store:  # the settings an effort of the targeted rule stored
        store.settle({"selector": "rating", "seed": 3, "rule": "majority", "reask": False, "batch": 4})
        store.settle({"qrels": str(qrels.resolve())})
    plan(old, "rating", qrels=str(qrels), seed=3, batch=4)
    with Store(old) as store:
        settings = store.settings()
    pools = {"q1": [f"d{d}" for d in range(12)]}
    assert "uniform" not in settings
    assert selector_of(settings).next_round("q1", []) == RatingDriven(pools, 3, 4, uniform=0.0).next_round("q1", [])
    assert selector_of(settings).next_round("q1", []) != RatingDriven(pools, 3, 4).next_round("q1", [])
