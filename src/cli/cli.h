/* cli.h - shared pieces of the tally command: option parsing helpers, the
 * tokenizer lookup and line input. Only cli/ prints. */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include <stdio.h>
#include "../base/buf.h"
#include "../base/err.h"
#include "../tok/tok.h"

#define TALLY_VERSION "0.1.0"
#define TALLY_DEFAULT_TOKENIZER "qwen3"

/* Prints "tally: <fmt>" to stderr. */
void cli_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* Resolves --tokenizer: an existing folder or file, else a short name in
 * the assets folder ($TALLY_ASSETS, else assets/ of the source tree this
 * binary was built in, else ./assets), else a Hugging Face model name
 * (ORG/NAME, or a bare NAME not among the assets) in the local Hugging Face
 * cache (chat/hfcache.h: the snapshot folder refs/main names). Writes the
 * path to out. Returns false with a message naming the places it looked. */
bool cli_find_tokenizer(const char *arg, char *out, size_t cap, char *why, size_t whycap);

/* --now: YYYY-MM-DD[(T| )HH:MM[:SS]] as wall-clock seconds since the epoch
 * (the render's clock has no time zone: strftime_now prints these fields).
 * False when the text is not such a time. */
bool cli_parse_time(const char *s, i64 *out);
/* --now's argument (cli_parse_time); else an error naming the command `cmd`
 * is printed and false returned. */
bool cli_parse_now(const char *cmd, const char *s, i64 *out);
/* --max-line's argument: a positive number of bytes; else an error naming
 * the command `cmd` is printed and false returned. */
bool cli_parse_max_line(const char *cmd, const char *s, iz *out);
/* Python's datetime.now(): the local wall-clock time, as epoch seconds
 * shifted by the local UTC offset (reading them as UTC gives the local
 * fields). */
i64  cli_local_now(void);

/* Line input (lines.c). A line is valid until the next lines_next call. */
typedef struct {
    int  fd;
    u8  *buf;
    iz   cap, beg, end;
    iz   max;        /* longest line accepted, in bytes */
    i64  number;     /* 1-based number of the line returned last */
    bool eof, failed;
} lines;

enum { LINES_OK, LINES_END, LINES_TOO_LONG };
#define CLI_MAX_LINE ((iz)1 << 30)   /* 1 GiB: longer lines are errors */

bool lines_init(lines *r, int fd, iz max_line);
void lines_fini(lines *r);
/* LINES_OK with *line (without its newline), LINES_TOO_LONG (the line was
 * skipped; r->number counts it), or LINES_END. */
int  lines_next(lines *r, str *line);

int cmd_tokenize(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_count(int argc, char **argv);

#endif
