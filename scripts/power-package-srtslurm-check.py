#!/usr/bin/env python3
"""Check Frontier's dcgm-power producer against srt-slurm's own: for each package under
test/fixtures/power/multinode/<case>/workspace/LOGS/power (written by writePowerPackage),
rebuild samples.csv with srt-slurm's SampleWriter and the terminal manifest.json with its
PowerManifest, read_samples, validate_devices and validate_expected_windows (the steps of
PowerTelemetrySession._finalize_manifest), and say whether the bytes are identical.
Known difference: srt-slurm keeps per-device gaps in a window whose coverage failed; InferenceX's
consumer (whose checks Frontier's producer shares) clears them, so the manifests of the
sample-gap and missing-device cases differ there and only there.
Usage: python3 scripts/power-package-srtslurm-check.py --srt-slurm CHECKOUT
(srtctl's package __init__ needs marshmallow; the power modules do not, so they are loaded alone.)
"""
import argparse
import os
import sys
import types
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument('--srt-slurm', required=True, help='an srt-slurm checkout')
args = parser.parse_args()
SRC = os.path.join(os.path.abspath(args.srt_slurm), 'src', 'srtctl')
for name, path in (('srtctl', SRC), ('srtctl.core', SRC + '/core'), ('srtctl.core.power', SRC + '/core/power')):
    module = types.ModuleType(name)
    module.__path__ = [path]
    sys.modules[name] = module
sys.modules['srtctl'].__version__ = '0.3.0'
CASES = Path(__file__).resolve().parent.parent / 'test' / 'fixtures' / 'power' / 'multinode'
import json, sys, filecmp, shutil, tempfile
from pathlib import Path
from srtctl.core.power.manifest import PowerManifest, DcgmExporterIdentity, ExpectedWindow
from srtctl.core.power.samples import SampleWriter, read_samples, derive_observed_devices
from srtctl.core.power.topology import ExpectedDevice, DeviceAssignment, validate_devices
from srtctl.core.power.windows import validate_expected_windows
from srtctl.core.power.contract import atomic_write_json, FATAL_LIFECYCLE_REASONS, STARTUP_FAILURE_REASONS
for case in sorted(CASES.iterdir()):
    ws=case/'workspace'; pdir=ws/'LOGS'/'power'
    mine=json.loads((pdir/'manifest.json').read_text())
    with tempfile.TemporaryDirectory() as tmp:
        root=Path(tmp)/'w'; shutil.copytree(ws, root)
        out=root/'LOGS'/'power'
        rows,_=read_samples(out/'samples.csv')
        # SampleWriter over the same rows must give the same samples.csv
        SampleWriter_path=Path(tmp)/'samples.csv'; wr=SampleWriter(SampleWriter_path); wr.append(rows); wr.close()
        same_csv = SampleWriter_path.read_bytes()==(pdir/'samples.csv').read_bytes()
        ed=[ExpectedDevice(d['hostname'], d['gpu_index'], tuple(DeviceAssignment(a['worker_role'],a['worker_index'],a['worker_process'],a['het_group']) for a in d['assignments'])) for d in mine['expected_devices']]
        ew=[ExpectedWindow(w['benchmark_type'], w['concurrency']) for w in mine['expected_windows']]
        x=mine['dcgm_exporter']
        man=PowerManifest(job_id=mine['job_id'], run_name=mine['run_name'], sample_interval_seconds=mine['sample_interval_seconds'], request_timeout_seconds=mine['request_timeout_seconds'], required=mine['required'], started_at_unix=mine['started_at_unix'], dcgm_exporter=DcgmExporterIdentity(x['container_image_resolved'],x['container_image_sha256'],x['port'],x['command']), expected_devices=ed, expected_windows=ew, producer_git_commit=mine['producer_git_commit'])
        # _finalize_manifest
        rows, sample_reasons = read_samples(out/'samples.csv')
        observed = derive_observed_devices(rows); devices = validate_devices(ed, observed)
        reasons=[*sample_reasons, *devices.reason_codes]
        man.scrape_count=mine['scrape_count']; man.max_scrape_duration_seconds=mine['max_scrape_duration_seconds']
        man.observed_devices=observed; man.sample_row_count=len(rows)
        man.window_validations=validate_expected_windows(power_dir=out, result_root=root/'LOGS', expected_windows=ew, expected_device_keys={d.key for d in ed}, observed_devices=observed, artifact_errors=man.artifact_errors)
        reasons.extend(r for v in man.window_validations for r in v.reason_codes)
        reasons.extend(r for e in man.artifact_errors for r in e.reason_codes)
        status='incomplete' if any(r in FATAL_LIFECYCLE_REASONS for r in reasons) else ('failed' if man.required and any(r in STARTUP_FAILURE_REASONS for r in reasons) else 'complete')
        wv=bool(ew) and all(v.power_coverage_valid for v in man.window_validations)
        pv = status=='complete' and devices.valid and wv and not sample_reasons and not man.artifact_errors
        man.reason_codes=list(dict.fromkeys(reasons))
        man.mark_terminal(status=status, stopped_at_unix=mine['stopped_at_unix'], publication_valid=pv)
        atomic_write_json(Path(tmp)/'manifest.json', man.to_dict())
        theirs=(Path(tmp)/'manifest.json').read_bytes(); ours=(pdir/'manifest.json').read_bytes()
        print(case.name, 'samples.csv identical:', same_csv, 'manifest identical:', theirs==ours, 'srt-slurm publication_valid:', pv)
        if theirs!=ours:
            import difflib; print(''.join(list(difflib.unified_diff(ours.decode().splitlines(1), theirs.decode().splitlines(1)))[:40]))
