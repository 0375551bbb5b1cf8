"""Serve a test effort: ``server.py STORE PORT CONFIG_JSON``; prints the links as one JSON line, then serves."""

import json
import sys

from ir_pref_measures.judging import AllPairs, QueryText, Store, load_texts
from ir_pref_measures.judging.web import links, open_desk, serve

store_path, port, config = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
store = Store(store_path)
queries = {q: QueryText(**text) for q, text in config["queries"].items()}
texts = load_texts(queries, config["docs"])
desk = open_desk(
    store,
    AllPairs(config["pools"], seed=7),
    config["assessors"],
    texts,
    seed=7,
    overlap=config["overlap"],
    **config.get("options", {}),
)
print(json.dumps(links(desk, f"http://127.0.0.1:{port}")), flush=True)
serve(desk, port=port)
