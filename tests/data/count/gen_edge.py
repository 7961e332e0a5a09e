#!/usr/bin/env python3
"""Writes the hand-made edge cases of the counting kinds (python3, stdlib
only, deterministic):

  edge/prompts.jsonl    `prompt` inputs (oracle `prompt --mlcommons`)
  edge/messages.jsonl   `message` inputs (oracle `message`)

  python3 gen_edge.py [OUT_DIR]          (default: edge/ beside this script)

The agentic and BFCL data never reach most of upstream's corners: tool-call
arguments that are not a JSON object string, the JSON fallback of a prompt
with floats (msgspec's layout, not Python's), each exception class a render
can fail with, the template variables (special tokens, chat_template_kwargs
and the apply_chat_template parameters taken out of them, tool_choice, the
forced generation prompt, the pinned clock), a chat_template given per item
(as a source; these tokenizers have one template, so even a name such as
"default" is a source), messages whose parts are empty, null, special tokens
or unusual Unicode, and messages of the wrong types (the oracle cannot count
most of those: an error, not a count). Ids are "edge:<NNN>:<slug>" (prompts)
and "msg:<NNN>:<slug>" (messages).

A few numbers are written as literals json.dumps would not write (1E5,
1.0e2): the JSON reader must keep their value and the fallback must print
them in msgspec's layout (100000.0, 100.0); 12345678901234567890 does not fit
an int64.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = "__RAW__"   # "__RAW__1E5" (a JSON string) is written as the literal 1E5

FLOAT_PARAMS = {
    "type": "object",
    "properties": {
        "tolerance": {"type": "number", "default": 1e-05, "minimum": 2.5e-08},
        "limit": {"type": "number", "maximum": 1e16, "exclusiveMaximum": 1.5e300},
        "tiny": {"type": "number", "minimum": 5e-324, "example": 0.000123},
        "scale": {"type": "number", "default": RAW + "1E5", "other": RAW + "1.0e2"},
        "zero": {"type": "number", "default": RAW + "-0.0", "half": 0.5, "ten": 10.0},
        "big": {"type": "integer", "maximum": RAW + "12345678901234567890",
                "minimum": -9223372036854775808},
        "neg": {"type": "number", "default": -1e-07, "max": -123456.789e3},
    },
    "required": ["tolerance"],
}

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city, in °C.",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}}}
FLOATY = {"type": "function", "function": {
    "name": "fit", "description": "Fits a model.", "parameters": FLOAT_PARAMS}}


def call(args, name="get_weather", cid="call_1"):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def user(text):
    return {"role": "user", "content": text}


def asst(content, **kw):
    return {"role": "assistant", "content": content, **kw}


def history_with_call(args, content=""):
    return [user("What is the weather in Paris?"),
            asst(content, tool_calls=[call(args)]),
            {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 21.5}"},
            user("Thanks. And tomorrow?")]


VARS = ("{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}|{{ tools is none }}|"
        "{{ tool_choice | default('no tool_choice') }}|{{ strftime_now('%Y-%m-%d %H:%M:%S %A') }}|"
        "{{ enable_thinking | default('unset') }}|{{ messages | length }}")
STRINGS = ("quotes \" and \\ backslash, tab\tnewline\n, C0 \u0001\u001f, DEL \u007f, "
           "U+2028 \u2028, é, 日本語, emoji 😀🏳️‍🌈, special tokens <|im_end|></s><|eot_id|>"
           "<｜end▁of▁sentence｜><end_of_turn>")


def prompts():
    P = []

    def add(slug, messages, tools=None, **kw):
        item = {"id": f"edge:{len(P):03d}:{slug}", "messages": messages, "tools": tools}
        item.update(kw)
        P.append(item)

    # Rendered by the tokenizers' own templates.
    add("plain", [user("Hello, world")])
    add("system_multi_turn", [{"role": "system", "content": "You are terse."}, user("Hi"),
                              asst("Hello! How can I help?"), user("Say ünïcödé 😀")])
    add("args_object_string", history_with_call("{\"city\": \"Paris\", \"days\": 3, \"t\": 1e-05}"), [WEATHER])
    add("args_array_string", history_with_call("[1, 2, 3]"), [WEATHER])
    add("args_invalid_json", history_with_call("{not json"), [WEATHER])
    add("args_json_null", history_with_call("null"), [WEATHER])
    add("args_json_number", history_with_call("42"), [WEATHER])
    add("args_dict", history_with_call({"city": "Paris", "days": 2}), [WEATHER])
    add("args_nested_order", history_with_call("{\"z\": 1, \"a\": {\"y\": [true, null], \"b\": 2.50}}"), [WEATHER])
    add("tool_calls_empty", [user("Hi"), asst("Sure.", tool_calls=[]), user("Go on")], [WEATHER])
    add("tool_call_no_function", [user("Hi"), asst("", tool_calls=[{"id": "c", "type": "function"}]),
                                  user("Go on")], [WEATHER])
    add("tools_floats", [user("Fit it.")], [FLOATY])
    add("reasoning_in_history", [user("2+2?"), asst("4", reasoning_content="Two and two make four."),
                                 user("3+3?")])
    add("content_parts", [{"role": "user", "content": [{"type": "text", "text": "Hi in parts"}]}])
    add("messages_empty", [])
    add("enable_thinking_false", [user("Quick answer, please.")], chat_template_kwargs={"enable_thinking": False})
    add("strings", [user(STRINGS)])
    # The agentic shape: an assistant turn with tool calls and content null
    # (qwen3, deepseek_v3 and gemma3 fail and fall back to the prompt's JSON,
    # where the parsed arguments carry floats in msgspec's layout).
    add("null_content_float_args",
        history_with_call("{\"x\": 1e-05, \"y\": 1E5, \"z\": 1e16, \"w\": 2.5e-08, \"n\": 10}", None), [FLOATY])

    # A template given with the item: fallbacks of every class.
    boom = "{{ raise_exception('boom') }}"
    add("fallback_template_error_floats", [user("Fit it.")], [FLOATY], chat_template=boom)
    add("fallback_template_error_strings", [user(STRINGS), asst(STRINGS, reasoning_content=STRINGS)],
        [WEATHER], chat_template=boom)
    add("fallback_tools_null", [user("no tools")], None, chat_template=boom)
    add("fallback_args_normalized", history_with_call("{\"b\": 1.0e2, \"a\": -0.0, \"c\": \"x\"}"),
        [WEATHER], chat_template=boom)
    add("fallback_args_unparsed", history_with_call("[1.0e2]"), [WEATHER], chat_template=boom)
    add("fallback_undefined", [user("Hi")], chat_template="{{ messages[0].nope.deeper }}")
    add("fallback_type_error", [user("Hi")], chat_template="{{ messages[0].content + 1 }}")
    add("fallback_zero_division", [user("Hi")], chat_template="{{ 1 / 0 }}")
    add("fallback_security", [user("Hi")], chat_template="{{ messages.append(1) }}")
    add("fallback_syntax", [user("Hi")], chat_template="{% if %}")
    add("fallback_empty_messages", [], chat_template=boom)

    # Template variables, seen through a template given with the item.
    add("vars_plain", [user("Hi")], chat_template=VARS)
    add("vars_tools_tool_choice", [user("Hi")], [WEATHER], chat_template=VARS, tool_choice="auto",
        chat_template_kwargs={"enable_thinking": False})
    add("vars_tool_choice_object", [user("Hi")], [WEATHER], chat_template="{{ tool_choice | tojson }}",
        tool_choice={"type": "function", "function": {"name": "get_weather"}})
    add("vars_tool_choice_null", [user("Hi")], chat_template="{{ tool_choice is defined }}", tool_choice=None)
    add("vars_kwarg_bos", [user("Hi")], chat_template=VARS, chat_template_kwargs={"bos_token": "<<B>>"})
    add("vars_kwargs_apply_params", [user("Hi")], chat_template=(
        "{{ add_generation_prompt }}|{{ documents | tojson }}|{{ tools is none }}|{{ tokenize is defined }}|"
        "{{ continue_final_message is defined }}|{{ padding is defined }}"),
        chat_template_kwargs={"add_generation_prompt": False, "tokenize": True, "tools": [WEATHER],
                              "documents": [{"title": "d", "text": "t"}], "continue_final_message": False,
                              "padding": True})
    add("vars_kwarg_chat_template", [user("Hi")], chat_template="from the item",
        chat_template_kwargs={"chat_template": "from the kwargs: {{ messages | length }}"})
    add("vars_template_named_default", [user("Hi")], chat_template="default")
    add("vars_add_generation_prompt_false", [user("Hi")], chat_template="{{ add_generation_prompt }}",
        add_generation_prompt=False)
    add("vars_kwargs_empty", [user("Hi")], chat_template=VARS, chat_template_kwargs={})
    add("vars_kwarg_messages", [user("Hi")], chat_template="{{ messages | tojson }}|{{ extra }}",
        chat_template_kwargs={"extra": {"k": [1, 2.0, None, True]}})
    return P


def messages():
    M = []

    def add(slug, content="", reasoning=None, tool_calls=None, **kw):
        item = {"id": f"msg:{len(M):03d}:{slug}", "content": content, "reasoning": reasoning,
                "tool_calls": tool_calls}
        item.update(kw)
        M.append(item)

    add("content_only", "Hello there. How can I help you today?")
    add("content_and_reasoning", "The answer is 4.", "2 + 2 = 4, simple arithmetic.")
    add("reasoning_only", "", "Let me think about this carefully.")
    add("args_object_string", "", "Need the weather.", [call("{\"city\": \"Paris\", \"days\": 3}")])
    add("args_object_string_floats", "", None, [call("{\"t\": 1e-05, \"u\": 1E5, \"v\": 1e16, \"w\": -0.0}")])
    add("args_dict", "Calling.", None, [call({"city": "Paris", "days": 2, "x": 2.5e-08})])
    add("args_invalid_json", "", None, [call("{not json")])
    add("args_array_string", "", None, [call("[1, 2.0, 3e-7]")])
    add("two_calls", "Two calls.", "Both cities.", [call("{\"city\": \"Paris\"}", cid="a"),
                                                   call("{\"city\": \"Oslo\"}", cid="b")])
    add("all_null", None, None, None)
    add("all_empty", "", "", [])
    add("content_null_with_call", None, None, [call("{\"city\": \"Rome\"}")])
    add("special_tokens", "<|im_end|><think></think></s><|eot_id|><end_of_turn>", "<think>")
    add("strings", STRINGS, STRINGS)
    add("long", "All work and no play makes Jack a dull boy. " * 120, "Hmm. " * 200)
    add("marked_undefined", "UNDEFINED here", "why")
    add("marked_type", "TYPE here", None)
    add("marked_undefined_call", "UNDEFINED and a call", None, [call("{\"a\": 1.5e300}")])
    add("no_content_key_reasoning", reasoning="only reasoning, no content key")
    M[-1].pop("content")
    add("tool_call_no_function", "", None, [{"id": "x", "type": "function"}])
    # Not the types upstream's MessageInput holds: the oracle (and upstream's
    # code) fails on most of them outside the render: the item has no count.
    add("bad_tool_calls_object", "x", None, {"a": 1})
    add("bad_tool_call_string", "x", None, ["not a call"])
    add("bad_content_int", 5)
    add("bad_reasoning_int", "x", 7)
    return M


def dump(item):
    s = json.dumps(item, ensure_ascii=False)
    while RAW in s:
        i = s.index('"' + RAW)
        j = s.index('"', i + 1)
        s = s[:i] + s[i + 1 + len(RAW):j] + s[j + 1:]
    return s


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "edge")
    os.makedirs(out, exist_ok=True)
    for name, items in (("prompts.jsonl", prompts()), ("messages.jsonl", messages())):
        with open(os.path.join(out, name), "w", encoding="utf-8", newline="\n") as f:
            for it in items:
                f.write(dump(it) + "\n")
        print(f"gen_edge: {name}: {len(items)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
