/**
 * A Model Context Protocol server over the stdio transport: newline-delimited JSON-RPC 2.0 on a
 * readable and a writable stream. It knows the protocol (initialize, ping, tools/list, tools/call)
 * and nothing of the store; the tools it serves are given (tools.ts).
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** The protocol revisions this server speaks, newest first: a client asking for one of them gets it, any other the newest. */
export const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** JSON-RPC 2.0 error codes. */
export const RpcCode = { PARSE: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602 } as const;

/** A JSON Schema of a tool's arguments, in the subset `checkArguments` enforces. */
export interface InputSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties: false;
}

export interface PropertySchema {
  type: 'string' | 'integer' | 'number' | 'boolean';
  description: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: InputSchema;
  /** The answer, an object sent as JSON text and as structured content; a ToolRefusal answers `isError`. */
  call: (args: Record<string, unknown>) => Promise<object>;
}

/** A tool's refusal of a question it cannot answer (an unknown run, bad arguments): the client sees its message with `isError`. */
export class ToolRefusal extends Error {}

/** The arguments' problems against the tool's schema, one sentence each; none when they fit. */
export function checkArguments(schema: InputSchema, args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of schema.required ?? []) if (args[key] === undefined) problems.push(`missing argument ${key}`);
  for (const [key, value] of Object.entries(args)) {
    const p = schema.properties[key];
    if (!p) {
      problems.push(`unknown argument ${key} (known: ${Object.keys(schema.properties).join(', ')})`);
      continue;
    }
    const fits =
      p.type === 'integer'
        ? Number.isInteger(value)
        : p.type === 'number'
          ? typeof value === 'number' && Number.isFinite(value)
          : typeof value === p.type;
    if (!fits) problems.push(`argument ${key} must be ${p.type === 'integer' ? 'an integer' : `a ${p.type}`}`);
    else if (p.enum && !p.enum.includes(value as string)) problems.push(`argument ${key} must be one of ${p.enum.join(', ')}`);
    else if (p.minimum !== undefined && (value as number) < p.minimum) problems.push(`argument ${key} must be ≥ ${p.minimum}`);
    else if (p.maximum !== undefined && (value as number) > p.maximum) problems.push(`argument ${key} must be ≤ ${p.maximum}`);
    else if (p.pattern !== undefined && !new RegExp(p.pattern).test(value as string))
      problems.push(`argument ${key} must match ${p.pattern}`);
  }
  return problems;
}

type Id = string | number | null;
type Answer = { result: unknown } | { error: { code: number; message: string } };

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ServerInfo {
  name: string;
  version: string;
}

/**
 * Serve `tools` on `input`/`output` until `input` ends; requests are answered in the order they
 * came. Failures of the server itself go to `log` (stderr), never to `output`.
 */
export async function serveMcp(
  tools: readonly Tool[],
  info: ServerInfo,
  io: { input: Readable; output: Writable; log: (line: string) => void },
): Promise<void> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const send = (id: Id, answer: Answer) => io.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...answer })}\n`);

  const methods: Record<string, (params: Record<string, unknown>) => Promise<unknown>> = {
    initialize: async (params) => {
      const asked = params.protocolVersion;
      const version = PROTOCOL_VERSIONS.find((v) => v === asked) ?? PROTOCOL_VERSIONS[0];
      return { protocolVersion: version, capabilities: { tools: {} }, serverInfo: info };
    },
    ping: async () => ({}),
    'tools/list': async () => ({
      tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    }),
    'tools/call': async (params) => {
      const name = params.name;
      if (typeof name !== 'string') throw new RpcError(RpcCode.INVALID_PARAMS, 'tools/call needs params.name, the tool');
      const tool = byName.get(name);
      if (!tool) throw new RpcError(RpcCode.INVALID_PARAMS, `unknown tool ${name} (tools: ${[...byName.keys()].join(', ')})`);
      const args = params.arguments ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        throw new RpcError(RpcCode.INVALID_PARAMS, 'params.arguments must be an object');
      const problems = checkArguments(tool.inputSchema, args as Record<string, unknown>);
      if (problems.length > 0) return refusal(`${name}: ${problems.join('; ')}`);
      try {
        const answer = await tool.call(args as Record<string, unknown>);
        return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      } catch (error) {
        if (error instanceof ToolRefusal) return refusal(`${name}: ${error.message}`);
        io.log(`frontier mcp: ${name} failed: ${(error as Error).stack ?? String(error)}`);
        return refusal(`${name} failed: ${(error as Error).message}`);
      }
    },
  };

  const handle = async (line: string): Promise<void> => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      send(null, { error: { code: RpcCode.PARSE, message: `parse error: ${(error as Error).message}` } });
      return;
    }
    const m = (typeof message === 'object' && message !== null && !Array.isArray(message) ? message : {}) as Record<
      string,
      unknown
    >;
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
    const isRequest = 'id' in m;
    if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') {
      // A response from the client (we send no requests) needs no answer; anything else is not JSON-RPC.
      if (m.jsonrpc === '2.0' && isRequest && ('result' in m || 'error' in m)) return;
      send(id, {
        error: { code: RpcCode.INVALID_REQUEST, message: 'invalid request: a JSON-RPC 2.0 object with a method is expected' },
      });
      return;
    }
    if (!isRequest) return; // a notification (notifications/initialized, cancelled): nothing to answer
    const params = m.params ?? {};
    try {
      const method = methods[m.method];
      if (!method || !Object.hasOwn(methods, m.method))
        throw new RpcError(RpcCode.METHOD_NOT_FOUND, `method not found: ${m.method}`);
      if (typeof params !== 'object' || params === null || Array.isArray(params))
        throw new RpcError(RpcCode.INVALID_PARAMS, 'params must be an object');
      send(id, { result: await method(params as Record<string, unknown>) });
    } catch (error) {
      if (error instanceof RpcError) send(id, { error: { code: error.code, message: error.message } });
      else throw error;
    }
  };

  const lines = createInterface({ input: io.input, crlfDelay: Infinity });
  for await (const line of lines) await handle(line);
}

function refusal(text: string) {
  return { content: [{ type: 'text', text }], isError: true };
}
