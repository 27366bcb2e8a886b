import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/catalog/index.js';
import { jsonSchema } from '../../src/catalog/json-schema.js';
import { BUNDLED_INFERENCEX, REPO } from '../helpers.js';

const fixture = async (name: string): Promise<unknown> =>
  (await parseYaml(readFileSync(join(BUNDLED_INFERENCEX, 'configs', name), 'utf8'), name)).value;

describe('JSON Schema export (for editors)', () => {
  it('the committed schemas/ files are current (regenerate with npm run schemas)', () => {
    for (const kind of ['master-config', 'runners'] as const) {
      const committed = JSON.parse(readFileSync(join(REPO, 'schemas', `${kind}.schema.json`), 'utf8')) as unknown;
      expect(committed).toEqual(jsonSchema(kind));
    }
  });

  it('is a valid draft-07 schema that accepts every fixture file', async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const master = ajv.compile(jsonSchema('master-config'));
    for (const name of ['nvidia-master.yaml', 'amd-master.yaml']) {
      expect(master(await fixture(name)), JSON.stringify(master.errors?.slice(0, 3))).toBe(true);
    }
    const runners = ajv.compile(jsonSchema('runners'));
    expect(runners(await fixture('runners.yaml')), JSON.stringify(runners.errors?.slice(0, 3))).toBe(true);
  });

  it('rejects what an editor should flag: unknown fields, wrong types, a bad spec-decoding', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const master = ajv.compile(jsonSchema('master-config'));
    const entry = {
      image: 'i',
      model: 'm',
      'model-prefix': 'p',
      precision: 'fp8',
      framework: 'vllm',
      runner: 'h100',
      multinode: false,
      scenarios: { 'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp: 8, 'conc-list': [1] }] }] },
    };
    expect(master({ k: entry })).toBe(true);
    expect(master({ k: { ...entry, typo: 1 } })).toBe(false);
    expect(master({ k: { ...entry, multinode: 'no' } })).toBe(false);
    const badSpace = { 'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp: '8', 'spec-decoding': 'eagle' }] }] };
    expect(master({ k: { ...entry, scenarios: badSpace } })).toBe(false);
    expect(master({ 'bad*key': entry })).toBe(false);
  });
});
