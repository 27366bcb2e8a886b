#!/usr/bin/env node
// The `frontier` command. The CLI is split into files (lib/: main.cjs, each command's code and
// the code they share, each a CommonJS file), and a command loads only the files it needs. Each
// runs through V8's code cache (<file>.cache, written by the build), so start-up skips parsing and
// compiling. A cache that does not fit this Node/V8 is rejected by V8 and the file compiled as
// usual; FRONTIER_CODE_CACHE=report says, for each file, whether its cache was used.
// CommonJS, not an ES module: Node reads an ES module's file through its thread pool, whose start
// and the close it leaves pending cost a short command ~5 ms.
const { readFileSync, writeFileSync } = require('node:fs');
const { Module, createRequire } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const mode = process.env.FRONTIER_CODE_CACHE;
const loaded = new Map();

/** `require` for the files of lib/: each file runs once, as Node runs a CommonJS module. */
function load(file) {
  const known = loaded.get(file);
  if (known) return known.module.exports;
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // No cache (e.g. during the build): compile normally.
  }
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  if (mode === 'report') {
    const verdict = cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted';
    process.stderr.write(`code cache: ${verdict} (${file.slice(lib.length + 1)})\n`);
  }
  const module = { exports: {} };
  loaded.set(file, { module, script });
  const nodeRequire = createRequire(file);
  const require = Object.assign((id) => (id.startsWith('./') ? load(join(lib, id)) : nodeRequire(id)), nodeRequire);
  script.runInThisContext()(module.exports, require, module, file, lib);
  return module.exports;
}

const lib = join(__dirname, 'lib');
if (mode === 'write') {
  // After the run, so the functions it compiled are in the caches too.
  process.once('exit', () => {
    for (const [file, { script }] of loaded) writeFileSync(`${file}.cache`, script.createCachedData());
  });
}
load(join(lib, 'main.cjs'));
