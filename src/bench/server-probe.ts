import { UserError } from '../util/user-error.js';

/** What a bench asks an OpenAI-compatible server about itself before it starts. */

/** The first model a server lists (GET /v1/models), and its context length when it says. */
export async function firstServedModel(
  baseUrl: string,
  apiKey: string | undefined,
  instead = 'pass --model',
): Promise<{ id: string; maxModelLen?: number }> {
  const url = `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/models`;
  let first: { id?: string; max_model_len?: number } | undefined;
  try {
    const res = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
    first = ((await res.json()) as { data?: { id?: string; max_model_len?: number }[] }).data?.[0];
  } catch (e) {
    throw new UserError(`cannot reach ${url} (${(e as Error).message}); is the server up? (or ${instead})`);
  }
  if (!first?.id) throw new UserError(`${url} lists no model; ${instead}`);
  return { id: first.id, ...(typeof first.max_model_len === 'number' ? { maxModelLen: first.max_model_len } : {}) };
}

/** Whether the server tokenizes (POST /tokenize answers a token list). */
export async function canTokenize(baseUrl: string, model: string, apiKey: string | undefined): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({ model, prompt: 'hello', content: 'hello' }),
    });
    const body = (await res.json()) as { tokens?: unknown };
    return res.ok && Array.isArray(body.tokens);
  } catch {
    return false;
  }
}
