import type { Subject } from './issues.js';
import type { Problem } from './problems.js';
import type { SchemaName, SchemaShapes } from './schema-shapes.js';
import { acceptor } from './shape.js';
import type { Accept } from './shape.js';

// The build's shapes of the schemas (scripts/build.mjs: `shapeOf` over schema-shapes.ts); absent
// when the sources run unbuilt (tests), which compute them.
declare const FRONTIER_SCHEMA_SHAPES: SchemaShapes | undefined;

let acceptors: Promise<Record<SchemaName, Accept>> | undefined;

async function loadAcceptors(): Promise<Record<SchemaName, Accept>> {
  const shapes =
    typeof FRONTIER_SCHEMA_SHAPES === 'undefined' ? (await import('./schema-shapes.js')).schemaShapes() : FRONTIER_SCHEMA_SHAPES;
  return {
    singleNodeEntry: acceptor(shapes.singleNodeEntry),
    multiNodeEntry: acceptor(shapes.multiNodeEntry),
    runners: acceptor(shapes.runners),
  };
}

/**
 * The schema problems of `value` ([] when it is valid). A valid value is recognised by the
 * schema's precompiled acceptor; only a value it refuses loads zod and the schemas, which say
 * what is wrong and where (start-up: a command reading valid files never constructs them).
 */
export async function schemaProblemsOf(name: SchemaName, subject: Subject, value: unknown): Promise<Problem[]> {
  acceptors ??= loadAcceptors();
  if ((await acceptors)[name](value)) return [];
  const { explain } = await import('./schema-explain.js');
  return explain(name, subject, value);
}
