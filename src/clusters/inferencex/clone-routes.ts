import { createHash } from 'node:crypto';
import { and, formatCond } from '../bash/conditions.js';
import type { Cond } from '../bash/conditions.js';
import { Lexer } from '../bash/lexer.js';
import { Lines } from '../bash/lines.js';
import { Parser } from '../bash/parser.js';
import type { Stmt } from '../bash/syntax.js';
import type { Value } from '../bash/variables.js';
import { RefReader, toolchainRef } from './clone-refs.js';
import type { RefFacts, ToolchainRef } from './clone-refs.js';
import { cloneArgs, gitCommand } from './git-commands.js';
import { Walker } from './walk.js';
import type { CloneSite } from './walk.js';

/**
 * The srt-slurm routing of an InferenceX launcher (`runners/launch_<cluster>.sh`), read statically:
 * each `git clone` of srt-slurm (or a fork), what must hold for execution to reach it, the ref it
 * ends on and the recipe overlays copied onto it. Launchers route with bash `if/elif/else` chains,
 * so they are read with a small bash reader (../bash/): enough of the grammar for launchers
 * (quoting, heredocs, if/case/loops/functions, `[[ ]]`, `[ ]`), pure, no I/O.
 */

export interface CloneRoute {
  /** 1-based line of the `git clone`. */
  line: number;
  /** The if/elif/else arm holding the clone: its first and last line (the clone's line twice for an unconditional clone). */
  arm: { line: number; endLine: number };
  /** The arm's own condition as written (`[[ $FRAMEWORK == "dynamo-vllm" ]]`), `else`, or '' outside any arm. */
  armText: string;
  /**
   * Everything that must hold for execution to reach the clone (and, where a nested `if` after
   * the clone picks the checkout, that checkout): enclosing arms, the negations of earlier arms of
   * each chain, and guards (an earlier `if` whose arm always ends in `exit`/`exec`).
   */
  condition: Cond;
  /**
   * What this arm and the arms around it test, without the negations of earlier arms and without
   * guards: what a first-match routing rule placed where the arm is must match.
   */
  match: Cond;
  /** Clone URL after substituting variables the file assigns literally; unresolved stays as written. */
  repo: string;
  ref: ToolchainRef;
  /**
   * `cp [-rT] "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/<from>" <to>` run after
   * the clone on its way (nested arms included), before any other clone.
   */
  overlays: { from: string; to: string; line: number }[];
  /** A stable identity of the route's own text (its arms' tests, repo and ref), to tell which routes a change touched. */
  signature: string;
}

export interface CloneRoutes {
  /** In the file's order; a clone followed by an `if` that picks the checkout gives one route per arm. */
  routes: CloneRoute[];
  /** Variables that hold a literal value at the end of the script on every path (name → value). */
  assignments: Record<string, string>;
  /** Constructs the reader could not follow (unbalanced if/fi, unterminated quotes…); never thrown. */
  problems: { line: number; message: string }[];
}

export function readCloneRoutes(text: string): CloneRoutes {
  const lines = new Lines(text);
  const problems: CloneRoutes['problems'] = [];
  const problem = (at: number, message: string): void => void problems.push({ line: lines.of(at), message });
  const script = new Parser(new Lexer(text, problem), lines, problem).script();
  const walker = new Walker(lines);
  walker.block(script, [], undefined, []);
  const routes = walker.clones.flatMap((site) => routesOf(site, walker, lines, problem));
  const assignments = Object.fromEntries([...walker.env].filter((e): e is [string, string] => typeof e[1] === 'string'));
  return { routes, assignments, problems: problems.sort((a, b) => a.line - b.line) };
}

const RECIPES_DIR = /(?:^|\/)benchmarks\/multi_node\/srt-slurm-recipes\/(.+)$/;

/** `cp [options] …/srt-slurm-recipes/<from>… <to>`. */
function overlaysOf(values: Value[], line: number): CloneRoute['overlays'] {
  if (values[0]?.text !== 'cp') return [];
  const paths = values.slice(1).filter((v) => !v.text.startsWith('-'));
  const to = paths.pop();
  return paths.flatMap((source) => {
    const from = RECIPES_DIR.exec(source.text)?.[1];
    return from && to ? [{ from, to: to.text, line }] : [];
  });
}

/** The overlays run after a clone: the rest of its block, then after each enclosing command, up to another clone. */
function overlaysAfter(rest: Stmt[][], walker: Walker, lines: Lines): CloneRoute['overlays'] {
  const found: CloneRoute['overlays'] = [];
  // True when it reaches another clone.
  const visit = (stmts: Stmt[]): boolean =>
    stmts.some((stmt) =>
      stmt.pipelines.some((p) =>
        p.commands.some((c) => {
          if (c.kind === 'if') return c.arms.some((a) => !walker.deadArms.has(a) && visit(a.body));
          if (c.kind === 'group') return visit(c.body);
          if (c.kind !== 'simple') return false;
          const values = walker.values.get(c) ?? [];
          if (gitCommand(values)?.name === 'clone') return true;
          found.push(...overlaysOf(values, lines.of(c.start)));
          return false;
        }),
      ),
    );
  rest.some(visit);
  return found;
}

function routesOf(site: CloneSite, walker: Walker, lines: Lines, problem: (at: number, message: string) => void): CloneRoute[] {
  const values = walker.values.get(site.command)!;
  const { url, branch } = cloneArgs(gitCommand(values)!.args);
  if (!url) {
    problem(site.command.start, 'git clone without a repository');
    return [];
  }
  const line = lines.of(site.command.start);
  const arm = site.arm ?? { line, endLine: line, text: '' };
  const facts: RefFacts = branch ? { ref: { value: branch, line } } : {};
  const forks = new RefReader(walker, lines).read(site.rest[0] ?? [], [{ facts, conds: [] }]);
  const overlays = overlaysAfter(site.rest, walker, lines);
  return forks.map((fork) => {
    const condition = and(site.condition, ...fork.conds);
    const match = and(site.match, ...fork.conds);
    const ref = toolchainRef(fork.facts, line);
    // The route's own text: what its arms test, not the earlier arms it follows (adding a branch
    // before an else leaves the else as it was).
    const identity = JSON.stringify([formatCond(match), url.text, ref.kind, ref.value ?? '', ref.commit ?? '']);
    const signature = createHash('sha256').update(identity).digest('hex').slice(0, 16);
    return {
      line,
      arm: { line: arm.line, endLine: arm.endLine },
      armText: arm.text,
      condition,
      match,
      repo: url.text,
      ref,
      overlays,
      signature,
    };
  });
}
