/** What every `frontier ci …` step shares: the event options, the output format, and how a decision is emitted. */
import { Command } from 'commander';
import { readEvent } from '../ci/event.js';
import type { GithubEvent } from '../ci/event.js';
import { writeGithubOutput } from '../ci/output.js';
import type { OutputValue } from '../ci/output.js';
import { pathOption } from './paths.js';
import { formatOption } from './options.js';
import { ExitCode } from '../util/exit-codes.js';

export type CiFormat = 'text' | 'json';

/** What a `ci` subcommand decided: how to print it, and the step outputs it sets. */
export interface CiDecision {
  text: string;
  json: unknown;
  outputs: Record<string, OutputValue>;
  /** The exit status (default 0): a refusal that should fail the step sets 1. */
  exitCode?: number;
}

/** `--event FILE` and `--event-name NAME`, defaulting to what Actions sets. */
export function withEvent(command: Command): Command {
  return command
    .addOption(pathOption('--event <file>', 'the GitHub event payload JSON (default: $GITHUB_EVENT_PATH)'))
    .option(
      '--event-name <name>',
      'the event name: pull_request, push, issue_comment, workflow_dispatch (default: $GITHUB_EVENT_NAME)',
    );
}

export function eventOf(opts: { event?: string; eventName?: string }): GithubEvent {
  return readEvent(opts.event ?? process.env.GITHUB_EVENT_PATH, opts.eventName ?? process.env.GITHUB_EVENT_NAME);
}

export function withFormat(command: Command): Command {
  return command.addOption(formatOption());
}

/** Print `decision` in `format`, append its outputs to GITHUB_OUTPUT (inside Actions), set the exit status. */
export function emit(decision: CiDecision, format: CiFormat): void {
  process.stdout.write(format === 'json' ? `${JSON.stringify(decision.json, null, 2)}\n` : ensureNewline(decision.text));
  writeGithubOutput(decision.outputs);
  process.exitCode = decision.exitCode ?? ExitCode.OK;
}

const ensureNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);
