// Build the `frontier` command into dist/:
//   frontier.cjs        the CLI and its dependencies in one file (one file loads several times
//                       faster than the hundreds of its dependencies);
//   frontier.mjs        the bin: runs frontier.cjs through V8's code cache (scripts/launcher.mjs);
//   frontier.cjs.cache  that cache, trained here on the example catalog;
//   tasks/              the built-in eval task files (lm-eval YAML);
//   golden-al/          InferenceX's golden acceptance-length curves;
//   web/                the dashboard, built by Vite.
// Start-up is most of a short command's run time; together these halve it.
import { build } from 'esbuild';
import { build as buildDashboard } from 'vite';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, readFileSync, rmSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/frontier.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // Large data that only some commands load, from node_modules at run time (createRequire), and the
  // store's drivers (native or optional parts) and HTTP server, loaded when a store command runs.
  external: ['gpt-tokenizer', 'better-sqlite3', 'pg', 'pg-native', 'fastify'],
  define: { FRONTIER_VERSION: JSON.stringify(version), 'import.meta.url': '__frontierModuleUrl' },
  banner: { js: "const __frontierModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
copyFileSync('scripts/launcher.mjs', 'dist/frontier.mjs');
// The built-in eval task files, which src/evals/task-file.ts finds beside the bundle.
cpSync('src/evals/tasks', 'dist/tasks', { recursive: true });
// InferenceX's golden AL curves, which src/specdec/golden.ts finds beside the bundle.
cpSync('src/specdec/golden-al', 'dist/golden-al', { recursive: true });

// The dashboard (web/, React + ECharts) into dist/web, which `frontier serve` serves.
await buildDashboard({ configFile: 'web/vite.config.ts' });
chmodSync('dist/frontier.mjs', 0o755);

// Train the code cache on what a typical run executes: load, validate, expand, evals, output.
const training = spawnSync(
  process.execPath,
  ['dist/frontier.mjs', '-C', 'examples', 'matrix', 'full-sweep', '--config-files', 'examples/configs/example-master.yaml'],
  { env: { ...process.env, FRONTIER_CODE_CACHE: 'write' }, stdio: ['ignore', 'ignore', 'inherit'] },
);
if (training.status !== 0) throw new Error('code cache training run failed');
