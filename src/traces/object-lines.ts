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
  // Pre-order, with a stack of its own: the nesting a file can hold is bounded by its size only.
  const objects: object[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) objects.push(v);
    const children = Object.values(v);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
  const lines = new WeakMap<object, number>();
  if (objects.length !== starts.length) return lines;
  objects.forEach((o, k) => lines.set(o, starts[k]!));
  return lines;
}
