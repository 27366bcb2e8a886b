import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/catalog/index.js';
import { MultiNodeEntry, RunnersFile, SingleNodeEntry } from '../../src/catalog/schema.js';
import { shapeOf } from '../../src/catalog/shape-of.js';
import { acceptor } from '../../src/catalog/shape.js';
import { Rng } from '../../src/util/rng.js';
import { BUNDLED_INFERENCEX, REPO } from '../helpers.js';

const read = async (path: string): Promise<unknown> => (await parseYaml(readFileSync(path, 'utf8'), path)).value;

const ENTRY_SCHEMAS = { single: SingleNodeEntry, multi: MultiNodeEntry };
const accepts = { single: acceptor(shapeOf(SingleNodeEntry)), multi: acceptor(shapeOf(MultiNodeEntry)) };
const kindOf = (entry: unknown): 'single' | 'multi' =>
  typeof entry === 'object' && entry !== null && (entry as { multinode?: unknown }).multinode === true ? 'multi' : 'single';

/** Every master-config entry the repository has: InferenceX's two masters and the example catalog. */
async function fixtureEntries(): Promise<unknown[]> {
  const files = [
    join(BUNDLED_INFERENCEX, 'configs/nvidia-master.yaml'),
    join(BUNDLED_INFERENCEX, 'configs/amd-master.yaml'),
    join(REPO, 'examples/configs/example-master.yaml'),
  ];
  const docs = await Promise.all(files.map(read));
  return docs.flatMap((doc) => Object.values(doc as Record<string, unknown>));
}

const clone = <T>(value: T): T => structuredClone(value);

/** Every container (object or array) in `value`, with the key to change in it. */
function slots(value: unknown, out: [Record<string | number, unknown>, string | number][] = []) {
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, item] of Object.entries(value)) {
    out.push([value as Record<string, unknown>, Array.isArray(value) ? Number(key) : key]);
    slots(item, out);
  }
  return out;
}

// What a careless edit does to a field: wrong types, empty and out-of-range values, the schema's
// own edge cases (a surrogate pair counts as one character, an "image:" version, unsafe integers).
const REPLACEMENTS: unknown[] = [
  null,
  '',
  'x',
  '\ud83d\ude00',
  'image:nvcr.io/x',
  'a/b',
  '../up',
  -1,
  0,
  1,
  1.5,
  2 ** 60,
  Infinity,
  true,
  false,
  [],
  [1],
  ['x'],
  {},
  { name: 'n', version: 'v' },
  { min: 1 },
];

/** `entry` with one or two random edits. */
function mutate(entry: unknown, rng: Rng): unknown {
  const copy = clone(entry);
  edit(copy, rng);
  if (rng.chance(0.3)) edit(copy, rng);
  return copy;
}

function edit(copy: unknown, rng: Rng): void {
  const all = slots(copy);
  const [container, key] = all[rng.int(all.length)]!;
  const choice = rng.int(REPLACEMENTS.length + 2);
  if (choice === REPLACEMENTS.length) delete container[key];
  else if (choice === REPLACEMENTS.length + 1 && !Array.isArray(container)) container[`${String(key)}x`] = 1;
  else container[key] = clone(REPLACEMENTS[choice % REPLACEMENTS.length]);
}

describe('schema shapes: the precompiled acceptor answers as zod does', () => {
  it('accepts every fixture entry and runners file, as zod does', async () => {
    const entries = await fixtureEntries();
    expect(entries.length).toBeGreaterThan(200);
    for (const entry of entries) {
      const kind = kindOf(entry);
      expect(accepts[kind](entry)).toBe(true);
      expect(ENTRY_SCHEMAS[kind].safeParse(entry).success).toBe(true);
    }
    const runners = acceptor(shapeOf(RunnersFile));
    for (const path of [join(BUNDLED_INFERENCEX, 'configs/runners.yaml'), join(REPO, 'examples/configs/runners.yaml')]) {
      expect(runners(await read(path))).toBe(true);
    }
  });

  it('gives zod’s answer on thousands of mutated entries (wrong types, missing and unknown fields)', async () => {
    const entries = await fixtureEntries();
    const rng = new Rng(41);
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      const mutant = mutate(entries[rng.int(entries.length)], rng);
      const kind = kindOf(mutant);
      const zodSays = ENTRY_SCHEMAS[kind].safeParse(mutant).success;
      if (accepts[kind](mutant) !== zodSays)
        throw new Error(`acceptor and zod disagree (zod: ${zodSays}) on ${JSON.stringify(mutant)}`);
      if (!zodSays) refused++;
    }
    // Most mutations break the entry; some (a harmless value where any fits) do not.
    expect(refused).toBeGreaterThan(2000);
    expect(refused).toBeLessThan(4000);
  });

  it('counts length as zod does: a surrogate pair is one character, a lone half too', () => {
    const twoChars = acceptor(shapeOf(z.string().min(2)));
    expect(twoChars('\ud83d\ude00')).toBe(false);
    expect(twoChars('a\ud83d\ude00')).toBe(true);
    expect(twoChars('\ud83d\ud83d')).toBe(z.string().min(2).safeParse('\ud83d\ud83d').success);
  });

  it('refuses a key inherited through a polluted prototype, as zod does', () => {
    const schema = z.strictObject({ a: z.int() });
    const accept = acceptor(shapeOf(schema));
    const value = Object.create({ b: 1 }) as Record<string, unknown>;
    value.a = 1;
    expect(accept(value)).toBe(false);
    expect(accept({ a: 1 })).toBe(true);
  });

  it('refuses to shape what it cannot decide (a refine, a transform, a default), naming where', () => {
    expect(() => shapeOf(z.strictObject({ v: z.string().refine((s) => s !== 'x') }), 'entry')).toThrow(
      /entry\.v: the check custom/,
    );
    expect(() => shapeOf(z.string().transform((s) => s.length))).toThrow(/no precompiled shape/);
    expect(() => shapeOf(z.strictObject({ n: z.int().default(1) }))).toThrow(/\(root\)\.n: a zod default/);
    expect(() => shapeOf(z.email())).toThrow(/no precompiled shape/);
  });

  it('is plain JSON, as the build embeds it', () => {
    const shape = shapeOf(MultiNodeEntry);
    expect(JSON.parse(JSON.stringify(shape))).toEqual(shape);
  });
});
