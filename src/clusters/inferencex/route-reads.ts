import { isAgenticRow, isMultiNodeRow } from '../../matrix/index.js';
import type { DescriptiveFields, MatrixRow, MultiNodeRow } from '../../matrix/index.js';
import { recipeInTree } from '../../recipes/index.js';
import { once } from '../../util/once.js';
import type { Checkout } from './checkout.js';

/** What reading routes needs of a checkout: its files, runners, and the bytes of its recipes (recipe path → bytes). */
export type RouteTree = Pick<Checkout, 'snapshot' | 'runners' | 'recipesDir'> & { recipeBytes: ReadonlyMap<string, Buffer> };
import { launcherForLabel, treeLaunchers } from './read-launchers.js';
import { DESCRIPTIVE_FIELDS, DESCRIPTIVE_VARIABLES, multiNodeWorkflowEnv } from './workflow-env.js';
import { Lexer } from '../bash/lexer.js';
import { Lines } from '../bash/lines.js';
import { Parser } from '../bash/parser.js';
import type { Command, FunctionDef, Stmt } from '../bash/syntax.js';

/*
 * Which of a row's fields only describe it, read with the engine's eyes: a field of
 * DESCRIPTIVE_VARIABLES whose variable nothing on the row's route reads reaches the job's name
 * and the result's metadata, never the engine, its recipe or the client. The route is the
 * launcher of the row's runner, the benchmark scripts it can pick for the row, the recipes the row
 * runs, and every shell file these name; a sourced library counts with its top-level code and the
 * functions called on the route. Reading is by name (`KV_OFFLOADING` anywhere in a shell file's
 * code; `$KV_OFFLOADING` in a recipe, whose keys set variables rather than read them), so a
 * variable that is only mentioned still counts as read: a doubt keeps the field measured.
 */
const NONE: ReadonlySet<string> = new Set();
const SHELL_DIRS = ['benchmarks', 'runners'];
const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;
const SHELL_NAME = /[\w.-]+\.sh\b/g;
const RECIPE_READ = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;
/** Commands that only test, report or stop the run (`return` is not one: its status is the function's answer). */
const QUIET = new Set(['echo', 'printf', 'exit', 'true', 'false', ':', '[', 'test']);
/** Redirections that write no file. */
const NO_FILE = /\d*>>?\s*(?:&\d|\/dev\/(?:null|stderr|stdout)\b)/g;

/** Code of a shell file: the words it uses and the shell files it names (`benchmark_lib.sh`). */
interface Code {
  words: Set<string>;
  names: Set<string>;
}

/** A shell file as the route reader sees it: its top-level code, and each function's. */
interface ShellFile {
  top: Code;
  functions: Map<string, Code>;
}

interface Span {
  start: number;
  end: number;
}

/** A line without its comment (`#` at its start or after a blank, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** The code of `span` of a text, leaving out the spans `skip` (sorted) and comments. */
function codeOf(text: string, span: Span, skip: readonly Span[]): Code {
  let kept = '';
  let at = span.start;
  for (const s of skip) {
    if (s.end <= at || s.start >= span.end) continue;
    kept += `${text.slice(at, s.start)}\n`;
    at = s.end;
  }
  kept += text.slice(at, span.end);
  const lines = kept.split('\n').map(withoutComment);
  return {
    words: new Set(lines.flatMap((l) => l.match(WORD) ?? [])),
    names: new Set(lines.flatMap((l) => l.match(SHELL_NAME) ?? [])),
  };
}

/**
 * Whether a statement only tests, reports and stops (`[[ -z $X ]] && { echo "…" >&2; exit 1; }`, an
 * if whose conditions and branches do only that): a variable read there is validated, and
 * changes nothing that runs. A message that writes a file, or runs a command substitution, is not quiet.
 */
function quiet(stmt: Stmt, text: string): boolean {
  return stmt.pipelines.every((p) => p.commands.every((c) => quietCommand(c, text)));
}

function quietCommand(c: Command, text: string): boolean {
  switch (c.kind) {
    case 'simple': {
      const raw = text.slice(c.start, c.end).replace(NO_FILE, '');
      const substitutes = c.words.some((w) => w.parts.some((p) => p.kind === 'expr' && /^(?:\$\(|`)/.test(p.raw)));
      return QUIET.has(c.words[0]?.raw ?? '') && !raw.includes('>') && !substitutes;
    }
    case 'test':
      return text.startsWith('[[', c.start);
    case 'if':
      return c.arms.every((arm) => [...arm.head, ...arm.body].every((s) => quiet(s, text)));
    case 'group':
      return c.cond.kind === 'true' && c.body.every((s) => quiet(s, text));
    default:
      return false;
  }
}

/**
 * The quiet statements and the function definitions among `stmts` and the commands they hold.
 * The last statement of a function's body is its answer to the caller (`[[ $X != none ]]`), never quiet.
 */
function walk(stmts: readonly Stmt[], text: string, out: { quiet: Span[]; functions: FunctionDef[] }, answers = false): void {
  stmts.forEach((stmt, i) => {
    if (quiet(stmt, text) && !(answers && i === stmts.length - 1)) {
      out.quiet.push(stmt);
      return;
    }
    for (const c of stmt.pipelines.flatMap((p) => p.commands)) {
      if (c.kind === 'function') out.functions.push(c);
      else if (c.kind === 'if') for (const arm of c.arms) walk([...arm.head, ...arm.body], text, out);
      else if (c.kind === 'group') walk(c.body, text, out);
    }
  });
}

/** A shell file read with bash's grammar; one the reader cannot follow counts whole, as top-level code. */
function readShell(text: string): ShellFile {
  const lines = new Lines(text);
  let followed = true;
  const problem = (): void => void (followed = false);
  const script = new Parser(new Lexer(text, problem), lines, problem).script();
  const whole = { start: 0, end: text.length };
  if (!followed) return { top: codeOf(text, whole, []), functions: new Map() };
  const top = { quiet: [] as Span[], functions: [] as FunctionDef[] };
  walk(script, text, top);
  const bySpan = (a: Span, b: Span): number => a.start - b.start;
  const functions = new Map<string, Code>();
  // Functions defined inside functions are read as functions of their own.
  for (let i = 0; i < top.functions.length; i++) {
    const fn = top.functions[i]!;
    const inner = { quiet: [] as Span[], functions: [] as FunctionDef[] };
    if (fn.body.kind === 'group') walk(fn.body.body, text, inner, true);
    top.functions.push(...inner.functions);
    const code = codeOf(text, fn, [...inner.quiet, ...inner.functions].sort(bySpan));
    const known = functions.get(fn.name);
    // Defined twice (on two branches): either body may run.
    functions.set(
      fn.name,
      known ? { words: new Set([...known.words, ...code.words]), names: new Set([...known.names, ...code.names]) } : code,
    );
  }
  return { top: codeOf(text, whole, [...top.quiet, ...top.functions].sort(bySpan)), functions };
}

interface ShellIndex {
  /** Path → text of every shell file under benchmarks/ and runners/. */
  texts: Map<string, string>;
  /** A file name (`benchmark_lib.sh`) → the paths of the files so named. */
  byName: Map<string, string[]>;
  /** A file as read (once, when a route first reaches it). */
  read(path: string): ShellFile;
}

/** Files read, by text: a history's trees share most of their files (`review --each`). */
const readTexts = new Map<string, ShellFile>();

function readShellOnce(text: string): ShellFile {
  if (!readTexts.has(text)) readTexts.set(text, readShell(text));
  return readTexts.get(text)!;
}

function shellIndex(tree: RouteTree): Promise<ShellIndex> {
  return once(tree, 'route-shell-files', async () => {
    const paths = (await Promise.all(SHELL_DIRS.map((d) => tree.snapshot.list(d)))).flat().filter((p) => p.endsWith('.sh'));
    const texts = new Map([...(await tree.snapshot.readMany(paths))].map(([path, bytes]) => [path, bytes.toString('utf8')]));
    const byName = new Map<string, string[]>();
    for (const path of texts.keys()) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      byName.set(name, [...(byName.get(name) ?? []), path]);
    }
    return { texts, byName, read: (path: string) => readShellOnce(texts.get(path)!) };
  });
}

/** The files a row's run goes through, before the shell files they name. */
interface Route {
  shell: string[];
  /** Recipe paths in the tree. */
  recipes: string[];
}

/** A row's route, or undefined where it is not known here (no benchmark script, a recipe not in the tree). */
function routeOf(tree: RouteTree, launcher: string, shell: ShellIndex, row: MatrixRow): Route | undefined {
  const paths = [...shell.texts.keys()];
  if (isMultiNodeRow(row)) {
    const env = multiNodeWorkflowEnv(row as MultiNodeRow, { resultFilename: '', runnerName: '' });
    const values = [env.CONFIG_FILE, env.EVAL_CONFIG_FILE].filter((v): v is string => !!v);
    // A job script's route: any script of benchmarks/multi_node.
    if (values.length === 0)
      return { shell: [launcher, ...paths.filter((p) => p.startsWith('benchmarks/multi_node/'))], recipes: [] };
    const recipes = values.map((v) => recipeInTree(v, tree.recipesDir).inTree);
    return recipes.every((r) => tree.recipeBytes.has(r)) ? { shell: [launcher], recipes } : undefined;
  }
  const prefix = `benchmarks/single_node/${isAgenticRow(row) ? 'agentic' : 'fixed_seq_len'}/${row['exp-name'].split('_')[0]}_${row.precision}_`;
  const scripts = paths.filter((p) => p.startsWith(prefix));
  return scripts.length > 0 ? { shell: [launcher, ...scripts], recipes: [] } : undefined;
}

/**
 * The words a route's code uses: its recipes' variable references, and the code of its shell files
 * and of those they name (a name resolves to the file beside the one naming it, else to every file
 * so named), top-level code always and a function's body once something reached calls it.
 */
function routeReads(tree: RouteTree, route: Route, shell: ShellIndex): Set<string> {
  const reads = new Set<string>();
  const files = new Set(route.shell);
  const resolve = (name: string, from: string): string[] => {
    const all = shell.byName.get(name) ?? [];
    const beside = all.filter((p) => p.slice(0, p.lastIndexOf('/')) === from.slice(0, from.lastIndexOf('/')));
    return beside.length > 0 ? beside : all;
  };
  for (const path of route.recipes) {
    const text = tree.recipeBytes.get(path)!.toString('utf8');
    for (const m of text.matchAll(RECIPE_READ)) reads.add(m[1]!);
    for (const name of text.match(SHELL_NAME) ?? []) for (const p of resolve(name, path)) files.add(p);
  }
  const visited = new Set<string>();
  const called = new Set<Code>();
  const reach = (path: string, c: Code): void => {
    for (const w of c.words) reads.add(w);
    for (const name of c.names) for (const p of resolve(name, path)) files.add(p);
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const path of files) {
      if (visited.has(path)) continue;
      visited.add(path);
      reach(path, shell.read(path).top);
      grew = true;
    }
    for (const path of visited)
      for (const [name, body] of shell.read(path).functions) {
        if (!reads.has(name) || called.has(body)) continue;
        called.add(body);
        reach(path, body);
        grew = true;
      }
  }
  return reads;
}

/** The descriptive fields of each row of the tree (none where its route is not known). */
export async function descriptiveFields(tree: RouteTree): Promise<DescriptiveFields> {
  const [launchers, shell] = await Promise.all([treeLaunchers(tree), shellIndex(tree)]);
  const known = new Map<string, ReadonlySet<string>>();
  return (row) => {
    const launcher = launcherForLabel(tree, launchers, row.runner);
    const route = launcher && shell.texts.has(launcher.path) ? routeOf(tree, launcher.path, shell, row) : undefined;
    if (!route) return NONE;
    const key = JSON.stringify(route);
    if (!known.has(key)) {
      const reads = routeReads(tree, route, shell);
      known.set(key, new Set(DESCRIPTIVE_FIELDS.filter((field) => !reads.has(DESCRIPTIVE_VARIABLES[field]!))));
    }
    return known.get(key)!;
  };
}
