/* hfcache.h - finds a Hugging Face model name (`Qwen/Qwen3-8B`) in the
 * local Hugging Face cache, offline, as huggingface_hub's
 * try_to_load_from_cache does: the hub folder from the environment, then
 * models--ORG--NAME/refs/main naming the snapshot folder that holds
 * tokenizer.json. Depends on base/ only. */
#ifndef TALLY_HFCACHE_H
#define TALLY_HFCACHE_H

#include "../base/base.h"
#include "../base/err.h"

enum {
    HFCACHE_PATH_MAX = 4096,   /* longest path built here, NUL included */
    HFCACHE_ID_MAX = 96,       /* huggingface_hub's limit on a repo id */
};

/* Whether `name` is a valid Hugging Face model id as huggingface_hub's
 * validate_repo_id accepts it: NAME or ORG/NAME, each part made of ASCII
 * letters, digits, '_', '-' and '.', starting and ending with a letter,
 * digit or '_', without "--" or "..", at most HFCACHE_ID_MAX bytes. */
bool hfcache_is_model_id(const char *name);

/* The hub cache folder, as huggingface_hub computes it from the
 * environment: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (the legacy
 * name), else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
 * ~/.cache/huggingface/hub; a leading "~" is the home folder ($HOME, else
 * the password database; "~user" that user's) and
 * $VAR / ${VAR} are replaced by their values (unset ones are kept as
 * written), as Python's expanduser and expandvars do. A variable set to
 * the empty string counts as unset. Writes the folder to out and, when
 * `source` is not NULL, a static text naming where it came from
 * ("$HF_HUB_CACHE", ..., "the default ~/.cache/huggingface/hub").
 * Returns false (with `e` filled) when the path does not fit or the home
 * folder is needed and cannot be found. Reads the environment (and the
 * password database for "~") only. */
bool hfcache_hub_dir(char *out, iz cap, const char **source, err *e);

/* Resolves model id `name` (see hfcache_is_model_id) to its snapshot
 * folder in the hub cache: <hub>/models--ORG--NAME/refs/main holds the
 * commit hash, and <hub>/models--ORG--NAME/snapshots/<hash>/ must hold a
 * tokenizer.json (usually a symbolic link into ../../blobs/; links are
 * followed, and one whose blob is missing is reported as such). Writes the
 * snapshot folder to out (cap bytes, NUL-terminated) and returns true.
 * Otherwise returns false and `e` says what is missing and where it looked,
 * e.g. "not found in the Hugging Face cache (looked in
 * /x/hub/models--Qwen--Qwen3-8B: no such folder; the hub folder is
 * $HF_HUB_CACHE)". Reads the file system and the environment; no network,
 * no global state. */
bool hfcache_find(const char *name, char *out, iz cap, err *e);

#endif
