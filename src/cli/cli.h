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
 * binary was built in, else ./assets). Writes the path to out. Returns
 * false with a message naming the places it looked. */
bool cli_find_tokenizer(const char *arg, char *out, size_t cap, char *why, size_t whycap);

/* Reads one line (without its '\n') from f into *line (getline's buffer).
 * Returns its length, or -1 at end of input. */
iz cli_read_line(FILE *f, char **line, size_t *cap);

int cmd_tokenize(int argc, char **argv);

#endif
