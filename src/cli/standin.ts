import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { runBenchCommand } from './bench.js';
import { CliError } from './error.js';
import { simCommand } from './sim.js';

/**
 * The node half of the stand-ins InferenceX scripts run under (src/launch/inferencex/standins.ts):
 * an engine entry point becomes `frontier sim serve` for the row the script was given (its
 * environment contract names model, GPUs and parallelism), on the port and under the name the
 * script asked for; InferenceX's benchmark client becomes `frontier bench` with the same command
 * line. Hidden: only the stand-ins call it.
 */

/** The value of `--name VALUE` or `--name=VALUE` (the last one given). */
function flagValue(args: readonly string[], ...names: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name && i + 1 < args.length) value = args[i + 1];
      else if (args[i]!.startsWith(`${name}=`)) value = args[i]!.slice(name.length + 1);
    }
  }
  return value;
}

/** The model argument of an engine command line: a flag, else the first positional argument. */
function modelArg(tool: string, args: readonly string[]): string | undefined {
  const flagged = flagValue(args, '--model-path', '--model', '--model_path');
  if (flagged) return flagged;
  const rest = tool === 'python3' || tool === 'python' ? args.slice(2) : args[0] === 'serve' ? args.slice(1) : args;
  return rest[0] !== undefined && !rest[0].startsWith('-') ? rest[0] : undefined;
}

const DEFAULT_PORTS: Record<string, number> = { vllm: 8000, 'trtllm-serve': 8000, sglang: 30000 };

function need(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new CliError(`stand-in: ${name} is not set (the InferenceX workflow sets it)`);
  return v;
}

export function standinCommand(): Command {
  const standin = new Command('standin').description('(internal) what the stand-ins of GPU tools run');
  standin
    .command('engine')
    .argument('<tool>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (tool: string, args: string[]) => {
      const port =
        flagValue(args, '--port', '--server-port') ??
        String(
          tool === 'python3' || tool === 'python'
            ? args[1]?.startsWith('sglang')
              ? 30000
              : 8000
            : (DEFAULT_PORTS[tool] ?? 8000),
        );
      const model = modelArg(tool, args) ?? need('MODEL');
      const served = flagValue(args, '--served-model-name', '--served_model_name') ?? model;
      const sim = [
        'serve',
        '--model',
        need('MODEL'),
        '--hardware',
        need('FRONTIER_SIM_GPU'),
        '--precision',
        need('PRECISION'),
        '--tp',
        need('TP'),
        '--ep',
        process.env.EP_SIZE || '1',
        '--pp',
        process.env.PP_SIZE || '1',
        ...(process.env.DP_ATTENTION === 'true' ? ['--dp-attn'] : []),
        '--served-model-name',
        served,
        ...(process.env.MAX_MODEL_LEN ? ['--max-model-len', process.env.MAX_MODEL_LEN] : []),
        ...(process.env.FRONTIER_SIM_ARGS ?? '').split(/\s+/).filter(Boolean),
        // Tests and local runs listen on loopback only; `http://0.0.0.0:PORT` reaches it.
        '--host',
        '127.0.0.1',
        '--port',
        port,
      ];
      await simCommand().parseAsync(sim, { from: 'user' });
    });
  standin
    .command('client')
    .argument('<tool>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (_tool: string, args: string[]) => {
      const [, ...flags] = args; // the client script's path
      const extra = (process.env.FRONTIER_BENCH_ARGS ?? '').split(/\s+/).filter(Boolean);
      // The executor's additions come last, so they win (a simulated engine: its time scale and a local tokenizer).
      const report = await runBenchCommand([...flags, ...extra]);
      const dir = process.env.FRONTIER_STANDIN_DIR;
      const name = flagValue(flags, '--result-filename');
      if (dir && report && name)
        writeFileSync(join(dir, `${name}.validity.json`), JSON.stringify({ valid: report.valid, problems: report.problems }));
    });
  return standin;
}
