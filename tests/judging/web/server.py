"""Serve a test effort: ``server.py STORE PORT CONFIG_JSON``; prints the links as one JSON line, then serves."""

import json
import sys

from ir_pref_measures.judging.selectors import AllPairs
from ir_pref_measures.judging.store import Store
from ir_pref_measures.judging.web import QueryText, links, open_desk, serve

store_path, port, config = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
store = Store(store_path)
queries = {q: QueryText(**text) for q, text in config["queries"].items()}
desk = open_desk(store, AllPairs(config["pools"], seed=7), config["assessors"], queries, config["docs"], seed=7,
                 overlap=config["overlap"])
print(json.dumps(links(desk, f"http://127.0.0.1:{port}")), flush=True)
serve(desk, port=port)
