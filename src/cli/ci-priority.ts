/**
 * `frontier ci priority`: the sweep matrix with every job's queue priority, queue token and
 * skip-queue request, as InferenceX's `utils/ci_priority.py` annotates it in run-sweep.yml's
 * setup job. `--format json` prints the annotated matrix byte for byte as that script does.
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { DEFAULT_PRIORITY_POLICY, loadPriorityPolicy } from '../ci/priority-policy.js';
import { annotateMatrix, annotatedMatrixJson, namesFromArg } from '../ci/priority.js';
import type { PriorityContext } from '../ci/priority.js';
import { queueOrderText } from '../ci/priority-queue.js';
import { PyJsonSyntaxError, loads } from '../pycompat/json.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiFormat } from './ci-step.js';
import { numberArg } from './options.js';
import { pathOption } from './paths.js';

interface PriorityOptions {
  matrix: string;
  policy: string;
  event?: string;
  eventName?: string;
  labels?: string;
  criteria?: string;
  queueNamespace?: string;
  prNumber?: number;
  format: CiFormat;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The matrix JSON (`-`: stdin), parsed as Python's json.loads parses it (floats stay floats). */
async function readMatrix(file: string): Promise<unknown> {
  const text =
    file === '-'
      ? await readStdin()
      : await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
          throw new UserError(`--matrix ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
        });
  try {
    return loads(text);
  } catch (e) {
    if (!(e instanceof PyJsonSyntaxError)) throw e;
    throw new UserError(`--matrix ${file === '-' ? 'stdin' : file}: not JSON: ${e.describe(text)}`, {
      hint: 'pass what `frontier changelog matrix` prints',
    });
  }
}

/**
 * The event name, labels and pull request number: from the event payload when there is one
 * (`--event` or Actions' GITHUB_EVENT_PATH), else from the flags. As in run-sweep.yml, a run
 * for an event without a pull request passes number 0.
 */
function contextOf(opts: PriorityOptions): PriorityContext {
  const hasPayload = opts.event !== undefined || Boolean(process.env.GITHUB_EVENT_PATH);
  const event = hasPayload ? eventOf(opts) : undefined;
  const runId = process.env.GITHUB_RUN_ID;
  return {
    eventName: event?.name ?? opts.eventName ?? (process.env.GITHUB_EVENT_NAME || ''),
    labels: namesFromArg(opts.labels, '--labels') ?? new Set(event?.pullRequest?.labels ?? []),
    queueNamespace: opts.queueNamespace ?? (runId ? `${runId}:${process.env.GITHUB_RUN_ATTEMPT ?? '1'}` : 'local'),
    prNumber: opts.prNumber ?? (event ? (event.pullRequest?.number ?? 0) : undefined),
    criteria: namesFromArg(opts.criteria, '--criteria'),
  };
}

export function ciPriorityCommand(): Command {
  const command = new Command('priority')
    .description("the sweep matrix with each job's queue priority, queue token and skip-queue request (run-sweep.yml's setup)")
    .addOption(
      pathOption('--matrix <file>', 'the sweep matrix JSON `frontier changelog matrix` prints; - reads stdin').default('-'),
    )
    .addOption(pathOption('--policy <file>', 'the priority policy', 'catalog').default(DEFAULT_PRIORITY_POLICY))
    .option('--labels <labels>', "pull request labels, a comma list or JSON array (default: the event payload's)")
    .option(
      '--criteria <criteria>',
      'the classifier\'s criteria, a comma list or JSON array; [] is "none found", absent is "no classifier"',
    )
    .option(
      '--queue-namespace <ns>',
      'what makes queue tokens unique (default: $GITHUB_RUN_ID:$GITHUB_RUN_ATTEMPT, else "local")',
    )
    .option(
      '--pr-number <n>',
      "the pull request skip-queue-pr names (default: the event payload's)",
      numberArg({ integer: true, min: 0 }),
    );
  return withFormat(withEvent(command)).action(async (opts: PriorityOptions) => {
    const context = contextOf(opts);
    const policy = await loadPriorityPolicy(opts.policy);
    const { annotated, jobs } = annotateMatrix(await readMatrix(opts.matrix), policy, context);
    const json = annotatedMatrixJson(annotated);
    // The JSON form is the reference script's exact text, not emit()'s indented JSON.
    const text = opts.format === 'json' ? `${json}\n` : queueOrderText(jobs, context);
    emit({ text, json: null, outputs: { 'search-space-config': json } }, 'text');
  });
}
