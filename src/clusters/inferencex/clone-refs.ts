import { TRUE, and, isFalse, not } from '../bash/conditions.js';
import type { Cond } from '../bash/conditions.js';
import type { Lines } from '../bash/lines.js';
import type { IfCommand, Stmt } from '../bash/syntax.js';
import type { Value } from '../bash/variables.js';
import { FULL_SHA, checkoutRef, gitCommand, verifiedCommit } from './git-commands.js';
import type { Walker } from './walk.js';

// The ref each clone ends on: its --branch, then the checkouts and verifications after it (an
// `if` that checks out forks it, one ref per arm).

export interface ToolchainRef {
  /**
   * commit: checked out at a full 40-hex sha; verified: a branch/tag whose HEAD is then checked
   * against a full sha (`test "$(git rev-parse HEAD)" = "<sha>"`); tag / branch / short-sha: what
   * it ends on; default: no --branch and no checkout (the default branch's head); unknown: a ref
   * the file does not define.
   */
  kind: 'commit' | 'verified' | 'tag' | 'branch' | 'short-sha' | 'default' | 'unknown';
  /** The ref as written after variable substitution (branch or tag name, sha); absent for default. */
  value?: string;
  /** The full commit, for commit and verified. */
  commit?: string;
  /** Line of the checkout, --branch or verification that decides it (the clone's line for default). */
  line: number;
}

export interface RefFacts {
  /** The --branch of the clone, or the last checkout after it. */
  ref?: { value: Value; line: number };
  verified?: { commit: string; line: number };
}

/** One way the checkout goes: its facts, under the conditions of the nested arms that chose it. */
export interface Fork {
  facts: RefFacts;
  conds: Cond[];
}

export class RefReader {
  constructor(
    private readonly walker: Walker,
    private readonly lines: Lines,
  ) {}

  /** Follows checkouts and verifications through the statements after a clone, forking over an `if` that checks out. */
  read(stmts: Stmt[], forks: Fork[]): Fork[] {
    for (const stmt of stmts) {
      const command = stmt.pipelines[0]!.commands[0]!;
      if (command.kind === 'simple') {
        const values = this.walker.values.get(command) ?? [];
        if (gitCommand(values)?.name === 'clone') break;
        const line = this.lines.of(command.start);
        const ref = checkoutRef(values);
        const commit = verifiedCommit(command, values);
        if (ref) forks = forks.map((f) => ({ ...f, facts: { ref: { value: ref, line } } }));
        if (commit) forks = forks.map((f) => ({ ...f, facts: { ...f.facts, verified: { commit, line } } }));
      } else if (command.kind === 'if' && this.movesRef(command.arms.flatMap((a) => a.body))) {
        forks = forks.flatMap((fork) => this.branch(command, fork));
      }
    }
    return forks;
  }

  private branch(command: IfCommand, fork: Fork): Fork[] {
    const out: Fork[] = [];
    const earlier: Cond[] = [];
    for (const arm of command.arms) {
      const own = this.walker.armConds.get(arm);
      const path = and(...earlier.map(not), own ?? TRUE);
      if (!isFalse(path)) out.push(...this.read(arm.body, [{ facts: fork.facts, conds: [...fork.conds, path] }]));
      if (own) earlier.push(own);
    }
    const none = and(...earlier.map(not));
    if (command.arms.every((a) => a.cond) && !isFalse(none)) out.push({ facts: fork.facts, conds: [...fork.conds, none] });
    return out;
  }

  private movesRef(stmts: Stmt[]): boolean {
    return stmts.some((stmt) =>
      stmt.pipelines.some((p) =>
        p.commands.some((c) => {
          if (c.kind === 'if') return this.movesRef(c.arms.flatMap((a) => a.body));
          if (c.kind === 'group') return this.movesRef(c.body);
          if (c.kind !== 'simple') return false;
          const values = this.walker.values.get(c) ?? [];
          return checkoutRef(values) !== undefined || verifiedCommit(c, values) !== undefined;
        }),
      ),
    );
  }
}

export function toolchainRef(facts: RefFacts, cloneLine: number): ToolchainRef {
  const { ref, verified } = facts;
  if (!ref)
    return verified ? { kind: 'verified', commit: verified.commit, line: verified.line } : { kind: 'default', line: cloneLine };
  const value = ref.value.text;
  if (!ref.value.resolved) return { kind: 'unknown', value, line: ref.line };
  if (FULL_SHA.test(value)) return { kind: 'commit', value, commit: value, line: ref.line };
  if (verified) return { kind: 'verified', value, commit: verified.commit, line: verified.line };
  const kind = /^[0-9a-f]{7,39}$/i.test(value) ? 'short-sha' : /^v?\d+(\.\d+)+/.test(value) ? 'tag' : 'branch';
  return { kind, value, line: ref.line };
}
