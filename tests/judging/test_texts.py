"""Texts for judges: TSV and JSONL files read as judge.py reads its questions and passages, ir_datasets queries
(the seeded DL 2019 cache) and a docs_store (a dataset registered on a local file), and the reasons of missing
texts."""

from __future__ import annotations

import gzip
import json

import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Pair
from ir_pref_measures.judging.texts import MISSING, QueryText, Texts, document_texts, load_texts, query_texts


def test_tsv_is_read_as_judge_py_reads_it(tmp_path):
    """Split at the first tab; the line's trailing white space dropped (judge.py's ``rstrip``), the rest kept."""
    path = tmp_path / "passages.tsv"
    path.write_bytes(
        "d1\tA text\twith a tab  \r\nd2\t  leading kept\n# a comment\n\n"
        "d3\tLegionnaires\u00e2\u0080\u0099 disease\n".encode()
    )
    assert document_texts(path) == {
        "d1": "A text\twith a tab",
        "d2": "  leading kept",
        "d3": "Legionnaires\u00e2\u0080\u0099 disease",
    }
    gz = tmp_path / "passages.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert document_texts(str(gz)) == document_texts(path)
    assert query_texts(path)["d1"] == QueryText("A text\twith a tab")


def test_jsonl_with_topic_fields(tmp_path):
    path = tmp_path / "topics.jsonl"
    rows = [
        {"query_id": 7, "title": "seven", "description": "the number", "narrative": "any seven"},
        {"id": "8", "text": "eight"},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    assert query_texts(path) == {"7": QueryText("seven", "the number", "any seven"), "8": QueryText("eight")}
    docs = tmp_path / "docs.txt"  # no extension: a first line starting with { is JSONL
    docs.write_text('{"docno": "d1", "contents": "one"}\n{"doc_id": "d2", "body": "two"}\n')
    assert document_texts(str(docs)) == {"d1": "one", "d2": "two"}


@pytest.mark.parametrize(
    ("name", "content", "message", "line_no"),
    [
        ("a.tsv", "d1\tone\nd2 two\n", "not an id and a text", 2),
        ("a.tsv", "d1\tone\nd1\tother\n", "id 'd1' has another text on line 1", 2),
        ("a.tsv", "d1\t   \n", "not an id and a text", 1),
        ("a.jsonl", '{"id": "d1", "text": "x"}\n{"id": "d2", "text": \n', "not JSON", 2),
        ("a.jsonl", '{"id": "d1"}\n', "no id or no text", 1),
        ("a.jsonl", "[1, 2]\n", "no id or no text", 1),
        ("a.tsv", "# only a comment\n", "no texts", None),
    ],
)
def test_bad_files_name_the_line(tmp_path, name, content, message, line_no):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message) as error:
        document_texts(path)
    assert error.value.path == str(path) and error.value.line_no == line_no


def test_the_same_text_twice_is_fine_and_a_missing_file_is_an_input_error(tmp_path):
    path = tmp_path / "a.tsv"
    path.write_text("d1\tone\nd1\tone\n")
    assert document_texts(path) == {"d1": "one"}
    with pytest.raises(InputError, match="neither an existing file nor a known ir_datasets ID"):
        document_texts(str(tmp_path / "nonesuch.tsv"))


def test_missing_texts_are_named():
    texts = load_texts({"q": "question"}, {"a": "A", "b": "B"})
    assert texts.missing(Pair("q", "a", "b")) == ""
    assert texts.missing(Pair("x", "a", "zz")) == f"{MISSING}: query 'x', document 'zz'"
    assert texts.missing(Pair("q", "zz", "zz")) == f"{MISSING}: document 'zz'"
    assert texts.query("q") == QueryText("question") and texts.document("zz") is None


def test_queries_from_the_seeded_dl_2019_cache(irds_home, testdata):
    """The DL 2019 questions are the queries judge.py was given (topic 168216 of round 05, for one): real texts."""
    testdata("irds_home")
    queries = query_texts("irds:msmarco-passage/trec-dl-2019/judged")
    assert len(queries) == 43
    assert queries["168216"] == QueryText("does legionella pneumophila cause pneumonia")


def test_documents_from_an_ir_datasets_docs_store(irds_home, tmp_path):
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    (tmp_path / "docs.tsv").write_text("d1\tthe first document\nd2\tthe second\n")
    (tmp_path / "queries.tsv").write_text("1\ta query\n")
    name = "ir-pref-measures-test/texts"
    if name not in ir_datasets.registry:
        ir_datasets.registry.register(
            name,
            Dataset(
                TsvDocs(LocalDownload(tmp_path / "docs.tsv"), namespace=name, lang="en"),
                TsvQueries(LocalDownload(tmp_path / "queries.tsv"), namespace=name, lang="en"),
            ),
        )
    texts = load_texts(name, f"irds:{name}")
    assert texts.query("1") == QueryText("a query")
    assert texts.document("d2") == "the second" and texts.document("d9") is None
    assert texts.missing(Pair("1", "d1", "d9")) == f"{MISSING}: document 'd9'"
    queries_only = "ir-pref-measures-test/queries-only"
    if queries_only not in ir_datasets.registry:
        queries = TsvQueries(LocalDownload(tmp_path / "queries.tsv"), namespace=queries_only, lang="en")
        ir_datasets.registry.register(queries_only, Dataset(queries))
    with pytest.raises(InputError, match="provides no documents"):
        load_texts({}, f"irds:{queries_only}")
    docs_only = "ir-pref-measures-test/docs-only"
    if docs_only not in ir_datasets.registry:
        ir_datasets.registry.register(docs_only, Dataset(TsvDocs(LocalDownload(tmp_path / "docs.tsv"))))
    with pytest.raises(InputError, match="provides no queries"):
        load_texts(f"irds:{docs_only}", {})


def test_mappings_and_texts_as_given():
    texts = Texts({"q": QueryText("t", "d", "n")}, lambda doc: {"a": "A"}.get(doc))
    assert texts.document("a") == "A" and texts.document("b") is None
    assert load_texts({"q": QueryText("t")}, {1: "one"}).document("1") == "one"
