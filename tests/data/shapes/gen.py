#!/usr/bin/python3
"""Writes the test data of the input shapes (src/chat/shapes.c) and of
`tally count` (src/cli/cmd_count.c):

  /usr/bin/python3 tests/data/shapes/gen.py [--shared DIR] [--tokenizer qwen3]

helpers.jsonl and inputs.jsonl come from a small Python re-implementation of
upstream's TextModelOutput helpers and token triggers written straight from
the text of ../shared/docs/upstream-spec.md (§2.3 decoding of the array-like
payloads, §2.4 merge_tool_calls / str() / as_message_parts, §5.2 which events
reach the triggers, §6.2 the ISL and OSL triggers): the reference for these
is the spec, as upstream's own code is not available here. msgspec's JSON
layout comes from the oracle's mlc_json (../shared/oracle/oracle.py).

cli.jsonl holds `tally count` cases: each input line is turned into the
oracle request its kind means (by the same re-implementation, plus the
documented rules for the oracle's own objects) and counted by the oracle,
`count.sh --tokenizer qwen3 text | message | prompt --mlcommons`, with the
clock pinned at 2025-01-15T12:00:00; token ids are counted by len().
Needs Debian's /usr/bin/python3 with python3-jinja2 and the oracle installed.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
NOW = "2025-01-15T12:00:00"
REL = "tests/data/shapes"   # paths written into the data are relative to the project root

mlc_json = None   # the oracle's msgspec.json.encode, imported in main()


class Invalid(Exception):
    """The payload does not decode (msgspec would reject it) or a helper
    raises in Python (AttributeError, TypeError, ...)."""


# --------------------------------------------------------------------------
# Upstream's TextModelOutput helpers (spec §2.4)
# --------------------------------------------------------------------------

def merge_tool_calls(tc):
    if not tc:
        return None
    if not isinstance(tc[0], (list, tuple)):
        return tc
    merged = {}
    try:
        for chunk in tc:
            for partial in chunk:
                idx = partial.get("index", 0)
                if idx not in merged:
                    merged[idx] = {"type": "function", "function": {"arguments": ""}}
                if partial.get("id"):
                    merged[idx]["id"] = partial["id"]
                if partial.get("type"):
                    merged[idx]["type"] = partial["type"]
                fn = partial.get("function") or {}
                if fn.get("name"):
                    merged[idx]["function"]["name"] = fn["name"]
                if fn.get("arguments"):
                    merged[idx]["function"]["arguments"] += fn["arguments"]
        return tuple(merged[i] for i in sorted(merged))
    except (AttributeError, TypeError) as e:
        raise Invalid(f"{type(e).__name__}: {e}") from e


def tmo_str(output, reasoning, tool_calls):
    parts = []
    if reasoning:
        parts.extend([reasoning] if isinstance(reasoning, str) else reasoning)
    if output:
        parts.extend([output] if isinstance(output, str) else output)
    m = merge_tool_calls(tool_calls)
    if m:
        parts.append(mlc_json(list(m)))
    return "".join(parts)


def as_message_parts(output, reasoning, tool_calls):
    content = output if isinstance(output, str) else "".join(output)
    if not reasoning:
        r = None
    else:
        r = reasoning if isinstance(reasoning, str) else "".join(reasoning)
    return content, r, merge_tool_calls(tool_calls)


# --------------------------------------------------------------------------
# Decoding the array-like payloads as msgspec does (spec §2.3): fields in
# order after the tag, missing trailing ones default, extra ones ignored,
# each checked against its declared type.
# --------------------------------------------------------------------------

def _is_text(v, nullable):
    if v is None:
        return nullable
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))


def decode_tmo(arr):
    f = arr[1:] + [None] * max(0, 4 - len(arr))
    output = arr[1] if len(arr) > 1 else ""
    reasoning, tool_calls = f[1], f[2]
    if not _is_text(output, False) or not _is_text(reasoning, True):
        raise Invalid("output / reasoning type")
    if tool_calls is not None and not isinstance(tool_calls, list):
        raise Invalid("tool_calls type")
    return output, reasoning, tool_calls


def decode_prompt_data(arr):
    f = (arr[1:] + [None] * 7)[:7]
    text, ids, messages, tools, kwargs, tmpl, choice = f

    def check(ok):
        if not ok:
            raise Invalid("PromptData field type")
    check(text is None or isinstance(text, str))
    check(ids is None or (isinstance(ids, list)
                          and all(isinstance(x, int) and not isinstance(x, bool) for x in ids)))
    check(messages is None or (isinstance(messages, list) and all(isinstance(m, dict) for m in messages)))
    check(tools is None or (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)))
    check(kwargs is None or isinstance(kwargs, dict))
    check(tmpl is None or isinstance(tmpl, str))
    check(choice is None or isinstance(choice, (str, dict)))
    return text, ids, messages, tools, kwargs, tmpl, choice


# --------------------------------------------------------------------------
# Which kind, with which fields. Results:
#   ("ids", token_ids) ("text", text) ("message", content, reasoning, tool_calls)
#   ("prompt", messages, tools, tool_choice, chat_template, chat_template_kwargs)
#   ("skip",) ("error",)
# --------------------------------------------------------------------------

def isl(arr):
    """IslTrigger (spec §6.2) on a PromptData."""
    text, ids, messages, tools, kwargs, tmpl, choice = decode_prompt_data(arr)
    if ids is not None:
        return ("ids", ids)
    if text:
        return ("text", text)
    if messages is not None:
        return ("prompt", messages, tools, choice, tmpl, kwargs)
    return ("skip",)


def osl(arr):
    """OslTrigger (spec §6.2) on a TextModelOutput. MessageInput treats an
    empty tuple of tool calls as None (§6.5 tests them for truth)."""
    output, reasoning, tool_calls = decode_tmo(arr)
    if reasoning or tool_calls:
        c, r, tc = as_message_parts(output, reasoning, tool_calls)
        return ("message", c, r, list(tc) if tc else None)
    text = tmo_str(output, reasoning, tool_calls)
    return ("text", text) if text else ("skip",)


def payload(arr, want):
    tag = arr[0]
    if tag == "PromptData":
        if want == "auto":
            return isl(arr)
        text, ids, messages, tools, kwargs, tmpl, choice = decode_prompt_data(arr)
        if want == "ids" and ids is not None:
            return ("ids", ids)
        if want == "text" and text is not None:
            return ("text", text)
        if want == "prompt" and messages is not None:
            return ("prompt", messages, tools, choice, tmpl, kwargs)
        return ("error",)
    if tag == "TextModelOutput":
        if want == "auto":
            return osl(arr)
        output, reasoning, tool_calls = decode_tmo(arr)
        if want == "text":
            return ("text", tmo_str(output, reasoning, tool_calls))
        if want == "message":
            c, r, tc = as_message_parts(output, reasoning, tool_calls)
            return ("message", c, r, list(tc) if tc else None)
        return ("error",)
    if tag == "ErrorData":
        return ("skip",) if want == "auto" else ("error",)
    return ("error",)


def event(ev, want):
    """An events.jsonl line: with auto, only sample events with a uuid reach
    the triggers (§5.2), ISL on sample.issued, OSL on sample.complete."""
    t, data = ev["event_type"], ev.get("data")
    if data is not None and not (isinstance(data, list) and data and isinstance(data[0], str)):
        return ("error",)
    if want != "auto":
        return payload(data, want) if data is not None else ("error",)
    if t not in ("sample.issued", "sample.complete") or not ev.get("sample_uuid"):
        return ("skip",)
    tag = "PromptData" if t == "sample.issued" else "TextModelOutput"
    if data is None or data[0] != tag:
        return ("skip",)
    return payload(data, want)


def obj(v, want):
    """The oracle's objects (documented in src/chat/shapes.h)."""
    if want == "auto":
        if v.get("token_ids") is not None:
            want = "ids"
        elif v.get("text") is not None:
            want = "text"
        elif v.get("messages") is not None:
            want = "prompt"
        elif any(k in v for k in ("content", "reasoning", "tool_calls")):
            want = "message"
        else:
            return ("error",)
    if want == "ids":
        ids = v.get("token_ids")
        ok = isinstance(ids, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in ids)
        return ("ids", ids) if ok else ("error",)
    if want == "text":
        return ("text", v["text"]) if isinstance(v.get("text"), str) else ("error",)
    if want == "prompt":
        m, tools = v.get("messages"), v.get("tools")
        kw, tmpl, choice = v.get("chat_template_kwargs"), v.get("chat_template"), v.get("tool_choice")
        if (not isinstance(m, list) or not (tools is None or isinstance(tools, list))
                or not (kw is None or isinstance(kw, dict)) or not (tmpl is None or isinstance(tmpl, str))
                or not (choice is None or isinstance(choice, (str, dict)))):
            return ("error",)
        return ("prompt", m, tools, choice, tmpl, kw)
    if not any(k in v for k in ("content", "reasoning", "tool_calls")):
        return ("error",)   # none of a message's fields: not an empty message
    c, r, tc = v.get("content"), v.get("reasoning"), v.get("tool_calls")
    if (not (c is None or isinstance(c, str)) or not (r is None or isinstance(r, str))
            or not (tc is None or isinstance(tc, list))):
        return ("error",)
    return ("message", c, r, tc)


def classify(v, want):
    try:
        if isinstance(v, dict):
            if "event_type" in v:
                if not isinstance(v["event_type"], str):
                    return ("error",)
                return event(v, want)
            return obj(v, want)
        if isinstance(v, list) and v and isinstance(v[0], str):
            return payload(v, want)
        return ("error",)
    except Invalid:
        return ("error",)


def item_id(v):
    if not isinstance(v, dict):
        return None
    if "id" in v:
        return v["id"]
    if "event_type" in v and v.get("sample_uuid") not in (None, ""):
        return v["sample_uuid"]
    return None


def canonical(res):
    """The result as msgspec JSON text, the form tests/test_shapes.c writes
    its count_input in."""
    k = res[0]
    if k in ("skip", "error"):
        return k
    if k == "ids":
        d = {"kind": k, "token_ids": res[1]}
    elif k == "text":
        d = {"kind": k, "text": res[1]}
    elif k == "message":
        d = {"kind": k, "content": res[1], "reasoning": res[2], "tool_calls": res[3]}
    else:
        d = {"kind": k, "messages": res[1], "tools": res[2], "tool_choice": res[3],
             "chat_template": res[4], "chat_template_kwargs": res[5]}
    return mlc_json(d)


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

def delta(index=None, id=None, type=None, name=None, arguments=None, **extra):
    d = {}
    if index is not None:
        d["index"] = index
    if id is not None:
        d["id"] = id
    if type is not None:
        d["type"] = type
    fn = {}
    if name is not None:
        fn["name"] = name
    if arguments is not None:
        fn["arguments"] = arguments
    if fn:
        d["function"] = fn
    d.update(extra)
    return d


WEATHER = [
    [delta(0, id="call_1", type="function", name="get_weather", arguments="")],
    [delta(0, arguments="{\"city\": ")],
    [delta(0, arguments="\"Paris\", \"unit\": \"C\"}")],
]
PARALLEL = [
    [delta(0, id="call_a", type="function", name="search", arguments="{\"q\":")],
    [delta(1, id="call_b", type="function", name="lookup", arguments="{\"id\":")],
    [delta(0, arguments=" \"cats\"}"), delta(1, arguments=" 42}")],
]
COMPLETE_CALLS = [
    {"id": "call_9", "type": "function",
     "function": {"name": "calc", "arguments": "{\"x\": 1e-05, \"y\": 1e+16, \"z\": 2.5e-08}"}},
    {"type": "function", "function": {"name": "noargs", "arguments": {"already": "an object", "f": 1e-05, "g": 1e16, "h": 0.1}}},
]

# TextModelOutput payloads for the helpers: (name, fields after the tag).
TMO_CASES = [
    ("str output", ["Hello world"]),
    ("chunked output", [["Hel", "lo", " world"]]),
    ("empty output", [""]),
    ("defaults only", []),
    ("empty chunk list", [[]]),
    ("one empty chunk", [[""]]),
    ("str reasoning", ["answer", "thinking"]),
    ("chunked reasoning", ["answer", ["Let me ", "think"]]),
    ("empty reasoning", ["answer", ""]),
    ("empty reasoning list", ["answer", []]),
    ("reasoning of one empty chunk", ["answer", [""]]),
    ("null reasoning", ["answer", None, None]),
    ("streamed tool call", ["", None, WEATHER]),
    ("parallel tool calls", ["", None, PARALLEL]),
    ("tool calls with output and reasoning", ["Let me check.", ["hm", "m"], WEATHER]),
    ("complete tool calls kept as given", ["", None, COMPLETE_CALLS]),
    ("empty tool_calls", ["x", None, []]),
    ("one empty chunk of deltas", ["x", None, [[]]]),
    ("empty chunks", ["x", None, [[], [delta(0, name="f", arguments="{}")], []]]),
    ("index missing means 0", ["", None, [[delta(name="f")], [delta(0, arguments="{\"a\":1}")]]]),
    ("indexes out of order", ["", None, [[delta(2, name="c")], [delta(0, name="a")], [delta(1, name="b")]]]),
    ("negative and large indexes", ["", None, [[delta(7, name="s")], [delta(-3, name="m")], [delta(123456789012, name="b")]]]),
    ("string indexes", ["", None, [[delta("b", name="y")], [delta("a", name="x")], [delta("é", name="z")]]]),
    ("null index alone", ["", None, [[{"index": None, "function": {"name": "n"}}], [{"index": None, "id": "c1"}]]]),
    ("true merges with 1", ["", None, [[delta(1, name="one")], [delta(True, arguments="{}")]]]),
    ("false merges with 0", ["", None, [[delta(False, name="zero")], [delta(0, arguments="[1]")]]]),
    ("float index merges with int", ["", None, [[delta(1, name="one")], [delta(1.0, arguments="{}")], [delta(0.5, name="half")]]]),
    ("later id, type and name replace", ["", None, [[delta(0, id="a", type="function", name="f")],
                                                  [delta(0, id="b", type="custom", name="g", arguments="x")]]]),
    ("falsy id, type, name, arguments ignored", ["", None, [[delta(0, id="a", name="f", arguments="x")],
                                                          [{"index": 0, "id": "", "type": "", "function": {"name": "", "arguments": ""}}]]]),
    ("non-string id and type kept", ["", None, [[{"index": 0, "id": 17, "type": ["t"]}]]]),
    ("function null or empty", ["", None, [[{"index": 0, "function": None}], [{"index": 0, "function": {}}]]]),
    ("id appended after function", ["", None, [[delta(0, arguments="{")], [delta(0, id="late")], [delta(0, arguments="}")]]]),
    ("name appended after arguments", ["", None, [[delta(0, arguments="{}")], [delta(0, name="late")]]]),
    ("empty dict and empty string chunks", ["", None, [[delta(0, name="f")], {}, ""]]),
    ("unicode arguments", ["", None, [[delta(0, name="say", arguments="{\"t\": \"h\u00e9llo ")],
                                     [delta(0, arguments="\u4e16\u754c \U0001f389\"}")]]]),
    ("extra delta keys ignored", ["", None, [[delta(0, name="f", logprobs=None, extra={"a": 1})]]]),
    ("first element not a list: kept", ["", None, [{"id": "x"}, [delta(0)]]]),
    ("complete calls that are not objects kept", ["", None, [1, "two"]]),
    # Python raises in these.
    ("error: non-empty dict chunk", ["", None, [[delta(0)], {"a": 1}]]),
    ("error: string chunk", ["", None, [[delta(0)], "ab"]]),
    ("error: null chunk", ["", None, [[delta(0)], None]]),
    ("error: delta not an object", ["", None, [["x"]]]),
    ("error: function a string", ["", None, [[{"index": 0, "function": "f"}]]]),
    ("error: arguments a number", ["", None, [[delta(0, arguments=5)]]]),
    ("error: list index", ["", None, [[{"index": [0]}]]]),
    ("error: str and int indexes", ["", None, [[delta(0)], [delta("a")]]]),
    ("error: null and int indexes", ["", None, [[delta(0)], [{"index": None}]]]),
    # msgspec rejects these payloads.
    ("error: output null", [None]),
    ("error: output a number", [5]),
    ("error: output chunks not strings", [["a", 1]]),
    ("error: reasoning a number", ["", 3]),
    ("error: tool_calls an object", ["", None, {"a": 1}]),
]


def helper_case(name, fields):
    arr = ["TextModelOutput"] + fields
    out = {"name": name, "payload": arr}
    try:
        output, reasoning, tool_calls = decode_tmo(arr)
    except Invalid:
        out["error"] = True
        return out
    try:
        m = merge_tool_calls(tool_calls)
    except Invalid:
        out["error"] = True
        return out
    out["merged"] = None if m is None else mlc_json(list(m))
    out["str"] = tmo_str(output, reasoning, tool_calls)
    c, r, tc = as_message_parts(output, reasoning, tool_calls)
    out["parts"] = [c, r, None if tc is None else mlc_json(list(tc))]
    return out


PROMPT = [{"role": "user", "content": "What is 2+2?"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
                                           "parameters": {"type": "object", "properties": {
                                               "city": {"type": "string"}}, "required": ["city"]}}}]
HISTORY = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C, sunny"},
]
NULL_CONTENT = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
]


def ev(event_type, uuid, data, **extra):
    d = {"event_type": event_type, "timestamp_ns": 1000001000, "sample_uuid": uuid,
         "conversation_id": "", "turn": None, "data": data}
    d.update(extra)
    return d


UUID = "9f1c2d3e4b5a69788796a5b4c3d2e1f0"

# shapes_input cases for the automatic kind and the explicit ones that
# the spec's helpers define: (name, want, value).
INPUT_CASES = [
    ("PromptData ids win", "auto", ["PromptData", "text too", [1, 2, 3], PROMPT]),
    ("PromptData empty ids count 0", "auto", ["PromptData", "text", []]),
    ("PromptData text", "auto", ["PromptData", "Hello there", None, None, None, None, None, None]),
    ("PromptData empty text falls to messages", "auto", ["PromptData", "", None, PROMPT]),
    ("PromptData messages with everything", "auto",
     ["PromptData", None, None, HISTORY, TOOLS, {"enable_thinking": False}, "tool_use", "auto"]),
    ("PromptData tool_choice object", "auto",
     ["PromptData", None, None, PROMPT, None, None, None, {"type": "function", "function": {"name": "f"}}]),
    ("PromptData empty messages", "auto", ["PromptData", None, None, []]),
    ("PromptData extra elements ignored", "auto", ["PromptData", "hi", None, None, None, None, None, None, "x", 1]),
    ("PromptData nothing", "auto", ["PromptData"]),
    ("PromptData all null", "auto", ["PromptData", None, None, None, None, None, None, None]),
    ("PromptData empty text only", "auto", ["PromptData", ""]),
    ("PromptData bad ids", "auto", ["PromptData", None, [1, "2"]]),
    ("PromptData bool id", "auto", ["PromptData", None, [1, True]]),
    ("PromptData float id", "auto", ["PromptData", None, [1.0]]),
    ("PromptData text a number", "auto", ["PromptData", 5]),
    ("PromptData message not an object", "auto", ["PromptData", None, None, ["hi"]]),
    ("PromptData tools an object", "auto", ["PromptData", None, None, PROMPT, {"a": 1}]),
    ("PromptData kwargs a list", "auto", ["PromptData", None, None, PROMPT, None, [1]]),
    ("PromptData template a number", "auto", ["PromptData", None, None, PROMPT, None, None, 1]),
    ("PromptData tool_choice a number", "auto", ["PromptData", None, None, PROMPT, None, None, None, 1]),
    ("PromptData bad tools spoil ids", "auto", ["PromptData", None, [1], None, "x"]),
    ("PromptData explicit text", "text", ["PromptData", "", [1]]),
    ("PromptData explicit prompt", "prompt", ["PromptData", "hi", [1], PROMPT]),
    ("PromptData explicit ids", "ids", ["PromptData", "hi", [4, 5]]),
    ("PromptData explicit ids missing", "ids", ["PromptData", "hi"]),
    ("PromptData explicit message", "message", ["PromptData", "hi"]),
    ("ErrorData", "auto", ["ErrorData", "TimeoutError", "timed out"]),
    ("ErrorData explicit", "text", ["ErrorData", "TimeoutError"]),
    ("unknown tag", "auto", ["Foo", 1]),
    ("event issued", "auto", ev("sample.issued", UUID, ["PromptData", None, None, PROMPT])),
    ("event issued ids", "auto", ev("sample.issued", UUID, ["PromptData", None, [1, 2]])),
    ("event issued without uuid", "auto", ev("sample.issued", "", ["PromptData", "hi"])),
    ("event issued without data", "auto", ev("sample.issued", UUID, None)),
    ("event issued with output", "auto", ev("sample.issued", UUID, ["TextModelOutput", "x"])),
    ("event complete", "auto", ev("sample.complete", UUID, ["TextModelOutput", ["Hel", "lo world"], None, None],
                                  finish_reason="stop", worker_id=0)),
    ("event complete tools", "auto", ev("sample.complete", UUID, ["TextModelOutput", "", None, WEATHER])),
    ("event complete empty", "auto", ev("sample.complete", UUID, ["TextModelOutput", ""])),
    ("event complete with prompt", "auto", ev("sample.complete", UUID, ["PromptData", "x"])),
    ("event complete without data", "auto", ev("sample.complete", UUID, None)),
    ("event recv_first", "auto", ev("sample.recv_first", UUID, None)),
    ("event session", "auto", ev("session.started", "", None)),
    ("event error", "auto", ev("error.generic", UUID, ["ErrorData", "TimeoutError", "x"])),
    ("event bad data", "auto", ev("sample.issued", UUID, {"text": "x"})),
    ("event explicit text", "text", ev("sample.complete", UUID, ["TextModelOutput", "out", "why"])),
    ("event explicit prompt on recv", "prompt", ev("sample.recv_first", UUID, ["PromptData", None, None, PROMPT])),
    ("event explicit without data", "text", ev("session.started", "", None)),
] + [("TextModelOutput " + name, "auto", ["TextModelOutput"] + fields) for name, fields in TMO_CASES] \
  + [("TextModelOutput text " + name, "text", ["TextModelOutput"] + fields) for name, fields in TMO_CASES[:20]] \
  + [("TextModelOutput message " + name, "message", ["TextModelOutput"] + fields) for name, fields in TMO_CASES[:20]]


def input_case(name, want, value):
    res = classify(value, want)
    out = {"name": name, "want": want, "input": value, "result": canonical(res)}
    iid = item_id(value)
    if iid is not None:
        out["id"] = iid
    return out


# `tally count` cases: (args, value or raw line). Expected counts come from
# the oracle.
PLAIN = os.path.join(REL, "plain.jinja")
PLAIN_SRC = ("{% for m in messages %}"
             "{% if m.content == 'boom' %}{{ raise_exception('boom in ' ~ m.role) }}{% endif %}"
             "<{{ m.role }}>{{ m.content }}"
             "{% if m.reasoning_content %}[{{ m.reasoning_content }}]{% endif %}"
             "{% if m.tool_calls %}{{ m.tool_calls | tojson }}{% endif %}{% endfor %}"
             "{% if add_generation_prompt %}<assistant>{% endif %}")

CLI_CASES = [
    ("", {"id": 1, "text": "Hello world"}),
    ("", {"id": "t2", "text": ""}),
    ("", {"id": 3, "token_ids": [1, 2, 3], "text": "ignored"}),
    ("", {"id": 4, "token_ids": []}),
    ("", {"id": 5, "messages": PROMPT}),
    ("", {"id": 6, "messages": HISTORY, "tools": TOOLS, "tool_choice": "auto",
          "chat_template_kwargs": {"enable_thinking": False}}),
    ("", {"id": 7, "messages": NULL_CONTENT, "tools": TOOLS}),
    ("", {"id": 8, "messages": PROMPT, "chat_template": "{{ messages[0].content }}!"}),
    ("", {"id": 9, "content": "The answer is 4.", "reasoning": "2+2=4", "tool_calls": None}),
    ("", {"id": 10, "content": None, "tool_calls": HISTORY[1]["tool_calls"]}),
    ("", {"id": 11, "content": "plain"}),
    ("", {"id": 12, "text": "h\u00e9llo \u4e16\u754c \U0001f389\n\ttabs"}),
    ("", ["PromptData", "Hello there", None, None, None, None, None, None]),
    ("", ["PromptData", None, [5, 6, 7, 8]]),
    ("", ["PromptData", "", None, PROMPT, None, {"enable_thinking": False}, None, None, "extra"]),
    ("", ["PromptData"]),
    ("", ["TextModelOutput", "Hello world"]),
    ("", ["TextModelOutput", ["Hel", "lo", " world"], None, None]),
    ("", ["TextModelOutput", "", ["Let me ", "think"], None]),
    ("", ["TextModelOutput", "", None, WEATHER]),
    ("", ["TextModelOutput", "Checking both.", "two lookups", PARALLEL]),
    ("", ["TextModelOutput", "x", None, [[]]]),
    ("", ["TextModelOutput", ""]),
    ("", ["ErrorData", "TimeoutError", "timed out"]),
    ("", ev("sample.issued", UUID, ["PromptData", None, None, HISTORY, TOOLS, None, None, None])),
    ("", ev("sample.complete", UUID, ["TextModelOutput", ["Hel", "lo world"], None, None],
            finish_reason="stop", worker_id=0)),
    ("", ev("sample.recv_first", UUID, None)),
    ("", ev("session.started", "", None)),
    ("", ev("sample.issued", "", ["PromptData", "hi"])),
    ("", dict(ev("sample.issued", UUID, ["PromptData", "hi"]), id="mine")),
    ("", "not json"),
    ("", [1, 2]),
    ("", {"foo": 1}),
    ("", {"id": 40, "token_ids": [1, "a"]}),
    ("", {"id": 41, "text": 5}),
    ("", {"id": 42, "messages": "hi"}),
    ("", ["Unknown", 1]),
    ("", ["TextModelOutput", 5]),
    ("", {"id": 45, "content": "x", "tool_calls": ["not an object"]}),
    ("", {"id": 46, "messages": PROMPT, "tools": TOOLS, "tool_choice": {"type": "function",
                                                                    "function": {"name": "get_weather"}}}),
    ("--kind text", {"id": 50, "text": "abc", "messages": PROMPT}),
    ("--kind text", ["TextModelOutput", "out", "reason", [[delta(0, name="f", arguments="{}")]]]),
    ("--kind text", ["PromptData", "hi", [1, 2]]),
    ("--kind text", {"id": 53, "token_ids": [1]}),
    ("--kind text", ev("sample.complete", UUID, ["TextModelOutput", ["a", "b"], ["c"]])),
    ("--kind text", ["TextModelOutput", ""]),
    ("--kind message", ["TextModelOutput", "plain output"]),
    ("--kind message", {"id": 61, "content": "x"}),
    ("--kind message", {"id": 62}),
    ("--kind message", {"id": 65, "content": None}),
    ("--kind message", ["PromptData", "x"]),
    ("--kind message", {"id": 64, "content": 5}),
    ("--kind prompt", ["PromptData", "hi", [1, 2], PROMPT]),
    ("--kind prompt", {"id": 71, "text": "x"}),
    ("--kind prompt", {"id": 72, "messages": PROMPT, "tools": {"a": 1}}),
    ("--kind ids", ["PromptData", None, [1, 2, 3]]),
    ("--kind ids", {"id": 81, "token_ids": [1, 2.5]}),
    ("--kind ids", {"id": 82, "token_ids": None}),
    ("--chat-template " + PLAIN, {"id": 90, "messages": PROMPT}),
    ("--chat-template " + PLAIN, {"id": 91, "content": "four", "reasoning": "2+2"}),
    ("--chat-template " + PLAIN, ["TextModelOutput", "", None, WEATHER]),
    ("--chat-template " + PLAIN, {"id": 92, "content": "boom", "reasoning": "r",
                                  "tool_calls": COMPLETE_CALLS}),
    ("--chat-template " + PLAIN, {"id": 94, "content": "boom"}),
    ("--chat-template " + PLAIN, {"id": 93, "messages": PROMPT, "chat_template": "{{ raise_exception('no') }}"}),
]


def want_of(args):
    parts = args.split()
    return parts[parts.index("--kind") + 1] if "--kind" in parts else "auto"


def run_oracle(shared, tokenizer, mode, items, template):
    if not items:
        return []
    cmd = ["sh", os.path.join(shared, "oracle", "count.sh"), "--tokenizer", tokenizer, mode,
           "--now", NOW, "--no-rendered"]
    if mode == "prompt":
        cmd.append("--mlcommons")
    if template:
        cmd += ["--chat-template", os.path.join(ROOT, template)]
    inp = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items)
    out = subprocess.run(cmd, input=inp.encode(), stdout=subprocess.PIPE, check=True).stdout
    res = [json.loads(line) for line in out.decode().splitlines()]
    assert len(res) == len(items), (mode, len(res), len(items))
    return res


def cli_cases(shared, tokenizer):
    rows, jobs = [], {}
    for args, value in CLI_CASES:
        line = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        try:
            v = json.loads(line)
        except ValueError:
            v = None
        want = want_of(args)
        template = args.split()[1] if args.startswith("--chat-template") else None
        res = classify(v, want) if v is not None else ("error",)
        row = {"args": args, "line": line}
        iid = item_id(v)
        if iid is not None:
            row["id"] = iid
        k = res[0]
        if k in ("skip", "error"):
            row["expect"] = "skipped" if k == "skip" else "error"
        elif k == "ids":
            row["expect"] = {"n": len(res[1])}
        else:
            if k == "text":
                req = {"text": res[1]}
            elif k == "message":
                req = {"content": res[1], "reasoning": res[2], "tool_calls": res[3]}
            else:
                req = {"messages": res[1], "tools": res[2], "tool_choice": res[3],
                       "chat_template": res[4], "chat_template_kwargs": res[5]}
            jobs.setdefault((k, template), []).append((len(rows), req))
        if want == "auto" and k not in ("skip", "error"):
            row["kind"] = k
        rows.append(row)
    for (mode, template), items in jobs.items():
        results = run_oracle(shared, tokenizer, mode, [req for _, req in items], template)
        for (i, _), r in zip(items, results):
            if r.get("n") is None:
                rows[i]["expect"] = "error"
                rows[i]["oracle_error"] = r.get("error")
                rows[i].pop("kind", None)
                continue
            e = {"n": r["n"]}
            if r.get("fallback"):
                e["fallback"] = r["error"].split(":", 1)[0]
            rows[i]["expect"] = e
    return rows


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def main(argv=None):
    global mlc_json
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("TALLY_SHARED")
                    or os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--tokenizer", default="qwen3")
    a = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(a.shared, "oracle"))
    import oracle  # noqa: E402
    mlc_json = oracle.mlc_json
    with open(os.path.join(HERE, "plain.jinja"), "w", encoding="utf-8") as f:
        f.write(PLAIN_SRC)
    write_jsonl(os.path.join(HERE, "helpers.jsonl"), [helper_case(n, f) for n, f in TMO_CASES])
    write_jsonl(os.path.join(HERE, "inputs.jsonl"), [input_case(*c) for c in INPUT_CASES])
    write_jsonl(os.path.join(HERE, "cli.jsonl"), cli_cases(a.shared, a.tokenizer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
