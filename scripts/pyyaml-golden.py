#!/usr/bin/env python3
"""Record what PyYAML's safe_load (the reference's YAML reader) makes of every YAML file the
tests use, so the suite can check Frontier's YAML parser against it without Python.

Writes test/fixtures/yaml/pyyaml-golden.json.gz: {path: {"value": ...} | {"duplicates": [...]}}.
Non-JSON values are tagged: dates as {"$timestamp": iso}, non-finite floats as {"$float": repr}.
Usage (needs PyYAML 6): python3 scripts/pyyaml-golden.py
"""
import datetime
import gzip
import json
import math
import os

import yaml

ROOT = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures')
INFERENCEX = os.path.join(ROOT, 'inferencex')


class DuplicateCheckingLoader(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == 'tag:yaml.org,2002:merge':
                continue
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                self.duplicates.append(str(key))
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def tag(value):
    if isinstance(value, dict):
        return {str(k): tag(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tag(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {'$timestamp': value.isoformat()}
    if isinstance(value, float) and not math.isfinite(value):
        return {'$float': repr(value)}
    return value


def load(text):
    loader = DuplicateCheckingLoader(text)
    loader.duplicates = []
    try:
        value = loader.get_single_data()
    finally:
        loader.dispose()
    if loader.duplicates:
        return {'duplicates': sorted(set(loader.duplicates))}
    return {'value': tag(value)}


def main():
    files = {}
    with gzip.open(os.path.join(INFERENCEX, 'yaml-corpus.json.gz'), 'rt', encoding='utf-8') as f:
        files.update(json.load(f))
    for name in ('nvidia-master.yaml', 'amd-master.yaml', 'runners.yaml'):
        with open(os.path.join(INFERENCEX, 'configs', name), encoding='utf-8') as f:
            files['configs/' + name] = f.read()
    golden = {path: load(text) for path, text in sorted(files.items())}
    os.makedirs(os.path.join(ROOT, 'yaml'), exist_ok=True)
    out = os.path.join(ROOT, 'yaml', 'pyyaml-golden.json.gz')
    with gzip.GzipFile(out, 'wb', mtime=0) as f:
        f.write(json.dumps(golden, sort_keys=True).encode('utf-8'))
    print(f'{len(golden)} files -> {os.path.relpath(out)}')


if __name__ == '__main__':
    main()
