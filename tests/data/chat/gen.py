#!/usr/bin/python3
"""Writes the chat-layer test data: small tokenizer folders (tok/<name>/)
exercising transformers' template choice and special-token map, and
cases.jsonl, each case rendered by the oracle's own code.

  /usr/bin/python3 tests/data/chat/gen.py [--shared DIR]

Every case goes through oracle.Oracle(...).job_prompt of
<shared>/oracle/oracle.py (imported, not modified), the same path as
`count.sh --tokenizer DIR prompt` without the token encoder, with the clock
pinned at 2025-01-15T12:00:00. Output lines:
  {"tok": NAME, "template_file": PATH|null, "prompt": {...}, "rendered": TEXT}
  {"tok": NAME, "template_file": PATH|null, "prompt": {...},
   "error_type": CLASS, "error": str(exception)}
Needs Debian's /usr/bin/python3 with python3-jinja2 3.1.2.
"""
import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
NOW = "2025-01-15T12:00:00"

# A template that shows every variable apply_chat_template passes.
SHOW = ("bos={{ bos_token }} eos={{ eos_token }} unk={{ unk_token is defined }} "
        "sep={{ sep_token is defined }} pad={{ pad_token }} cls={{ cls_token }} "
        "mask={{ mask_token is defined }}\n"
        "add={{ additional_special_tokens }} image={{ image_token }} boi={{ boi_token is defined }}\n"
        "n={{ messages | length }} tools={{ tools }} documents={{ documents }} "
        "agp={{ add_generation_prompt }} x={{ x }} tokenize={{ tokenize is defined }} "
        "padding={{ padding is defined }}")

FIXTURES = {
    # special tokens in every shape tokenizer_config.json has them
    "special": {
        "config": {
            "bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": False},
            "eos_token": "</s>",
            "unk_token": "",
            "sep_token": {"__type": "AddedToken", "content": ""},
            "pad_token": None,
            "cls_token": 7,
            "additional_special_tokens": ["<a>", {"content": "<b>"}, {"__type": "AddedToken"}],
            "extra_special_tokens": {"image_token": "<img>", "boi_token": "",
                                     "eos_token": {"content": "<eos2>"}},
            "chat_template": SHOW,
        },
    },
    # extra_special_tokens as a list: appended to additional_special_tokens
    "extra_list": {
        "config": {"eos_token": "E", "additional_special_tokens": ["<a>"],
                   "extra_special_tokens": ["<x>", {"content": "<y>"}],
                   "chat_template": SHOW},
    },
    # extra list alone, no additional_special_tokens
    "extra_list_only": {
        "config": {"extra_special_tokens": ["<x>"], "chat_template": SHOW},
    },
    # a named list in tokenizer_config.json
    "named": {
        "config": {"eos_token": "E", "chat_template": [
            {"name": "default", "template": "default:{{ tools }}:{{ eos_token }}"},
            {"name": "tool_use", "template": "tool_use:{{ tools | length }}"},
            {"name": "rag", "template": "rag:{{ documents }}"},
            {"name": "broken", "template": "{% if %}"},
        ]},
    },
    # a named list without "default"
    "named_nodefault": {
        "config": {"chat_template": [
            {"name": "zeta", "template": "z"},
            {"name": "tool_use", "template": "t"},
            {"name": "alpha", "template": "a"},
        ]},
    },
    # chat_template.jinja wins over the config's chat_template
    "jinja_file": {
        "config": {"bos_token": "B", "chat_template": "from config"},
        "files": {"chat_template.jinja": "from file {{ bos_token }}\n"},
    },
    # chat_template.jinja + additional_chat_templates/ form a named set
    "additional": {
        "config": {"bos_token": "B"},
        "files": {"chat_template.jinja": "main {{ bos_token }}",
                  "additional_chat_templates/tool_use.jinja": "tools {{ tools[0] }}",
                  "additional_chat_templates/zeta.jinja": "zeta\n\n",
                  "additional_chat_templates/notes.txt": "not a template"},
    },
    # no template anywhere
    "none": {
        "config": {"eos_token": "E"},
    },
    # a template that does not compile
    "broken": {
        "config": {"chat_template": "{% for x in %}"},
    },
    # no tokenizer_config.json at all
    "noconfig": {
        "files": {"chat_template.jinja": "{{ bos_token is defined }} {{ messages[0].content }}"},
    },
}

M = [{"role": "user", "content": "hi"}]
TOOLS = [{"type": "function", "function": {"name": "f"}}]

# (fixture, template_file, prompt)
CASES = [
    ("special", None, {"messages": M}),
    ("special", None, {"messages": M, "tools": TOOLS, "documents": [{"t": 1}],
                       "add_generation_prompt": False}),
    ("special", None, {"messages": M, "add_generation_prompt": None}),
    ("special", None, {"messages": M, "chat_template_kwargs": {
        "x": [1, 2.5, "s"], "bos_token": "override", "tokenize": True, "padding": "max",
        "add_generation_prompt": False, "documents": "D", "tools": "dropped",
        "continue_final_message": False}}),
    ("special", None, {"messages": M, "chat_template_kwargs": {"continue_final_message": True}}),
    ("special", None, {"messages": M, "chat_template_kwargs": {"continue_final_message": 0}}),
    ("special", None, {"messages": M, "chat_template_kwargs": {"messages": []}}),
    ("special", None, {"messages": M, "chat_template_kwargs": {"self": 1}}),
    ("special", None, {"messages": M, "chat_template_kwargs": None}),
    ("special", None, {"messages": M, "chat_template_kwargs": {}}),
    ("special", None, {"messages": M, "chat_template_kwargs": {"messages": [], "chat_template": "{% if %}"}}),
    ("special", None, {"id": 5, "tools": TOOLS}),
    ("special", None, {"messages": M, "chat_template": "own {{ eos_token }} {{ x }}",
                       "chat_template_kwargs": {"x": "kw"}}),
    ("special", None, {"messages": M, "chat_template_kwargs": {"chat_template": "kw {{ bos_token }}"}}),
    ("special", None, {"messages": M, "chat_template": "{{ strftime_now('%Y-%m-%d %H:%M:%S %A') }}"}),
    ("special", None, {"messages": M, "chat_template": "{% endif %}"}),
    ("special", "override.jinja", {"messages": M, "tools": None}),
    ("extra_list", None, {"messages": M}),
    ("extra_list_only", None, {"messages": M}),
    ("named", None, {"messages": M}),
    ("named", None, {"messages": M, "tools": None}),
    ("named", None, {"messages": M, "tools": []}),
    ("named", None, {"messages": M, "tools": TOOLS}),
    ("named", None, {"messages": M, "tools": TOOLS, "chat_template": "default"}),
    ("named", None, {"messages": M, "chat_template": "rag", "documents": ["d1"]}),
    ("named", None, {"messages": M, "chat_template": "broken"}),
    ("named", None, {"messages": M, "chat_template": "not a name {{ eos_token }}"}),
    ("named", None, {"messages": M, "chat_template_kwargs": {"chat_template": "tool_use"}, "tools": [1, 2]}),
    ("named", "override.jinja", {"messages": M}),
    ("named_nodefault", None, {"messages": M}),
    ("named_nodefault", None, {"messages": M, "tools": TOOLS}),
    ("named_nodefault", None, {"messages": M, "chat_template": "alpha"}),
    ("jinja_file", None, {"messages": M}),
    ("additional", None, {"messages": M}),
    ("additional", None, {"messages": M, "tools": ["T0"]}),
    ("additional", None, {"messages": M, "chat_template": "zeta"}),
    ("additional", None, {"messages": M, "chat_template": "notes"}),
    ("none", None, {"messages": M}),
    ("none", None, {"messages": M, "chat_template": "given {{ eos_token }}"}),
    ("none", "override.jinja", {"messages": M}),
    ("broken", None, {"messages": M}),
    ("noconfig", None, {"messages": [{"role": "user", "content": "c"}]}),
]

OVERRIDE = "override {{ eos_token }} {{ tools }} {{ messages[0]['role'] }}\n"


def write_fixtures():
    tok = os.path.join(HERE, "tok")
    shutil.rmtree(tok, ignore_errors=True)
    for name, fx in FIXTURES.items():
        d = os.path.join(tok, name)
        os.makedirs(d)
        # The oracle only looks for tokenizer.json to accept the folder.
        with open(os.path.join(d, "tokenizer.json"), "w") as f:
            f.write("{}\n")
        if "config" in fx:
            with open(os.path.join(d, "tokenizer_config.json"), "w", encoding="utf-8") as f:
                json.dump(fx["config"], f, ensure_ascii=False, indent=1)
                f.write("\n")
        for rel, text in fx.get("files", {}).items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
    with open(os.path.join(HERE, "override.jinja"), "w", encoding="utf-8", newline="\n") as f:
        f.write(OVERRIDE)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.environ.get("TALLY_SHARED")
                    or os.path.join(ROOT, "..", "shared"))
    a = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(a.shared, "oracle"))
    import jinja2  # noqa: E402
    import oracle  # noqa: E402
    if jinja2.__version__ != "3.1.2":
        sys.exit(f"gen.py: Jinja2 {jinja2.__version__}; run with Debian's /usr/bin/python3 (3.1.2)")
    write_fixtures()
    rel = os.path.relpath(HERE, ROOT)
    n = 0
    with open(os.path.join(HERE, "cases.jsonl"), "w", encoding="utf-8", newline="\n") as out:
        for tok, tfile, prompt in CASES:
            args = argparse.Namespace(
                tokenizer=os.path.join(HERE, "tok", tok),
                chat_template=os.path.join(HERE, tfile) if tfile else None,
                now=NOW, mlcommons=False, hash=False, rendered=False, ids=False,
                mode="prompt", backend="native")
            o = oracle.Oracle(args)
            rec = {"tok": tok, "template_file": f"{rel}/{tfile}" if tfile else None, "prompt": prompt}
            try:
                rec["rendered"] = o.job_prompt(json.loads(json.dumps(prompt))).text
            except Exception as e:  # noqa: BLE001 - failures are data here
                rec["error_type"] = type(e).__name__
                rec["error"] = str(e)
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    print(f"gen.py: {n} cases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
