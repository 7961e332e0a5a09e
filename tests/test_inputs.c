/* test_inputs.c - the inputs of the counting kinds: the oracle's objects
 * (src/chat/shapes.h) and upstream's payloads and events (src/agg/inputs.h,
 * which hands objects on to shapes.h). Upstream's TextModelOutput helpers
 * (merge_tool_calls, str(), as_message_parts and their after-first-chunk
 * forms) and the ISL / OSL / TPOT trigger rules against
 * tests/data/shapes/helpers.jsonl and inputs.jsonl, made by
 * tests/data/shapes/gen.py from upstream's rules; then hand cases for the
 * oracle's objects, explicit kinds, error messages and out of memory. */
#include "test.h"
#include "../src/base/arena.h"
#include "../src/base/os.h"
#include "../src/agg/inputs.h"
#include "../src/chat/shapes.h"
#include "../src/json/json.h"
#include "../src/json/pyfmt.h"

/* msgspec JSON of v (null for NULL), as gen.py's mlc_json writes it. */
static void put_json(buf *b, const json *v)
{
    if (!v) {
        buf_cstr(b, "null");
        return;
    }
    pyfmt_dumps_opts o = {.msgspec = true};
    err e = {0};
    if (!pyfmt_json_dumps(b, v, &o, NULL, &e))
        buf_cstr(b, "<dump failed>");
}

/* The count_input as the canonical JSON of gen.py. */
static void canonical(buf *b, const count_input *in)
{
    buf_cstr(b, "{\"kind\":\"");
    buf_cstr(b, count_kind_name(in->kind));
    buf_cstr(b, "\",");
    switch (in->kind) {
    case COUNT_IDS:
        buf_cstr(b, "\"token_ids\":");
        put_json(b, in->token_ids);
        break;
    case COUNT_TEXT:
        buf_cstr(b, "\"text\":");
        json_write_str(b, in->text);
        break;
    case COUNT_MESSAGE:
        buf_cstr(b, "\"content\":");
        put_json(b, in->content);
        buf_cstr(b, ",\"reasoning\":");
        put_json(b, in->reasoning);
        buf_cstr(b, ",\"tool_calls\":");
        put_json(b, in->tool_calls);
        break;
    case COUNT_PROMPT:
        buf_cstr(b, "\"messages\":");
        put_json(b, in->messages);
        buf_cstr(b, ",\"tools\":");
        put_json(b, in->tools);
        buf_cstr(b, ",\"tool_choice\":");
        put_json(b, in->tool_choice);
        buf_cstr(b, ",\"chat_template\":");
        put_json(b, in->chat_template);
        buf_cstr(b, ",\"chat_template_kwargs\":");
        put_json(b, in->chat_template_kwargs);
        break;
    }
    buf_byte(b, '}');
}

/* Calls fn(line) for each line of a data file. */
static iz each_line(arena *a, const char *path, void (*fn)(arena *, const json *, iz *), iz *bad)
{
    err e = {0};
    str src = os_read_file(a, path, &e);
    if (!src.s) {
        printf("#   %s\n", e.msg);
        return -1;
    }
    iz n = 0;
    for (iz b = 0, i = 0; i <= src.len; i++) {
        if (i < src.len && src.s[i] != '\n')
            continue;
        str line = str_cut(src, b, i);
        b = i + 1;
        if (!line.len)
            continue;
        json *v = json_parse(a, line, NULL, &e);
        if (!v) {
            printf("#   %s: %s\n", path, e.msg);
            (*bad)++;
            continue;
        }
        n++;
        fn(a, v, bad);
    }
    return n;
}

static const json *nth(const json *arr, iz k)
{
    return k < arr->u.arr.n ? &arr->u.arr.items[k] : NULL;
}

static void report(const json *c, const char *what, str got, str want)
{
    const json *name = json_get(c, S("name"));
    printf("#   %.*s: %s\n#     got  %.*s\n#     want %.*s\n", (int)name->u.s.len, (const char *)name->u.s.s,
           what, (int)MIN(got.len, 400), (const char *)got.s, (int)MIN(want.len, 400), (const char *)want.s);
}

static void helper_case(arena *a, const json *c, iz *bad)
{
    const json *p = json_get(c, S("payload"));
    const json *output = nth(p, 1), *reasoning = nth(p, 2), *tool_calls = nth(p, 3);
    bool want_error = json_get(c, S("error")) != NULL;
    err e = {0};
    const json *merged;
    str text;
    const json *content, *r, *tc;
    int rm = agg_merge_tool_calls(a, tool_calls, &merged, &e);
    int rt = agg_tmo_text(a, output, reasoning, tool_calls, false, &text, &e);
    int rp = agg_tmo_message(a, output, reasoning, tool_calls, false, &content, &r, &tc, &e);
    if (want_error) {
        if (rt == ERR_OK || rp == ERR_OK) {
            report(c, "expected an error", S("ok"), S("error"));
            (*bad)++;
        }
        return;
    }
    if (rm || rt || rp) {
        report(c, "unexpected error", str_cstr(e.msg), S("ok"));
        (*bad)++;
        return;
    }
    buf b = {0};
    bool ok = true;
    const json *wm = json_get(c, S("merged"));
    put_json(&b, merged);
    if (!str_eq(buf_view(&b), wm->type == JSON_NULL ? S("null") : wm->u.s)) {
        report(c, "merge_tool_calls", buf_view(&b), wm->type == JSON_NULL ? S("null") : wm->u.s);
        ok = false;
    }
    const json *ws = json_get(c, S("str"));
    if (!str_eq(text, ws->u.s)) {
        report(c, "str()", text, ws->u.s);
        ok = false;
    }
    const json *parts = json_get(c, S("parts"));
    const json *wc = nth(parts, 0), *wr = nth(parts, 1), *wt = nth(parts, 2);
    if (!content || content->type != JSON_STR || !str_eq(content->u.s, wc->u.s)) {
        report(c, "as_message_parts content", content ? content->u.s : S("NULL"), wc->u.s);
        ok = false;
    }
    if (wr->type == JSON_NULL ? r != NULL : (!r || !str_eq(r->u.s, wr->u.s))) {
        report(c, "as_message_parts reasoning", r ? r->u.s : S("NULL"),
               wr->type == JSON_NULL ? S("null") : wr->u.s);
        ok = false;
    }
    b.len = 0;
    put_json(&b, tc);
    if (!str_eq(buf_view(&b), wt->type == JSON_NULL ? S("null") : wt->u.s)) {
        report(c, "as_message_parts tool_calls", buf_view(&b), wt->type == JSON_NULL ? S("null") : wt->u.s);
        ok = false;
    }
    buf_free(&b);
    if (!ok)
        (*bad)++;
}

static void test_helpers(void)
{
    arena a;
    arena_init(&a, 0);
    iz bad = 0;
    iz n = each_line(&a, "tests/data/shapes/helpers.jsonl", helper_case, &bad);
    printf("# helpers.jsonl: %td cases, %td wrong\n", n, bad);
    EXPECT(n >= 50);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

/* One case of tests/data/agg_inputs/tmo.jsonl (upstream's own class):
 * str(), text_after_first_chunk() and the message parts, whole and after
 * the first chunk. */
static void tmo_case(arena *a, const json *c, iz *bad)
{
    const json *p = json_get(c, S("payload"));
    const json *output = nth(p, 1), *reasoning = nth(p, 2), *tool_calls = nth(p, 3);
    bool ok = true;
    for (int after = 0; after < 2; after++) {
        err e = {0};
        str text;
        const json *content, *r, *tc;
        if (agg_tmo_text(a, output, reasoning, tool_calls, after, &text, &e) != ERR_OK ||
            agg_tmo_message(a, output, reasoning, tool_calls, after, &content, &r, &tc, &e) != ERR_OK) {
            report(c, e.msg, S("error"), S("ok"));
            (*bad)++;
            return;
        }
        const json *ws = json_get(c, after ? S("after") : S("str"));
        if (!str_eq(text, ws->u.s)) {
            report(c, after ? "text_after_first_chunk()" : "str()", text, ws->u.s);
            ok = false;
        }
        const json *parts = json_get(c, after ? S("parts_after") : S("parts"));
        const json *wc = nth(parts, 0), *wr = nth(parts, 1), *wt = nth(parts, 2);
        if (!content || !str_eq(content->u.s, wc->u.s)) {
            report(c, "content", content ? content->u.s : S("NULL"), wc->u.s);
            ok = false;
        }
        if (wr->type == JSON_NULL ? r != NULL : (!r || !str_eq(r->u.s, wr->u.s))) {
            report(c, "reasoning", r ? r->u.s : S("NULL"), wr->type == JSON_NULL ? S("null") : wr->u.s);
            ok = false;
        }
        buf b = {0};
        put_json(&b, tc);
        if (!str_eq(buf_view(&b), wt->type == JSON_NULL ? S("null") : wt->u.s)) {
            report(c, "tool_calls", buf_view(&b), wt->type == JSON_NULL ? S("null") : wt->u.s);
            ok = false;
        }
        buf_free(&b);
        /* the TPOT trigger's input: a message when there is reasoning or
         * a tool call, else the text after the first chunk when not empty */
        shapes_item it;
        int st = agg_input(a, p, SHAPES_AUTO, after ? AGG_TPOT : AGG_OSL, &it, &e);
        bool message = json_get(c, S("message"))->u.b;
        int want_st = message || ws->u.s.len ? SHAPES_COUNT : SHAPES_SKIP;
        if (st != want_st || (st == SHAPES_COUNT && it.in.kind != (message ? COUNT_MESSAGE : COUNT_TEXT)) ||
            it.metric != (after ? AGG_TPOT : AGG_OSL)) {
            report(c, after ? "the TPOT input" : "the OSL input", S("?"), S("?"));
            ok = false;
        }
    }
    if (!ok)
        (*bad)++;
}

static void test_tmo_upstream(void)
{
    arena a;
    arena_init(&a, 0);
    iz bad = 0;
    iz n = each_line(&a, "tests/data/agg_inputs/tmo.jsonl", tmo_case, &bad);
    printf("# agg_inputs/tmo.jsonl: %td cases, %td wrong\n", n, bad);
    EXPECT(n >= 500);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

static int want_of(const json *c)
{
    str w = json_get(c, S("want"))->u.s;
    if (str_eq(w, S("ids")))
        return COUNT_IDS;
    if (str_eq(w, S("text")))
        return COUNT_TEXT;
    if (str_eq(w, S("message")))
        return COUNT_MESSAGE;
    if (str_eq(w, S("prompt")))
        return COUNT_PROMPT;
    return SHAPES_AUTO;
}

static void input_case(arena *a, const json *c, iz *bad)
{
    shapes_item it;
    err e = {0};
    int st = agg_input(a, json_get(c, S("input")), want_of(c), AGG_ANY, &it, &e);
    buf b = {0};
    if (st == SHAPES_COUNT)
        canonical(&b, &it.in);
    else
        buf_cstr(&b, st == SHAPES_SKIP ? "skip" : "error");
    str want = json_get(c, S("result"))->u.s;
    bool ok = str_eq(buf_view(&b), want);
    if (!ok)
        report(c, st == SHAPES_ERROR ? e.msg : it.skip, buf_view(&b), want);
    if (st == SHAPES_SKIP && !it.skip[0]) {
        report(c, "a skip without its reason", S(""), S("reason"));
        ok = false;
    }
    /* The id: the object's "id", else an event's non-empty sample_uuid. */
    const json *wid = json_get(c, S("id"));
    buf gi = {0}, wi = {0};
    if (it.id)
        json_write(&gi, it.id);
    if (wid)
        json_write(&wi, wid);
    if (!str_eq(buf_view(&gi), buf_view(&wi))) {
        report(c, "id", buf_view(&gi), buf_view(&wi));
        ok = false;
    }
    buf_free(&gi);
    buf_free(&wi);
    buf_free(&b);
    if (!ok)
        (*bad)++;
}

static void test_inputs(void)
{
    arena a;
    arena_init(&a, 0);
    iz bad = 0;
    iz n = each_line(&a, "tests/data/shapes/inputs.jsonl", input_case, &bad);
    printf("# inputs.jsonl: %td cases, %td wrong\n", n, bad);
    EXPECT(n >= 130);
    EXPECT_EQ(bad, 0);
    arena_fini(&a);
}

/* One value through agg_input: the status, and the canonical form or
 * the message. */
static int shape(arena *a, const char *src, int want, buf *out)
{
    err e = {0};
    json *v = json_parse(a, str_cstr(src), NULL, &e);
    if (!v) {
        buf_cstr(out, "bad test JSON");
        return -1;
    }
    shapes_item it;
    int st = agg_input(a, v, want, AGG_ANY, &it, &e);
    out->len = 0;
    if (st == SHAPES_COUNT)
        canonical(out, &it.in);
    else
        buf_cstr(out, st == SHAPES_SKIP ? it.skip : e.msg);
    return st;
}

#define EXPECT_SHAPE(src, want, status, text) do { \
        buf b_ = {0}; \
        int st_ = shape(&a, src, want, &b_); \
        buf_byte(&b_, 0); \
        if (st_ != (status) || !strstr((const char *)b_.data, text)) { \
            printf("#   %s:%d: %s\n#     got  %d %s\n#     want %d ...%s...\n", __FILE__, __LINE__, src, \
                   st_, (const char *)b_.data, status, text); \
            test_cur_failed = 1; } \
        buf_free(&b_); } while (0)

/* The oracle's objects: the kind from the first of token_ids, text,
 * messages (not null), else message fields. */
static void test_objects(void)
{
    arena a;
    arena_init(&a, 0);
    EXPECT_SHAPE("{\"token_ids\": [1, 2], \"text\": \"x\", \"messages\": []}", SHAPES_AUTO, SHAPES_COUNT,
                 "{\"kind\":\"ids\",\"token_ids\":[1,2]}");
    EXPECT_SHAPE("{\"token_ids\": null, \"text\": \"x\", \"messages\": []}", SHAPES_AUTO, SHAPES_COUNT,
                 "{\"kind\":\"text\",\"text\":\"x\"}");
    EXPECT_SHAPE("{\"text\": \"\"}", SHAPES_AUTO, SHAPES_COUNT, "{\"kind\":\"text\",\"text\":\"\"}");
    EXPECT_SHAPE("{\"text\": null, \"messages\": [], \"content\": \"c\"}", SHAPES_AUTO, SHAPES_COUNT,
                 "{\"kind\":\"prompt\",\"messages\":[],\"tools\":null,\"tool_choice\":null,"
                 "\"chat_template\":null,\"chat_template_kwargs\":null}");
    EXPECT_SHAPE("{\"messages\": [{\"role\": \"user\"}], \"tools\": [], \"tool_choice\": \"auto\", "
                 "\"chat_template\": \"t\", \"chat_template_kwargs\": {\"k\": 1}, \"documents\": [1]}",
                 SHAPES_AUTO, SHAPES_COUNT,
                 "{\"kind\":\"prompt\",\"messages\":[{\"role\":\"user\"}],\"tools\":[],\"tool_choice\":"
                 "\"auto\",\"chat_template\":\"t\",\"chat_template_kwargs\":{\"k\":1}}");
    EXPECT_SHAPE("{\"content\": null}", SHAPES_AUTO, SHAPES_COUNT,
                 "{\"kind\":\"message\",\"content\":null,\"reasoning\":null,\"tool_calls\":null}");
    EXPECT_SHAPE("{\"reasoning\": \"r\", \"id\": 5}", SHAPES_AUTO, SHAPES_COUNT,
                 "{\"kind\":\"message\",\"content\":null,\"reasoning\":\"r\",\"tool_calls\":null}");
    /* the oracle's message object keeps its tool calls as given: no merge */
    EXPECT_SHAPE("{\"tool_calls\": [[{\"index\": 0}]]}", SHAPES_AUTO, SHAPES_COUNT,
                 "\"tool_calls\":[[{\"index\":0}]]}");
    EXPECT_SHAPE("{\"id\": 1}", SHAPES_AUTO, SHAPES_ERROR, "nothing to count");
    EXPECT_SHAPE("{}", SHAPES_AUTO, SHAPES_ERROR, "nothing to count");
    EXPECT_SHAPE("{\"token_ids\": [1, \"2\"]}", SHAPES_AUTO, SHAPES_ERROR,
                 "token_ids[1]: expected an integer, found string");
    EXPECT_SHAPE("{\"token_ids\": \"12\"}", SHAPES_AUTO, SHAPES_ERROR,
                 "token_ids: expected an array of integers, found string");
    EXPECT_SHAPE("{\"text\": 5}", SHAPES_AUTO, SHAPES_ERROR, "text: expected a string, found integer");
    EXPECT_SHAPE("{\"messages\": {}}", SHAPES_AUTO, SHAPES_ERROR, "messages: expected an array, found object");
    EXPECT_SHAPE("{\"messages\": [], \"tools\": 1}", SHAPES_AUTO, SHAPES_ERROR,
                 "tools: expected an array or null, found integer");
    EXPECT_SHAPE("{\"messages\": [], \"tool_choice\": []}", SHAPES_AUTO, SHAPES_ERROR,
                 "tool_choice: expected a string, an object or null, found array");
    EXPECT_SHAPE("{\"messages\": [], \"chat_template\": {}}", SHAPES_AUTO, SHAPES_ERROR,
                 "chat_template: expected a string or null, found object");
    EXPECT_SHAPE("{\"messages\": [], \"chat_template_kwargs\": \"x\"}", SHAPES_AUTO, SHAPES_ERROR,
                 "chat_template_kwargs: expected an object or null, found string");
    EXPECT_SHAPE("{\"content\": 1.5}", SHAPES_AUTO, SHAPES_ERROR, "content: expected a string or null, found number");
    EXPECT_SHAPE("{\"reasoning\": true}", SHAPES_AUTO, SHAPES_ERROR,
                 "reasoning: expected a string or null, found boolean");
    EXPECT_SHAPE("{\"tool_calls\": {}}", SHAPES_AUTO, SHAPES_ERROR, "tool_calls: expected an array or null, found object");
    EXPECT_SHAPE("\"text\"", SHAPES_AUTO, SHAPES_ERROR, "expected an object or a payload array");
    EXPECT_SHAPE("[1, 2]", SHAPES_AUTO, SHAPES_ERROR, "expected an object or a payload array");
    EXPECT_SHAPE("[]", SHAPES_AUTO, SHAPES_ERROR, "expected an object or a payload array");
    EXPECT_SHAPE("[\"Foo\"]", SHAPES_AUTO, SHAPES_ERROR, "unknown payload \"Foo\"");
    arena_fini(&a);
}

/* An explicit kind takes its own fields and nothing else. */
static void test_explicit(void)
{
    arena a;
    arena_init(&a, 0);
    EXPECT_SHAPE("{\"token_ids\": [1], \"text\": \"x\"}", COUNT_TEXT, SHAPES_COUNT, "{\"kind\":\"text\",\"text\":\"x\"}");
    EXPECT_SHAPE("{\"token_ids\": [1], \"messages\": []}", COUNT_PROMPT, SHAPES_COUNT, "{\"kind\":\"prompt\"");
    /* none of a message's fields at all is an error naming them, not 0
     * tokens (issue 17, defect 5); a null one is an empty message */
    EXPECT_SHAPE("{\"text\": \"x\"}", COUNT_MESSAGE, SHAPES_ERROR,
                 "expected \"content\", \"reasoning\" or \"tool_calls\" (an assistant message), found none of them");
    EXPECT_SHAPE("{\"foo\": 1}", COUNT_MESSAGE, SHAPES_ERROR,
                 "expected \"content\", \"reasoning\" or \"tool_calls\" (an assistant message), found none of them");
    EXPECT_SHAPE("{\"content\": null}", COUNT_MESSAGE, SHAPES_COUNT,
                 "{\"kind\":\"message\",\"content\":null,\"reasoning\":null,\"tool_calls\":null}");
    EXPECT_SHAPE("{\"foo\": 1}", COUNT_IDS, SHAPES_ERROR, "token_ids: expected an array of integers, found nothing");
    EXPECT_SHAPE("{\"foo\": 1}", COUNT_TEXT, SHAPES_ERROR, "text: expected a string, found nothing");
    EXPECT_SHAPE("{\"foo\": 1}", COUNT_PROMPT, SHAPES_ERROR, "messages: expected an array, found nothing");
    EXPECT_SHAPE("{\"text\": \"x\"}", COUNT_IDS, SHAPES_ERROR, "token_ids: expected an array of integers, found nothing");
    EXPECT_SHAPE("{\"token_ids\": null}", COUNT_IDS, SHAPES_ERROR, "token_ids: expected an array of integers, found null");
    EXPECT_SHAPE("{\"text\": null}", COUNT_TEXT, SHAPES_ERROR, "text: expected a string, found null");
    EXPECT_SHAPE("{\"text\": \"x\"}", COUNT_PROMPT, SHAPES_ERROR, "messages: expected an array, found nothing");
    EXPECT_SHAPE("[\"PromptData\", \"x\"]", COUNT_MESSAGE, SHAPES_ERROR, "a PromptData has no message to count");
    EXPECT_SHAPE("[\"PromptData\", \"x\"]", COUNT_IDS, SHAPES_ERROR,
                 "PromptData.token_ids: expected an array of integers, found nothing");
    EXPECT_SHAPE("[\"TextModelOutput\", \"x\"]", COUNT_PROMPT, SHAPES_ERROR, "a TextModelOutput has no prompt to count");
    EXPECT_SHAPE("[\"TextModelOutput\", \"x\"]", COUNT_IDS, SHAPES_ERROR, "a TextModelOutput has no ids to count");
    EXPECT_SHAPE("[\"ErrorData\", \"E\"]", COUNT_TEXT, SHAPES_ERROR, "an ErrorData has no text to count");
    EXPECT_SHAPE("[\"ErrorData\", \"E\"]", SHAPES_AUTO, SHAPES_SKIP, "ErrorData");
    EXPECT_SHAPE("{\"event_type\": \"session.ended\", \"data\": null}", COUNT_TEXT, SHAPES_ERROR,
                 "session.ended event without data: no text to count");
    EXPECT_SHAPE("{\"event_type\": 5}", SHAPES_AUTO, SHAPES_ERROR, "event_type: expected a string, found integer");
    EXPECT_SHAPE("{\"event_type\": \"sample.issued\", \"sample_uuid\": \"u\", \"data\": [1]}", SHAPES_AUTO,
                 SHAPES_ERROR, "data: expected a payload array");
    EXPECT_SHAPE("{\"event_type\": \"sample.complete\", \"sample_uuid\": \"u\", \"data\": [\"TextModelOutput\", \"\"]}",
                 SHAPES_AUTO, SHAPES_SKIP, "empty output");
    EXPECT_SHAPE("{\"event_type\": \"sample.complete\", \"sample_uuid\": \"\", \"data\": [\"TextModelOutput\", \"x\"]}",
                 SHAPES_AUTO, SHAPES_SKIP, "without a sample_uuid");
    EXPECT_SHAPE("{\"event_type\": \"sample.recv_first\", \"sample_uuid\": \"u\"}", SHAPES_AUTO, SHAPES_SKIP,
                 "sample.recv_first event: nothing to count");
    EXPECT_SHAPE("[\"PromptData\", null, null, [\"m\"]]", SHAPES_AUTO, SHAPES_ERROR,
                 "PromptData.messages[0]: expected an object, found string");
    EXPECT_SHAPE("[\"TextModelOutput\", [\"a\", 1]]", SHAPES_AUTO, SHAPES_ERROR,
                 "output[1]: expected a string, found integer");
    EXPECT_SHAPE("[\"TextModelOutput\", null]", SHAPES_AUTO, SHAPES_ERROR,
                 "output: expected a string or an array of strings, found null");
    EXPECT_SHAPE("[\"TextModelOutput\", \"\", null, [[{\"index\": 0}], [{\"index\": \"a\"}]]]", SHAPES_AUTO,
                 SHAPES_ERROR, "delta indexes of different types (number and string)");
    EXPECT_SHAPE("[\"TextModelOutput\", \"\", null, [[{\"function\": {\"arguments\": 1}}]]]", SHAPES_AUTO,
                 SHAPES_ERROR, "tool_calls[0][0]: function.arguments: expected a string, found integer");
    EXPECT_SHAPE("[\"TextModelOutput\", \"\", null, [[{\"index\": 99999999999999999999}]]]", SHAPES_AUTO,
                 SHAPES_ERROR, "integers beyond 64 bits are not supported");
    arena_fini(&a);
}

/* Ids: the line's "id" (any JSON value, null included), else an event's
 * non-empty sample_uuid; bare payloads have none. */
static void test_ids(void)
{
    arena a;
    arena_init(&a, 0);
    static const struct { const char *src, *id; } cases[] = {
        {"{\"id\": null, \"text\": \"x\"}", "null"},
        {"{\"id\": [1, {\"a\": 2}], \"text\": \"x\"}", "[1,{\"a\":2}]"},
        {"{\"text\": \"x\"}", ""},
        {"{\"event_type\": \"sample.issued\", \"sample_uuid\": \"abc\", \"data\": null}", "\"abc\""},
        {"{\"event_type\": \"sample.issued\", \"sample_uuid\": \"abc\", \"id\": 3}", "3"},
        {"{\"event_type\": \"session.started\", \"sample_uuid\": \"\"}", ""},
        {"[\"PromptData\", \"x\"]", ""},
        {"{\"id\": 9}", "9"},   /* an error still has its id */
    };
    for (iz k = 0; k < countof(cases); k++) {
        err e = {0};
        json *v = json_parse(&a, str_cstr(cases[k].src), NULL, &e);
        REQUIRE(v);
        shapes_item it;
        agg_input(&a, v, SHAPES_AUTO, AGG_ANY, &it, &e);
        buf b = {0};
        if (it.id)
            json_write(&b, it.id);
        EXPECT_STR(buf_view(&b), str_cstr(cases[k].id));
        buf_free(&b);
    }
    arena_fini(&a);
}

/* Out of memory while merging: an error for the item (with no jump set by
 * the caller), or the caller's jump. */
static void test_oom(void)
{
    buf src = {0};
    buf_cstr(&src, "[\"TextModelOutput\", \"\", null, [");
    for (int k = 0; k < 5000; k++)
        buf_printf(&src, "%s[{\"index\": %d, \"id\": \"c%d\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]",
                   k ? "," : "", k, k);
    buf_cstr(&src, "]]");
    arena big;
    arena_init(&big, 0);
    err e = {0};
    json *v = json_parse(&big, buf_view(&src), NULL, &e);
    REQUIRE(v);
    arena small;
    arena_init(&small, 64 << 10);
    shapes_item it;
    int st = agg_input(&small, v, SHAPES_AUTO, AGG_ANY, &it, &e);
    EXPECT_EQ(st, SHAPES_ERROR);
    EXPECT_EQ(e.code, ERR_NOMEM);
    EXPECT(small.oom == NULL);
    st = agg_input(&small, v, COUNT_TEXT, AGG_ANY, &it, &e);
    EXPECT_EQ(st, SHAPES_ERROR);
    EXPECT_EQ(e.code, ERR_NOMEM);
    /* with room it works, and all 5000 calls are there */
    st = agg_input(&big, v, SHAPES_AUTO, AGG_ANY, &it, &e);
    EXPECT_EQ(st, SHAPES_COUNT);
    EXPECT(it.in.tool_calls && it.in.tool_calls->u.arr.n == 5000);
    /* the caller's own jump is taken */
    jmp_buf jb;
    volatile int jumped = 0;
    small.oom = &jb;
    if (setjmp(jb) == 0)
        agg_input(&small, v, COUNT_TEXT, AGG_ANY, &it, &e);
    else
        jumped = 1;
    EXPECT(jumped);
    small.oom = NULL;
    arena_fini(&small);
    arena_fini(&big);
    buf_free(&src);
}

int main(void)
{
    RUN(test_helpers);
    RUN(test_tmo_upstream);
    RUN(test_inputs);
    RUN(test_objects);
    RUN(test_explicit);
    RUN(test_ids);
    RUN(test_oom);
    return test_done();
}
