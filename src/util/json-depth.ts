/**
 * How deep a JSON text nests, without parsing it. Files from outside (a run directory, an upload)
 * are checked before they are parsed: the parsers and the code that walks a value recurse, and a
 * text nested a few thousand deep ends the process with a RangeError.
 */

/** The deepest nesting of arrays and objects read from a file; result files nest a few levels. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const OPENERS = new Set([91, 123]); // [ {
const CLOSERS = new Set([93, 125]); // ] }

/** Whether `text` nests arrays and objects more than `limit` deep (brackets inside strings do not count). */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      if (++depth > limit) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}
