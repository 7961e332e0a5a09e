/* table.h - upstream's MetricsTable (metrics_aggregator/metrics_table.py):
 * the rows of the samples in flight, keyed by sample_uuid, and the session
 * state the rows depend on: whether performance tracking is on, the
 * tracked blocks (one per START_PERFORMANCE_TRACKING) and the legacy
 * LoadGen window. The triggers that fire on a row's fields are the
 * aggregator's (agg.c); this file keeps the state and its rules
 * (docs/upstream-aggregator.md §7). Depends on base/ only. */
#ifndef TALLY_AGG_TABLE_H
#define TALLY_AGG_TABLE_H

#include "../base/base.h"
#include "../base/err.h"

__extension__ typedef __int128 agg_i128;
__extension__ typedef unsigned __int128 agg_u128;

/* One sample in flight: the fields a trigger may read (has_* false =
 * Python's None). */
typedef struct agg_row {
    str  uuid;                 /* the table's own copy */
    bool has_issued, has_recv_first, has_last_recv;
    i64  issued_ns, recv_first_ns, last_recv_ns;
    i64  block;                /* tracked_block_idx: the block it was issued in, -1 none */
} agg_row;

typedef struct agg_table agg_table;

agg_table *agg_table_new(err *e);
void       agg_table_free(agg_table *t);

/* The row of `uuid`, or NULL. Valid until the next add or remove. */
agg_row *agg_table_get(agg_table *t, str uuid);
/* The row of `uuid`, made when there is none (*existed says which).
 * NULL when out of memory. */
agg_row *agg_table_add(agg_table *t, str uuid, bool *existed);
/* Rows in flight. */
iz       agg_table_len(const agg_table *t);

/* handle_session_event for STARTED, START and STOP_PERFORMANCE_TRACKING
 * (the caller passes those only). False when out of memory. */
bool agg_table_start_tracking(agg_table *t, i64 ts);
void agg_table_stop_tracking(agg_table *t);
bool agg_table_tracking(const agg_table *t);
/* len(tracked_blocks) - 1: the block a sample issued now belongs to. */
i64  agg_table_current_block(const agg_table *t);
/* The LoadGen window opens at the first ISSUED while tracking. */
void agg_table_issued(agg_table *t, i64 ts);
/* COMPLETE of `row` at `ts` (after its triggers and its field): its block
 * and the window are updated (_update_tracked_block) and the row removed. */
void agg_table_complete(agg_table *t, agg_row *row, i64 ts);

/* total_tracked_duration_ns: the sum over blocks of last_complete - start. */
agg_i128 agg_table_tracked_duration(const agg_table *t);
/* total_loadgen_window_ns: max(0, end - start) when both are set, else 0. */
agg_i128 agg_table_loadgen_window(const agg_table *t);

#endif
