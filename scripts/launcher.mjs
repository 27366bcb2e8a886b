#!/usr/bin/env node
// The `frontier` command. It runs the CLI bundle (frontier.cjs) through V8's code cache
// (frontier.cjs.cache, written by the build from a training run), so start-up skips parsing
// and compiling: a short command like `matrix full-sweep` is mostly start-up. A cache that
// does not fit this Node/V8 is rejected by V8 and the bundle is compiled as usual.
import { readFileSync, writeFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const bundle = fileURLToPath(new URL('./frontier.cjs', import.meta.url));
const cacheFile = `${bundle}.cache`;
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // No cache (e.g. during the build): compile normally.
}
const script = new Script(Module.wrap(readFileSync(bundle, 'utf8')), { filename: bundle, cachedData });
if (process.env.FRONTIER_CODE_CACHE === 'report') {
  process.stderr.write(
    `code cache: ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted'}\n`,
  );
}
if (process.env.FRONTIER_CODE_CACHE === 'write') {
  // After the run, so the functions it compiled are in the cache too.
  process.once('exit', () => writeFileSync(cacheFile, script.createCachedData()));
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
