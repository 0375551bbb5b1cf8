"""The example files of the documentation, and the stand-ins of the reference test data they come from.

``ir-pref-measures demo --files DIR`` (:func:`write_example_files`) writes the files the pages' examples name:
``qrels.txt``, ``run.txt``, ``run1.txt`` .. ``run3.txt``, ``prefs.txt``, ``judge.00`` .. ``judge.06``,
``input.ICT-*.txt.gz``, the CAsT 2019 and image-SERP files, ... (:data:`EXAMPLE_FILES`). They are *stand-ins*
(:func:`make`): licence-clean files of the same names, formats and shapes as the real data sets the pages were
written on, a few topics and documents, every byte a function of the seed; the numbers they give are not the
pages' numbers. Nothing is copied from the real data: the shapes follow their public descriptions (TREC DL 2019
passage qrels graded 0-3; three DL runs of 20, 20 and 50 documents per query and three more; the seven rounds of a
GPT-4o top-k judging process as ``qid winner loser``; human preference judgments on DL 2021 in Clarke's judging log
and as ``qid a b winner``; CAsT 2019 graded qrels, runs and crowd preferences; Xie et al.'s image-SERP files;
trec_eval's preference test files; pairwise_pref_eval's inputs; a seeded ir_datasets cache of the DL 2019/2020
passage and CAsT 2019 qrels). The test suite reads the same stand-ins where the real data is absent.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
from itertools import combinations
from pathlib import Path

import numpy as np

Qrels = dict[str, dict[str, float]]  # query -> doc -> grade
Run = dict[str, list[tuple[str, float]]]  # query -> [(doc, score)] in file order


def doc_ids(rng: np.random.Generator, count: int, style: str = "cast") -> list[str]:
    """Distinct doc ids of mixed lengths: CAsT-like (``CAR_<hex>``, ``MARCO_<n>``), DL-like (digits) or MS MARCO
    v2-like (``msmarco_passage_<nn>_<n>``, DL 2021)."""
    ids: set[str] = set()
    while len(ids) < count:
        number = int(rng.integers(1, 10 ** int(rng.integers(2, 8))))
        if style == "dl":
            ids.add(str(number))
        elif style == "v2":
            ids.add(f"msmarco_passage_{number % 70:02d}_{number}")
        else:
            ids.add(f"CAR_{number:x}" if rng.random() < 0.5 else f"MARCO_{number}")
    return sorted(ids)


def graded_qrels(
    rng: np.random.Generator, queries: list[str], judged: int, grades: tuple[float, ...] = (0, 1, 2, 3), style="cast"
) -> Qrels:
    """``judged`` docs per query with grades drawn from ``grades`` (lower grades more often)."""
    weights = np.linspace(len(grades), 1, len(grades))
    weights /= weights.sum()
    return {
        query: {doc: float(rng.choice(grades, p=weights)) for doc in doc_ids(rng, judged, style)} for query in queries
    }


def run_from(
    rng: np.random.Generator,
    qrels: Qrels,
    depth: int,
    quality: float,
    decimals: int = 2,
    unjudged: float = 0.3,
    style: str = "cast",
) -> Run:
    """A run of ``depth`` docs per query: judged docs scored by ``quality`` x grade + noise, mixed with unjudged
    docs; scores rounded to ``decimals`` so that some tie; lines written in a shuffled order."""
    run: Run = {}
    for query, grades in qrels.items():
        judged = list(grades)
        pool = sorted(set(judged) | set(doc_ids(rng, max(1, int(depth * unjudged)), style)))
        signal = np.array([quality * grades.get(doc, 0.0) for doc in pool])
        scores = np.round(signal + rng.normal(0, 1, len(pool)), decimals)
        order = np.argsort(-scores, kind="stable")[:depth]
        lines = [(pool[i], float(scores[i])) for i in order]
        rng.shuffle(lines)
        run[query] = lines
    return run


def ranked(run: Run) -> Run:
    """The run sorted as trec_eval ranks it: score descending, ties by doc id descending."""
    return {query: sorted(lines, key=lambda line: (line[1], line[0]), reverse=True) for query, lines in run.items()}


def write_qrels(path: Path, qrels: Qrels, iteration: str = "0") -> None:
    write_lines(
        path, [f"{q} {iteration} {doc} {fmt(grade)}" for q, docs in qrels.items() for doc, grade in docs.items()]
    )


def fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))


SEED = 2019
DL20_QUERIES = ["1030303", "1037496", "1043135", "1051399", "1064670", "1071750"]
CAST_QUERIES = [f"{topic}_{turn}" for topic in range(31, 51) for turn in (1, 2)]
# run name -> (depth, quality): CKNRM_B50 returns 50 documents per query, the others 20
DL19_RUNS = {"ICT-BERT2": (20, 1.2), "ICT-CKNRM_B": (20, 1.0), "ICT-CKNRM_B50": (50, 1.0)}
DL21_RUNS = {"p_bm25": (20, 0.6), "uogTrPot5": (20, 1.0), "NLE_P_v1": (20, 1.4)}
CAST_RUNS = (1, 3, 4, 5, 7, 12, 16)
ROUNDS = (10, 7, 5, 4, 3, 2, 2)  # documents per query in each round of the top-k judging process


def make(folder: str | os.PathLike, seed: int = SEED, *, irds_home: bool = True) -> Path:
    """Write every stand-in under ``folder`` (the real-data tier's relative paths; with ``irds_home``, the
    ir_datasets cache too) and return it."""
    folder = Path(folder)
    rng = np.random.default_rng(seed)
    dl19 = graded_qrels(rng, query_ids(rng, 20), 30, style="dl")
    write_qrels(folder / "dl_llm_prefs_arabzadeh/qrels.dl19-passage.txt", dl19, "Q0")
    runs = write_runs(rng, folder, dl19, DL19_RUNS)
    rounds = judging_rounds(rng, dl19, runs)
    for round_no, lines in enumerate(rounds):
        write_lines(folder / f"dl_llm_prefs_arabzadeh/llm_pref_judgments/DL2019/judge.{round_no:02d}", lines)
    write_tournament_qrels(folder / "dl_llm_prefs_arabzadeh/prefs.dl19", rounds)
    write_dl21_people(rng, folder, sorted(dl19)[:15])
    write_cast(rng, folder)
    write_images(rng, folder / "xie2020_image_prefs")
    write_trec_eval_tests(rng, folder / "trec_eval_prefs")
    write_irds_home(rng, folder, dl19)
    write_carterette(np.random.default_rng(seed + 1), folder / "carterette")
    if not irds_home:
        shutil.rmtree(folder / "irds_home")
    return folder


def query_ids(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` distinct numeric query ids, as MS MARCO's."""
    return sorted({str(rng.integers(1000, 1_200_000)) for _ in range(count)})


def write_runs(
    rng: np.random.Generator, folder: Path, qrels: Qrels, shapes: dict[str, tuple[int, float]], style: str = "dl"
) -> dict:
    """The runs of ``shapes`` (name -> depth, quality) on ``qrels`` with unjudged docs of ``style``, written as
    ``runs/input.NAME.txt.gz``."""
    runs = {
        name: run_from(rng, qrels, depth, quality, unjudged=1.0, style=style)
        for name, (depth, quality) in shapes.items()
    }
    for name, run in runs.items():
        write_gz_run(folder / f"dl_llm_prefs_arabzadeh/runs/input.{name}.txt.gz", run, name)
    return runs


def write_gz_run(path: Path, run: Run, tag: str) -> None:
    """A TREC run, tab-separated and gzipped, ranks from 1 in score order."""
    lines = [
        f"{query}\tQ0\t{doc}\t{rank}\t{score:.4f}\t{tag}\n"
        for query, docs in ranked(run).items()
        for rank, (doc, score) in enumerate(docs, start=1)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(path, "wb", mtime=0) as out:
        out.write("".join(lines).encode())


def noisy_winner(rng: np.random.Generator, grades: dict[str, float], a: str, b: str, noise: float) -> str:
    """The document of the higher grade (the shorter id on a tie, as the GPT-4o rounds wrote ties), flipped with
    probability ``noise``."""
    better = a if (grades.get(a, 0), -len(a), a) > (grades.get(b, 0), -len(b), b) else b
    return (b if better == a else a) if rng.random() < noise else better


def judging_rounds(rng: np.random.Generator, qrels: Qrels, runs: dict[str, Run]) -> list[list[str]]:
    """Rounds of a top-k judging process: every pair of the query's pool is judged (``qid winner loser``), the
    documents with the most wins go on to the next round."""
    pools = {query: sorted({doc for run in runs.values() for doc, _ in run[query][:4]})[: ROUNDS[0]] for query in qrels}
    rounds = []
    for size in ROUNDS[1:] + (0,):
        lines, next_pools = [], {}
        for query, pool in pools.items():
            wins = dict.fromkeys(pool, 0)
            for a, b in combinations(pool, 2):
                winner = noisy_winner(rng, qrels[query], a, b, 0.15)
                wins[winner] += 1
                lines.append(f"{query} {winner} {b if winner == a else a}")
            next_pools[query] = sorted(pool, key=lambda doc: (-wins[doc], doc))[:size]
        rounds.append(lines)
        pools = next_pools
    return rounds


def write_tournament_qrels(path: Path, rounds: list[list[str]]) -> None:
    """The judging rounds as graded qrels (``qid Q0 doc wins``): each doc's wins over all rounds."""
    wins: dict[tuple[str, str], int] = {}
    for line in (line for lines in rounds for line in lines):
        query, winner, loser = line.split()
        wins[query, winner] = wins.get((query, winner), 0) + 1
        wins.setdefault((query, loser), 0)
    write_lines(path, [f"{query} Q0 {doc} {count}" for (query, doc), count in sorted(wins.items())])


def write_dl21_people(rng: np.random.Generator, folder: Path, dl19_queries: list[str]) -> None:
    """The same pairs judged twice: people as ``qid a b winner``, a second judge as Clarke's judging log
    (``@ qid a b !`` a preferred, ``=`` equal, ``?`` no usable answer); and three runs retrieving these documents
    (and, as the DL 2021 runs do, unjudged documents for some DL 2019 queries)."""
    docs = {
        q: [f"msmarco_passage_{rng.integers(0, 70):02d}_{rng.integers(10**6, 10**9)}" for _ in range(6)]
        for q in query_ids(rng, 40)
    }
    grades = {q: {doc: float(rng.integers(0, 4)) for doc in ids} for q, ids in docs.items()}
    write_runs(rng, folder, grades | dict.fromkeys(dl19_queries, {}), DL21_RUNS, style="v2")
    people, log = [], []
    for query, ids in docs.items():
        for a, b in combinations(ids, 2):
            people.append(f"{query} {a} {b} {noisy_winner(rng, grades[query], a, b, 0.1)}")
            if rng.random() < 0.1:
                log.append(f"@ {query} {a} {b} ?")
            elif grades[query][a] == grades[query][b] and rng.random() < 0.5:
                log.append(f"@ {query} {a} {b} =")
            else:
                winner = noisy_winner(rng, grades[query], a, b, 0.2)
                log.append(f"@ {query} {winner} {b if winner == a else a} !")
    write_lines(folder / "dueling_bandits_dl2021/judgments.txt", people)
    write_lines(folder / "dl_llm_prefs_arabzadeh/llm_pref_judgments/DL2021/judge.human", log)


def write_cast(rng: np.random.Generator, folder: Path) -> None:
    """CAsT 2019 graded qrels, seven runs (``decaf_expN.run.gz``), crowd preferences (``qid a b winner``) and the
    float qrels a tournament derives from them."""
    qrels = graded_qrels(rng, CAST_QUERIES, 25, grades=(0, 1, 2, 3, 4))
    write_qrels(folder / "cast2019_qrels/2019qrels.txt", qrels, "Q0")
    for number in CAST_RUNS:
        write_gz_run(
            folder / f"cast2019_runs_decaf/decaf_exp{number}.run.gz",
            run_from(rng, qrels, 30, 0.5 + number / 10),
            f"exp{number}",
        )
    prefs, tournament = [], {}
    for query, grades in qrels.items():
        top = sorted(grades, key=lambda doc: (-grades[doc], doc))[:6]
        wins = dict.fromkeys(top, 0)
        for a, b in combinations(top, 2):
            winner = noisy_winner(rng, grades, a, b, 0.2)
            wins[winner] += 1
            prefs.append(f"{query} {a} {b} {winner}")
        tournament[query] = grades | {doc: grades[doc] + wins[doc] / len(top) for doc in top}
    write_lines(folder / "cast2019_toppref/TREC-CAsT-2019.pref", prefs)
    write_lines(
        folder / "cast2019_toppref/TREC-CAsT-2019.qrels",
        [f"{q} Q0 {doc} {grade:.1f}" for q, docs in tournament.items() for doc, grade in docs.items()],
    )


def write_images(rng: np.random.Generator, folder: Path) -> None:
    """Xie et al.'s image-SERP files: SERP-level winners, three assessors' tags per image pair, grid positions."""
    queries = ["cats", "kites", "tea", "lighthouse", "maple", "parade"]
    engines = {"0": "sogou", "1": "baidu"}
    serp, pairs, positions = ["Query\tWinner(0: Sogou, 1: Tie, 2: Baidu)"], [], {}
    pairs.append("Query\tImage_pair(Search engine/query_imageID.jpg)\tthree preference_tags")
    for query in queries:
        serp.append(f"{query}\t{rng.integers(0, 3)}")
        images = [f"{engine}/{query}_{i}.jpg" for engine in engines.values() for i in range(6)]
        for left, right in combinations(images, 2):
            tags = "\t".join(str(tag) for tag in rng.integers(-2, 3, 3))
            pairs.append(f"{query}\t{left},{right}\t{tags}")
        positions[query] = {key: {str(i): [i // 3, i % 3, 3] for i in range(6)} for key in engines}
    write_lines(folder / "SERP_level_preference", serp)
    write_lines(folder / "image_pairs_annotation", pairs)
    (folder / "Image_position.json").write_text(json.dumps(positions, ensure_ascii=False))


def write_trec_eval_tests(rng: np.random.Generator, folder: Path) -> None:
    """trec_eval's test file names: ``prefs.test`` (``qid jg jsg docno level``) with its run, and graded
    ``qrels.test`` with its run (for ``-R qrels_prefs``)."""
    qrels = graded_qrels(rng, ["301", "302", "303"], 20, grades=(0, 1, 2))
    prefs = [
        f"{query} jg{k % 2} sub{k % 3} {doc} {fmt(grade + k % 2)}"
        for query, grades in qrels.items()
        for k, (doc, grade) in enumerate(grades.items())
    ]
    write_lines(folder / "prefs.test", prefs)
    write_qrels(folder / "qrels.test", qrels)
    for name in ("prefs.results.test", "results.test"):
        run = ranked(run_from(rng, qrels, 15, 1.0))
        write_lines(
            folder / name,
            [
                f"{q}\tQ0\t{doc}\t{rank}\t{score:.4f}\tSTANDARD"
                for q, docs in run.items()
                for rank, (doc, score) in enumerate(docs, start=1)
            ],
        )


def write_irds_home(rng: np.random.Generator, folder: Path, dl19: Qrels) -> None:
    """An ir_datasets cache (see ir_datasets' ``downloads.json`` for the paths) of the DL 2019 passage qrels (the
    same as ``qrels.dl19-passage.txt``) and judged queries, DL 2020 qrels and queries, and the CAsT 2019 qrels."""
    home = folder / "irds_home"
    write_qrels(home / "msmarco-passage/trec-dl-2019/qrels", dl19, "Q0")
    write_lines(home / "msmarco-passage/trec-dl-2019/queries.tsv", [f"{q}\tquestion {q}" for q in dl19])
    dl20 = graded_qrels(rng, DL20_QUERIES, 20, style="dl")
    write_qrels(home / "msmarco-passage/trec-dl-2020/qrels", dl20, "Q0")
    queries = "".join(f"{q}\tquestion {q}\n" for q in [*DL20_QUERIES, "1100000", "1100001"])
    with gzip.GzipFile(home / "msmarco-passage/trec-dl-2020/queries.tsv.gz", "wb", mtime=0) as out:
        out.write(queries.encode())
    cast = folder / "cast2019_qrels/2019qrels.txt"
    (home / "trec-cast/2019").mkdir(parents=True, exist_ok=True)
    (home / "trec-cast/2019/2019qrels.txt").write_bytes(cast.read_bytes())


def write_carterette(rng: np.random.Generator, folder: Path) -> None:
    """pairwise_pref_eval's inputs: ``preferences.txt`` (``qid src tgt pref``, ``-1`` src preferred, ``1`` tgt
    preferred, ``0`` duplicates, ``NA`` with ``-2`` / ``2`` a bad doc) and ``results.txt`` (a TREC run)."""
    qrels = graded_qrels(rng, [f"s{i}" for i in range(4)], 12)
    prefs, run = [], []
    for query, grades in qrels.items():
        docs = list(grades)
        for a, b in combinations(docs, 2):
            if rng.random() < 0.4:
                prefs.append(
                    f"{query}\t{a}\t{b}\t{0 if grades[a] == grades[b] else -1 if grades[a] > grades[b] else 1}"
                )
        bad = docs[-1]
        prefs.append(f"{query}\t{bad}\tNA\t-2")
        scores = {doc: round(grades[doc] + float(rng.normal(0, 1.2)), 1) for doc in docs[:10]}
        ordered = sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
        run += [f"{query} Q0 {doc} {rank} {score:.1f} example" for rank, (doc, score) in enumerate(ordered, start=1)]
    write_lines(folder / "preferences.txt", prefs)
    write_lines(folder / "results.txt", run)


def write_texts(runs: list[Path], folder: Path) -> list[Path]:
    """``questions.tsv`` and ``passages.tsv`` (``id TAB text``, as judge.py reads them) in ``folder``: a made-up
    text for each query and each document of the gzipped TREC ``runs``."""
    queries, docs = set(), set()
    for path in runs:
        with gzip.open(path, "rt") as lines:
            for line in lines:
                query, _, doc = line.split()[:3]
                queries.add(query)
                docs.add(doc)
    written = [folder / "questions.tsv", folder / "passages.tsv"]
    write_lines(written[0], [f"{q}\tquestion {q}" for q in sorted(queries)])
    write_lines(written[1], [f"{d}\tpassage {d}: a few sentences on the question." for d in sorted(docs)])
    return written


# -- the pages' file names -------------------------------------------------------------------------------------------

DL19 = "dl_llm_prefs_arabzadeh"
XIE = "xie2020_image_prefs"
CAST_SUBSET = (1, 4, 7, 12, 16)  # the CAsT 2019 runs the pages' examples read
# the file names of the pages' examples -> where the reference test data (and the stand-ins) hold them; a ".gz"
# source is decompressed unless the name keeps the suffix
EXAMPLE_FILES: dict[str, tuple[str, ...]] = {
    "qrels.txt": (DL19, "qrels.dl19-passage.txt"),
    "run.txt": (DL19, "runs", "input.ICT-BERT2.txt.gz"),
    "prefs.txt": (DL19, "llm_pref_judgments", "DL2019", "judge.00"),
    "run1.txt": (DL19, "runs", "input.ICT-BERT2.txt.gz"),
    "run2.txt": (DL19, "runs", "input.ICT-CKNRM_B.txt.gz"),
    "run3.txt": (DL19, "runs", "input.ICT-CKNRM_B50.txt.gz"),
    **{f"input.ICT-{r}.txt.gz": (DL19, "runs", f"input.ICT-{r}.txt.gz") for r in ("BERT2", "CKNRM_B", "CKNRM_B50")},
    **{f"judge.0{k}": (DL19, "llm_pref_judgments", "DL2019", f"judge.0{k}") for k in range(7)},
    "judge.human": (DL19, "llm_pref_judgments", "DL2021", "judge.human"),
    **{f"input.{r}.txt.gz": (DL19, "runs", f"input.{r}.txt.gz") for r in ("p_bm25", "uogTrPot5", "NLE_P_v1")},
    "judgments.txt": ("dueling_bandits_dl2021", "judgments.txt"),
    "preferences.txt": ("carterette", "preferences.txt"),
    "results.txt": ("carterette", "results.txt"),
    **{name: ("trec_eval_prefs", name) for name in ("prefs.test", "prefs.results.test", "qrels.test", "results.test")},
    **{f"decaf_exp{k}.run.gz": ("cast2019_runs_decaf", f"decaf_exp{k}.run.gz") for k in CAST_SUBSET},
    "2019qrels.txt": ("cast2019_qrels", "2019qrels.txt"),
    "TREC-CAsT-2019.pref": ("cast2019_toppref", "TREC-CAsT-2019.pref"),
    "TREC-CAsT-2019.qrels": ("cast2019_toppref", "TREC-CAsT-2019.qrels"),
    **{name: (XIE, name) for name in ("SERP_level_preference", "image_pairs_annotation", "Image_position.json")},
}
TEXT_FILES = ("questions.tsv", "passages.tsv")  # the texts of the DL 2019 runs' queries and documents


def write_example_files(folder: str | os.PathLike, source: str | os.PathLike | None = None) -> list[Path]:
    """Write the files the pages' examples name (:data:`EXAMPLE_FILES`) into ``folder`` (created if needed) and
    return their paths. They are taken from ``source``, a folder laid out as the reference test data (the real data,
    where one has it), or else from stand-ins generated here (:func:`make`). A file of ``folder`` is never
    overwritten: if one of the names is there already, nothing is written."""
    from ir_pref_measures.errors import InputError

    folder = Path(folder)
    there = [name for name in (*EXAMPLE_FILES, *TEXT_FILES) if (folder / name).exists() or (folder / name).is_symlink()]
    if there:
        raise InputError(
            f"{folder}: {', '.join(there[:5])}{' ...' if len(there) > 5 else ''} exist already; nothing was written",
            expected="a folder without the example files (they are never overwritten)",
        )
    with tempfile.TemporaryDirectory(prefix="ir_pref_measures_examples_") as scratch:
        if source is None:
            source = make(scratch, irds_home=False)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, parts in EXAMPLE_FILES.items():
            path, target = Path(source).joinpath(*parts), folder / name
            partial = target.with_name(f".{name}.partial")
            if path.suffix == ".gz" and not name.endswith(".gz"):
                with gzip.open(path, "rb") as compressed, open(partial, "wb") as plain:
                    shutil.copyfileobj(compressed, plain)
            else:
                shutil.copyfile(path, partial)
            os.replace(partial, target)
            written.append(target)
    runs = [folder / name for name in EXAMPLE_FILES if name.startswith("input.ICT-")]
    return written + write_texts(runs, folder)
