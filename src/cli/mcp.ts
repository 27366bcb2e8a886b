import { Command } from 'commander';
import { dbOption, openDb } from './store-location.js';

declare const FRONTIER_VERSION: string;

/** `frontier mcp`: a Model Context Protocol server on stdin/stdout over the store's read functions (docs/api.md). */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description(
      'serve the store to an agent: a Model Context Protocol server on stdio (frontiers, trends, runs, comparisons, with provenance)',
    )
    .addOption(dbOption())
    .action(async (o: { db?: string }) => {
      const store = await openDb(o.db);
      const { mcpTools, serveMcp } = await import('../api/mcp/index.js');
      try {
        process.stderr.write(`frontier mcp: serving the ${store.dialect} store on stdio\n`);
        await serveMcp(
          mcpTools(store),
          { name: 'frontier', version: typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev' },
          { input: process.stdin, output: process.stdout, log: (line) => process.stderr.write(`${line}\n`) },
        );
      } finally {
        await store.close();
      }
    });
}
