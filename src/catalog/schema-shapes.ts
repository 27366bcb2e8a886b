import { MultiNodeEntry, RunnersFile, SingleNodeEntry } from './schema.js';
import { shapeOf } from './shape-of.js';
import type { Shape } from './shape.js';

/** The catalog schemas a file's values are checked against (schema.ts defines them). */
export type SchemaName = 'singleNodeEntry' | 'multiNodeEntry' | 'runners';
export type SchemaShapes = Record<SchemaName, Shape>;

/** The shapes of the catalog schemas: what the build embeds, and what unbuilt sources compute. */
export function schemaShapes(): SchemaShapes {
  return {
    singleNodeEntry: shapeOf(SingleNodeEntry, 'master-config entry'),
    multiNodeEntry: shapeOf(MultiNodeEntry, 'multinode master-config entry'),
    runners: shapeOf(RunnersFile, 'runners.yaml'),
  };
}
