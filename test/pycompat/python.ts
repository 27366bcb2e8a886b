import { spawnSync } from 'node:child_process';

/**
 * Python's own answer: `code` runs in one `python3` process with the JSON `input` as `data` and
 * sets `out`, which comes back through `json.dumps`. The pycompat tests take their expected text
 * from here rather than writing it by hand.
 */
export function python<T>(code: string, input: unknown): T {
  const script = `import json, struct, sys\ndata = json.load(sys.stdin)\n${code}\nsys.stdout.write(json.dumps(out))\n`;
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(input), encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    throw new Error(`python3 (the expected values come from Python 3) failed: ${run.error?.message ?? run.stderr}`);
  }
  return JSON.parse(run.stdout) as T;
}

const view = new DataView(new ArrayBuffer(8));

/** The exact bits of a double as hex, for Python's `struct.unpack('>d', bytes.fromhex(h))`. */
export function doubleHex(x: number): string {
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
}
