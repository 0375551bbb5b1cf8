"""The LLM judge against a real OpenAI-compatible server on loopback (tests/judging/chat_server.py), through the real
``openai`` client: line for line with Arabzadeh and Clarke's judge.py on round 05 of the GPT-4o judgments of TREC DL
2019 (the server replays GPT-4o's responses from the round's transcript), the same on a licence-clean synthetic
round that always runs, and the same again while the server fails in every way it can."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools

import numpy as np
import pytest
from conftest import testdata_path
from judging.chat_server import FAULTS, ChatServer, prompt_key, tokens
from oracles.judge_py import Exchange, at_line, read_transcript, reading

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Judge, Pair, QueryText, Texts, clarke_lines, preset
from ir_pref_measures.judging.llm import OPTIONS, EndpointError, LLMJudge, llm_judge_from_options
from ir_pref_measures.judging.presets import ARABZADEH_CLARKE_SYSTEM
from ir_pref_measures.judging.texts import MISSING

pytest.importorskip("openai")

AC = preset("arabzadeh-clarke")
FAST = {"timeout": 3.0, "backoff": 0.01, "max_backoff": 0.05}  # generous on a busy machine; "timeout" hangs 3.5 s


def round_05() -> list[Exchange]:
    path = testdata_path("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2019", "log.05")
    return read_transcript(path.read_text(encoding="utf-8"))


def synthetic_round(seed: int = 5) -> tuple[list[Exchange], dict[str, str]]:
    """A round like round 05 made up in code: 4 topics, 12 passages each (lengths vary, some equal), 40 pairs,
    responses including the oddities LLMs write; two pairs have a passage missing (returned separately)."""
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "Passage", "one", "two", "x1", "y2", "answer"]
    responses = ["1", "2", "Passage 1", "Passage 2", "None", "", "1 or 2", "3", "Passage 2 is better than 1", "1\n"]
    passages, exchanges = {}, []
    for topic in ("101", "102", "103", "104"):
        docs = [f"D{topic}{k:02d}" for k in range(12)]
        for doc in docs:
            passages[doc] = " ".join(rng.choice(words, size=int(rng.integers(1, 4)) * 3))
        for i, j in rng.choice(list(itertools.combinations(range(12), 2)), size=10, replace=False):
            a, b = docs[i], docs[j]
            said = tuple(str(rng.choice(responses)) for _ in range(2))
            x, y = reading(said[0]), reading(said[1])
            prompts = tuple(
                AC.template.format(query=f"question {topic}?", first=p, second=q)
                for p, q in ((passages[a], passages[b]), (passages[b], passages[a]))
            )
            exchanges.append(
                Exchange(
                    topic,
                    a,
                    b,
                    f"question {topic}?",
                    passages[a],
                    passages[b],
                    prompts,
                    said,
                    (x, y),
                    (len(passages[a]), len(passages[b])),
                    at_line(topic, a, b, passages, x, y),
                )
            )
    return exchanges, passages


def replay(exchanges: list[Exchange]):
    """The server's answer to a prompt: the response recorded for it."""
    recorded = {}
    for e in exchanges:
        for prompt, response in zip(e.prompts, e.responses, strict=True):
            assert recorded.setdefault(prompt, response) == response, "a prompt recorded with two responses"

    def answer(messages):
        assert messages[0] == {"role": "system", "content": ARABZADEH_CLARKE_SYSTEM}
        return recorded[messages[1]["content"]]

    return answer


def texts_of(exchanges: list[Exchange], passages: dict[str, str] | None = None) -> Texts:
    queries = {e.topic: QueryText(e.question) for e in exchanges}
    if passages is None:
        passages = {doc: text for e in exchanges for doc, text in ((e.a, e.passage_a), (e.b, e.passage_b))}
    return Texts(queries, passages)


def pairs_of(exchanges: list[Exchange]) -> list[Pair]:
    return [Pair(e.topic, e.a, e.b) for e in exchanges]


def faults_by_prompt(seed: int = 0, most: int = 2):
    """Every prompt's first 0..``most`` requests fail, each with a fault drawn for that prompt (seeded by the
    prompt, so the plan does not depend on the order requests arrive)."""

    def fault(messages, asked):
        digest = hashlib.sha256(repr(prompt_key(messages)).encode()).digest()
        rng = np.random.default_rng([seed, int.from_bytes(digest[:4], "little")])
        plan = rng.choice(FAULTS, size=int(rng.integers(0, most + 1)))
        return str(plan[asked]) if asked < len(plan) else None

    return fault


def check_round(exchanges, passages=None, *, faults=None, concurrency=8, attempts=6):
    """Judge the round's pairs through the server; the `@` lines and every answer as the transcript has them."""
    texts, pairs = texts_of(exchanges, passages), pairs_of(exchanges)
    with ChatServer(replay(exchanges), faults=faults, hang=3.5, slow=0.2) as server:
        judge = LLMJudge(
            texts,
            model="gpt-4o",
            base_url=server.url,
            api_key="sk-test",
            concurrency=concurrency,
            attempts=attempts,
            **FAST,
        )
        answers = judge.judge(pairs)
    assert clarke_lines(pairs, answers, AC, texts) == [e.line for e in exchanges]
    asked = [e for e in exchanges if e.a in texts.documents and e.b in texts.documents]
    assert len(answers) == 2 * len(exchanges)
    for e, ab, ba in zip(exchanges, answers[::2], answers[1::2], strict=True):
        assert (ab.pair, ba.pair) == (Pair(e.topic, e.a, e.b), Pair(e.topic, e.b, e.a))
        if e in asked:
            assert (ab.raw, ba.raw) == e.responses
            assert [{"first": 1, "second": -1}.get(x.answer, 0) for x in (ab, ba)] == list(e.readings)
        else:
            assert ab.answer == ba.answer == "unusable" and ab.reason.startswith(MISSING)
    # nothing lost, nothing asked twice once answered
    assert all(
        server.answered[
            prompt_key([{"role": "system", "content": ARABZADEH_CLARKE_SYSTEM}, {"role": "user", "content": p}])
        ]
        == 1
        for e in asked
        for p in e.prompts
    )
    assert sum(server.answered.values()) == 2 * len(asked)
    if not server.faulted["timeout"]:  # a request the client gave up on still holds a server thread
        assert server.peak <= concurrency
    return judge, server, answers


def test_round_05_line_for_line():
    """The transcript's 176 `@` lines, in order, and each answer as GPT-4o gave it."""
    exchanges = round_05()
    assert len(exchanges) == 176
    judge, server, answers = check_round(exchanges)
    assert judge.usage.prompts == 352 and judge.usage.retries == 0 and not server.faulted
    assert judge.usage.tokens_in == sum(tokens(p) for e in exchanges for p in e.prompts)
    # the published round: the same lines without the `@` and the mark
    published = testdata_path("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2019", "judge.05").read_text()
    texts, pairs = texts_of(exchanges), pairs_of(exchanges)
    assert [line[2:-2] for line in clarke_lines(pairs, answers, AC, texts)] == published.splitlines()


def test_round_05_line_for_line_while_the_server_fails():
    """429s, 5xx, timeouts, dropped connections, malformed and empty bodies, slow answers: the same lines."""
    judge, server, answers = check_round(round_05(), faults=faults_by_prompt(), concurrency=16)
    assert set(server.faulted) == set(FAULTS)
    assert not any(a.answer == "unusable" for a in answers)
    served = {kind: n for kind, n in server.faulted.items() if kind != "slow"}
    kinds = {
        "timeout": "timeout",
        "disconnect": "connection",
        "malformed": "malformed",
        "empty": "malformed",
        "no-choices": "malformed",
    }
    expected: dict[str, int] = {}
    for kind, n in served.items():
        name = kinds.get(kind, f"HTTP {kind}")
        expected[name] = expected.get(name, 0) + n
    # a timeout can also happen on the client's side before the server sees the request (a busy machine)
    assert judge.usage.failures.pop("timeout") >= expected.pop("timeout")
    assert judge.usage.failures == expected
    assert judge.usage.retries == judge.usage.attempts - 352


@pytest.mark.parametrize("seed", [5, 6])
def test_synthetic_round_line_for_line(seed):
    """A made-up round with odd responses and missing passages, judged as judge.py would (tests/oracles)."""
    exchanges, passages = synthetic_round(seed)
    del passages[exchanges[3].b], passages[exchanges[7].a]  # one pair missing b, one missing a
    exchanges = [dataclasses.replace(e, line=at_line(e.topic, e.a, e.b, passages, *e.readings)) for e in exchanges]
    assert {e.line[-1] for e in exchanges} == {"!", "=", "?"}
    check_round(exchanges, passages)
    check_round(exchanges, passages, faults=faults_by_prompt(seed), concurrency=6)


def test_an_order_that_never_answers_leaves_the_other_to_decide():
    """After the last attempt a prompt's answer is unusable, with the reason; the other order decides."""
    exchanges, _ = synthetic_round()
    e = next(e for e in exchanges if e.readings == (1, -1))
    texts = texts_of([e])
    with ChatServer(
        replay([e]), faults=lambda m, n: "500" if e.passage_b + "\nPassage 2" in m[1]["content"] else None
    ) as server:
        judge = LLMJudge(texts, model="m", base_url=server.url, attempts=3, **FAST)
        answers = judge.judge([Pair(e.topic, e.a, e.b)])
    assert answers[0].answer == "first" and answers[1].answer == "unusable"
    assert answers[1].reason == "no answer after 3 attempt(s); the last: HTTP 500: fault 500"
    assert clarke_lines([Pair(e.topic, e.a, e.b)], answers, AC, texts) == [f"@ {e.topic} {e.a} {e.b} !"]
    assert judge.usage.failed == 1 and judge.usage.failures == {"HTTP 500": 3} and server.faulted["500"] == 3


def test_a_refused_prompt_is_not_retried_and_a_refused_key_stops_the_run():
    texts = Texts({"q": QueryText("q?")}, {"a": "A", "b": "B"})
    pair = Pair("q", "a", "b")
    with ChatServer(lambda m: "1", faults=lambda m, n: "400" if "A\nPassage 2" in m[1]["content"] else None) as server:
        answers = LLMJudge(texts, model="m", base_url=server.url, **FAST).judge([pair])
    assert [a.answer for a in answers] == ["unusable", "first"] and answers[0].reason.startswith("HTTP 400")
    assert sum(server.asked.values()) == 2
    with ChatServer(lambda m: "1", key="right-key") as server:
        with pytest.raises(EndpointError, match="HTTP 401") as refused:
            LLMJudge(texts, model="m", base_url=server.url, api_key="wrong-key", **FAST).judge([pair])
        assert "wrong-key" not in str(refused.value)


def test_the_key_comes_from_the_environment_and_is_never_shown(monkeypatch, caplog):
    texts = Texts({"q": QueryText("q?")}, {"a": "A", "b": "B"})
    with ChatServer(lambda m: "2", key="sk-secret-123") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
        judge = LLMJudge(texts, model="m")
        answers = judge.judge([Pair("q", "a", "b")])
    assert [a.answer for a in answers] == ["second", "second"]
    shown = repr(judge) + repr(answers) + repr(judge.usage) + caplog.text + repr(vars(judge.preset))
    assert "sk-secret-123" not in shown
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(InputError, match="no endpoint"):
        LLMJudge(texts, model="m")


def test_samples_orders_tokens_cost_and_concurrency():
    """k samples per order, answers in request order whatever order they arrive in (answers take different times),
    the concurrency bound, tokens and cost."""
    rng = np.random.default_rng(1)
    docs = {f"d{k}": " ".join(["w"] * int(rng.integers(1, 30))) for k in range(12)}
    texts = Texts({"q1": QueryText("one?"), "q2": QueryText("two?")}, docs)
    pairs = [Pair(q, a, b) for q in ("q1", "q2") for a, b in itertools.combinations(sorted(docs)[:6], 2)]
    answer = {}

    def said(messages):
        user = messages[-1]["content"]
        return answer.setdefault(user, str(rng.choice(["1", "2"])))

    with ChatServer(said, faults=lambda m, n: "slow" if len(m[-1]["content"]) % 3 == 0 else None, slow=0.05) as server:
        judge = LLMJudge(texts, model="m", base_url=server.url, samples=3, concurrency=5, price_per_1k=(2.0, 10.0))
        answers = judge.judge(pairs)
    assert server.peak <= 5 and sum(server.asked.values()) == len(pairs) * 6
    expected = [(shown, k) for pair in pairs for shown in (pair, pair.swapped()) for k in range(3)]
    assert [(a.pair, a.sample) for a in answers] == expected
    assert all(a.prompt_hash == AC.prompt_hash and a.model == "m" and a.judge == "llm" for a in answers)
    assert (
        judge.usage.tokens_in
        == sum(a.tokens_in for a in answers)
        == sum(tokens(key[-1][1]) * n for key, n in server.asked.items())
    )
    assert judge.usage.tokens_out == len(answers)
    assert judge.usage.cost == pytest.approx((judge.usage.tokens_in * 2.0 + judge.usage.tokens_out * 10.0) / 1000)
    assert all(a.latency > 0 for a in answers)


def test_a_missing_text_is_an_unusable_answer_without_a_request():
    texts = Texts({"q": QueryText("q?")}, {"a": "A", "b": "B"})
    pairs = [Pair("q", "a", "zz"), Pair("nq", "a", "b"), Pair("q", "a", "b")]
    with ChatServer(lambda m: "1") as server:
        judge = LLMJudge(texts, model="m", base_url=server.url)
        answers = judge.judge(pairs)
    assert sum(server.asked.values()) == 2
    assert [a.reason for a in answers[:4]] == ["missing text: document 'zz'"] * 2 + ["missing text: query 'nq'"] * 2
    assert clarke_lines(pairs, answers, AC, texts) == ["@ q a zz ?", "@ nq a b ?", "@ q b a ="]


def test_the_judge_protocol_and_make_judge_options(tmp_path):
    (tmp_path / "q.tsv").write_text("q\tq?\n")
    (tmp_path / "d.tsv").write_text("a\tA\nb\tBB\n")
    with ChatServer(lambda m: "1") as server:
        judge = llm_judge_from_options(
            {
                "model": "m",
                "base_url": server.url,
                "samples": "2",
                "timeout": "5",
                "send_seed": "true",
                "price_per_1k": "1,3",
                "queries": str(tmp_path / "q.tsv"),
                "documents": str(tmp_path / "d.tsv"),
                "preset": "narrative",
            }
        )
        assert isinstance(judge, Judge) and judge.samples == 2 and judge.timeout == 5.0 and judge.send_seed
        assert (judge.price_in, judge.price_out) == (1.0, 3.0) and judge.preset.name == "narrative"
        assert len(judge.judge([Pair("q", "a", "b")])) == 4
    assert set(OPTIONS) >= {"model", "base_url", "api_key", "samples", "concurrency", "price_per_1k"}
    for options, message in [
        ({"base_url": "http://x"}, "needs a model"),
        ({"model": "m", "base_url": "http://x", "samples": "two"}, "samples"),
        ({"model": "m", "base_url": "http://x", "colour": "red"}, "unknown option"),
        ({"model": "m", "base_url": "http://x", "price_per_1k": "-1"}, "price_per_1k"),
        ({"model": "m", "base_url": "http://x", "preset": "nonesuch"}, "unknown preset"),
        ({"model": "m", "base_url": "http://x", "concurrency": 0}, "concurrency"),
    ]:
        with pytest.raises(InputError, match=message):
            llm_judge_from_options({"texts": Texts({}, {}), **options})


def test_judge_runs_inside_a_running_event_loop():
    """From a notebook (a loop already running) judge() still answers, on a worker thread of its own."""
    import asyncio

    texts = Texts({"q": QueryText("q?")}, {"a": "A", "b": "B"})
    with ChatServer(lambda m: "1") as server:
        judge = LLMJudge(texts, model="m", base_url=server.url)

        async def inside():
            return judge.judge([Pair("q", "a", "b")])

        assert [a.answer for a in asyncio.run(inside())] == ["first", "first"]
    # an error on the worker thread reaches the caller
    with ChatServer(lambda m: "1", key="right-key") as server:
        judge = LLMJudge(texts, model="m", base_url=server.url, api_key="wrong-key")
        with pytest.raises(EndpointError, match="HTTP 401"):
            asyncio.run(inside())


def test_backoff_is_full_jitter_within_its_bound_and_honours_retry_after():
    judge = LLMJudge(Texts({}, {}), model="m", base_url="http://127.0.0.1:9/v1", backoff=0.5, max_backoff=3.0, seed=4)
    for attempt in range(1, 8):
        bound = min(3.0, 0.5 * 2 ** (attempt - 1))
        delays = np.array([judge._delay(attempt, 0.0) for _ in range(400)])
        assert delays.min() >= 0 and delays.max() <= bound and delays.max() > 0.8 * bound
    assert all(judge._delay(1, 2.0) >= 2.0 for _ in range(50))  # Retry-After: 2
    assert all(judge._delay(1, 60.0) == 3.0 for _ in range(50))  # capped at max_backoff
    twins = [LLMJudge(Texts({}, {}), model="m", base_url="http://127.0.0.1:9/v1", seed=4) for _ in range(2)]
    assert [twins[0]._delay(3, 0.0) for _ in range(5)] == [twins[1]._delay(3, 0.0) for _ in range(5)]  # seeded
