import { Command, Option } from 'commander';
import { DEFAULT_DCGM_URL, DEFAULT_HWMON_ROOT, DEFAULT_INTERVAL_MS, SAMPLER_SOURCES, startSampler } from '../telemetry/index.js';
import type { DcgmEndpoint, SamplerSource } from '../telemetry/index.js';
import { clockFromEnv } from '../util/virtual-clock.js';
import { formatOption, numberArg } from './options.js';
import { pathOption } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `HOST=URL` or `URL`. */
export function dcgmEndpoint(spec: string): DcgmEndpoint {
  const eq = spec.indexOf('=');
  const scheme = spec.indexOf('://');
  if (eq > 0 && (scheme < 0 || eq < scheme)) return { hostname: spec.slice(0, eq), url: spec.slice(eq + 1) };
  return { url: spec };
}

interface SampleFlags {
  source: SamplerSource;
  out: string;
  csv?: string;
  intervalMs: number;
  dcgmUrl?: string[];
  hwmonRoot: string;
  hwmonName?: string[];
  timeScale: number;
}

/**
 * `frontier telemetry sample`: sample until SIGTERM or SIGINT, then stop in order (the post-exit
 * sample, the repairs, the summary) and exit 0. A Slurm job runs it on each node as a background step.
 */
export function telemetryCommand(): Command {
  const telemetry = new Command('telemetry').description('GPU telemetry: power samplers whose files the power step integrates');
  telemetry
    .command('sample')
    .description('sample GPU power into DIR until SIGTERM/SIGINT (nvidia-smi, amd-smi, dcgm-exporter or hwmon)')
    .addOption(new Option('--source <source>', 'where samples come from').choices([...SAMPLER_SOURCES]).default('auto'))
    .addOption(pathOption('--out <dir>', 'directory for the CSV and its sidecars (created)').makeOptionMandatory())
    .option('--csv <name>', 'CSV file name (default gpu_metrics.csv; samples.csv for dcgm)')
    .option(
      '--interval-ms <n>',
      'sampling interval in ms, on the run clock (amd-smi: whole seconds)',
      numberArg({ min: 1 }),
      DEFAULT_INTERVAL_MS,
    )
    .option('--dcgm-url <url>', `dcgm-exporter /metrics URL, or HOST=URL (repeatable; default ${DEFAULT_DCGM_URL})`, collect)
    .addOption(pathOption('--hwmon-root <dir>', 'sysfs root for hwmon').default(DEFAULT_HWMON_ROOT))
    .option('--hwmon-name <name>', 'hwmon: only devices with this name, e.g. amdgpu (repeatable)', collect)
    .option(
      '--time-scale <k>',
      'simulated run: hwmon/dcgm stamp on the virtual clock (k× real time, anchored at FRONTIER_CLOCK_ANCHOR)',
      numberArg({ min: Number.MIN_VALUE }),
      1,
    )
    .addOption(formatOption(['json'], 'the summary printed at exit'))
    .action(async (flags: SampleFlags) => {
      const log = (line: string): void => {
        process.stderr.write(`${line}\n`);
      };
      // Signals that arrive while starting are honoured once the sampler is up.
      let signalled: NodeJS.Signals | undefined;
      let wake: (() => void) | undefined;
      const onSignal = (sig: NodeJS.Signals): void => {
        signalled ??= sig;
        wake?.();
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      try {
        const handle = await startSampler({
          source: flags.source,
          dir: flags.out,
          csvName: flags.csv,
          intervalMs: flags.intervalMs,
          dcgmEndpoints: flags.dcgmUrl?.map(dcgmEndpoint),
          hwmonRoot: flags.hwmonRoot,
          hwmonNames: flags.hwmonName,
          clock: clockFromEnv(flags.timeScale),
          log,
        });
        // Hold the process open (a source of `none` has nothing running) until a signal.
        const keepAlive = setInterval(() => undefined, 1 << 30);
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (signalled) resolve();
        });
        clearInterval(keepAlive);
        log(`[telemetry] ${signalled ?? 'signal'}: stopping`);
        const summary = await handle.stop();
        process.stdout.write(`${JSON.stringify(summary)}\n`);
        process.exitCode = ExitCode.OK;
      } finally {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
    });
  return telemetry;
}
