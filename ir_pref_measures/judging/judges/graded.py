"""Graded LLM relevance labels: a query and one passage in, a grade out, written as TREC qrels.

The ``umbrela`` preset reproduces UMBRELA (S. Upadhyay, R. Pradeep, N. Thakur, D. Campos, N. Craswell, I. Soboroff,
H. T. Dang, J. Lin, "A large-scale study of relevance assessments with large language models: an initial look",
2024; github castorini/umbrela, Apache-2.0), with which the TREC 2024 RAG track's relevance labels were made: its
zero-shot Bing prompt (``qrel_zeroshot_bing``, a grade 0 to 3), sent as UMBRELA's OpenAI judge sends it (the system
message ``You are a helpful assistant.``, then the prompt as the user message; temperature 0, at most 100 tokens,
top_p 1, frequency penalty 0.5, presence penalty 0), and its reading of an answer:

the answer is lower-cased and stripped; the patterns of :data:`UMBRELA_PATTERNS` are tried in order, and the first
that matches anywhere gives the grade of its **last** match (``"o": 2``, ``final score: 3``, ``score of 1``, ...,
finally any digit 0 to 3); an answer with no digit 0 to 3 at all is grade 0 and marked invalid (UMBRELA counts such
answers). UMBRELA also reads a reasoning model's separate reasoning text after the answer, and joins the system
message into the user message for OpenAI's o1/o3/o4 models; a chat endpoint's plain answer, as here, has neither.

A label's ``valid`` says whether the answer held a grade; :func:`qrels_lines` writes ``qid 0 doc grade`` lines
(the TREC qrels every measure of the package reads), invalid answers included as grade 0, as UMBRELA writes them.

:class:`LLMGrader` asks an OpenAI-compatible endpoint for the labels, each query-passage pair once, through the chat
transport the LLM judge uses (:class:`~ir_pref_measures.judging.judges.transport.ChatTransport`, made of the
endpoint options the two share, :class:`~ir_pref_measures.judging.judges.endpoint.Endpoint`: ``concurrency``
requests in flight, retries with backoff, a refused key, an unknown model or an endpoint that cannot be reached
stopping the run with :class:`~ir_pref_measures.judging.judges.transport.EndpointError`, the key never shown,
``usage``; with an answer ``cache``, a pair whose reply is kept there is not asked again, so a grading stopped and
run again asks only the pairs it lacks). A pair whose text is missing, or that got no reply after every attempt, or
that the endpoint refused, has no label: :func:`qrels_lines` cannot write it, and a warning counts them.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.judges.endpoint import ENDPOINT_OPTIONS, Endpoint
from ir_pref_measures.judging.judges.llm import read_options
from ir_pref_measures.judging.judges.transport import Reply
from ir_pref_measures.judging.texts import Texts

if TYPE_CHECKING:
    import httpx

    from ir_pref_measures.judging.judges.usage import Usage

UMBRELA_SYSTEM = "You are a helpful assistant."
UMBRELA_TEMPLATE = (
    "Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the following "
    "meanings:\n"
    "0 = represent that the passage has nothing to do with the query, \n"
    "1 = represents that the passage seems related to the query but does not answer it, \n"
    "2 = represents that the passage has some answer for the query, but the answer may be a bit unclear, or hidden "
    "amongst extraneous information and \n"
    "3 = represents that the passage is dedicated to the query and contains the exact answer.\n"
    "\n"
    "Important Instruction: Assign category 1 if the passage is somewhat related to the topic but not completely, "
    "category 2 if passage presents something very important related to the entire topic but also has some extra "
    "information and category 3 if the passage only and entirely refers to the topic. If none of the above "
    "satisfies give it category 0.\n"
    "\n"
    "Query: {query}\n"
    "Passage: {passage}\n"
    "\n"
    "Split this problem into steps:\n"
    "Consider the underlying intent of the search.\n"
    "Measure how well the content matches a likely intent of the query (M).\n"
    "Measure how trustworthy the passage is (T).\n"
    "Consider the aspects above and the relative importance of each, and decide on a final score (O). Final score "
    "must be an integer value only.\n"
    "Do not provide any code in result. Provide each score in the format of: ##final score: score without "
    "providing any reasoning."
)
UMBRELA_SAMPLING = {"temperature": 0.0, "max_tokens": 100, "top_p": 1, "frequency_penalty": 0.5, "presence_penalty": 0}
GRADE = "(0|1|2|3)"
SEPARATOR = r"\s*[:-=]?\s*"  # as UMBRELA writes it: [:-=] is the range of ':' to '=' (: ; < =)
# UMBRELA's patterns, in its order (the first that matches decides; its last match gives the grade)
UMBRELA_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE | re.MULTILINE | re.DOTALL)
    for pattern in (
        rf'"o"{SEPARATOR}{GRADE}',
        rf"\'o\'{SEPARATOR}{GRADE}",
        rf"o{SEPARATOR}{GRADE}",
        rf'"overall_score"{SEPARATOR}{GRADE}',
        rf'"overall"{SEPARATOR}{GRADE}',
        rf'"overall score"{SEPARATOR}{GRADE}',
        rf'"final score"{SEPARATOR}{GRADE}',
        rf"final score{SEPARATOR}{GRADE}",
        rf"final score is {GRADE}",
        rf'"final_score"{SEPARATOR}{GRADE}',
        rf'"score"{SEPARATOR}{GRADE}',
        rf'"o_score"{SEPARATOR}{GRADE}',
        rf"output score is {GRADE}",
        rf"score is {GRADE}",
        rf"score of\s+{GRADE}",
        rf"assign(?:ing)?\s+(?:it\s+)?(?:a\s+)?score of\s+{GRADE}",
        rf"conclude(?:s|d)?\s+with\s+(?:a\s+)?score of\s+{GRADE}",
        rf"give(?:n)?\s+(?:it\s+)?(?:a\s+)?score of\s+{GRADE}",
        rf"i (?:would )?(?:give|assign)\s+(?:it\s+)?(?:a\s+)?score of\s+{GRADE}",
        rf"score:\s*{GRADE}",
        rf"[a-zA-Z]+\s+is\s+{GRADE}\s",
        rf"relevance category{SEPARATOR}{GRADE}",
        rf"relevance category is {GRADE}",
        rf"it falls into the category {GRADE}",
        rf"category\s*{GRADE}",
        rf"relevance category {GRADE}",
        rf"relevance category for this passage would be {GRADE}",
        rf"the relevance category would be {GRADE}",
        rf"\n*{GRADE}",
    )
)


def read_umbrela(raw: str) -> tuple[int, bool]:
    """UMBRELA's reading of an answer (module docstring): ``(grade, valid)``."""
    text = raw.lower().strip()
    for pattern in UMBRELA_PATTERNS:
        last = None
        for last in pattern.finditer(text):  # noqa: B007 (the last match is the one read)
            pass
        if last is not None:
            return int(last.group(1)), True
    return 0, False


@dataclass(frozen=True)
class GradedPreset:
    """A prompt for one query and one passage (``template`` with ``{query}`` and ``{passage}``; a literal brace
    written twice), its ``system`` message (none when empty), the reading of an answer (``read``: raw text ->
    ``(grade, valid)``) and the sampling options sent with each request."""

    name: str
    template: str
    system: str = ""
    read: Callable[[str], tuple[int, bool]] = field(default=read_umbrela, compare=False)
    sampling: Mapping[str, float] = field(default_factory=dict)

    @property
    def prompt_hash(self) -> str:
        """The first 16 hex digits of the SHA-256 of the system message and the template."""
        return hashlib.sha256(f"{self.system}\0{self.template}".encode()).hexdigest()[:16]

    def messages(self, query: str, passage: str) -> list[dict[str, str]]:
        """The chat messages asking for the grade of ``passage`` for ``query``."""
        user = self.template.format(query=query, passage=passage)
        return ([{"role": "system", "content": self.system}] if self.system else []) + [
            {"role": "user", "content": user}
        ]


GRADED_PRESETS = {"umbrela": GradedPreset("umbrela", UMBRELA_TEMPLATE, UMBRELA_SYSTEM, sampling=UMBRELA_SAMPLING)}


def graded_preset(name: str | GradedPreset) -> GradedPreset:
    """The graded preset ``name`` (:data:`GRADED_PRESETS`), or ``name`` itself when it is one."""
    if isinstance(name, GradedPreset):
        return name
    if name not in GRADED_PRESETS:
        raise InputError(f"unknown graded preset {name!r}", expected=f"one of {', '.join(GRADED_PRESETS)}")
    return GRADED_PRESETS[name]


@dataclass(frozen=True)
class Label:
    """The grade of ``doc_id`` for ``query_id``, whether the answer held one (``valid``), and the answer's text."""

    query_id: str
    doc_id: str
    grade: int
    valid: bool
    raw: str = ""


def qrels_lines(labels: Iterable[Label | None]) -> list[str]:
    """TREC qrels lines ``qid 0 doc grade`` of ``labels``, in their order; a pair without a label (``None``) is
    left out with a warning that counts them."""
    labels = list(labels)
    missing = labels.count(None)
    if missing:
        what = "no reply, refused, or a text missing"
        warnings.warn(f"{missing} of {len(labels)} pairs have no label ({what}): left out", stacklevel=2)
    return [f"{label.query_id} 0 {label.doc_id} {label.grade}\n" for label in labels if label is not None]


class LLMGrader:
    """Graded labels of query-passage pairs from an OpenAI-compatible endpoint (module docstring): ``preset`` a
    name of :data:`GRADED_PRESETS` or a :class:`GradedPreset`; every other option is one of the endpoint's the LLM
    judge shares (:class:`~ir_pref_measures.judging.judges.endpoint.Endpoint`: ``base_url``, ``api_key``,
    ``concurrency``, ``attempts``, ``timeout``, ``backoff``, ``max_backoff``, ``price_per_1k``, ``seed``, and
    ``cache``: a pair whose reply is kept there is not asked again)."""

    def __init__(self, texts: Texts, *, model: str, preset: str | GradedPreset = "umbrela", **options) -> None:
        self.preset = graded_preset(preset)
        endpoint = Endpoint(model=model, **options)
        self.texts, self.model, self.concurrency = texts, endpoint.model, endpoint.concurrency
        kept = "the replies received are kept in the answer cache" if endpoint.cache else "nothing is written"
        self.transport = endpoint.transport(kept)

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> LLMGrader:
        """A grader from command-line style options: the endpoint's the LLM judge shares, with the texts
        (:func:`~ir_pref_measures.judging.judges.llm.read_options`: ``model``, ``base_url``, ``queries``,
        ``documents``, ``cache``, ...; values as text or typed), and ``preset``, a name of :data:`GRADED_PRESETS`
        (``umbrela`` by default)."""
        options = dict(options)
        preset = options.pop("preset", "umbrela")
        chosen = graded_preset(preset if isinstance(preset, str | GradedPreset) else str(preset))
        texts, typed = read_options(options, ENDPOINT_OPTIONS)
        return cls(texts, preset=chosen, **typed)

    @property
    def usage(self) -> Usage:
        """What the grader has spent (:class:`~ir_pref_measures.judging.judges.usage.Usage`)."""
        return self.transport.accounts.usage

    def grade(self, pairs: Sequence[tuple[str, str]]) -> list[Label | None]:
        """The label of each ``(query_id, doc_id)`` of ``pairs``, in order (``None``: no label)."""
        return asyncio.run(self._grade(list(pairs)))

    async def _grade(self, pairs: list[tuple[str, str]]) -> list[Label | None]:
        labels: list[Label | None] = [None] * len(pairs)
        waiting = collections.deque(range(len(pairs)))

        async def work() -> None:
            client = self.transport.client()
            try:
                while waiting:
                    index = waiting.popleft()
                    labels[index] = await self._ask(client, *pairs[index])
            finally:
                await client.aclose()

        workers = [asyncio.ensure_future(work()) for _ in range(min(self.concurrency, len(pairs)))]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
        return labels

    async def _ask(self, client: httpx.AsyncClient, query_id: str, doc_id: str) -> Label | None:
        """One pair asked through the transport (:meth:`~.transport.ChatTransport.ask`); its label, or ``None``."""
        query, passage = self.texts.query(query_id), self.texts.document(doc_id)
        if query is None or passage is None:
            return None
        request = {"model": self.model, "messages": self.preset.messages(query.title, passage), **self.preset.sampling}
        reply = await self.transport.ask(client, request)
        if not isinstance(reply, Reply):
            return None
        grade, valid = self.preset.read(reply.raw)
        return Label(query_id, doc_id, grade, valid, reply.raw)
