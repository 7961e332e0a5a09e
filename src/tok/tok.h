/* tok.h - an exact Hugging Face `tokenizer.json` engine (BPE models).
 *
 * Gives the ids the Rust `tokenizers` library (0.22) gives for
 * encode(text, add_special_tokens=false): added tokens cut out of the raw
 * text first, then normalizer, pre-tokenizer and BPE per remaining segment.
 * Components it does not implement make the load fail; it never guesses.
 *
 * Threads and processes: a loaded `tok` is read-only and may be shared by any
 * number of threads, and by processes forked after loading (copy-on-write).
 * Each thread needs its own `tok_work` (scratch memory, regex match state
 * and a word cache), made for one tokenizer and used only with it. */
#ifndef TALLY_TOK_H
#define TALLY_TOK_H

#include "../base/buf.h"
#include "../base/err.h"

typedef struct tok      tok;
typedef struct tok_work tok_work;

/* Loads `path`: a tokenizer.json file, or a folder holding one. Returns NULL
 * and fills `e` (with the JSON byte offset, or the JSON path of the
 * component that is not supported) on failure. */
tok *tok_load(const char *path, err *e);
/* Loads from tokenizer.json text; `name` only labels error messages. */
tok *tok_load_json(str text, const char *name, err *e);
void tok_free(tok *t);

tok_work *tok_work_new(const tok *t);
void      tok_work_free(tok_work *w);

/* Number of tokens of `text` (valid UTF-8 or an ERR_UTF8 error naming the
 * byte offset). Returns ERR_OK or an error code and fills `e`. */
int tok_count(const tok *t, tok_work *w, str text, i64 *n, err *e);
/* tok_count remembers the pieces of text between added tokens it counted
 * (64 bytes and more, up to 16 MiB of them per work area), so a piece seen
 * again costs one comparison; this forgets them, for benchmarks that count
 * the same texts again and want every pass to be a first one. */
void tok_work_forget_pieces(tok_work *w);
/* Turns that memory off (or on again) for this work area: for measuring
 * what it saves. On by default. */
void tok_work_set_piece_cache(tok_work *w, bool on);
/* Token ids of `text`. *ids points into `w` and stays valid until the next
 * call with the same `w`. */
int tok_encode(const tok *t, tok_work *w, str text, const u32 **ids, iz *n, err *e);
/* Appends the decoded text of `ids` to `out` (decoder of tokenizer.json,
 * special tokens included); for debugging and round-trip tests. */
int tok_decode(const tok *t, const u32 *ids, iz n, buf *out, err *e);

/* 1 + the largest id (model vocabulary and added tokens). */
u32  tok_vocab_size(const tok *t);
/* The token string of an id (as stored in tokenizer.json), or {0}. */
str  tok_id_to_token(const tok *t, u32 id);
bool tok_token_to_id(const tok *t, str token, u32 *id);
/* Whether decode(encode(x)) == x for every valid x (no normalizer or
 * pre-tokenizer changes the text, and nothing maps to an unknown token). */
bool tok_is_lossless(const tok *t);
/* Bytes of memory the loaded tokenizer holds. */
iz   tok_memory(const tok *t);

#endif
