/**
 * What a relative path on the command line is relative to. One rule for every command:
 *
 * - A path the user gives (an option, an argument, $FRONTIER_DB), and a file Frontier writes for the
 *   user by default (a run directory, the store, a report), is relative to where the command was
 *   started, also with `-C DIR`.
 * - `-C DIR` says where the catalog is: the command runs in DIR, so what it reads of the catalog by
 *   default (configs/*-master.yaml, configs/runners.yaml, perf-changelog.yaml, clusters/, the
 *   benchmarks/ scripts and recipes) is DIR's. Such an option, given, is the user's path again.
 * - A path inside a revision (`--changelog-file`, the changelog gate's `--config-files`) names a
 *   file of the repository at that revision, not one on disk: it is relative to the repository root.
 *
 * Options and arguments are declared with their kind here; `enterCatalog` makes the user's
 * absolute before `-C` changes directory, and `userPath` does the same for paths a command reads
 * itself (its own parser, an environment variable, a default it computes).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { Argument, Option } from 'commander';
import type { Command } from 'commander';
import { requireDirectory } from './error.js';

/**
 * `user`: from where the command started, given or default; `catalog`: from where the command
 * started when given, the default from the catalog (-C); `repository`: a path inside a revision,
 * never resolved on disk.
 */
export type PathKind = 'user' | 'catalog' | 'repository';

const kinds = new WeakMap<Option | Argument, PathKind>();

/** An option whose value is a path of the given kind (`--out <dir>`). */
export function pathOption(flags: string, description: string, kind: PathKind = 'user'): Option {
  const option = new Option(flags, description);
  kinds.set(option, kind);
  return option;
}

/** An argument whose value is a path of the given kind (`<dir>`, `[files...]`). */
export function pathArgument(name: string, description: string, kind: PathKind = 'user'): Argument {
  const argument = new Argument(name, description);
  kinds.set(argument, kind);
  return argument;
}

/** The kind an option or argument was declared with; undefined: not a path. */
export const pathKind = (o: Option | Argument): PathKind | undefined => kinds.get(o);

let startDir: string | undefined;
let catalogDir: string | undefined;
const noted = new Set<string>();

/** Where the command was started (before -C). */
export const startedIn = (): string => startDir ?? process.cwd();

/**
 * `path` from where the command was started. Without -C it is left as typed (messages show what
 * the user wrote); `-` (standard input or output) and URLs always are.
 */
export function userPath(path: string): string;
export function userPath(path: string | undefined): string | undefined;
export function userPath(path: string | undefined): string | undefined {
  if (path === undefined || startDir === undefined || path === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  const absolute = resolve(startDir, path);
  noteCatalogTwin(path, absolute);
  return absolute;
}

/** A path missing where the user started but present under -C is most likely meant there: say how to name it. */
function noteCatalogTwin(path: string, absolute: string): void {
  const twin = resolve(catalogDir!, path);
  if (isAbsolute(path) || noted.has(path) || existsSync(absolute) || !existsSync(twin)) return;
  noted.add(path);
  process.stderr.write(
    `frontier: note: ${path} is relative to where frontier started (${startDir}), where there is none; ` +
      `the one in the -C directory is ${shownPath(twin)}\n`,
  );
}

const resolved = <T>(value: T): T =>
  (typeof value === 'string' ? userPath(value) : Array.isArray(value) ? value.map((v) => userPath(v as string)) : value) as T;

/**
 * Before the command runs: with `-C DIR`, makes the path options and arguments of `command`
 * absolute from where it was started (by their kind), then moves into DIR.
 */
export function enterCatalog(command: Command, dir: string | undefined): void {
  startDir = catalogDir = undefined;
  if (dir === undefined) return;
  startDir = process.cwd();
  catalogDir = resolve(requireDirectory(dir, '-C'));
  for (const option of command.options) {
    const kind = kinds.get(option);
    const key = option.attributeName();
    const source = command.getOptionValueSource(key);
    if (kind === undefined || kind === 'repository' || (kind === 'catalog' && source !== 'cli' && source !== 'env')) continue;
    command.setOptionValueWithSource(key, resolved(command.getOptionValue(key)), source);
  }
  command.registeredArguments.forEach((argument, i) => {
    const kind = kinds.get(argument);
    const given = i < command.args.length;
    if (kind === 'user' || (kind === 'catalog' && given)) command.processedArgs[i] = resolved(command.processedArgs[i]);
  });
  process.chdir(catalogDir);
}

/** An absolute path as the user would type it from where they started: relative when it is under there. */
export function shownPath(absolute: string): string {
  const rel = relative(startedIn(), absolute);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
}
