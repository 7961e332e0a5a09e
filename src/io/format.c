/* format.c - the progress and summary lines of the JSON-lines jobs (io.h),
 * as text for cli/ to print. */
#include <stdio.h>
#include <string.h>

#include "../base/buf.h"
#include "io.h"

static void put_size(buf *b, i64 bytes)
{
    if (bytes >= 1000 * 1000 * 1000)
        buf_printf(b, "%.1f GB", (double)bytes / 1e9);
    else if (bytes >= 1000 * 1000)
        buf_printf(b, "%.1f MB", (double)bytes / 1e6);
    else
        buf_printf(b, "%.1f kB", (double)bytes / 1e3);
}

static void out_text(buf *b, char *out, iz cap)
{
    if (cap <= 0)
        return;
    iz n = b->failed ? 0 : MIN(b->len, cap - 1);
    if (n)
        memcpy(out, b->data, (size_t)n);
    out[n] = 0;
    buf_free(b);
}

void io_progress_format(const char *what, const io_stats *s, char *out, iz cap)
{
    buf b = {0};
    buf_printf(&b, "%s: %lld lines", what, (long long)s->lines);
    double share = s->bytes_total > 0 ? (double)s->bytes_done / (double)s->bytes_total : -1;
    if (share >= 0) {
        buf_printf(&b, " (%.0f%% of ", MIN(share, 1.0) * 100);
        put_size(&b, s->bytes_total);
        buf_byte(&b, ')');
    }
    buf_printf(&b, ", %lld errors", (long long)s->errors);
    if (s->fallbacks)
        buf_printf(&b, ", %lld fallbacks", (long long)s->fallbacks);
    if (s->worker_deaths)
        buf_printf(&b, ", %td worker deaths", s->worker_deaths);
    double rate = s->elapsed_s > 0 ? (double)s->lines / s->elapsed_s : 0;
    buf_printf(&b, ", %.0f lines/s", rate);
    if (share > 0 && share < 1)
        buf_printf(&b, ", ETA %.0f s", s->elapsed_s / share - s->elapsed_s);
    else if (share < 0)
        buf_printf(&b, ", %.0f s", s->elapsed_s);
    out_text(&b, out, cap);
}

void io_summary_format(const char *what, const io_stats *s, char *out, iz cap)
{
    buf b = {0};
    double rate = s->elapsed_s > 0 ? (double)s->lines / s->elapsed_s : 0;
    if (!strcmp(what, "count")) {
        i64 counted = 0;
        for (int k = COUNT_IDS; k <= COUNT_PROMPT; k++)
            counted += s->counted[k];
        buf_printf(&b, "%s: %lld lines: %lld counted (", what, (long long)s->lines, (long long)counted);
        bool first = true;
        for (int k = COUNT_IDS; k <= COUNT_PROMPT; k++) {
            if (!s->counted[k])
                continue;
            buf_printf(&b, "%s%s %lld", first ? "" : ", ", count_kind_name((count_kind)k), (long long)s->counted[k]);
            first = false;
        }
        buf_printf(&b, "%s%lld tokens), %lld skipped, %lld errors, ", first ? "" : "; ", (long long)s->tokens,
                   (long long)s->skipped, (long long)s->errors);
        if (s->pending)
            buf_printf(&b, "%lld pending (the drain budget ran out), ", (long long)s->pending);
        buf_printf(&b, "%lld fallbacks", (long long)s->fallbacks);
        if (s->fallbacks) {
            buf_cstr(&b, " (");
            for (int k = 0; k < s->ncls; k++)
                buf_printf(&b, "%s%s %lld", k ? ", " : "", s->cls[k], (long long)s->cls_n[k]);
            if (s->cls_other)
                buf_printf(&b, ", other %lld", (long long)s->cls_other);
            buf_byte(&b, ')');
        }
        if (s->workers > 0)
            buf_printf(&b, ", on %d worker process%s", s->workers, s->workers == 1 ? "" : "es");
        else
            buf_cstr(&b, ", in this process");
        if (s->worker_deaths)
            buf_printf(&b, " (%td died; the lines each held were retried one at a time)", s->worker_deaths);
        buf_printf(&b, ", in %.3f s (%.0f lines/s)", s->elapsed_s, rate);
        if (s->tools_unread)
            buf_printf(&b, "\n%s: note: %lld prompts carry tools that their chat template never reads (or "
                       "there is no template): the tools are not in their counts, except where the count is "
                       "upstream's fallback (see `tally help` for the templates that read tools)",
                       what, (long long)s->tools_unread);
    } else if (!strcmp(what, "tokenize")) {
        buf_printf(&b, "%s: %lld lines, %lld errors, %lld tokens, ", what, (long long)s->lines, (long long)s->errors,
                   (long long)s->tokens);
        put_size(&b, s->bytes_done);
        buf_printf(&b, " in %.3f s (%.1f MB/s)", s->elapsed_s,
                   s->elapsed_s > 0 ? (double)s->bytes_done / 1e6 / s->elapsed_s : 0.0);
    } else {
        buf_printf(&b, "%s: %lld lines, %lld errors, ", what, (long long)s->lines, (long long)s->errors);
        put_size(&b, s->bytes_out);
        buf_printf(&b, " rendered in %.3f s (%.0f renders/s)", s->elapsed_s, rate);
    }
    out_text(&b, out, cap);
}
