#!/usr/bin/env python3
"""Record what InferenceX's utils/aggregate_power.py writes and prints for each case of
test/fixtures/power/single-node/, so the suite checks `frontier results power` against the
reference byte for byte without Python.

Each case folder holds the inputs: gpu_metrics.csv (nvidia-smi or amd-smi format), raw.json (the
benchmark result), agg.json (the aggregate before the power step), optional
gpu_metrics_energy_start.csv / gpu_metrics_energy_end.csv (amd-smi accumulator snapshots) and
args.json ({"expected_num_gpus": N, "require_power": bool}). The reference runs in a copy of the
folder with relative paths and TZ=UTC (naive timestamps are local time), and this writes
expected_agg.json, expected_power_validation.json (the sidecar, power_validation_raw.json) and
expected_run.json (exit status, stdout, stderr). It also records, in test/fixtures/power/timestamps.json,
what the reference's _parse_timestamp / _parse_power return for a list of cells (under
TZ=America/New_York, to exercise local time), and in test/fixtures/power/process/<case>/ what
utils/process_result.py writes and prints for a single-node point with gpu_metrics.csv beside it
(env.json, raw.json; `internal` has a GPU id int() refuses, for record_power_internal_error), and
in test/fixtures/power/agentic/<case>/ what utils/agentic/aggregation/power_adapter.py writes and
prints for an AgentX result folder (results/ with aiperf_artifacts/ and gpu_metrics.csv, agg.json).

Usage:
  python3 scripts/power-golden.py --make-inputs            # (re)write the constructed inputs
  python3 scripts/power-golden.py --inferencex CHECKOUT    # record the reference's outputs
(or set INFERENCEX_CHECKOUT instead of --inferencex)
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'power', 'single-node')
BASE = 1_736_942_000.0  # 2025-01-15T11:53:20Z
NV_HEADER = ('timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], '
             'clocks.current.memory [MHz], utilization.gpu [%], utilization.memory [%]')
AMD_HEADER = ('timestamp,gpu,gfx_activity,umc_activity,mm_activity,socket_power,gfx_voltage,'
              'soc_voltage,mem_voltage,throttle_status,power_management,edge,hotspot,mem')
ENERGY_HEADER = ('gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,'
                 'throttle_status,power_management,total_energy_consumption')


def nv_ts(t):
    # nvidia-smi: local wall clock, millisecond resolution (the cases are recorded under TZ=UTC).
    return datetime.fromtimestamp(t, timezone.utc).strftime('%Y/%m/%d %H:%M:%S.%f')[:-3]


def amd_ts(t):
    return datetime.fromtimestamp(t, timezone.utc).replace(tzinfo=None).isoformat(timespec='milliseconds')


def nv_rows(samples):
    return [NV_HEADER] + [f'{nv_ts(t)}, {g}, {p:.2f} W, {60 + g}, 1980 MHz, 2619 MHz, 98 %, 45 %' for t, g, p in samples]


def amd_rows(samples, stamp=amd_ts):
    return [AMD_HEADER] + [f'{stamp(t)},{g},97,40,0,{p:g},N/A,N/A,N/A,N/A,ENABLED,55,70,60' for t, g, p in samples]


def stream(rng, gpus, start, end, period=1.0, jitter=0.03, watts=(380.0, 720.0)):
    out = []
    t = start
    while t <= end:
        for g in gpus:
            out.append((round(t + rng.uniform(0, jitter), 3), g, round(rng.uniform(*watts), 2)))
        t += period
    return out


def bench(start, end, completed=640, total_input=655_360, total_output=163_840, duration=None):
    return {
        'date': '20250115-115320',
        'backend': 'vllm',
        'model_id': 'deepseek-ai/DeepSeek-R1-0528',
        'completed': completed,
        'total_input_tokens': total_input,
        'total_output_tokens': total_output,
        'duration': duration if duration is not None else end - start,
        'benchmark_start_time_unix': start,
        'benchmark_end_time_unix': end,
        'max_concurrency': 64,
    }


AGG = {'hw': 'h200', 'conc': 64, 'model': 'deepseek-ai/DeepSeek-R1-0528', 'tp': 8, 'tput_per_gpu': 1234.5678,
       'avg_power_w': 999.0, 'power_valid': 1}


def make_inputs():
    rng = random.Random(21)
    cases = {}
    s, e = BASE + 5.2371, BASE + 65.8813

    # A valid 8-GPU nvidia-smi stream with jittered 1 Hz samples.
    cases['nvidia-valid-8gpu'] = dict(csv=nv_rows(stream(rng, range(8), BASE, BASE + 70)), raw=bench(s, e), gpus=8)

    # amd-smi watch mode: ISO timestamps, bare numbers; two GPUs; accumulator snapshots that agree.
    samples = stream(rng, range(2), BASE, BASE + 70, watts=(500.0, 520.0))
    cases['amd-accumulator'] = dict(
        csv=amd_rows(samples), raw=bench(s, e), gpus=2,
        energy_start={'0': 178319501.682, '1': 178400000.0},
        energy_end={'0': 178319501.682 + 35700.0, '1': 178400000.0 + 35710.5})

    # amd-smi, accumulator disagreeing (and a GPU missing from the end snapshot).
    cases['amd-accumulator-mismatch'] = dict(
        csv=amd_rows(stream(rng, range(2), BASE, BASE + 70)), raw=bench(s, e), gpus=2,
        energy_start={'0': 1000.0, '1': 2000.0, '2': 3000.0}, energy_end={'0': 1500.0, '1': 2100.0})

    # Epoch-second timestamps (as some amd-smi versions write).
    cases['amd-epoch-seconds'] = dict(csv=amd_rows(stream(rng, range(4), BASE, BASE + 70), stamp=lambda t: f'{t:.3f}'),
                                      raw=bench(s, e), gpus=4)

    # Duplicate timestamps: second resolution with two readings per second.
    dup = []
    for k in range(0, 140):
        t = BASE + k * 0.5
        for g in range(2):
            dup.append((t, g, round(rng.uniform(400, 600), 2)))
    rows = [NV_HEADER] + [
        f'{datetime.fromtimestamp(int(t), timezone.utc).strftime("%Y/%m/%d %H:%M:%S")}, {g}, {p:.2f} W, 60, 1 MHz, 1 MHz, 1 %, 1 %'
        for t, g, p in dup]
    cases['nvidia-duplicate-timestamps'] = dict(csv=rows, raw=bench(s, e), gpus=2)

    # A 6-second sampling gap inside the window on GPU 1.
    samples = [x for x in stream(rng, range(2), BASE, BASE + 70) if not (x[1] == 1 and 20 < x[0] - BASE < 26)]
    cases['nvidia-gap'] = dict(csv=nv_rows(samples), raw=bench(s, e), gpus=2)

    # Expected 4 GPUs, 3 seen; GPU 2 starts after the window opens.
    samples = [x for x in stream(rng, range(3), BASE, BASE + 70) if not (x[1] == 2 and x[0] < s + 2)]
    cases['nvidia-missing-gpu'] = dict(csv=nv_rows(samples), raw=bench(s, e), gpus=4, require_power=True)

    # Malformed rows: [N/A] and a garbage timestamp inside the window, far-outside corruption, a
    # row without GPU id, CRLF line ends, a UTF-8 BOM and a truncated last row.
    rows = nv_rows(stream(rng, range(2), BASE, BASE + 70))
    rows.insert(30, f'{nv_ts(BASE + 15.5)}, 0, [N/A], 60, 1 MHz, 1 MHz, 1 %, 1 %')
    rows.insert(31, 'not-a-timestamp, 1, 500.00 W, 60')
    rows.insert(2, f'{nv_ts(BASE - 100)}, 0, -5.00 W, 60')
    rows.insert(40, f'{nv_ts(BASE + 20.5)}, , 500.00 W, 60')
    rows.append(f'{nv_ts(BASE + 70.9)}, 1, 41')
    cases['nvidia-malformed-rows'] = dict(csv=rows, raw=bench(s, e), gpus=2, bom=True, crlf=True)

    # The benchmark's duration disagrees with its window, and completed is 0.
    cases['bench-invalid-counts'] = dict(csv=nv_rows(stream(rng, range(1), BASE, BASE + 70)),
                                         raw=bench(s, e, completed=0, duration=30.0), gpus=1)

    # Epoch milliseconds, a single GPU, power with units and no GPU-count expectation mismatch.
    ms = stream(rng, [0], BASE, BASE + 70, period=0.25)
    rows = ['time_ms,device,power_w'] + [f'{int(round(t * 1000))},{g},{p} W' for t, g, p in ms]
    cases['epoch-ms-quarter-second'] = dict(csv=rows, raw=bench(s, e), gpus=1)

    for name, c in cases.items():
        folder = os.path.join(GOLDEN, name)
        os.makedirs(folder, exist_ok=True)
        sep = '\r\n' if c.get('crlf') else '\n'
        text = sep.join(c['csv']) + sep
        if c.get('bom'):
            text = '\ufeff' + text
        with open(os.path.join(folder, 'gpu_metrics.csv'), 'w', encoding='utf-8', newline='') as f:
            f.write(text)
        with open(os.path.join(folder, 'raw.json'), 'w') as f:
            json.dump(c['raw'], f, indent=2)
        with open(os.path.join(folder, 'agg.json'), 'w') as f:
            json.dump(AGG, f, indent=2)
        for side in ('start', 'end'):
            snap = c.get(f'energy_{side}')
            if snap is not None:
                lines = [ENERGY_HEADER] + [f'{g},238,N/A,N/A,N/A,N/A,ENABLED,{j}' for g, j in snap.items()]
                with open(os.path.join(folder, f'gpu_metrics_energy_{side}.csv'), 'w') as f:
                    f.write('\n'.join(lines) + '\n')
        with open(os.path.join(folder, 'args.json'), 'w') as f:
            json.dump({'expected_num_gpus': c['gpus'], 'require_power': bool(c.get('require_power'))}, f, indent=2)
        print('input', name)


def record(inferencex):
    script = os.path.join(inferencex, 'utils', 'aggregate_power.py')
    for case in sorted(os.listdir(GOLDEN)):
        folder = os.path.join(GOLDEN, case)
        with open(os.path.join(folder, 'args.json')) as f:
            args = json.load(f)
        with tempfile.TemporaryDirectory() as work:
            for name in os.listdir(folder):
                if not name.startswith('expected_'):
                    shutil.copy(os.path.join(folder, name), work)
            argv = [sys.executable, script, '--csv', 'gpu_metrics.csv', '--bench-result', 'raw.json',
                    '--agg-result', 'agg.json', '--expected-num-gpus', str(args['expected_num_gpus'])]
            if args['require_power']:
                argv.append('--require-power')
            env = {'PATH': os.environ.get('PATH', ''), 'TZ': 'UTC'}
            proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
            for src, dst in (('agg.json', 'expected_agg.json'), ('power_validation_raw.json', 'expected_power_validation.json')):
                shutil.copy(os.path.join(work, src), os.path.join(folder, dst))
        with open(os.path.join(folder, 'expected_run.json'), 'w') as f:
            json.dump({'exit_code': proc.returncode, 'stdout': proc.stdout, 'stderr': proc.stderr}, f, indent=2)
            f.write('\n')
        print(case, proc.returncode)


PROCESS = os.path.join(GOLDEN, '..', 'process')


def record_process(inferencex):
    """utils/process_result.py with telemetry in the working folder (gpu_metrics.csv), per case of process/."""
    for case in sorted(os.listdir(PROCESS)):
        folder = os.path.join(PROCESS, case)
        with open(os.path.join(folder, 'env.json')) as f:
            env = json.load(f)
        rf = env['RESULT_FILENAME']
        with tempfile.TemporaryDirectory() as work:
            shutil.copy(os.path.join(folder, 'raw.json'), os.path.join(work, rf + '.json'))
            shutil.copy(os.path.join(folder, 'gpu_metrics.csv'), work)
            run_env = {'PATH': os.environ.get('PATH', ''), 'TZ': 'UTC', **{k: v for k, v in env.items() if v}}
            proc = subprocess.run([sys.executable, os.path.join(inferencex, 'utils', 'process_result.py')],
                                  cwd=work, env=run_env, capture_output=True, text=True)
            shutil.copy(os.path.join(work, f'agg_{rf}.json'), os.path.join(folder, 'expected_agg.json'))
            shutil.copy(os.path.join(work, f'power_validation_{rf}.json'), os.path.join(folder, 'expected_power_validation.json'))
        with open(os.path.join(folder, 'expected_run.json'), 'w') as f:
            json.dump({'exit_code': proc.returncode, 'stdout': proc.stdout, 'stderr': proc.stderr}, f, indent=2)
            f.write('\n')
        print('process', case, proc.returncode)


AGENTIC = os.path.join(GOLDEN, '..', 'agentic')


def record_agentic(inferencex):
    """utils/agentic/aggregation/power_adapter.py per case of agentic/ (results/, agg.json, args.json)."""
    for case in sorted(os.listdir(AGENTIC)):
        folder = os.path.join(AGENTIC, case)
        with open(os.path.join(folder, 'args.json')) as f:
            args = json.load(f)
        with tempfile.TemporaryDirectory() as work:
            shutil.copytree(os.path.join(folder, 'results'), os.path.join(work, 'results'))
            shutil.copy(os.path.join(folder, 'agg.json'), work)
            argv = [sys.executable, '-m', 'utils.agentic.aggregation.power_adapter', '--result-dir', 'results', '--agg-result', 'agg.json']
            if args['expected_num_gpus'] is not None:
                argv += ['--expected-num-gpus', str(args['expected_num_gpus'])]
            if args['require_power']:
                argv.append('--require-power')
            env = {'PATH': os.environ.get('PATH', ''), 'TZ': 'UTC', 'PYTHONPATH': os.path.abspath(inferencex)}
            proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
            for src, dst in (('agg.json', 'expected_agg.json'),
                             ('results/agentic_power_window.json', 'expected_window.json'),
                             ('results/power_validation.json', 'expected_power_validation.json')):
                target = os.path.join(folder, dst)
                if os.path.exists(os.path.join(work, src)):
                    shutil.copy(os.path.join(work, src), target)
                elif os.path.exists(target):
                    os.remove(target)
        with open(os.path.join(folder, 'expected_run.json'), 'w') as f:
            json.dump({'exit_code': proc.returncode, 'stdout': proc.stdout, 'stderr': proc.stderr}, f, indent=2)
            f.write('\n')
        print('agentic', case, proc.returncode)


TIMESTAMP_CASES = os.path.join(GOLDEN, '..', 'timestamps.json')


def record_timestamps(inferencex):
    """What _parse_timestamp and _parse_power return for each cell of timestamps.json, under TZ=America/New_York."""
    with open(TIMESTAMP_CASES, encoding='utf-8') as f:
        data = json.load(f)
    code = (
        'import json, sys\n'
        f'sys.path.insert(0, {os.path.join(inferencex, "utils")!r})\n'
        'from aggregate_power import _parse_timestamp, _parse_power\n'
        'data = json.load(sys.stdin)\n'
        'r = lambda v: None if v is None else repr(v)\n'
        'print(json.dumps({"tz": "America/New_York",'
        ' "timestamps": [[c, r(_parse_timestamp(c.strip()))] for c, _ in data["timestamps"]],'
        ' "powers": [[c, r(_parse_power(c.strip()))] for c, _ in data["powers"]]}, indent=1, ensure_ascii=False))\n'
    )
    env = {'PATH': os.environ.get('PATH', ''), 'TZ': 'America/New_York'}
    proc = subprocess.run([sys.executable, '-c', code], input=json.dumps(data), env=env, capture_output=True, text=True, check=True)
    with open(TIMESTAMP_CASES, 'w', encoding='utf-8') as f:
        f.write(proc.stdout)
    print('timestamps', len(data['timestamps']), 'powers', len(data['powers']))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--make-inputs', action='store_true')
    parser.add_argument('--inferencex', default=os.environ.get('INFERENCEX_CHECKOUT'))
    args = parser.parse_args()
    if args.make_inputs:
        make_inputs()
    if args.inferencex:
        record(args.inferencex)
        record_timestamps(args.inferencex)
        record_process(args.inferencex)
        record_agentic(args.inferencex)
    elif not args.make_inputs:
        parser.error('give --make-inputs and/or --inferencex CHECKOUT')
    return 0


if __name__ == '__main__':
    sys.exit(main())
