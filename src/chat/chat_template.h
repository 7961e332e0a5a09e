/* chat_template.h - transformers' apply_chat_template around the template
 * engine: which chat template a tokenizer folder has, the special-token
 * variables it passes, and how one prompt object (messages, tools,
 * documents, add_generation_prompt, chat_template_kwargs) becomes the
 * variables of one render. Depends on tmpl/, json/ and base/. */
#ifndef TALLY_CHAT_TEMPLATE_H
#define TALLY_CHAT_TEMPLATE_H

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../json/json.h"
#include "../tmpl/tmpl.h"

/* The chat template(s) and special tokens of one tokenizer, compiled. */
typedef struct chat_tmpl chat_tmpl;

enum {
    CHAT_MAX_TEMPLATES = 64,   /* named templates of one tokenizer */
};

/* Loads the chat template(s) of a tokenizer. `path` is a folder holding
 * tokenizer_config.json (and maybe chat_template.jinja and
 * additional_chat_templates/NAME.jinja), or a file inside it such as
 * tokenizer.json (its folder is used); tokenizer.json itself is never read.
 * The template is, as transformers chooses it:
 *   1. `template_file` when not NULL (one unnamed template);
 *   2. else chat_template.jinja in the folder; with a folder
 *      additional_chat_templates/ beside it, a named set: "default" = that
 *      file, plus one template per *.jinja in the folder (named without the
 *      extension);
 *   3. else "chat_template" of tokenizer_config.json: a string, or a list
 *      of {"name", "template"} objects (a named set);
 *   4. else none: every render then fails with ValueError (a prompt may
 *      still bring its own template in "chat_template").
 * Every template is compiled here, once. One that does not compile is
 * kept as its compile error, raised (TemplateSyntaxError ...) by each
 * render that selects it, as Jinja does when transformers compiles it.
 *
 * The special-token variables are transformers' special_tokens_map: the
 * non-empty bos/eos/unk/sep/pad/cls/mask_token of tokenizer_config.json,
 * additional_special_tokens (a list; extra_special_tokens given as a list
 * is appended to it) and the non-empty entries of extra_special_tokens
 * given as an object, each by its own name; a token stored as an AddedToken
 * object gives its "content".
 *
 * Everything (the config's JSON tree, sources, compiled programs) goes
 * into `perm`, which must outlive the result; nothing else is allocated
 * and there is nothing to free. Returns NULL and fills `e` when a file
 * cannot be read, tokenizer_config.json is not valid JSON, or its
 * chat_template / special-token fields have shapes transformers would
 * reject (ERR_INVALID) or we do not model (ERR_UNSUPPORTED), or pass a
 * limit (CHAT_MAX_TEMPLATES templates, 56 named extra tokens: ERR_LIMIT).
 * Out of memory in `perm` is ERR_NOMEM (a jump target in perm->oom is
 * taken). */
chat_tmpl *chat_tmpl_load(arena *perm, const char *path, const char *template_file, err *e);

/* How the template was found, for messages: "FILE", "chat_template.jinja",
 * "chat_template.jinja + additional_chat_templates/",
 * "tokenizer_config.json", "tokenizer_config.json (named list)" or "none". */
const char *chat_tmpl_source(const chat_tmpl *ct);
/* Number of templates (1 for a single one, 0 for none) and the names of a
 * named set, in the set's order (an empty slice for an unnamed template). */
i32 chat_tmpl_count(const chat_tmpl *ct);
str chat_tmpl_name(const chat_tmpl *ct, i32 k);
/* The compile error of template k, or NULL when it compiled. */
const err *chat_tmpl_compile_error(const chat_tmpl *ct, i32 k);
/* The special-token variables (transformers' special_tokens_map), in the
 * order they are passed to a render. Valid as long as `ct`. */
const tmpl_var *chat_tmpl_special(const chat_tmpl *ct, i32 *n);

/* Renders one prompt object the way the oracle's `prompt` mode (and
 * transformers' apply_chat_template(tokenize=False)) does:
 *   - "messages" is required (KeyError 'messages' without it); "tools",
 *     "documents" default to None and are passed even then;
 *   - from "chat_template_kwargs" (an object, or null/absent) these are
 *     taken out: "documents" (replaces the prompt's), "add_generation_prompt"
 *     (replaces the prompt's; the default is true), "chat_template" (replaces
 *     the prompt's), "continue_final_message" (a true value is ValueError:
 *     not supported; false is dropped); transformers' other parameters
 *     (tools, tokenize, padding, truncation, max_length, return_tensors,
 *     return_dict, return_assistant_tokens_mask, tokenizer_kwargs) are
 *     dropped; the rest become variables on top of the special tokens;
 *   - the template: "chat_template" as a name of the named set, else as
 *     template source (compiled for this call); without it the unnamed
 *     template, or from a named set "tool_use" when tools are given (not
 *     null) and "default" otherwise (ValueError when missing);
 *   - variables messages, tools, documents, add_generation_prompt, the
 *     special tokens, then the kwargs (a kwarg named like a special token
 *     wins). As in Python, a kwarg named "messages" is TypeError (before
 *     the template is chosen) and so is a special token named like one of
 *     the four (after it is compiled).
 * Unknown prompt fields (such as "id") are ignored. The rendering is
 * appended to `out`; on failure `out` is left as it was and `te` says what
 * was raised: te->exc the Python class (as tmpl_render, plus "KeyError",
 * "ValueError", "TypeError" and the compile's "TemplateSyntaxError" ... from
 * this layer) and te->msg its message, or te->exc NULL and te->code one of
 * our own codes (ERR_LIMIT, ERR_UNSUPPORTED, ERR_NOMEM). Returns ERR_OK or
 * te->code. Temporary memory comes from `scratch`, restored on return.
 * Thread-safe and fork-safe: `ct` is only read, so threads or forked
 * workers may share one loaded chat_tmpl, each with its own scratch. */
int chat_render_prompt(const chat_tmpl *ct, const json *prompt, const tmpl_render_opts *o,
                       arena *scratch, buf *out, tmpl_error *te);

/* The scratch memory one render (or one count) may use: a template that
 * builds more fails with out of memory, far above any real one. */
#define CHAT_SCRATCH_MAX ((iz)2 << 30)

/* What chat_render_prompt_info found besides the rendering. */
typedef struct chat_render_info {
    /* The template chosen mentions the variable `tools` (false when none
     * could be chosen or compiled): a prompt's tools reach the count only
     * through a template that reads them. */
    bool reads_tools;
} chat_render_info;

/* chat_render_prompt, also filling `info` (may be NULL). */
int chat_render_prompt_info(const chat_tmpl *ct, const json *prompt, const tmpl_render_opts *o,
                            arena *scratch, buf *out, tmpl_error *te, chat_render_info *info);

#endif
