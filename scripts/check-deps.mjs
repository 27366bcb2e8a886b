// The dependency check of `npm run lint`: no import cycles among the modules of src/ and web/src/
// (type-only imports count: a cycle of types is a knot all the same), and every import between
// folders of src/ goes the way LAYERS allows. docs/architecture.md carries LAYERS as a table
// (`npm run docs` rewrites it; a test fails when it is stale).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * What each folder of src/ may import, besides itself. `cli` is the only folder that may import
 * everything; `web` is the dashboard (web/src/), which sees only the API contract.
 */
export const LAYERS = {
  util: { job: 'small helpers that know nothing of benchmarking (dates, atomic writes, tables, seeded random)', imports: [] },
  contract: {
    job: 'what the API promises: row types, the metric catalog, labels, the Pareto frontier (browser-safe)',
    imports: [],
  },
  pycompat: { job: "Python's float repr, json.dumps and statistics, for byte-identical outputs", imports: ['util'] },
  catalog: { job: 'master configs and runners.yaml: YAML loading, schemas, rules, JSON Schema', imports: ['util', 'pycompat'] },
  matrix: { job: 'the sweep matrix: expansion, eval selection, output', imports: ['catalog', 'contract', 'pycompat', 'util'] },
  recipes: {
    job: 'srt-slurm recipes: schema, override variants, topology math, rendering as srtctl does',
    imports: ['catalog', 'pycompat', 'util'],
  },
  changelog: {
    job: 'the perf-changelog gate: file, history, pairing, processing into a sweep',
    imports: ['catalog', 'matrix', 'recipes', 'pycompat', 'util'],
  },
  clusters: {
    job: 'cluster profiles: schema, loading, checks, routing a row to a toolchain; InferenceX launcher import; the fleet health digest',
    imports: ['catalog', 'contract', 'matrix', 'recipes', 'util'],
  },
  plan: {
    job: "a run's plan: the matrix file, rows grouped into launches, and each launch's plan (kind, deployment, placement; pure but for reading an InferenceX checkout)",
    imports: ['catalog', 'changelog', 'clusters', 'contract', 'engines', 'matrix', 'recipes', 'results', 'specdec', 'util'],
  },
  sim: { job: 'the simulated engine: performance model, scheduler, server, router, faults', imports: ['contract', 'util'] },
  engines: { job: 'one adapter per engine: processes, probes, launch scripts', imports: ['sim', 'util'] },
  specdec: {
    job: "speculative decoding by InferenceX's rules: golden AL curves, where synthetic acceptance is set, a row's injection",
    imports: ['catalog', 'engines', 'matrix', 'recipes', 'util'],
  },
  planner: {
    job: 'frontier plan: candidate deployments on the simulator, their predicted Pareto frontier, a master config that sweeps it',
    imports: ['catalog', 'contract', 'sim', 'util'],
  },
  traces: {
    job: 'recorded agent sessions: the Weka and hash_ids trace formats, the synthetic corpus, distributions',
    imports: ['util'],
  },
  telemetry: {
    job: 'GPU telemetry samplers (nvidia-smi, amd-smi, dcgm-exporter, hwmon): the per-node power files a power step integrates',
    imports: ['pycompat', 'util'],
  },
  bench: {
    job: 'the load generator: dataset, tokenizers, HTTP client, SSE, load policies, metrics, agentic trace replay',
    imports: ['pycompat', 'traces', 'util'],
  },
  results: {
    job: "a point's aggregate, as InferenceX's process_result.py writes it",
    imports: ['contract', 'pycompat', 'telemetry', 'util'],
  },
  evals: {
    job: 'accuracy gates: lm-eval task files, local datasets, the eval client, scoring, thresholds, collection',
    imports: ['bench', 'catalog', 'matrix', 'results', 'pycompat', 'util'],
  },
  review: {
    job: "the reviewer's catches as rules over two trees, and the review and lint runners",
    imports: ['catalog', 'changelog', 'clusters', 'contract', 'engines', 'matrix', 'plan', 'recipes', 'specdec', 'util'],
  },
  launch: {
    job: 'running a plan: the local and Slurm executors, InferenceX scripts and recipes, the run directory',
    imports: [
      'bench',
      'catalog',
      'clusters',
      'contract',
      'engines',
      'evals',
      'matrix',
      'plan',
      'pycompat',
      'recipes',
      'results',
      'sim',
      'specdec',
      'telemetry',
      'traces',
      'util',
    ],
  },
  store: {
    job: 'the database: schema, migrations, ingest, latest points, queries, compare, tokens',
    imports: ['contract', 'pycompat', 'results', 'util'],
  },
  api: {
    job: "the HTTP server, its OpenAPI document, upload unpacking, the planner's predicted frontier",
    imports: ['contract', 'planner', 'results', 'store', 'util'],
  },
  ci: {
    job: 'the pull-request machinery: event gating, canary, priority, reuse, sign-off, the PR comment, workflows (pure decisions)',
    imports: ['catalog', 'changelog', 'contract', 'matrix', 'pycompat', 'store', 'util'],
  },
  cli: { job: 'the command layer: options, output, exit codes', imports: '*' },
  web: { job: 'the dashboard (web/src/)', imports: ['contract'] },
};

const SOURCE = /\.(ts|tsx|mts)$/;

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The folder a file belongs to in LAYERS terms: `catalog` for src/catalog/…, `web` for web/src/…; undefined outside. */
function folderOf(root, file) {
  const parts = relative(root, file).split(sep);
  if (parts[0] === 'src' && parts.length > 2) return parts[1];
  if (parts[0] === 'web' && parts[1] === 'src') return 'web';
  return undefined;
}

/** Every relative import of every source file under `dirs`, with its line. */
export function importGraph(root, dirs = ['src', 'web/src']) {
  const graph = new Map();
  for (const dir of dirs) {
    let files;
    try {
      files = sourceFiles(join(root, dir));
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const { importedFiles } = ts.preProcessFile(text, true, true);
      const lineStarts = ts.computeLineStarts(text);
      const edges = [];
      for (const imported of importedFiles) {
        const target = resolveImport(file, imported.fileName);
        if (target) edges.push({ target, line: ts.computeLineAndCharacterOfPosition(lineStarts, imported.pos).line + 1 });
      }
      graph.set(file, edges);
    }
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself): the cycles. */
function cycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const { target: w } of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).some((e) => e.target === v)) found.push(component);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** One ring through a component, in import order, for the message: a → b → c → a. */
function ring(graph, component) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const path = [start];
  const seen = new Set([start]);
  for (let at = start; ;) {
    const next = (graph.get(at) ?? []).map((e) => e.target).find((t) => members.has(t) && (t === start || !seen.has(t)));
    if (next === undefined || next === start) break;
    path.push(next);
    seen.add(next);
    at = next;
  }
  return [...path, start];
}

/**
 * Every problem of the tree at `root`: each as one line naming the file:line, what it imports and
 * the rule it breaks.
 */
export function checkDependencies(root, layers = LAYERS) {
  const graph = importGraph(root);
  const rel = (f) => relative(root, f).split(sep).join('/');
  const problems = [];
  for (const component of cycles(graph)) {
    problems.push(
      `import cycle: ${ring(graph, component).map(rel).join(' → ')} (move what they share into a module that imports none of them)`,
    );
  }
  const files = [...graph.keys()].sort();
  const unknown = new Set(files.map((f) => folderOf(root, f)).filter((f) => f !== undefined && !(f in layers)));
  for (const folder of [...unknown].sort()) {
    problems.push(`src/${folder}/: a folder the layering does not know: add it to LAYERS in scripts/check-deps.mjs`);
  }
  for (const file of files) {
    const from = folderOf(root, file);
    const layer = layers[from];
    if (layer === undefined) continue;
    for (const { target, line } of graph.get(file)) {
      const to = folderOf(root, target);
      if (to === from || to === undefined || layer.imports === '*' || layer.imports.includes(to)) continue;
      const allowed = layer.imports.length ? layer.imports.join(', ') : 'no other folder';
      problems.push(
        `${rel(file)}:${line}: imports ${rel(target)}, but ${from} may import only ${allowed} (the layering in docs/architecture.md)`,
      );
    }
  }
  return problems;
}

/** LAYERS as the markdown table docs/architecture.md carries. */
export function layersTable(layers = LAYERS) {
  const rows = Object.entries(layers).map(
    ([name, { job, imports }]) =>
      `| \`${name === 'web' ? 'web/src' : `src/${name}`}/\` | ${job} | ${imports === '*' ? 'everything' : imports.length ? imports.join(', ') : '—'} |`,
  );
  return ['| folder | job | may import |', '| --- | --- | --- |', ...rows].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const problems = checkDependencies(root);
  for (const problem of problems) console.error(problem);
  if (problems.length) {
    console.error(`\n${problems.length} dependency problem${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
}
