#!/usr/bin/env python3
"""Record what InferenceX's utils/aggregate_power_multinode.py writes for each case of
test/fixtures/power/multinode/, so the suite checks Frontier's multinode power step against the
reference byte for byte without Python.

Each case folder holds env.json (RESULT_FILENAME, PREFILL_GPUS, DECODE_GPUS and, when set,
POWER_PRODUCER_SHA and REQUIRE_POWER) and workspace/: the directory process_result.py runs in
(LOGS/power/ with the package Frontier's writePowerPackage wrote, LOGS/<result>.json, the
renamed <RESULT_FILENAME>.json and the agg_<RESULT_FILENAME>.json to patch). The reference runs
in a copy of workspace/ exactly as process_result.py calls it (POWER_ARTIFACT_DIR=LOGS/power,
POWER_RESULT_ROOT=LOGS, relative paths). Writes <case>/expected/: agg.json and
power_validation.json (the files, unmodified), exit_code, stdout and stderr.
Usage: python3 scripts/power-multinode-golden.py --inferencex CHECKOUT
"""
import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

CASES = Path(__file__).resolve().parent.parent / 'test' / 'fixtures' / 'power' / 'multinode'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--inferencex', required=True, help='an InferenceX checkout (its utils/ imports)')
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.inferencex), 'utils'))
    import aggregate_power_multinode as apm  # noqa: PLC0415

    for case in sorted(p for p in CASES.iterdir() if p.is_dir()):
        env = json.loads((case / 'env.json').read_text())
        rf = env['RESULT_FILENAME']
        expected = case / 'expected'
        expected.mkdir(exist_ok=True)
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / 'w'
            shutil.copytree(case / 'workspace', work, symlinks=True)
            os.chdir(work)
            out, err = io.StringIO(), io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = apm.run(
                        Path('LOGS/power'),
                        Path(f'{rf}.json'),
                        Path(f'agg_{rf}.json'),
                        prefill_gpus=int(env['PREFILL_GPUS']),
                        decode_gpus=int(env['DECODE_GPUS']),
                        expected_producer_sha=env.get('POWER_PRODUCER_SHA') or None,
                        logs_root=Path('LOGS'),
                        validation_result=Path(f'power_validation_{rf}.json'),
                        require_power=env.get('REQUIRE_POWER', '').lower() in {'1', 'true', 'yes'},
                    )
            finally:
                os.chdir(cwd)
            shutil.copyfile(work / f'agg_{rf}.json', expected / 'agg.json')
            shutil.copyfile(work / f'power_validation_{rf}.json', expected / 'power_validation.json')
        (expected / 'exit_code').write_text(f'{code}\n')
        (expected / 'stdout').write_text(out.getvalue())
        (expected / 'stderr').write_text(err.getvalue())
        print(f'{case.name}: exit {code}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
