/** `frontier mcp`: the read API as Model Context Protocol tools on stdio. */
export { PROTOCOL_VERSIONS, RpcCode, ToolRefusal, checkArguments, serveMcp } from './protocol.js';
export type { InputSchema, ServerInfo, Tool } from './protocol.js';
export { LIST_RUNS, frontierAnswer, mcpTools, overviewAnswer, trendAnswer } from './tools.js';
