// Build the `frontier` command into dist/:
//   lib/                the CLI and its dependencies (loading a few files is several times faster
//                       than loading the hundreds of its dependencies), split so that a command loads
//                       only its own code and what it shares: main.cjs (the command tree's root,
//                       each top-level command imported when it runs), a file per command and per
//                       piece of shared code; CommonJS, so that each can run through V8's code cache;
//   lib/*.cjs.cache     their caches, trained here on the example catalog's sweep;
//   frontier.cjs        the bin: runs lib/main.cjs through the caches (scripts/launcher.cjs);
//   tasks/              the built-in eval task files (lm-eval YAML);
//   golden-al/          InferenceX's golden acceptance-length curves;
//   web/                the dashboard, built by Vite.
// Start-up is most of a short command's run time: `frontier --version` loads ~140 KB of the ~4 MB
// and takes ~55 ms (Node's own start: ~45 ms; ~100 ms as one file), `matrix full-sweep` ~390 KB.
import { build } from 'esbuild';
import { build as buildDashboard } from 'vite';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Module } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Script } from 'node:vm';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync('dist', { recursive: true, force: true });
const schemaShapes = await catalogSchemaShapes();
// esbuild splits code only into ES modules; a second pass turns each into CommonJS (import() into
// require()), which V8 can compile from a cache in a vm.Script, as ES modules cannot in Node 20.
const esm = mkdtempSync(join(tmpdir(), 'frontier-build-'));
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: esm,
  outExtension: { '.js': '.cjs' },
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // Large data that only some commands load, from node_modules at run time (createRequire), and the
  // store's drivers (native or optional parts) and HTTP server, loaded when a store command runs.
  external: ['gpt-tokenizer', 'better-sqlite3', 'pg', 'pg-native', 'fastify'],
  // Files beside the bundle (tasks/, golden-al/, web/) are found from import.meta.url: dist/frontier.cjs's.
  define: {
    FRONTIER_VERSION: JSON.stringify(version),
    FRONTIER_SCHEMA_SHAPES: JSON.stringify(schemaShapes),
    'import.meta.url': '__frontierModuleUrl',
  },
  banner: {
    js: "const __frontierModuleUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, '../frontier.cjs')).href;",
  },
});
await build({
  entryPoints: readdirSync(esm)
    .filter((f) => f.endsWith('.cjs'))
    .map((f) => join(esm, f)),
  outdir: 'dist/lib',
  outExtension: { '.js': '.cjs' },
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  supported: { 'dynamic-import': false },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
rmSync(esm, { recursive: true });
copyFileSync('scripts/launcher.cjs', 'dist/frontier.cjs');
// The built-in eval task files, which src/evals/task-file.ts finds beside the bundle.
cpSync('src/evals/tasks', 'dist/tasks', { recursive: true });
// InferenceX's golden AL curves, which src/specdec/golden.ts finds beside the bundle.
cpSync('src/specdec/golden-al', 'dist/golden-al', { recursive: true });

// The dashboard (web/, React + ECharts) into dist/web, which `frontier serve` serves.
await buildDashboard({ configFile: 'web/vite.config.ts' });
chmodSync('dist/frontier.cjs', 0o755);

// Train the code cache on what a typical run executes: load, validate, expand, evals, output.
const training = spawnSync(
  process.execPath,
  ['dist/frontier.cjs', '-C', 'examples', 'matrix', 'full-sweep', '--config-files', 'examples/configs/example-master.yaml'],
  { env: { ...process.env, FRONTIER_CODE_CACHE: 'write' }, stdio: ['ignore', 'ignore', 'inherit'] },
);
if (training.status !== 0) throw new Error('code cache training run failed');
// The files that run did not load (other commands' code) get a cache of their compiled top level.
for (const name of readdirSync('dist/lib').filter((f) => f.endsWith('.cjs'))) {
  const file = resolve('dist/lib', name);
  if (existsSync(`${file}.cache`)) continue;
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file });
  writeFileSync(`${file}.cache`, script.createCachedData());
}

/**
 * The catalog schemas' shapes (src/catalog/shape.ts), computed here once from the zod schemas, so
 * that checking a valid file needs neither zod nor the schemas at run time.
 */
async function catalogSchemaShapes() {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-shapes-'));
  try {
    const outfile = join(dir, 'schema-shapes.mjs');
    await build({
      entryPoints: ['src/catalog/schema-shapes.ts'],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'warning',
    });
    return (await import(outfile)).schemaShapes();
  } finally {
    rmSync(dir, { recursive: true });
  }
}
