#!/usr/bin/env python3
"""Record how srtctl (srt-slurm's orchestrator) turns every srt-slurm recipe into processes: for each
recipe variant, each worker and frontend srun's argv and environment, as srtctl's own code builds
them. Frontier's src/recipes/render.ts is tested against the output (test/recipes/srtctl-render.test.ts).

Usage:
  python3 scripts/srtctl-golden.py --srt-slurm CHECKOUT --recipes DIR [--out FILE]

  CHECKOUT  an srt-slurm checkout (its src/srtctl is imported)
  DIR       a directory named srt-slurm-recipes; keys are `srt-slurm-recipes/<path under DIR>`
  FILE      default: test/fixtures/inferencex/golden/srtctl/render.json.gz

Needs srtctl's own dependencies (pyyaml, jinja2, marshmallow 3, marshmallow-dataclass, ruamel.yaml,
requests, rich, prometheus-client, pydantic). Nothing of srtctl is changed or stubbed; the job's
surroundings are faked, the same for every recipe:
  - no cluster config (srtslurm.yaml): load_cluster_config() returns None;
  - the Slurm allocation is N nodes named by index, N being what `srtctl submit` asks sbatch for
    (config.total_nodes plus dedicated infra/frontend/client nodes; the two het components when
    the job is heterogeneous);
  - start_srun_process records its command and environment instead of running srun;
  - get_hostname_ip answers a placeholder; the frontend's worker-readiness waits answer at once.
Placeholders in the output: `{host:N}` and `{ip:N}` are node N of the allocation (0-based, Slurm's
order), `{log_dir}` is the job's log directory, `{uuid}` stands for srtctl's random uuid4 hex.
Ports, node ranks and GPU lists are srtctl's own deterministic values, kept as they are.

Output: gzipped JSON {recipe path: {selector: result}}; selector "" for a plain recipe, else the
variant's key (`override_x`, `zip_override_g[0]`); result is
  {"name", "nodes", "roles": [{"role", "index", "nodes", "gpus", "argv", "env"}]}  or  {"error"}.
"""
import argparse
import contextlib
import gzip
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import yaml


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--srt-slurm', required=True)
    parser.add_argument('--recipes', required=True)
    parser.add_argument('--out', default=str(Path(__file__).parent.parent / 'test/fixtures/inferencex/golden/srtctl/render.json.gz'))
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.srt_slurm) / 'src'))
    os.environ.pop('SRTCTL_OUTPUT_DIR', None)
    os.environ.pop('SRTCTL_SOURCE_DIR', None)
    os.environ.pop('SLURM_JOB_ID', None)
    os.environ.pop('INFMAX_WORKSPACE', None)

    recipes = Path(args.recipes).resolve()
    out: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        harness = Harness(Path(tmp))
        for path in sorted(recipes.rglob('*.y*ml')):
            key = f'{recipes.name}/{path.relative_to(recipes).as_posix()}'
            out[key] = harness.render_file(path)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, 'wt', encoding='utf-8', compresslevel=9) as f:
        json.dump(out, f, sort_keys=True, separators=(',', ':'))
    variants = sum(len(v) for v in out.values())
    errors = sum(1 for v in out.values() for r in v.values() if 'error' in r)
    print(f'{len(out)} recipes, {variants} variants ({errors} rejected by srtctl) -> {args.out}')


class Recorder:
    """Stands in for srun: keeps what each call would have started."""

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def __call__(self, command, **kwargs):
        self.calls.append({'command': list(command), **kwargs})

        class Done:
            returncode = 0

            def poll(self):
                return 0

            def wait(self, timeout=None):
                return 0

        return Done()


class Harness:
    def __init__(self, tmp: Path) -> None:
        from srtctl.core import config as config_mod
        from srtctl.core import runtime as runtime_mod

        self.tmp = tmp
        self.nodelist: list[str] = []
        self.het: list[list[str]] | None = None
        self.recorder = Recorder()
        config_mod.load_cluster_config = lambda: None
        runtime_mod.get_slurm_nodelist = lambda: list(self.nodelist)
        runtime_mod.get_slurm_het_nodelists = lambda: self.het
        self._patch_everywhere('get_hostname_ip', lambda host, *a, **k: host.replace('host', 'ip'))
        self._patch_everywhere('start_srun_process', self.recorder)
        self._patch_everywhere('wait_for_port', lambda *a, **k: True)
        self._patch_everywhere('wait_for_health', lambda *a, **k: True)
        self._patch_everywhere('wait_for_model', lambda *a, **k: True)

    def _patch_everywhere(self, name: str, value: object) -> None:
        import srtctl.cli.do_sweep  # noqa: F401  (imports every stage, backend and frontend)

        for module in list(sys.modules.values()):
            if getattr(module, '__name__', '').startswith('srtctl') and hasattr(module, name):
                setattr(module, name, value)

    def render_file(self, path: Path) -> dict[str, object]:
        from srtctl.core.config import generate_override_configs

        raw = yaml.safe_load(path.read_text())
        if isinstance(raw, dict) and 'base' in raw:
            selectors = sorted(k for k in raw if k.startswith('override_'))
            for key in sorted(k for k in raw if k.startswith('zip_override_')):
                count = len(generate_override_configs(raw, key))
                selectors += [f'{key}[{i}]' for i in range(count)]
            return {s: self.render_variant(generate_override_configs(raw, s)[0][1]) for s in selectors}
        return {'': self.render_variant(raw)}

    def render_variant(self, recipe: dict) -> dict[str, object]:
        from srtctl.cli.do_sweep import SweepOrchestrator
        from srtctl.core.config import load_config
        from srtctl.core.runtime import RuntimeContext

        work = self.tmp / 'job'
        if work.exists():
            import shutil

            shutil.rmtree(work)
        work.mkdir()
        recipe_file = work / 'recipe.yaml'
        recipe_file.write_text(yaml.safe_dump(recipe, sort_keys=False))
        try:
            config = load_config(recipe_file)
        except Exception as e:  # noqa: BLE001
            return {'error': first_line(e).replace(str(recipe_file), 'recipe.yaml')}
        try:
            self._allocate(config)
            model = os.path.expandvars(config.model.path)
            if not model.startswith('hf:'):
                (work / model).mkdir(parents=True, exist_ok=True)
            self.recorder.calls.clear()
            log_dir = work / 'logs'
            with chdir(work), environ(SRTCTL_OUTPUT_DIR=str(work)):
                runtime = RuntimeContext.from_config(config, '0')
                orchestrator = SweepOrchestrator(config=config, runtime=runtime)
                # Which process (or endpoint's processes) each worker srun was for, in call order.
                started: list[list] = []
                one, many = orchestrator.start_worker, orchestrator.start_endpoint_worker
                orchestrator.start_worker = lambda p, ep: (started.append([p]), one(p, ep))[1]
                orchestrator.start_endpoint_worker = lambda ep: (started.append(ep), many(ep))[1]
                orchestrator.start_all_workers()
                assert len(started) == len(self.recorder.calls)
                orchestrator.start_frontend(registry=None)
            roles = []
            for i, call in enumerate(self.recorder.calls):
                roles.append(self._role(call, started[i] if i < len(started) else None))
            text = json.dumps(roles)
            text = text.replace(str(log_dir), '{log_dir}').replace(str(work), '{job_dir}')
            text = re.sub(r'moe_shared_[0-9a-f]{32}', 'moe_shared_{uuid}', text)
            return {'name': config.name, 'nodes': len(self.nodelist) if self.het is None else sum(map(len, self.het)), 'roles': json.loads(text)}
        except Exception as e:  # noqa: BLE001
            return {'error': first_line(e)}

    def _allocate(self, config) -> None:
        """The allocation `srtctl submit` asks for (cli/submit.py), as Slurm node names."""
        from srtctl.core.config import get_srtslurm_setting

        het = config.resources.het_components(
            infra_dedicated=config.infra.etcd_nats_dedicated_node,
            cluster_default=get_srtslurm_setting('use_het_jobs', False),
        )
        if het is not None:
            sizes = [c.nodes for c in het]
            self.het = [[f'{{host:{sum(sizes[:g]) + i}}}' for i in range(n)] for g, n in enumerate(sizes)]
            self.nodelist = [n for group in self.het for n in group]
            return
        self.het = None
        total = config.total_nodes
        dedicated = sum((config.infra.etcd_nats_dedicated_node, config.frontend.dedicated_node, config.benchmark.client_dedicated_node))
        if dedicated > 0:
            total += 1 if config.benchmark.colocate_with_frontend else dedicated
        self.nodelist = [f'{{host:{i}}}' for i in range(total)]

    def _role(self, call: dict, started: list | None) -> dict[str, object]:
        nodes = [int(re.fullmatch(r'\{host:(\d+)\}', n).group(1)) for n in call.get('nodelist') or []]
        env = {k: str(v) for k, v in (call.get('env_to_set') or {}).items()}
        if started is not None:
            leader = started[0]
            role = {'prefill': 'prefill', 'decode': 'decode', 'agg': 'aggregated'}[leader.endpoint_mode]
            return {'role': role, 'index': leader.endpoint_index, 'nodes': nodes,
                    'gpus': sorted(leader.gpu_indices), 'argv': call['command'], 'env': env}
        role = 'nginx' if call['command'][:2] == ['bash', '-c'] and 'nginx' in call['command'][2] else 'frontend'
        match = re.search(r'_(?:frontend|router)_(\d+)\.out$', str(call.get('output')))
        index = int(match.group(1)) if match else 0
        return {'role': role, 'index': index, 'nodes': nodes, 'gpus': [], 'argv': call['command'], 'env': env}


def first_line(e: BaseException) -> str:
    return f'{type(e).__name__}: {str(e).strip()}'


@contextlib.contextmanager
def chdir(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


@contextlib.contextmanager
def environ(**values: str):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


if __name__ == '__main__':
    main()
