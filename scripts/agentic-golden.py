#!/usr/bin/env python3
"""Record what InferenceX's utils/agentic/aggregation/process_agentic_result.py writes and prints
for each case of test/fixtures/agentic/aggregation/golden/, so the suite checks
`frontier results agentic` against the reference byte for byte without Python.

Each case folder holds env.json (the variables the reference reads; RESULT_DIR and HF_HUB_CACHE
relative to the case folder) and the artifacts. Writes <case>/expected.json (the aggregate file,
unmodified) and <case>/expected.stdout (the summary, its first line, which names the output path,
left out).
Usage: python3 scripts/agentic-golden.py --inferencex CHECKOUT
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'agentic', 'aggregation', 'golden')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--inferencex', required=True, help='an InferenceX checkout (its utils/agentic package runs)')
    args = parser.parse_args()
    for case in sorted(os.listdir(GOLDEN)):
        folder = os.path.abspath(os.path.join(GOLDEN, case))
        with open(os.path.join(folder, 'env.json')) as f:
            env = json.load(f)
        with tempfile.TemporaryDirectory() as out:
            run_env = {'PATH': os.environ.get('PATH', ''), 'HOME': out, **env}
            run_env['RESULT_DIR'] = os.path.join(folder, env['RESULT_DIR'])
            run_env['HF_HUB_CACHE'] = os.path.join(folder, env['HF_HUB_CACHE'])
            run_env['AGENTIC_OUTPUT_DIR'] = out
            proc = subprocess.run([sys.executable, '-m', 'utils.agentic.aggregation.process_agentic_result'],
                                  cwd=args.inferencex, env=run_env, check=True, capture_output=True)
            with open(os.path.join(out, env['RESULT_FILENAME'] + '.json'), 'rb') as f:
                agg = f.read()
        with open(os.path.join(folder, 'expected.json'), 'wb') as f:
            f.write(agg)
        with open(os.path.join(folder, 'expected.stdout'), 'wb') as f:
            f.write(b''.join(proc.stdout.splitlines(keepends=True)[1:]))
        print(case, len(agg))
    return 0


if __name__ == '__main__':
    sys.exit(main())
