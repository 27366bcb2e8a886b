/**
 * The line each object of a parsed JSON text starts on. JSON.parse keeps no positions, but it
 * builds objects in the order their `{` appear, so a pre-order walk of the value meets them in
 * the order a scan of the text (outside strings) finds each `{`. Keys that JavaScript reorders
 * (integer-like keys) or drops (duplicates) break that pairing: then no line is known (undefined),
 * and callers fall back to the enclosing line.
 */
export function objectLines(text: string, value: unknown): WeakMap<object, number> {
  const starts: number[] = [];
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123) starts.push(line);
  }
  const objects: object[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      objects.push(v);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  const lines = new WeakMap<object, number>();
  if (objects.length !== starts.length) return lines;
  objects.forEach((o, k) => lines.set(o, starts[k]!));
  return lines;
}
