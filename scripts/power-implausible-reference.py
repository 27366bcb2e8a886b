#!/usr/bin/env python3
"""Write the implausible-telemetry cases of test/fixtures/power/implausible/ and record whether
InferenceX's utils/aggregate_power.py accepts them (docs/power.md, "Plausibility").

Each case is the recorded nvidia-valid-8gpu case (test/fixtures/power/single-node/) with one
hostile change: every power.draw at 99,999,999 W; GPU index 7 written as 99; GPUs 4-7 written as
00-03 beside 0-3. The reference runs in a copy of the folder (TZ=UTC, --expected-num-gpus 8) and
reference_verdict.json keeps what its sidecar says: power_valid, reasons, observed GPUs, avg_power_w.

Usage:
  python3 scripts/power-implausible-reference.py --make-inputs
  python3 scripts/power-implausible-reference.py --inferencex CHECKOUT
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'power')
SOURCE = os.path.join(FIXTURES, 'single-node', 'nvidia-valid-8gpu')
CASES = os.path.join(FIXTURES, 'implausible')
INPUTS = ('raw.json', 'agg.json')


def rewrite(cells_of):
    """The source CSV with each data row's cells passed through cells_of (a list of stripped cells)."""
    with open(os.path.join(SOURCE, 'gpu_metrics.csv'), encoding='utf-8') as f:
        header, *rows = f.read().splitlines()
    out = [header]
    for row in rows:
        cells = [c.strip() for c in row.split(',')]
        out.append(', '.join(cells_of(cells)))
    return '\n'.join(out) + '\n'


def with_power(cells):
    return [cells[0], cells[1], '99999999.00 W', *cells[3:]]


def with_index(mapping):
    return lambda cells: [cells[0], mapping.get(cells[1], cells[1]), *cells[2:]]


CASE_CSV = {
    'board-power-99999999': lambda: rewrite(with_power),
    'gpu-index-99': lambda: rewrite(with_index({'7': '99'})),
    'gpu-index-zero-padded': lambda: rewrite(with_index({'4': '00', '5': '01', '6': '02', '7': '03'})),
}


def make_inputs():
    for name, csv_text in CASE_CSV.items():
        folder = os.path.join(CASES, name)
        os.makedirs(folder, exist_ok=True)
        for file in INPUTS:
            shutil.copy(os.path.join(SOURCE, file), os.path.join(folder, file))
        with open(os.path.join(folder, 'gpu_metrics.csv'), 'w', encoding='utf-8') as f:
            f.write(csv_text())


def record(checkout):
    script = os.path.join(checkout, 'utils', 'aggregate_power.py')
    for name in sorted(CASE_CSV):
        folder = os.path.join(CASES, name)
        with tempfile.TemporaryDirectory() as work:
            for file in (*INPUTS, 'gpu_metrics.csv'):
                shutil.copy(os.path.join(folder, file), os.path.join(work, file))
            run = subprocess.run(
                [sys.executable, script, '--csv', 'gpu_metrics.csv', '--bench-result', 'raw.json',
                 '--agg-result', 'agg.json', '--expected-num-gpus', '8'],
                cwd=work, env={**os.environ, 'TZ': 'UTC'}, capture_output=True, text=True)
            with open(os.path.join(work, 'power_validation_raw.json'), encoding='utf-8') as f:
                sidecar = json.load(f)
            verdict = {
                'exit_code': run.returncode,
                'power_valid': sidecar['power_valid'],
                'reasons': sidecar['reasons'],
                'observed_gpu_ids': sidecar['observed_gpu_ids'],
                'avg_power_w': sidecar['metrics'].get('avg_power_w'),
            }
        with open(os.path.join(folder, 'reference_verdict.json'), 'w', encoding='utf-8') as f:
            json.dump(verdict, f, indent=2)
            f.write('\n')
        print(name, json.dumps(verdict))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--make-inputs', action='store_true')
    parser.add_argument('--inferencex', default=os.environ.get('INFERENCEX_CHECKOUT'))
    args = parser.parse_args()
    if args.make_inputs:
        make_inputs()
    elif args.inferencex:
        record(args.inferencex)
    else:
        parser.error('give --make-inputs or --inferencex CHECKOUT')


if __name__ == '__main__':
    main()
