/** Python's repr of an identity (a tuple: arrays print in parentheses), as the reference prints it. */
import { pyRepr } from '../../pycompat/index.js';

export function identityRepr(value: unknown): string {
  if (Array.isArray(value))
    return value.length === 1 ? `(${identityRepr(value[0])},)` : `(${value.map(identityRepr).join(', ')})`;
  return pyRepr(value);
}
