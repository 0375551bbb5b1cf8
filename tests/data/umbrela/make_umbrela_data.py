"""Record UMBRELA's own requests and readings (github castorini/umbrela), the reference of the ``umbrela`` preset.

Run with a Python >= 3.12 that has pyyaml, matplotlib, scikit-learn and openai (UMBRELA's imports), and a checkout of
UMBRELA's sources (``git archive HEAD src | tar -x``)::

    python make_umbrela_data.py --umbrela /path/to/umbrela/src --testdata ../../../../shared/testdata

The recorded files were made from UMBRELA's commit e2c4e4126bf7b568d9230008b465a58445cabc30 (2026-04-19, version
0.0.7) with Python 3.12. It drives UMBRELA's ``GPTJudge`` (zero-shot, ``prompt_type="bing"``, model ``gpt-4o``)
with a stand-in for the OpenAI client that records each request UMBRELA makes and answers with a raw answer of
:data:`ANSWERS`; UMBRELA then reads the answer as it does (lower-cased, then its parser). It writes, beside this script:

* ``synthetic.jsonl``: for 100 generated query-passage pairs (braces, quotes, tabs, line breaks, trailing spaces,
  non-ASCII text), the query, the passage, the request (model, messages, sampling options), the raw answer, and
  UMBRELA's grade and validity of it;
* ``dl19_sha256.txt``: for 100 query-passage pairs of TREC DL 2019 from round 05 of the GPT-4o judgments in the
  reference test data (its transcript holds the questions and passages, which are not ours to redistribute): its 50
  passages each with its own topic's question, then each with the question of the next topic (in order of first
  appearance), as ``topic doc sha256`` of ``json.dumps(messages)`` of UMBRELA's request: the texts stay out, the
  check stays.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent

ANSWERS = [
    "##final score: 2", "##Final Score: 3", "final score: 1", "0", "3", "Score: 2", '{"O": 3}', "'o': 1",
    "M: 2, T: 1, O: 3", "The final score is 2.", "I would give it a score of 1", "relevance category 2",
    "It falls into the category 3", "none", "", "N/A", "4", "score 5", "The passage is 7 out of 10",
    "##final score: 2\n##final score: 3", "M=3 T=2 O=1", "Overall score - 2", "I assign it a score of 0.",
    "category: 3", "10", "O: 3\n\nfinal score: 1", "##final score:", "Grade is 3 ", "tokens 1 2 3", "  \n 2 \n",
    '"overall_score": 1', '"final_score" = 2', "output score is 3", "conclude with a score of 2", "o;1", "o<2",
    "o>3", "FINAL SCORE IS 0", "the relevance category would be 1", "M: 3\nT: 3\nO:", "score of\n2", "99",
]  # fmt: skip
WORDS = [
    "what", "is", "the", "{query}", "{0}", "{{", "}}", '"quoted"', "it's", "tab\there", "café", "naïve", "日本語",
    "émigré", "100%", "$x$", "back\\slash", "end.", "Passage:", "Query:", "new\nline", "O: 3",
]  # fmt: skip


def synthetic_pairs(count: int = 100) -> list[tuple[str, str]]:
    """``count`` query-passage pairs from a seeded generator (the same on every run)."""
    rng = random.Random(49)
    pairs = []
    for _ in range(count):
        query = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) + rng.choice(["", "?", " ", "  "])
        passage = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40))) + rng.choice(["", "\n", " "])
        pairs.append((query, passage))
    return pairs


def dl19_pairs(testdata: Path) -> list[tuple[str, str, str, str]]:
    """``(topic, doc, question, passage)`` of round 05's passages with their own topic's question, then with the next
    topic's (module docstring)."""
    sys.path.insert(0, str(HERE.parents[1]))  # tests/: the transcript reader of the oracles
    from oracles.judge_py import read_transcript

    text = (testdata / "dl_llm_prefs_arabzadeh/llm_pref_judgments/DL2019/log.05").read_text(encoding="utf-8")
    seen: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    for e in read_transcript(text):
        for doc, passage in ((e.a, e.passage_a), (e.b, e.passage_b)):
            seen.setdefault((e.topic, doc), (e.topic, doc, e.question, passage))
    own = list(seen.values())
    questions = {topic: question for topic, _, question, _ in own}
    topics = list(questions)
    following = {topic: topics[(k + 1) % len(topics)] for k, topic in enumerate(topics)}
    return own + [(following[t], d, questions[following[t]], p) for t, d, _, p in own]


class Recorder:
    """A stand-in for ``AsyncOpenAI``: records each request and answers from ``said`` (user message -> answer)."""

    def __init__(self, said: dict[str, str]) -> None:
        self.said, self.requests = said, {}
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    async def create(self, **request):
        user = request["messages"][-1]["content"]
        self.requests[user] = request
        message = SimpleNamespace(content=self.said.get(user, ""))
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])


def umbrela_judge(said: dict[str, str]):
    from umbrela.gpt_judge import GPTJudge

    os.environ.setdefault("OPENAI_API_KEY", "sk-not-used")
    judge = GPTJudge(qrel="dl19-passage", model_name="gpt-4o", prompt_type="bing", few_shot_count=0)
    judge.async_client = Recorder(said)
    return judge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--umbrela", required=True, help="UMBRELA's src folder")
    parser.add_argument("--testdata", help="the reference test data (for the DL 2019 hashes)")
    args = parser.parse_args()
    sys.path.insert(0, args.umbrela)
    from umbrela.prompts import get_prompt_template, render_prompts

    template = get_prompt_template(None, "bing", 0)
    pairs = synthetic_pairs()
    prompts = render_prompts(template, pairs, "")
    said = {prompt: ANSWERS[i % len(ANSWERS)] for i, prompt in enumerate(prompts)}
    judge = umbrela_judge(said)
    judgments = judge.judge(pairs, max_new_tokens=100, preprocess=False)
    with open(HERE / "synthetic.jsonl", "w", encoding="utf-8") as out:
        for (query, passage), prompt, judged in zip(pairs, prompts, judgments, strict=True):
            request = {k: v for k, v in judge.async_client.requests[prompt].items() if k != "timeout"}
            row = {"query": query, "passage": passage, "request": request, "answer": said[prompt]}
            row |= {"grade": judged["judgment"], "valid": bool(judged["result_status"])}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if args.testdata:
        real = dl19_pairs(Path(args.testdata))
        judge = umbrela_judge({})
        judge.judge([(q, p) for _, _, q, p in real], max_new_tokens=100, preprocess=False)
        prompts = render_prompts(template, [(q, p) for _, _, q, p in real], "")
        with open(HERE / "dl19_sha256.txt", "w", encoding="utf-8") as out:
            for (topic, doc, _, _), prompt in zip(real, prompts, strict=True):
                messages = judge.async_client.requests[prompt]["messages"]
                out.write(f"{topic} {doc} {hashlib.sha256(json.dumps(messages).encode()).hexdigest()}\n")


if __name__ == "__main__":
    asyncio.set_event_loop_policy(None)
    main()
