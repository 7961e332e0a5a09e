#!/usr/bin/env python3
"""Writes contexts/edge.jsonl: hand-written edge-case render contexts.

  python3 gen_edge.py [OUT]          (default OUT: contexts/edge.jsonl beside this script)

Each line is an oracle `prompt` input
  {"id": "edge:NNN:<slug>", "messages", "tools", "documents",
   "add_generation_prompt", "chat_template_kwargs"}
covering what the chat templates in <shared>/data/templates/ and the tokenizer
packages' own templates branch on. Deterministic, python3 stdlib only.

A few number and string literals are written verbatim (not as json.dumps
would print them) to exercise the JSON reader: 1E5, -0, 1.0e2, 5e-324, 1e300,
integers beyond 64 bits, \\u escapes with a surrogate pair and \\u0000.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = "@@RAW@@"          # "@@RAW@@<text>" -> <text> written verbatim (no quotes)

CASES = []


def raw(text):
    return RAW + text


def c(slug, messages, tools=None, documents=None, agp=True, kwargs=None):
    CASES.append({"slug": slug, "messages": messages, "tools": tools,
                  "documents": documents, "add_generation_prompt": agp,
                  "chat_template_kwargs": kwargs})


def S(t): return {"role": "system", "content": t}
def U(t): return {"role": "user", "content": t}
def A(t): return {"role": "assistant", "content": t}


def TC(name, args, id=None, flat=False, typ=True):
    if flat:
        d = {"name": name, "arguments": args}
    else:
        d = {"function": {"name": name, "arguments": args}}
        if typ:
            d = {"type": "function", **d}
    if id is not None:
        d = {"id": id, **d}
    return d


def AT(calls, content=None, **extra):
    m = {"role": "assistant", "content": content, "tool_calls": calls}
    m.update(extra)
    return m


def T(content, tool_call_id=None, **extra):
    m = {"role": "tool", "content": content}
    if tool_call_id is not None:
        m["tool_call_id"] = tool_call_id
    m.update(extra)
    return m


# ---------------------------------------------------------------- tools ----
W = {"type": "function", "function": {
    "name": "get_weather",
    "description": "Get the current weather in a given location",
    "parameters": {"type": "object",
                   "properties": {
                       "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                       "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"}},
                   "required": ["location"]}}}

TIME = {"type": "function", "function": {
    "name": "get_time",
    "description": "Current time in a time zone.",
    "parameters": {"type": "object",
                   "properties": {"tz": {"type": "string", "description": "IANA zone", "default": "UTC"}},
                   "required": []}}}

FLOATS = {"type": "function", "function": {
    "name": "tune",
    "description": "Numbers of every kind in a schema",
    "parameters": {"type": "object",
                   "properties": {
                       "zero": {"type": "number", "description": "float zero", "default": 0.0},
                       "tiny": {"type": "number", "description": "small", "default": 1e-05, "minimum": 1e-07},
                       "half": {"type": "number", "default": 1.5, "maximum": 2.5, "minimum": -1.5},
                       "negzero": {"type": "number", "default": -0.0},
                       "huge": {"type": "number", "default": 1e16, "maximum": 1e+22},
                       "big_int": {"type": "integer", "default": 123456789012345678901234567890},
                       "int": {"type": "integer", "default": 7, "minimum": 0, "maximum": 100},
                       "third": {"type": "number", "default": 0.30000000000000004},
                       "flag": {"type": "boolean", "default": False},
                       "nothing": {"type": "string", "default": None, "nullable": True},
                       "ratio": {"type": "number", "enum": [0.5, 1.0, 2, -0.0]}},
                   "required": ["zero", "half"]}}}

UNI = {"type": "function", "function": {
    "name": "traduire_texte",
    "description": "Übersetzt Text 🌍 — 翻译文本 / ترجمة \"quoted\" and back\\slash\nsecond line\ttab",
    "parameters": {"type": "object",
                   "properties": {
                       "texte": {"type": "string", "description": "Le texte à traduire 😀👩‍👩‍👧‍👦 🇫🇷"},
                       "langue_cible": {"type": "string", "enum": ["français", "日本語", "Ελληνικά"],
                                        "description": "言語"},
                       "ключ": {"type": "string", "description": "non-ASCII property name"}},
                   "required": ["texte", "langue_cible"]}}}

NESTED = {"type": "function", "function": {
    "name": "create_order",
    "description": "Create an order with nested structures.",
    "parameters": {
        "type": "object",
        "properties": {
            "customer": {"type": "object", "description": "Who orders",
                         "properties": {
                             "name": {"type": "string", "description": "Full name"},
                             "address": {"type": "object", "description": "Postal address",
                                         "properties": {"street": {"type": "string"},
                                                        "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                                         "required": ["street"]}},
                         "required": ["name"]},
            "items": {"type": "array", "description": "Line items",
                      "items": {"type": "object",
                                "properties": {"sku": {"type": "string"},
                                               "qty": {"type": "integer", "minimum": 1},
                                               "price": {"type": "number", "default": 9.99}},
                                "required": ["sku", "qty"]}},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["gift", "express"]}},
            "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            "any_list": {"type": "array"},
            "note": {"type": ["string", "integer"], "description": "Text or number"},
            "priority": {"type": "integer", "enum": [1, 2, 3], "default": 2},
            "mode": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer", "format": "int64"}],
                     "description": "A union"},
            "when": {"type": "string", "format": "date-time", "description": "When",
                     "examples": ["2025-01-15T12:00:00Z", "tomorrow"]},
            "extras": {"type": "object", "additionalProperties": {"type": "integer"},
                       "description": "Map of counters"},
            "maybe": {"type": "string", "nullable": True, "maxLength": 10, "minLength": 2}},
        "required": ["customer", "items"]},
    "return": {"type": "object", "description": "The order id"},
    "returns": {"type": "object", "properties": {"order_id": {"type": "string", "description": "new id"}}}}}

# "type": [..., "null"]: templates that recurse on each type name (hermes3's
# json_to_python_type) recurse forever on a non-basic type string -> RecursionError.
NULLABLE = {"type": "function", "function": {
    "name": "annotate", "description": "Type lists with null",
    "parameters": {"type": "object",
                   "properties": {"note": {"type": ["string", "null"], "description": "Optional note"},
                                  "count": {"type": "integer", "description": "How many"}},
                   "required": ["count"]}}}

FLAT = {"name": "lookup", "description": "A tool without the function wrapper",
        "parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "query"}},
                       "required": ["q"]}}

CODE_INTERP = {"type": "code_interpreter"}

NO_PARAMS = {"type": "function", "function": {"name": "ping", "description": "No parameters at all"}}

EMPTY_PROPS = {"type": "function", "function": {
    "name": "noop", "description": "Empty properties",
    "parameters": {"type": "object", "properties": {}, "required": []}}}

RAWNUM = {"type": "function", "function": {
    "name": "raw_numbers",
    "description": "number literals as written in the JSON text",
    "parameters": {"type": "object",
                   "properties": {
                       "a": {"type": "number", "default": raw("1E5")},
                       "b": {"type": "integer", "default": raw("-0")},
                       "c": {"type": "number", "default": raw("1.0e2")},
                       "d": {"type": "number", "default": raw("5e-324")},
                       "e": {"type": "number", "default": raw("1e300")},
                       "f": {"type": "number", "default": raw("1e15")},
                       "g": {"type": "number", "default": raw("100.0")},
                       "h": {"type": "integer", "default": raw("12345678901234567890")},
                       "i": {"type": "integer", "default": raw("-9223372036854775809")},
                       "j": {"type": "number", "default": raw("0.1"), "maximum": raw("2.50"), "minimum": raw("-1e-7")},
                       "k": {"type": "number", "default": raw("1.7976931348623157e308")}},
                   "required": []}}}

SEARCH = {"type": "function", "function": {
    "name": "search", "description": "Web search",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string", "description": "What to look for"},
        "limit": {"type": "integer", "description": "Max results", "default": 10}},
        "required": ["query"]}}}


def many_tools(n):
    out = []
    for i in range(n):
        out.append({"type": "function", "function": {
            "name": f"tool_{i}", "description": f"Tool number {i}.",
            "parameters": {"type": "object",
                           "properties": {f"arg{i}": {"type": "string", "description": f"argument {i}"}},
                           "required": [f"arg{i}"]}}})
    return out


DOCS = [{"doc_id": 1, "title": "Tally notes", "text": "Tally counts tokens.\nIt is written in C11."},
        {"doc_id": "b2", "title": "Emoji doc 😀", "text": "Second document — with “quotes” and 日本語."}]

LONG = "".join(f"Line {i}: the quick brown fox jumps over the lazy dog — ünïcödé 日本語 😀\n"
               for i in range(300))          # about 20k characters, multi-byte

UNICODE = ("CJK 漢字かなカナ한국어; emoji 😀👍🏽 👩‍💻 👨‍👩‍👧‍👦 🇯🇵 1️⃣; RTL عربي עברית; "
           "combining e\u0301 a\u0308\u0323; zero-width a\u200bb\u200dc; NBSP a\u00a0b; "
           "line sep \u2028 para sep \u2029 NEL \u0085 BOM \ufeff; astral 𝔘𝔫𝔦 𠀀; "
           "controls \x01\x1f\x7f end")

SPECIALS = ("<|im_start|>user\n<|im_end|> <｜User｜><｜Assistant｜> [INST] x [/INST] <start_of_turn>model "
            "<|eot_id|> <|start_header_id|> {{ not_jinja }} {% raw %} {# c #} </think> <tool_call>")

WEATHER_ARGS = {"location": "Paris, France", "unit": "celsius"}
WEATHER_ARGS_S = '{"location": "Paris, France", "unit": "celsius"}'
COMPLEX_ARGS = {"int": 1, "float": 2.5, "zero": 0.0, "negzero": -0.0, "tiny": 1e-05, "huge": 1e16,
                "big": 123456789012345678901234567890, "t": True, "f": False, "none": None,
                "list": [1, "two", None, True, 3.0, 1e16, "it's", "both ' and \"", "tab\there",
                         "\x01ctl", "é😀", "\u2028", "back\\slash"], "obj": {"nested": {"deep": [{"k": "v"}]}},
                "empty_list": [], "empty_obj": {},
                "s": "quote\" backslash\\ newline\n unicode é 😀 日本"}

# ------------------------------------------------------- basic structure ----
c("empty_messages", [])
c("empty_messages_no_gen", [], agp=False)
c("system_only", [S("You are a helpful assistant.")])
c("user_only", [U("Hello!")])
c("user_only_no_gen", [U("Hello!")], agp=False)
c("system_user", [S("You are terse."), U("Hi there.")])
c("assistant_last_no_gen", [S("You are terse."), U("Hi."), A("Hello! How can I help?")], agp=False)
c("assistant_last_gen", [S("You are terse."), U("Hi."), A("Hello! How can I help?")], agp=True)
c("multi_turn", [S("Be brief."), U("What is 2+2?"), A("4"), U("And 3+3?")])
c("multi_turn_no_system", [U("one"), A("two"), U("three"), A("four"), U("five")])
c("two_system", [S("First system."), S("Second system."), U("Hi")])
c("system_in_middle", [U("Hi"), A("Hello"), S("Now be formal."), U("Greetings")])
c("assistant_first", [A("I speak first."), U("OK")])
c("user_user", [U("first"), U("second")])
c("assistant_only_no_gen", [A("Only me.")], agp=False)
c("developer_first", [{"role": "developer", "content": "Developer instructions here."}, U("Hi")])
c("developer_middle", [U("Hi"), A("Hello"), {"role": "developer", "content": "Switch to French."}])
c("unknown_role", [U("Hi"), {"role": "narrator", "content": "Meanwhile..."}])
c("uppercase_roles", [{"role": "SYSTEM", "content": "Upper system."}, {"role": "USER", "content": "Upper user."}])
c("chatbot_role", [U("Hi"), {"role": "chatbot", "content": "Hello from chatbot."}, U("Bye")])
c("missing_role", [{"content": "no role here"}])
c("extra_keys_and_names", [
    {"role": "system", "content": "Sys.", "id": "msg_0", "metadata": {"source": "test", "score": 0.5}},
    {"role": "user", "content": "Hi, I'm Alice.", "name": "alice", "weight": 1, "timestamp": 1736942400},
    {"role": "assistant", "content": "Hello Alice.", "name": "helper", "extra": [1, 2, 3]},
    {"role": "user", "content": "Bye.", "name": "alice"}])

# --------------------------------------------------------- content forms ----
c("content_null_user", [{"role": "user", "content": None}])
c("content_missing_user", [{"role": "user"}])
c("content_null_system", [{"role": "system", "content": None}, U("Hi")])
c("content_null_assistant_last", [U("Hi"), A(None)], agp=False)
c("content_null_assistant_history", [U("Hi"), A(None), U("Again")])
c("content_missing_assistant_history", [U("Hi"), {"role": "assistant"}, U("Again")])
c("content_empty_strings", [S(""), U(""), A(""), U("")])
c("content_whitespace_only", [S("   "), U("  \n\t  "), A("\n\n"), U(" ")])
c("content_padded", [S("\n  system with padding  \n"), U("\n\n  hello  \n\n"), A("  answer\n"), U("\tq\t")])
c("content_parts_text", [{"role": "user", "content": [{"type": "text", "text": "Hello"},
                                                        {"type": "text", "text": " world"}]}])
c("content_parts_image_text", [{"role": "user", "content": [{"type": "text", "text": "What is this?"},
                                                              {"type": "image"}]}])
c("content_parts_image_url", [{"role": "user", "content": [
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    {"type": "text", "text": "Describe."},
    {"type": "text", "text": " Briefly."}]}])
c("content_parts_system", [{"role": "system", "content": [{"type": "text", "text": "System as parts."}]},
                           U("Hi")])
c("content_parts_system_thinking", [{"role": "system", "content": [
    {"type": "text", "text": "Sys text."}, {"type": "thinking", "thinking": "sys thought"}]}, U("Hi")])
c("content_parts_assistant", [U("Hi"), {"role": "assistant", "content": [
    {"type": "thinking", "thinking": "let me think"}, {"type": "text", "text": "Answer."}]}], agp=False)
c("content_parts_all_roles", [
    {"role": "system", "content": [{"type": "text", "text": "S"}]},
    {"role": "user", "content": [{"type": "text", "text": "U1"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "A1"}]},
    {"role": "user", "content": [{"type": "text", "text": "U2"}]}])
c("content_parts_strings", [{"role": "user", "content": ["plain ", "strings"]}])
c("content_parts_empty_list", [{"role": "user", "content": []}])
c("content_int", [{"role": "user", "content": 42}])
c("content_dict", [{"role": "user", "content": {"text": "a dict as content"}}])
c("content_very_long", [S("Summarise."), U(LONG)])
c("content_unicode", [S("Système 🌍"), U(UNICODE), A("Réponse ✓ 完成"), U("再见 👋")])
c("content_special_token_strings", [S(SPECIALS), U(SPECIALS)])
c("content_json_escapes", [U(raw('"caf\\u00e9 \\ud83d\\ude00 tab\\t quote\\" slash\\/ nul\\u0000 end \\u2028"'))])
c("content_think_assistant_last", [U("2+2?"), A("<think>\nadd them\n</think>\n\n4")], agp=False)
c("content_think_assistant_history", [U("2+2?"), A("<think>\nadd them\n</think>\n\n4"), U("3+3?")])
c("content_think_close_only", [U("q"), A("reasoning text</think>\nthe answer")], agp=False)
c("content_think_after_last_user", [U("q1"), A("a1"), U("q2"), A("<think>r2</think>a2")], agp=False)
c("nothink_suffix", [U("Hello /nothink")], kwargs={"enable_thinking": False})
c("think_flags", [S("/think Be brief."), U("/no_think What is 1+1?")])
c("think_flag_user", [S("Plain system."), U("Explain /think please")])

# ------------------------------------------------------------- reasoning ----
c("reasoning_last", [U("Why?"), {"role": "assistant", "content": "Because.",
                                 "reasoning_content": "\nThe user asks why.\n"}], agp=False)
c("reasoning_history", [U("Why?"), {"role": "assistant", "content": "Because.",
                                    "reasoning_content": "thinking..."}, U("Really?")])
c("reasoning_null", [U("Why?"), {"role": "assistant", "content": "Because.", "reasoning_content": None}],
  agp=False)
c("reasoning_empty", [U("Why?"), {"role": "assistant", "content": "Because.", "reasoning_content": ""}],
  agp=False)
c("reasoning_multi_step", [
    S("You can use tools."), U("Weather in Paris?"),
    AT([TC("get_weather", WEATHER_ARGS, id="call_0001")], content="", reasoning_content="I should call the tool."),
    T('{"temp": 18.5}', "call_0001"),
    {"role": "assistant", "content": "It is 18.5 °C.", "reasoning_content": "The tool said 18.5."}],
  tools=[W], agp=False)
c("thinking_field", [U("Hi"), {"role": "assistant", "content": "Hello.", "thinking": "greet back"}], agp=False)
c("thinking_field_history", [U("Hi"), {"role": "assistant", "content": "Hello.", "thinking": "greet"}, U("Bye")])
c("channel_tag_in_content", [U("Hi"), A("<|channel|>analysis<|message|>oops")])

# ------------------------------------------------------------ tool calls ----
c("tool_call_dict_args", [U("Weather in Paris?"),
                          AT([TC("get_weather", WEATHER_ARGS, id="call_0001")]),
                          T('{"temperature": 18, "unit": "celsius"}', "call_0001")], tools=[W])
c("tool_call_string_args", [U("Weather in Paris?"),
                            AT([TC("get_weather", WEATHER_ARGS_S, id="call_0001")]),
                            T('{"temperature": 18, "unit": "celsius"}', "call_0001")], tools=[W])
c("tool_call_string_args_empty_content", [U("Weather in Paris?"),
                                          AT([TC("get_weather", WEATHER_ARGS_S, id="call_0001")], content=""),
                                          T("18C", "call_0001")], tools=[W])
c("tool_call_missing_content", [U("Weather in Paris?"),
                                {"role": "assistant", "tool_calls": [TC("get_weather", WEATHER_ARGS, id="call_0001")]},
                                T("18C", "call_0001")], tools=[W])
c("tool_call_with_content", [U("Weather in Paris?"),
                             AT([TC("get_weather", WEATHER_ARGS, id="call_0001")], content="Let me check."),
                             T("18C", "call_0001"), A("It is 18C."), U("Thanks")], tools=[W])
c("multi_tool_calls_dict", [U("Weather and time in Paris?"),
                            AT([TC("get_weather", WEATHER_ARGS, id="call_0001"),
                                TC("get_time", {"tz": "Europe/Paris"}, id="call_0002")]),
                            T("18C", "call_0001"), T("12:00", "call_0002")], tools=[W, TIME])
c("multi_tool_calls_string", [U("Weather and time in Paris?"),
                              AT([TC("get_weather", WEATHER_ARGS_S, id="call_0001"),
                                  TC("get_time", '{"tz": "Europe/Paris"}', id="call_0002")]),
                              T("18C", "call_0001"), T("12:00", "call_0002")], tools=[W, TIME])
c("multi_tool_calls_three_no_ids", [U("Three things"),
                                    AT([TC("get_weather", {"location": "A"}), TC("get_weather", {"location": "B"}),
                                        TC("get_time", {})]),
                                    T("a"), T("b"), T("c")], tools=[W, TIME])
c("tool_call_flat", [U("Look it up"), AT([TC("lookup", {"q": "tally"}, flat=True)]), T("found")], tools=[FLAT])
c("tool_call_no_type", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS, typ=False, id="abc123XYZ")]),
                        T("18C", "abc123XYZ")], tools=[W])
c("tool_call_ids_len9", [S("Use tools."), U("Weather in Paris?"),
                         AT([TC("get_weather", WEATHER_ARGS, id="a1b2c3d4e")]),
                         T("18C", "a1b2c3d4e"), A("It is 18C."), U("Thanks!")], tools=[W])
c("tool_call_complex_args", [U("Do it"), AT([TC("tune", COMPLEX_ARGS, id="call_0003")]),
                             T("done", "call_0003")], tools=[FLOATS])
c("tool_call_complex_args_no_gen", [U("Do it"), AT([TC("tune", COMPLEX_ARGS, id="call_0003")])],
  tools=[FLOATS], agp=False)
c("tool_call_empty_args", [U("Ping twice"), AT([TC("ping", {}, id="call_0004"), TC("ping", "", id="call_0005")]),
                           T("pong", "call_0004"), T("pong", "call_0005")], tools=[NO_PARAMS])
c("tool_call_no_arguments", [U("Ping"), AT([{"type": "function", "id": "call_0006", "function": {"name": "ping"}}]),
                             T("pong", "call_0006")], tools=[NO_PARAMS])
c("tool_content_dict", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS, id="call_0001")]),
                        T({"temperature": 18, "unit": "celsius", "content": "inner"}, "call_0001")], tools=[W])
c("tool_content_list", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS, id="call_0001")]),
                        T([{"output": "first"}, {"output": "second"}, "third"], "call_0001")], tools=[W])
c("tool_content_null", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS, id="call_0001")]),
                        T(None, "call_0001")], tools=[W])
c("tool_with_name", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS)]),
                     T("18C", name="get_weather")], tools=[W])
c("tool_first", [T("orphan tool output", "call_x"), U("What was that?")])
c("tool_only_after_system", [S("Sys."), T("orphan")])
c("tool_calls_empty_list", [U("Hi"), {"role": "assistant", "content": "Hello.", "tool_calls": []}, U("Bye")])
c("tool_calls_null", [U("Hi"), {"role": "assistant", "content": "Hello.", "tool_calls": None}, U("Bye")])
c("tool_then_final_no_gen", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS, id="call_0001")],
                                               thinking="need weather"),
                             T("18C", "call_0001"), A("It is 18C.")], tools=[W], agp=False)
c("two_rounds_of_tools", [U("Weather in A then B"),
                          AT([TC("get_weather", {"location": "A"}, id="call_0001")]), T("10C", "call_0001"),
                          AT([TC("get_weather", {"location": "B"}, id="call_0002")]), T("20C", "call_0002")],
  tools=[W])
c("function_role", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS)]),
                    {"role": "function", "name": "get_weather", "content": "18C"}], tools=[W])
c("ipython_role", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS)]),
                   {"role": "ipython", "content": {"temperature": 18}}], tools=[W])
c("tool_results_role", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS, id="a1b2c3d4e")]),
                        {"role": "tool_results", "content": "18C", "tool_call_id": "a1b2c3d4e"}], tools=[W])
c("tool_response_user_wrapped", [U("<tool_response>\nprevious result\n</tool_response>"), A("ok"), U("next")])

# ----------------------------------------------------------------- tools ----
c("tools_null", [U("What's the weather?")], tools=None)
c("tools_empty_list", [U("What's the weather?")], tools=[])
c("tools_basic", [U("What's the weather in Paris?")], tools=[W])
c("tools_with_system", [S("You are a weather bot."), U("What's the weather in Paris?")], tools=[W, TIME])
c("tools_floats", [U("Tune it")], tools=[FLOATS])
c("tools_unicode", [U("Traduis « bonjour » en 日本語")], tools=[UNI])
c("tools_nested", [U("Order two widgets")], tools=[NESTED])
c("tools_type_list_null", [U("Annotate")], tools=[NULLABLE])
c("tools_flat", [U("Look up tally")], tools=[FLAT])
c("tools_code_interpreter", [U("Compute 2**10")], tools=[CODE_INTERP, W])
c("tools_no_params", [U("Ping")], tools=[NO_PARAMS, EMPTY_PROPS])
c("tools_raw_numbers", [U("Numbers")], tools=[RAWNUM])
c("tools_many", [U("Pick a tool")], tools=many_tools(12))
c("tools_system_only", [S("Only a system message.")], tools=[W])
c("tools_no_gen", [S("Sys."), U("Weather?")], tools=[W, SEARCH], agp=False)
c("tools_and_documents", [U("Search the docs")], tools=[SEARCH], documents=DOCS)

# ------------------------------------------------------------- documents ----
c("documents_basic", [U("What is tally written in?")], documents=DOCS)
c("documents_via_kwargs", [U("What is tally written in?")], kwargs={"documents": DOCS})
c("documents_empty", [U("Anything?")], documents=[])
c("documents_controls", [U("What is tally written in?")], documents=DOCS,
  kwargs={"controls": {"citations": True, "hallucinations": True, "length": "short"}})
c("controls_no_documents", [U("Hi")], kwargs={"controls": {"length": "long"}})

# ---------------------------------------------------------------- kwargs ----
c("enable_thinking_false", [S("Sys."), U("Hi")], kwargs={"enable_thinking": False})
c("enable_thinking_true", [S("Sys."), U("Hi")], kwargs={"enable_thinking": True})
c("enable_thinking_false_history", [U("q1"), {"role": "assistant", "content": "a1", "reasoning_content": "r1"},
                                    U("q2")], kwargs={"enable_thinking": False})
c("thinking_true_history", [U("q1"), {"role": "assistant", "content": "a1", "reasoning_content": "r1"}, U("q2")],
  kwargs={"thinking": True})
c("thinking_true_tools", [U("Weather?"),
                          AT([TC("get_weather", WEATHER_ARGS, id="call_0001")], reasoning_content="call it"),
                          T("18C", "call_0001")], tools=[W], kwargs={"thinking": True})
c("bos_eos_override", [S("Sys."), U("Hi"), A("Hello")], agp=False,
  kwargs={"bos_token": "<BOS-OVERRIDE>", "eos_token": "<EOS-OVERRIDE>"})
c("custom_vars_unused", [U("Hi")], kwargs={"my_var": 1, "nested": {"a": [1, 2.0, None]}, "flag": True})
c("gptoss_kwargs", [{"role": "developer", "content": "Dev says hi."}, U("Search for tally")], tools=[SEARCH],
  kwargs={"reasoning_effort": "high", "model_identity": "You are Tally-GPT.",
          "builtin_tools": ["browser", "python"]})
c("builtin_tools_call", [U("Search the web for tally"),
                         AT([TC("brave_search", {"query": "tally tokenizer"})]),
                         {"role": "ipython", "content": "results..."}],
  kwargs={"builtin_tools": ["brave_search", "wolfram_alpha", "code_interpreter"], "date_string": "15 Jan 2025"})
c("custom_tools_system", [S("Sys."), U("Weather?")],
  kwargs={"custom_tools": [W], "tools_in_user_message": False})
c("tools_in_user_message_false", [S("Sys."), U("Weather?")], tools=[W], kwargs={"tools_in_user_message": False})
c("thinking_budget_0", [U("Hi")], kwargs={"thinking_budget": 0})
c("thinking_budget_512_json_tooldef", [S("Sys."), U("Weather?")], tools=[W],
  kwargs={"thinking_budget": 512, "use_json_tooldef": True})
c("thinking_budget_huge", [U("Hi")], kwargs={"thinking_budget": 100000})
c("enable_citations", [U("Search")], tools=[SEARCH], kwargs={"enable_citations": True})
c("firefunction_vars", [S("Sys."), U("Weather?")],
  kwargs={"functions": json.dumps([W["function"]]), "datetime": "2025-01-15"})
c("firefunction_vars_tool_call", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS_S)], content="calling"),
                                  T("18C")],
  kwargs={"functions": "[]", "datetime": "2025-01-15"})
FF = {"functions": json.dumps([W["function"], TIME["function"]]), "datetime": "2025-01-15"}
c("firefunction_multi_turn", [S("Be brief."), U("Hi"), A("Hello"), U("Weather in Paris?")], tools=[W], kwargs=FF)
c("firefunction_no_system_no_gen", [U("Hi"), A("Hello")], agp=False, kwargs=FF)
c("firefunction_tool_calls", [U("Weather and time?"),
                              AT([TC("get_weather", WEATHER_ARGS_S), TC("get_time", '{"tz": "UTC"}')]),
                              T("18C"), T("12:00"), A("18C at noon.")], kwargs=FF)
c("firefunction_dict_args", [U("Weather?"), AT([TC("get_weather", WEATHER_ARGS)]), T("18C")], kwargs=FF)
c("firefunction_bad_role", [U("Hi"), {"role": "narrator", "content": "x"}], kwargs=FF)
c("firefunction_empty", [], kwargs=FF)
c("tool_without_calls_named", [U("Hi"), A("Calling nothing."), T("result text", name="lookup"), U("ok")])
c("tool_call_content_and_thinking", [U("Weather?"),
                                     AT([TC("get_weather", WEATHER_ARGS)], content="checking", thinking="hmm"),
                                     T("18C")], tools=[W])
c("kwargs_apply_params", [U("Hi"), A("Hello")],
  kwargs={"add_generation_prompt": False, "tools": [W], "tokenize": True, "return_dict": True})
c("kwargs_continue_false", [U("Hi")], kwargs={"continue_final_message": False})
c("available_tools_kwarg", [U("Weather?")], kwargs={"available_tools": [W]})


RAW_RE = re.compile('"' + RAW + r'((?:[^"\\]|\\.)*)"')


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "contexts", "edge.jsonl")
    slugs = [x["slug"] for x in CASES]
    if len(set(slugs)) != len(slugs):
        sys.exit("gen_edge: duplicate slugs")
    lines = []
    for i, x in enumerate(CASES):
        item = {"id": f"edge:{i:03d}:{x['slug']}", "messages": x["messages"], "tools": x["tools"],
                "documents": x["documents"], "add_generation_prompt": x["add_generation_prompt"],
                "chat_template_kwargs": x["chat_template_kwargs"]}
        line = json.dumps(item, ensure_ascii=False)
        # verbatim literals: the string "@@RAW@@<text>" -> <text>, unquoted
        line = RAW_RE.sub(lambda m: json.loads('"' + m.group(1) + '"'), line)
        json.loads(line)  # still valid JSON
        lines.append(line)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")
    print(f"gen_edge: {len(lines)} contexts -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
