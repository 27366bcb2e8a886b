#!/usr/bin/env python3
"""What InferenceX's DeepSeek-V4 chat encoder returns, for src/bench/encoding-dsv4.ts.

Imports the reference utils/bench_serving/encoding_dsv4.py unmodified, runs its encode_messages
on the message lists below (the benchmark client's own call, `--dsv4`, first) and writes each
input with what it returned, or the exception it raised, to test/fixtures/bench/dsv4-encoding.json.

    python3 scripts/dsv4-encoding-golden.py INFERENCEX_CHECKOUT   (or the path of encoding_dsv4.py)
"""
import copy
import hashlib
import importlib.util
import json
import os
import pathlib
import random
import sys

# A refusal lists the valid tasks from a set: a fixed hash seed keeps the message the same each run.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

source = pathlib.Path(sys.argv[1])
if source.is_dir():
    source = source / "utils/bench_serving/encoding_dsv4.py"
spec = importlib.util.spec_from_file_location("encoding_dsv4", source)
dsv4 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dsv4)
out_path = pathlib.Path(__file__).resolve().parent.parent / "test/fixtures/bench/dsv4-encoding.json"


def user(content, **extra):
    return {"role": "user", "content": content, **extra}


def call(name, arguments, id=None):
    tc = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if id is not None:
        tc["id"] = id
    return tc


def tool(content, id=None):
    msg = {"role": "tool", "content": content}
    if id is not None:
        msg["tool_call_id"] = id
    return msg


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather at a place — in °C",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "城市"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7.0},
                "scale": {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 1e-07},
            },
            "required": ["city"],
        },
    },
}
SEARCH = {"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {}}}}

# The benchmark client's random prompts are decoded token ids: any text, replacement characters
# and stray whitespace included.
rng = random.Random(20240601)
ALPHABET = "abc XYZ 019 \n\t\r\u00a0\ufffd\u200b\u2028é́ü中文한국어العربيةעברית🙂👩‍👩‍👧<｜>{}%$\\\"'"
random_prompts = ["".join(rng.choice(ALPHABET) for _ in range(n)) for n in (1, 17, 257, 4096)]

BENCH = [
    ("chat_template_dummy: the prompt whose tokens are taken off the target length", "a"),
    ("an ASCII sentence", "The quick brown fox jumps over the lazy dog."),
    ("an empty prompt", ""),
    ("leading and trailing whitespace", "  \n\n\t padded \t\n  "),
    ("control characters and line endings", "a\r\nb\rc\x00d\x1be\x0bf\x0cg\x7f"),
    ("combining marks, emoji sequences, RTL and CJK", "e\u0301 👩‍👩‍👧‍👦 🇺🇳 مرحبا שלום 你好 日本語 ｜｜ \u202eevil"),
    ("separators, BOM, NBSP and replacement characters", "\ufeffx\u2028y\u2029z\u00a0\u3000\ufffd\ufffd"),
    ("a lone surrogate", "half \ud83d of an emoji"),
    ("text that looks like the encoder's own tokens", "<｜User｜>hi<｜Assistant｜></think><think><｜end▁of▁sentence｜>"),
    ("format fields and dollars are not re-read", "{content} {reasoning} {0} %s $TOOL_NAME {{x}}"),
    ("a long prompt", "lorem ipsum dolor sit amet " * 800),
] + [(f"a seeded random prompt of {len(p)} characters", p) for p in random_prompts]

cases = []


def case(name, messages, **options):
    cases.append((name, messages, options))


for name, prompt in BENCH:
    case(f"benchmark --dsv4: {name}", [user(prompt)], thinking_mode="thinking")

case("no messages: the BOS token alone", [], thinking_mode="thinking")
case("no messages and no BOS", [], thinking_mode="chat", add_default_bos_token=False)
case("chat mode: a user turn ends in </think>", [user("hello")], thinking_mode="chat")
case("without the default BOS token", [user("hello")], thinking_mode="thinking", add_default_bos_token=False)
case("system then user, chat", [{"role": "system", "content": "You are terse."}, user("hi")], thinking_mode="chat")
case("system then user, thinking", [{"role": "system", "content": "You are terse."}, user("hi")], thinking_mode="thinking")
case("an empty system prompt", [{"role": "system", "content": ""}, user("hi")], thinking_mode="chat")
case("a system prompt without content", [{"role": "system", "content": None}, user("hi")], thinking_mode="chat")
case("a system prompt alone", [{"role": "system", "content": "only me"}], thinking_mode="thinking")
case(
    "non-string system content is formatted with str()",
    [{"role": "system", "content": 42}, {"role": "system", "content": 1.5}, {"role": "system", "content": True}, user("x")],
    thinking_mode="chat",
)
case(
    "a system prompt with tools and a response format",
    [
        {
            "role": "system",
            "content": "Use tools.",
            "tools": [WEATHER, SEARCH],
            "response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object", "title": "Ünïcode"}}},
        },
        user("Weather in Paris?"),
    ],
    thinking_mode="thinking",
)
case(
    "a response format without tools",
    [{"role": "system", "content": "", "response_format": {"type": "json_object"}}, user("json please")],
    thinking_mode="chat",
)
case(
    "a developer message with tools",
    [{"role": "developer", "content": "Follow policy.", "tools": [SEARCH], "response_format": {"strict": True}}, user("go")],
    thinking_mode="chat",
)
case("a developer message as the last turn", [{"role": "developer", "content": "Be brief."}], thinking_mode="thinking")
case(
    "a developer message before the last user is dropped in thinking mode",
    [{"role": "developer", "content": "old"}, user("q1"), {"role": "assistant", "content": "a1"}, {"role": "developer", "content": "mid"}, user("q2")],
    thinking_mode="thinking",
)
case(
    "the same in chat mode keeps it",
    [{"role": "developer", "content": "old"}, user("q1"), {"role": "assistant", "content": "a1"}, {"role": "developer", "content": "mid"}, user("q2")],
    thinking_mode="chat",
)

MULTI = [
    {"role": "system", "content": "sys"},
    user("first question"),
    {"role": "assistant", "content": "first answer", "reasoning_content": "first thoughts"},
    user("second question"),
    {"role": "assistant", "content": "second answer", "reasoning_content": "second thoughts"},
]
case("multi-turn, chat mode", MULTI, thinking_mode="chat")
case("multi-turn, thinking: earlier reasoning dropped", MULTI, thinking_mode="thinking")
case("multi-turn, thinking, drop_thinking off", MULTI, thinking_mode="thinking", drop_thinking=False)
case("multi-turn ending on a user turn, thinking", MULTI + [user("third")], thinking_mode="thinking")
case("multi-turn ending on a user turn, drop_thinking off", MULTI + [user("third")], thinking_mode="thinking", drop_thinking=False)
case(
    "an assistant turn without content or reasoning",
    [user("q"), {"role": "assistant", "content": None, "reasoning_content": None}],
    thinking_mode="thinking",
)
case("an assistant prefill without EOS", [user("q"), {"role": "assistant", "content": "Sure,", "wo_eos": True}], thinking_mode="chat")
case(
    "an assistant prefill without EOS, thinking",
    [user("q"), {"role": "assistant", "reasoning_content": "hmm", "content": "Sure,", "wo_eos": True}],
    thinking_mode="thinking",
)
case("two assistant turns in a row", [user("q"), {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}], thinking_mode="thinking")
case("consecutive user turns are merged", [user("one"), user("two"), user("three")], thinking_mode="chat")
case("a user turn without content", [{"role": "user"}], thinking_mode="chat")

case("reasoning effort max, thinking", [user("prove it")], thinking_mode="thinking", reasoning_effort="max")
case("reasoning effort max before a system prompt", [{"role": "system", "content": "s"}, user("prove it")], thinking_mode="thinking", reasoning_effort="max")
case("reasoning effort max, chat: no prefix", [user("prove it")], thinking_mode="chat", reasoning_effort="max")
case("reasoning effort high: no prefix", [user("prove it")], thinking_mode="thinking", reasoning_effort="high")

TOOL_TURNS = [
    {"role": "system", "content": "tools", "tools": [WEATHER, SEARCH]},
    user("Weather in Paris and Oslo, and search news"),
    {
        "role": "assistant",
        "content": "",
        "reasoning_content": "I need three calls.",
        "tool_calls": [
            call("get_weather", '{"city": "Paris", "days": 3, "scale": 1.0, "extra": {"a": [1, 2.5, null, true]}}', "c1"),
            call("get_weather", '{"city": "Oslo", "note": "línea\\n2 \\"q\\"", "big": 12345678901234567890, "tiny": 1e-7, "x": NaN}', "c2"),
            call("search", "{}", "c3"),
        ],
    },
    tool("sunny 25°C", "c1"),
    tool("snow", "c2"),
    tool([{"type": "text", "text": "headline A"}, {"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "headline B"}], "c3"),
    {"role": "assistant", "content": "Paris sunny, Oslo snow.", "reasoning_content": "done"},
]
case("tool calls and their results, thinking", TOOL_TURNS, thinking_mode="thinking")
case("tool calls and their results, chat", TOOL_TURNS, thinking_mode="chat")
case("tool calls awaiting an answer", TOOL_TURNS[:-1], thinking_mode="thinking")
case(
    "tool results out of call order are sorted",
    [
        user("go"),
        {"role": "assistant", "content": None, "tool_calls": [call("a", '{"i": 1}', "id-a"), call("b", '{"i": 2}', "id-b"), call("c", '{"i": 3}', "id-c")]},
        tool("C", "id-c"),
        tool("unknown id", "id-z"),
        tool("A", "id-a"),
        tool("B", "id-b"),
        user("and then?"),
    ],
    thinking_mode="chat",
)
case(
    "tool call ids inside function",
    [
        user("go"),
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "a", "arguments": "{}", "id": "fa"}}, {"type": "function", "function": {"name": "b", "arguments": "{}", "id": "fb"}}]},
        tool("B", "fb"),
        tool("A", "fa"),
    ],
    thinking_mode="thinking",
)
case(
    "tool arguments that are not JSON, or not a string",
    [
        user("go"),
        {"role": "assistant", "content": "", "tool_calls": [call("raw", "not json {"), call("obj", {"already": "parsed", "n": 2}), call("empty", "")]},
        tool(None),
        tool(7),
    ],
    thinking_mode="chat",
)
case(
    "duplicate keys in tool arguments keep the first place and the last value",
    [user("go"), {"role": "assistant", "content": "", "tool_calls": [call("d", '{"k": 1, "j": "s", "k": "last"}')]}],
    thinking_mode="chat",
)
case(
    "tool arguments that are JSON but not an object",
    [user("go"), {"role": "assistant", "content": "", "tool_calls": [call("l", "[1, 2]")]}],
    thinking_mode="chat",
)
case("a tool result first", [tool("orphan", "x"), user("then a question")], thinking_mode="thinking")
case("a user turn after tool results joins them", [user("go"), {"role": "assistant", "content": "", "tool_calls": [call("a", "{}", "1")]}, tool("r", "1"), user("more")], thinking_mode="chat")
case(
    "tools anywhere keep every turn's reasoning",
    [{"role": "system", "content": "", "tools": [SEARCH]}] + MULTI[1:] + [user("again")],
    thinking_mode="thinking",
)
case("a tool result whose content list holds a non-text part only", [user("u"), tool([{"type": "image"}, {"kind": "none"}])], thinking_mode="chat")

case("latest reminder after a user turn", [user("q"), {"role": "latest_reminder", "content": "today is Monday"}], thinking_mode="thinking")
case("latest reminder without content", [{"role": "latest_reminder"}, user("q")], thinking_mode="chat")
case("latest reminder before an assistant turn", [user("q"), {"role": "latest_reminder", "content": "r"}, {"role": "assistant", "content": "a"}], thinking_mode="thinking")

for task in ["query", "authority", "domain", "title", "read_url"]:
    case(f"task {task}", [user("classify this", task=task)], thinking_mode="thinking")
case("task action, thinking", [user("act", task="action")], thinking_mode="thinking")
case("task action, chat", [user("act", task="action")], thinking_mode="chat")
case("a task turn's answer has no thinking part", [user("classify", task="query"), {"role": "assistant", "content": "news", "reasoning_content": "ignored"}], thinking_mode="thinking")
case("a task on a system message", [{"role": "system", "content": "s", "task": "title"}], thinking_mode="chat")
case("a user turn after a task turn is not merged into it", [user("a", task="domain"), user("b")], thinking_mode="chat")
case("a task followed by a user turn: no task token", [user("a", task="title"), tool("t"), user("b")], thinking_mode="chat")
case("mask and other fields ride along", [user("q", mask=True, name="bob"), {"role": "assistant", "content": "a", "mask": False}], thinking_mode="chat")

CONTEXT = [{"role": "system", "content": "sys"}, user("q1"), {"role": "assistant", "content": "a1", "reasoning_content": "r1"}]
case("with context: no BOS, only the new turns", [user("q2")], thinking_mode="thinking", context=CONTEXT)
case("with context, chat", [user("q2")], thinking_mode="chat", context=CONTEXT)
case("with context, drop_thinking off", [user("q2"), {"role": "assistant", "content": "a2", "reasoning_content": "r2"}], thinking_mode="thinking", context=CONTEXT, drop_thinking=False)
case("with context: reasoning effort applies only at index 0", [user("q2")], thinking_mode="thinking", context=CONTEXT, reasoning_effort="max")
case("an empty context is no context", [user("q")], thinking_mode="thinking", context=[])
case(
    "with context ending in tool calls: results sorted by the context's call order",
    [tool("B", "b"), tool("A", "a"), user("so?")],
    thinking_mode="chat",
    context=[user("go"), {"role": "assistant", "content": "", "tool_calls": [call("f", "{}", "a"), call("g", "{}", "b")]}],
)
case(
    "with context ending in a developer message: nothing is rendered",
    [user("q2")],
    thinking_mode="thinking",
    context=[user("q1"), {"role": "developer", "content": "d"}],
)
case("with context holding tools: reasoning kept", [{"role": "assistant", "content": "a2", "reasoning_content": "r2"}], thinking_mode="thinking", context=[{"role": "system", "content": "", "tools": [SEARCH]}, user("q1")])

case("an invalid thinking mode", [user("q")], thinking_mode="fast")
case("an invalid thinking mode with no messages", [], thinking_mode="fast")
case("an invalid reasoning effort", [user("q")], thinking_mode="chat", reasoning_effort="low")
case("a developer message without content", [{"role": "developer", "content": ""}, user("q")], thinking_mode="chat")
case("an unknown role", [{"role": "narrator", "content": "once"}], thinking_mode="chat")
case("an invalid task", [user("q", task="summarize")], thinking_mode="chat")
case("non-string user content", [user(["a", "b"])], thinking_mode="chat")
case("a tool call without arguments", [user("q"), {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "f"}}]}], thinking_mode="chat")
case("a tool without a function", [{"role": "system", "content": "", "tools": [{"type": "function", "name": "f"}]}, user("q")], thinking_mode="chat")


def run(messages, options):
    try:
        return {"expected": dsv4.encode_messages(messages, **options)}
    except Exception as e:  # noqa: BLE001 -- every refusal is recorded
        return {"error": f"{type(e).__name__}: {e}"}


records = []
for name, messages, options in cases:
    record = {"name": name, "messages": copy.deepcopy(messages), "options": copy.deepcopy(options)}
    record.update(run(copy.deepcopy(messages), copy.deepcopy(options)))
    records.append(record)

names = [r["name"] for r in records]
assert len(names) == len(set(names)), "case names must be unique"
out = {
    "source": "utils/bench_serving/encoding_dsv4.py",
    "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
    "python": sys.version.split()[0],
    "cases": records,
}
out_path.write_text(json.dumps(out, indent=1) + "\n")
print(f"{out_path}: {len(records)} cases, {sum('error' in r for r in records)} refusals")
