#!/usr/bin/env python3
"""What InferenceX's utils/evals/utils.py process_docs returns, for Frontier's process_docs test.

Runs the reference function unmodified (the `datasets` package it imports is replaced by a stub
whose Dataset.from_list keeps the list) on test/fixtures/evals/process-docs/input.jsonl and
writes expected.json beside it.

    python3 scripts/process-docs-golden.py INFERENCEX_CHECKOUT
"""
import importlib.util
import json
import pathlib
import sys
import types

checkout = pathlib.Path(sys.argv[1])
here = pathlib.Path(__file__).resolve().parent.parent / "test/fixtures/evals/process-docs"

stub = types.ModuleType("datasets")
stub.Dataset = type("Dataset", (), {"from_list": staticmethod(lambda rows: rows)})
sys.modules["datasets"] = stub
spec = importlib.util.spec_from_file_location("utils", checkout / "utils/evals/utils.py")
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)

docs = [json.loads(line) for line in (here / "input.jsonl").read_text().splitlines() if line.strip()]
out = {
    "python": sys.version.split()[0],
    "default": utils.process_docs(docs),
}
(here / "expected.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
