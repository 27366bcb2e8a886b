/**
 * DeepSeek-V4's chat encoding: a conversation as the prompt text the model expects, byte for byte
 * what InferenceX's `utils/bench_serving/encoding_dsv4.py` (`encode_messages`) returns. The
 * reference client's `--dsv4` frames each benchmark prompt with it.
 *
 * The reference formats whatever a message holds, so values are read as Python reads them:
 * truthiness, `str()` of non-strings, `json.dumps(..., ensure_ascii=False)` of tool schemas and
 * arguments (src/pycompat).
 */
import { dumps, isDict, loads, pyStr, pyTruthy } from '../pycompat/index.js';
import { UserError } from '../util/user-error.js';

export type Dsv4ThinkingMode = 'chat' | 'thinking';
/** `max` prefixes the first turn with an instruction to reason exhaustively (thinking mode only); `high` changes nothing. */
export type Dsv4ReasoningEffort = 'max' | 'high';
/** Internal classification tasks: the turn ends in the task's token instead of the assistant's. */
export type Dsv4Task = 'action' | 'query' | 'authority' | 'domain' | 'title' | 'read_url';

/** An OpenAI-format tool: its `function` (name, description, parameters) is rendered as JSON. */
export interface Dsv4Tool {
  type?: 'function';
  function: Record<string, unknown>;
}

/** An OpenAI-format tool call; `arguments` is normally a JSON object as text. */
export interface Dsv4ToolCall {
  id?: string;
  type?: 'function';
  function: { name: string; arguments: string | Record<string, unknown>; id?: string };
}

/** A tool result's content may be OpenAI content parts: text parts are kept, others named as unsupported. */
export type Dsv4ContentPart = { type: 'text'; text: string } | { type: string; [key: string]: unknown };

/**
 * A message in OpenAI's shape plus DeepSeek's own fields. Tool results (`role: 'tool'`) are
 * folded into the user turn they follow; `latest_reminder` is DeepSeek's reminder turn.
 */
export interface Dsv4Message {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'latest_reminder';
  content?: string | Dsv4ContentPart[] | null;
  reasoning_content?: string | null;
  tools?: Dsv4Tool[];
  response_format?: unknown;
  tool_calls?: Dsv4ToolCall[];
  tool_call_id?: string;
  task?: Dsv4Task;
  /** An assistant turn left open (a prefill): no end-of-sentence token. */
  wo_eos?: boolean;
}

export interface Dsv4EncodeOptions {
  thinkingMode: Dsv4ThinkingMode;
  /**
   * Turns already encoded (the prompt so far): they decide how the new turns render, but only the
   * new turns are returned, without the BOS token.
   */
  context?: readonly Dsv4Message[] | undefined;
  /**
   * Thinking mode only: drop the reasoning of assistant turns (and developer turns) before the
   * last user turn (default true). Off whenever a turn carries tools.
   */
  dropThinking?: boolean | undefined;
  /** Start with the BOS token when there is no context (default true). */
  addBosToken?: boolean | undefined;
  reasoningEffort?: Dsv4ReasoningEffort | null | undefined;
}

/** A message the reference encoder refuses (it raises); the message says which and why. */
export class Dsv4EncodingError extends UserError {}

const DSV4_TOKENS = {
  bos: '<｜begin▁of▁sentence｜>',
  eos: '<｜end▁of▁sentence｜>',
  thinkingStart: '<think>',
  thinkingEnd: '</think>',
  dsml: '｜DSML｜',
  user: '<｜User｜>',
  assistant: '<｜Assistant｜>',
  latestReminder: '<｜latest_reminder｜>',
} as const;

const { bos: BOS, eos: EOS, thinkingStart: THINK, thinkingEnd: END_THINK, dsml: DSML } = DSV4_TOKENS;

const TASK_TOKENS: Record<Dsv4Task, string> = {
  action: '<｜action｜>',
  query: '<｜query｜>',
  authority: '<｜authority｜>',
  domain: '<｜domain｜>',
  title: '<｜title｜>',
  read_url: '<｜read_url｜>',
};

const REASONING_EFFORT_MAX =
  'Reasoning Effort: Absolute maximum with no shortcuts permitted.\n' +
  'You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial scenarios.\n' +
  'Explicitly write out your entire deliberation process, documenting every intermediate step, considered alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n';

const toolsSection = (schemas: string): string => `## Tools

You have access to a set of tools to help answer the user's question. You can invoke tools by writing a "<${DSML}tool_calls>" block like the following:

<${DSML}tool_calls>
<${DSML}invoke name="$TOOL_NAME">
<${DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</${DSML}parameter>
...
</${DSML}invoke>
<${DSML}invoke name="$TOOL_NAME2">
...
</${DSML}invoke>
</${DSML}tool_calls>

String parameters should be specified as is and set \`string="true"\`. For all other types (numbers, booleans, arrays, objects), pass the value in JSON format and set \`string="false"\`.

If thinking_mode is enabled (triggered by ${THINK}), you MUST output your complete reasoning inside ${THINK}...${END_THINK} BEFORE any tool calls or final response.

Otherwise, output directly after ${END_THINK} with tool calls or final response.

### Available Tool Schemas

${schemas}

You MUST strictly follow the above defined tool name and parameter schemas to invoke tool calls.
`;

const responseFormatSection = (format: unknown): string =>
  `## Response Format:\n\nYou MUST strictly adhere to the following schema to reply:\n${toJson(format)}`;

/** A message as the encoder reads it: any JSON object (the reference indexes plain dicts). */
type Msg = Record<string, unknown>;

const toJson = (value: unknown): string => dumps(value, { ensureAscii: false });

/** `dict.get(key, fallback)`: an absent (or undefined) key gives the fallback, a null stays null. */
const field = (o: Msg, key: string, fallback: unknown = null): unknown => (o[key] === undefined ? fallback : o[key]);

/** `value or ""` inside `str.format`: falsy values print nothing, the rest as `str()`. */
const orEmpty = (value: unknown): string => (pyTruthy(value) ? pyStr(value) : '');

function dict(value: unknown, what: string): Msg {
  if (!isDict(value)) throw new Dsv4EncodingError(`${what} must be an object, got ${pyStr(value)}`);
  return value;
}

function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Dsv4EncodingError(`${what} must be a list, got ${pyStr(value)}`);
  return value;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Dsv4EncodingError(`${what} must be a string, got ${pyStr(value)}`);
  return value;
}

/** `obj[key]` where the reference indexes without a default (a KeyError there). */
function required(o: Msg, key: string, what: string): unknown {
  if (!(key in o) || o[key] === undefined) throw new Dsv4EncodingError(`${what} has no "${key}"`);
  return o[key];
}

const isUserTurn = (msg: Msg): boolean => msg.role === 'user' || msg.role === 'developer';

function lastUserIndex(messages: readonly Msg[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (isUserTurn(messages[i]!)) return i;
  return -1;
}

function toolSchemas(tools: unknown): string {
  return list(tools, 'tools')
    .map((t, i) => toJson(required(dict(t, `tools[${i}]`), 'function', `tools[${i}]`)))
    .join('\n');
}

/** One tool call's arguments as DSML parameters: strings as they are, anything else as JSON. */
function dsmlParameters(args: unknown, name: string): string {
  let parsed: unknown;
  try {
    if (typeof args !== 'string') throw new TypeError('not a string');
    parsed = loads(args, { exactInts: true });
  } catch {
    // Arguments that are not JSON text are passed through whole, as one parameter.
    parsed = { arguments: args };
  }
  if (!isDict(parsed))
    throw new Dsv4EncodingError(`the arguments of tool call "${name}" must be a JSON object, got ${pyStr(args)}`);
  return Object.entries(parsed)
    .map(([key, value]) => {
      const isString = typeof value === 'string';
      return `<${DSML}parameter name="${key}" string="${isString}">${isString ? value : toJson(value)}</${DSML}parameter>`;
    })
    .join('\n');
}

interface ToolCall {
  name: string;
  args: unknown;
}

/** The name and arguments of each OpenAI-format call (read for every role, rendered for the assistant's). */
function toolCallsOf(calls: unknown): ToolCall[] {
  return list(calls, 'tool_calls').map((c, i) => {
    const fn = dict(required(dict(c, `tool_calls[${i}]`), 'function', `tool_calls[${i}]`), `tool_calls[${i}].function`);
    return {
      name: pyStr(required(fn, 'name', `tool_calls[${i}].function`)),
      args: required(fn, 'arguments', `tool_calls[${i}].function`),
    };
  });
}

function toolCallsBlock(calls: readonly ToolCall[]): string {
  const invokes = calls.map(
    ({ name, args }) => `<${DSML}invoke name="${name}">\n${dsmlParameters(args, name)}\n</${DSML}invoke>`,
  );
  return `\n\n<${DSML}tool_calls>\n${invokes.join('\n')}\n</${DSML}tool_calls>`;
}

function toolResultContent(content: unknown): string {
  if (!Array.isArray(content)) return pyStr(content);
  return content
    .map((part, i) => {
      const p = dict(part, `tool result part ${i}`);
      return p.type === 'text'
        ? text(field(p, 'text', ''), `tool result part ${i}'s text`)
        : `[Unsupported ${pyStr(field(p, 'type'))}]`;
    })
    .join('\n\n');
}

/** A user turn, after tool results were folded in: its text and tool-result blocks. */
function userBlocks(msg: Msg): string {
  return list(msg.content_blocks, 'content_blocks')
    .map((block) => {
      const b = block as Msg;
      if (b.type === 'text') return text(field(b, 'text', ''), 'user content');
      return `<tool_result>${toolResultContent(field(b, 'content', ''))}</tool_result>`;
    })
    .join('\n\n');
}

interface RenderOptions {
  thinkingMode: unknown;
  dropThinking: boolean;
  reasoningEffort: unknown;
}

function renderMessage(index: number, messages: readonly Msg[], o: RenderOptions): string {
  if (index < 0 || index >= messages.length)
    throw new Dsv4EncodingError(`message ${index} is out of range: the context and the messages do not line up`);
  if (o.thinkingMode !== 'chat' && o.thinkingMode !== 'thinking')
    throw new Dsv4EncodingError(`invalid thinking mode ${pyStr(o.thinkingMode)}: expected chat or thinking`);
  const msg = messages[index]!;
  const lastUser = lastUserIndex(messages);
  const thinking = o.thinkingMode === 'thinking';
  const tools = pyTruthy(msg.tools) ? toolSchemas(msg.tools) : undefined;
  const toolCalls = pyTruthy(msg.tool_calls) ? toolCallsOf(msg.tool_calls) : undefined;
  if (o.reasoningEffort !== null && o.reasoningEffort !== 'max' && o.reasoningEffort !== 'high')
    throw new Dsv4EncodingError(`invalid reasoning effort ${pyStr(o.reasoningEffort)}: expected max, high or none`);

  let prompt = index === 0 && thinking && o.reasoningEffort === 'max' ? REASONING_EFFORT_MAX : '';
  const extras = (): string =>
    (tools !== undefined ? `\n\n${toolsSection(tools)}` : '') +
    (pyTruthy(msg.response_format) ? `\n\n${responseFormatSection(msg.response_format)}` : '');
  switch (msg.role) {
    case 'system':
      prompt += orEmpty(msg.content) + extras();
      break;
    case 'developer':
      if (!pyTruthy(msg.content)) throw new Dsv4EncodingError(`developer message ${index} has no content`);
      prompt += DSV4_TOKENS.user + text(msg.content, `developer message ${index}'s content`) + extras();
      break;
    case 'user':
      prompt += DSV4_TOKENS.user + userBlocks(msg);
      break;
    case 'latest_reminder':
      prompt += DSV4_TOKENS.latestReminder + pyStr(field(msg, 'content'));
      break;
    case 'assistant': {
      const previous = messages[index - 1];
      const answersTask = previous !== undefined && field(previous, 'task') !== null;
      const keepReasoning = thinking && !answersTask && (!o.dropThinking || index > lastUser);
      prompt +=
        (keepReasoning ? orEmpty(msg.reasoning_content) + END_THINK : '') +
        orEmpty(msg.content) +
        (toolCalls ? toolCallsBlock(toolCalls) : '') +
        (pyTruthy(field(msg, 'wo_eos', false)) ? '' : EOS);
      break;
    }
    default:
      throw new Dsv4EncodingError(`unknown role ${pyStr(field(msg, 'role'))} in message ${index}`);
  }

  // What comes after a turn: nothing when the next turn speaks for itself, else the task's token
  // or the assistant's opening.
  const next = messages[index + 1];
  if (next !== undefined && next.role !== 'assistant' && next.role !== 'latest_reminder') return prompt;
  const task = field(msg, 'task');
  if (task !== null) {
    if (typeof task !== 'string' || !Object.hasOwn(TASK_TOKENS, task))
      throw new Dsv4EncodingError(`invalid task ${pyStr(task)}: expected one of ${Object.keys(TASK_TOKENS).join(', ')}`);
    const token = TASK_TOKENS[task as Dsv4Task];
    return task === 'action' ? prompt + DSV4_TOKENS.assistant + (thinking ? THINK : END_THINK) + token : prompt + token;
  }
  if (isUserTurn(msg)) {
    const opensThinking = thinking && (!o.dropThinking || index >= lastUser);
    prompt += DSV4_TOKENS.assistant + (opensThinking ? THINK : END_THINK);
  }
  return prompt;
}

/**
 * Tool results become user turns of `tool_result` blocks, joined to the user turn they follow;
 * consecutive user turns are joined too, unless the first carries a task.
 */
function mergeToolMessages(messages: readonly Msg[]): Msg[] {
  const merged: Msg[] = [];
  for (const msg of messages) {
    const last = merged.at(-1);
    if (msg.role === 'tool') {
      const block = { type: 'tool_result', tool_use_id: field(msg, 'tool_call_id', ''), content: field(msg, 'content', '') };
      if (last?.role === 'user') (last.content_blocks as Msg[]).push(block);
      else merged.push({ role: 'user', content_blocks: [block] });
    } else if (msg.role === 'user') {
      const block = { type: 'text', text: field(msg, 'content', '') };
      if (last?.role === 'user' && field(last, 'task') === null) (last.content_blocks as Msg[]).push(block);
      else {
        const turn: Msg = { role: 'user', content: field(msg, 'content', ''), content_blocks: [block] };
        for (const key of ['task', 'wo_eos', 'mask']) if (msg[key] !== undefined) turn[key] = msg[key];
        merged.push(turn);
      }
    } else merged.push({ ...msg });
  }
  return merged;
}

/** Tool results in the order of the calls they answer (unknown ids first, in their order). */
function sortToolResults(messages: readonly Msg[]): Msg[] {
  let order = new Map<unknown, number>();
  return messages.map((msg) => {
    if (msg.role === 'assistant' && pyTruthy(msg.tool_calls)) {
      order = new Map();
      list(msg.tool_calls, 'tool_calls').forEach((call, i) => {
        const c = dict(call, `tool_calls[${i}]`);
        const id = pyTruthy(c.id) ? c.id : field(dict(field(c, 'function', {}), `tool_calls[${i}].function`), 'id', '');
        if (pyTruthy(id)) order.set(id, i);
      });
      return msg;
    }
    if (msg.role !== 'user' || !pyTruthy(msg.content_blocks) || order.size === 0) return msg;
    const blocks = msg.content_blocks as Msg[];
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length < 2) return msg;
    const rank = (b: Msg): number => order.get(field(b, 'tool_use_id', '')) ?? 0;
    const sorted = results.sort((a, b) => rank(a) - rank(b));
    let next = 0;
    return { ...msg, content_blocks: blocks.map((b) => (b.type === 'tool_result' ? sorted[next++]! : b)) };
  });
}

/**
 * Before the last user turn: assistant turns lose their reasoning and developer turns (and any
 * other role not kept below) go.
 */
function dropEarlierThinking(messages: readonly Msg[]): Msg[] {
  const lastUser = lastUserIndex(messages);
  const kept = new Set<unknown>(['user', 'system', 'tool', 'latest_reminder', 'direct_search_results']);
  const out: Msg[] = [];
  messages.forEach((msg, i) => {
    if (kept.has(msg.role) || i >= lastUser) out.push(msg);
    else if (msg.role === 'assistant') {
      const { reasoning_content: _dropped, ...rest } = msg;
      out.push(rest);
    }
  });
  return out;
}

function asMessages(messages: readonly unknown[], what: string): Msg[] {
  return messages.map((m, i) => dict(m, `${what}[${i}]`));
}

/** The prompt text of `messages` in DeepSeek-V4's encoding (the reference's `encode_messages`). */
export function encodeDsv4Messages(messages: readonly Dsv4Message[], options: Dsv4EncodeOptions): string {
  const dropThinking = options.dropThinking ?? true;
  const context = mergeToolMessages(asMessages(options.context ?? [], 'context'));
  const own = mergeToolMessages(asMessages(messages, 'messages'));
  // Sorted together: results at the start of `messages` may answer calls made in the context.
  let all = sortToolResults([...context, ...own]);
  const sortedContext = all.slice(0, context.length);
  let prompt = (options.addBosToken ?? true) && context.length === 0 ? BOS : '';
  const effectiveDrop = dropThinking && !all.some((m) => pyTruthy(m.tools));
  let count = own.length;
  let contextLength = context.length;
  if (options.thinkingMode === 'thinking' && effectiveDrop) {
    all = dropEarlierThinking(all);
    // As the reference counts: the context is thinned on its own, which can disagree with how it
    // thins as part of the whole (a context ending in a developer turn leaves nothing to render).
    count = all.length - dropEarlierThinking(sortedContext).length;
    contextLength = all.length - count;
  }
  const render = {
    thinkingMode: options.thinkingMode,
    dropThinking: effectiveDrop,
    reasoningEffort: options.reasoningEffort ?? null,
  };
  for (let i = 0; i < count; i++) prompt += renderMessage(i + contextLength, all, render);
  return prompt;
}
