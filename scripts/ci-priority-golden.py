#!/usr/bin/env python3
"""Record what InferenceX's utils/ci_priority.py prints for each case of
test/fixtures/ci/priority/cases.json, so the suite checks `frontier ci priority --format json`
against the reference byte for byte without Python.

Writes test/fixtures/ci/priority/expected/<case>.json (the script's stdout, unmodified).
Usage (needs PyYAML): python3 scripts/ci-priority-golden.py --inferencex CHECKOUT
"""
import argparse
import json
import os
import subprocess
import sys

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'ci', 'priority')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--inferencex', required=True, help='an InferenceX checkout (its utils/ci_priority.py runs)')
    args = parser.parse_args()
    script = os.path.join(args.inferencex, 'utils', 'ci_priority.py')
    with open(os.path.join(FIXTURES, 'cases.json')) as f:
        cases = json.load(f)['cases']
    os.makedirs(os.path.join(FIXTURES, 'expected'), exist_ok=True)
    for case in cases:
        argv = [sys.executable, script, '--policy', case['policy'], '--input', case['matrix'],
                '--event-name', case['eventName'], '--labels-json', json.dumps(case['labels']),
                '--queue-namespace', case['queueNamespace']]
        if 'criteria' in case:
            argv += ['--criteria-json', case['criteria']]
        if 'prNumber' in case:
            argv += ['--pr-number', str(case['prNumber'])]
        out = subprocess.run(argv, cwd=FIXTURES, check=True, capture_output=True).stdout
        with open(os.path.join(FIXTURES, 'expected', case['name'] + '.json'), 'wb') as f:
            f.write(out)
        print(case['name'], len(out))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
