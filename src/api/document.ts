import { openStore } from '../store/index.js';
import { buildApi } from './server.js';

/**
 * The OpenAPI document without a running server: the routes as they register on a throw-away
 * in-memory store (`frontier schema openapi`; docs/openapi.json is this, committed).
 */
export async function openApiDocument(): Promise<unknown> {
  const store = await openStore(':memory:');
  try {
    const app = await buildApi({ store });
    try {
      return (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}
