export type { SourceLine, Trace, TraceEntry, TraceRequest, TraceSubagent } from './types.js';
export type { TraceFormat } from './errors.js';
export { parseTraces, readTraceFile } from './read.js';
export type { ParseOptions } from './read.js';
export { formatWekaTraces, wekaTraceJson, WEKA_BLOCK_SIZE } from './weka.js';
export { BLOCK_TRACE_BLOCK_SIZE } from './blocks.js';
