import * as z from 'zod';
import type { SchemaKind } from './schema-kinds.js';
import { MasterConfigFile, RunnersFile } from './schema.js';

/**
 * JSON Schema (draft-07, what the YAML language server reads) for editor completion and inline
 * errors. Cross-field rules are not expressible here; `frontier validate` checks them.
 */
export function jsonSchema(kind: SchemaKind): Record<string, unknown> {
  const schema = kind === 'master-config' ? MasterConfigFile : RunnersFile;
  const out = z.toJSONSchema(schema, { target: 'draft-07', io: 'input', unrepresentable: 'any' });
  return out as Record<string, unknown>;
}
