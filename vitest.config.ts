import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Three groups, one after the other:
// - 'checks': tests of logic, of the CLI on files and of the API (review rules, catalog, matrix,
//   store, CI machinery), whose verdicts do not depend on timing: two files at a time.
// - 'suite': everything that starts engines, load generators, Slurm jobs or a browser and judges
//   what it measured: one file at a time, so that no other test file competes for the cores (a
//   starved client measures its points invalid, rightly).
// - 'alone': `npm start`, a whole sweep, last.
// Test files share their worker's modules (isolate: false; a fresh process per file costs about a
// second here): a test that changes process.env or another global puts it back when it ends.
const ci = readdirSync(fileURLToPath(new URL('test/ci', import.meta.url)))
  .filter((f) => f.endsWith('.test.ts') && f !== 'workflow-run.test.ts')
  .map((f) => `test/ci/${f}`);
const CHECKS = [
  'test/{catalog,changelog,clusters,contract,engines,lint,matrix,plan,planner,pycompat,recipes,results,review,specdec,store,support,traces,util}/**/*.test.ts',
  'test/cli/{al,argparse,changelog,cli,compare-power,engine-tuning,inputs,options,report,review}.test.ts',
  'test/api/{agentic,api,archive,cli,mcp,power,variation}.test.ts',
  'test/web/{lib,agentic-lib,power-lib,predicted-lib,noise-lib}.test.ts',
  'test/sim/{calibration,factors,run-variation}.test.ts',
  'test/launch/failure.test.ts',
  'test/{docs,fixtures,llama-server}.test.ts',
  ...ci,
];
const ALONE = ['test/cli/start.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    globalSetup: ['test/support/temp-root.ts'],
    projects: [
      { extends: true, test: { name: 'checks', include: CHECKS, maxWorkers: 2, isolate: false, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...CHECKS, ...ALONE],
          maxWorkers: 1,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
