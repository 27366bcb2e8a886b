import type { Simple } from '../bash/syntax.js';
import type { Value } from '../bash/variables.js';

// The git commands of a launcher, read from their expanded words: clone, checkout/switch, and the
// check that HEAD is a given commit.

/** `git [-C dir] [-c k=v] <name> args…`. */
export function gitCommand(values: Value[]): { name: string; args: Value[] } | undefined {
  if (values[0]?.text !== 'git') return undefined;
  let i = 1;
  while (i < values.length && values[i]!.text.startsWith('-'))
    i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace'].includes(values[i]!.text) ? 2 : 1;
  return i < values.length ? { name: values[i]!.text, args: values.slice(i + 1) } : undefined;
}

/** git clone's options that take the next argument as their value. */
const CLONE_OPTIONS_WITH_VALUE = new Set(
  `-b --branch -o --origin --depth -c --config -j --jobs --reference --reference-if-able --template
   --separate-git-dir -u --upload-pack --shallow-since --shallow-exclude --filter --server-option`.split(/\s+/),
);

export function cloneArgs(args: Value[]): { url: Value | undefined; branch: Value | undefined } {
  const positional: Value[] = [];
  let branch: Value | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.text === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.text.startsWith('--branch=')) branch = { ...arg, text: arg.text.slice('--branch='.length) };
    else if (CLONE_OPTIONS_WITH_VALUE.has(arg.text)) {
      if (arg.text === '-b' || arg.text === '--branch') branch = args[i + 1];
      i++;
    } else if (!arg.text.startsWith('-')) positional.push(arg);
  }
  return { url: positional[0], branch };
}

/** The ref `git checkout REF` / `git switch [--detach] REF` moves to (`-b new start`: start). */
export function checkoutRef(values: Value[]): Value | undefined {
  const git = gitCommand(values);
  if (git?.name !== 'checkout' && git?.name !== 'switch') return undefined;
  for (let i = 0; i < git.args.length; i++) {
    const arg = git.args[i]!;
    if (arg.text === '--') return undefined;
    if (['-b', '-B', '-c', '-C', '--orphan'].includes(arg.text)) i++;
    else if (!arg.text.startsWith('-')) return arg;
  }
  return undefined;
}

/** The commit of `test "$(git rev-parse HEAD)" = "<sha>"` (or `[ … ]`). */
export function verifiedCommit(command: Simple, values: Value[]): string | undefined {
  const head = values[0]?.text;
  if (head !== 'test' && head !== '[') return undefined;
  const op = values.findIndex((v) => v.text === '=' || v.text === '==');
  if (op < 2 || op + 1 >= values.length) return undefined;
  const sides = [op - 1, op + 1];
  const headSide = sides.find((i) => /\$\(\s*git rev-parse HEAD\s*\)/.test(command.words[i]!.raw));
  const other = sides.find((i) => i !== headSide);
  const commit = other === undefined || headSide === undefined ? undefined : values[other]!;
  return commit?.resolved && FULL_SHA.test(commit.text) ? commit.text : undefined;
}

export const FULL_SHA = /^[0-9a-f]{40}$/i;
