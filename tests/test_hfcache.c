/* test_hfcache.c - the Hugging Face cache lookup (src/chat/hfcache.h) on
 * fake caches built in a temporary folder: the hub folder from each
 * environment variable in huggingface_hub's order (with ~ and $VAR
 * expansion), models--ORG--NAME/refs/main to the snapshot, links into
 * blobs/ followed, and an error for each missing piece that names where it
 * looked. The rules are huggingface_hub's (constants.py, file_download.py's
 * try_to_load_from_cache). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "../src/chat/hfcache.h"

static char root[256];

static const char *const vars[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"};

static void clear_env(void)
{
    for (iz k = 0; k < countof(vars); k++)
        unsetenv(vars[k]);
}

static void mkdirs(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A cached model as huggingface_hub lays it out: the files are blobs named
 * by their hash, the snapshot holds relative links to them. */
static void make_model(const char *hub, const char *folder, const char *hash, bool with_tokenizer)
{
    char p[1024], q[1024];
    snprintf(p, sizeof(p), "%s/%s/blobs", hub, folder);
    mkdirs(p);
    snprintf(p, sizeof(p), "%s/%s/refs", hub, folder);
    mkdirs(p);
    snprintf(p, sizeof(p), "%s/%s/refs/main", hub, folder);
    write_file(p, hash);
    snprintf(p, sizeof(p), "%s/%s/snapshots/%s", hub, folder, hash);
    mkdirs(p);
    snprintf(p, sizeof(p), "%s/%s/blobs/b1", hub, folder);
    write_file(p, "{\"model\": {}}");
    snprintf(p, sizeof(p), "%s/%s/blobs/b2", hub, folder);
    write_file(p, "{}");
    snprintf(q, sizeof(q), "%s/%s/snapshots/%s/tokenizer_config.json", hub, folder, hash);
    if (symlink("../../blobs/b2", q) != 0)
        printf("#   symlink %s failed\n", q);
    if (with_tokenizer) {
        snprintf(q, sizeof(q), "%s/%s/snapshots/%s/tokenizer.json", hub, folder, hash);
        if (symlink("../../blobs/b1", q) != 0)
            printf("#   symlink %s failed\n", q);
    }
}

static void test_model_id(void)
{
    static const char *const good[] = {"Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct", "gpt2",
                                       "a/b", "org_1/m.v2", "google/gemma-3-27b-it", "_x/y_"};
    static const char *const bad[] = {"", "/x", "x/", "a/b/c", "a//b", "-a/b", "a/b-", ".a/b", "a/b.",
                                      "a--b/c", "a/b..c", "a b/c", "a/b\xc3\xa9", "~/x", "./x", "../x"};
    for (iz k = 0; k < countof(good); k++)
        if (!hfcache_is_model_id(good[k])) {
            printf("#   should be a model id: %s\n", good[k]);
            test_cur_failed = 1;
        }
    for (iz k = 0; k < countof(bad); k++)
        if (hfcache_is_model_id(bad[k])) {
            printf("#   should not be a model id: %s\n", bad[k]);
            test_cur_failed = 1;
        }
    char longname[200];
    memset(longname, 'a', 97);
    longname[97] = 0;
    EXPECT(!hfcache_is_model_id(longname));
    longname[96] = 0;
    EXPECT(hfcache_is_model_id(longname));
}

static void expect_hub(const char *want, const char *want_source)
{
    char out[HFCACHE_PATH_MAX];
    const char *src = NULL;
    err e = {0};
    bool ok = hfcache_hub_dir(out, (iz)sizeof(out), &src, &e);
    if (!ok) {
        printf("#   hub dir failed: %s\n", e.msg);
        test_cur_failed = 1;
        return;
    }
    EXPECT_STR(str_cstr(out), str_cstr(want));
    EXPECT_STR(str_cstr(src), str_cstr(want_source));
}

/* HF_HUB_CACHE > HUGGINGFACE_HUB_CACHE > HF_HOME/hub >
 * XDG_CACHE_HOME/huggingface/hub > ~/.cache/huggingface/hub. */
static void test_hub_dir(void)
{
    const char *home = getenv("HOME");
    char saved_home[1024];
    snprintf(saved_home, sizeof(saved_home), "%s", home ? home : "");
    clear_env();
    setenv("HOME", "/x/u", 1);
    expect_hub("/x/u/.cache/huggingface/hub", "the default ~/.cache/huggingface/hub");
    setenv("HOME", "/x/u/", 1);   /* expanduser drops the trailing slash */
    expect_hub("/x/u/.cache/huggingface/hub", "the default ~/.cache/huggingface/hub");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    expect_hub("/xdg/huggingface/hub", "$XDG_CACHE_HOME/huggingface/hub");
    setenv("XDG_CACHE_HOME", "/xdg/", 1);
    expect_hub("/xdg/huggingface/hub", "$XDG_CACHE_HOME/huggingface/hub");
    setenv("HF_HOME", "~/hf", 1);
    expect_hub("/x/u/hf/hub", "$HF_HOME/hub");
    setenv("HF_HOME", "", 1);   /* empty counts as unset */
    expect_hub("/xdg/huggingface/hub", "$XDG_CACHE_HOME/huggingface/hub");
    setenv("HF_HOME", "/data/$TALLY_T_USER/hf", 1);
    setenv("TALLY_T_USER", "bob", 1);
    expect_hub("/data/bob/hf/hub", "$HF_HOME/hub");
    setenv("HUGGINGFACE_HUB_CACHE", "/legacy/hub", 1);
    expect_hub("/legacy/hub", "$HUGGINGFACE_HUB_CACHE");
    setenv("HF_HUB_CACHE", "${TALLY_T_USER}s/cache", 1);
    expect_hub("bobs/cache", "$HF_HUB_CACHE");
    /* unset variables and lone dollars stay as written, as expandvars does */
    setenv("HF_HUB_CACHE", "/c/$TALLY_T_UNSET/${TALLY_T_UNSET}/$/${}/x$", 1);
    unsetenv("TALLY_T_UNSET");
    expect_hub("/c/$TALLY_T_UNSET/${TALLY_T_UNSET}/$/${}/x$", "$HF_HUB_CACHE");
    setenv("HF_HUB_CACHE", "~", 1);
    expect_hub("/x/u", "$HF_HUB_CACHE");
    setenv("HF_HUB_CACHE", "x~/y", 1);   /* only a leading ~ */
    expect_hub("x~/y", "$HF_HUB_CACHE");
    /* too long for the buffer */
    char out[16];
    err e = {0};
    EXPECT(hfcache_hub_dir(out, (iz)sizeof(out), NULL, &e));
    setenv("HF_HUB_CACHE", "/a/very/long/hub/folder/name", 1);
    EXPECT(!hfcache_hub_dir(out, (iz)sizeof(out), NULL, &e));
    EXPECT_EQ(e.code, ERR_LIMIT);
    clear_env();
    unsetenv("TALLY_T_USER");
    if (home)
        setenv("HOME", saved_home, 1);
}

static bool find(const char *name, char *out, err *e)
{
    memset(e, 0, sizeof(*e));
    return hfcache_find(name, out, HFCACHE_PATH_MAX, e);
}

static void expect_error(const char *name, const char *part1, const char *part2)
{
    char out[HFCACHE_PATH_MAX];
    err e;
    bool ok = find(name, out, &e);
    EXPECT(!ok);
    if (!ok && (!strstr(e.msg, part1) || (part2 && !strstr(e.msg, part2)))) {
        printf("#   %s: got \"%s\"\n#     want ...%s...%s...\n", name, e.msg, part1, part2 ? part2 : "");
        test_cur_failed = 1;
    }
}

static void test_find(void)
{
    char hub[512], p[1024], out[HFCACHE_PATH_MAX];
    err e;
    clear_env();
    snprintf(hub, sizeof(hub), "%s/hub", root);
    setenv("HF_HUB_CACHE", hub, 1);
    /* the hub folder itself is missing */
    snprintf(p, sizeof(p), "%s/models--Qwen--Qwen3-8B: no such folder", hub);
    expect_error("Qwen/Qwen3-8B", "not found in the Hugging Face cache (looked in ", p);
    expect_error("Qwen/Qwen3-8B", "does not exist", "$HF_HUB_CACHE");
    mkdirs(hub);
    expect_error("Qwen/Qwen3-8B", p, "the hub folder is from $HF_HUB_CACHE");

    make_model(hub, "models--Qwen--Qwen3-8B", "0123abcd", true);
    REQUIRE(find("Qwen/Qwen3-8B", out, &e));
    snprintf(p, sizeof(p), "%s/models--Qwen--Qwen3-8B/snapshots/0123abcd", hub);
    EXPECT_STR(str_cstr(out), str_cstr(p));
    /* names are case-sensitive folder names */
    expect_error("qwen/qwen3-8b", "models--qwen--qwen3-8b: no such folder", NULL);
    /* a bare name */
    make_model(hub, "models--gpt2", "feed", true);
    REQUIRE(find("gpt2", out, &e));
    EXPECT(strstr(out, "models--gpt2/snapshots/feed") != NULL);
    /* refs/main with a newline written by hand */
    snprintf(p, sizeof(p), "%s/models--gpt2/refs/main", hub);
    write_file(p, "feed\n");
    EXPECT(find("gpt2", out, &e));
    /* refs/main names a snapshot that is not there */
    write_file(p, "beef");
    expect_error("gpt2", "refs/main names snapshot beef", "snapshots/beef: no such folder");
    /* refs/main that is not a hash */
    write_file(p, "");
    expect_error("gpt2", "does not hold a commit hash", NULL);
    write_file(p, "../../x");
    expect_error("gpt2", "does not hold a commit hash", NULL);
    /* no refs/main: say so and list the snapshots there are */
    remove(p);
    expect_error("gpt2", "refs/main: No such file or directory", "snapshots/ folders as the path: feed");
    /* a snapshot without tokenizer.json */
    make_model(hub, "models--org--slow", "c0ffee", false);
    expect_error("org/slow", "snapshots/c0ffee/tokenizer.json: no such file", "fast tokenizer");
    /* a link whose blob is missing (an interrupted download) */
    make_model(hub, "models--org--partial", "d00d", true);
    snprintf(p, sizeof(p), "%s/models--org--partial/blobs/b1", hub);
    remove(p);
    expect_error("org/partial", "tokenizer.json: a broken link", "incomplete download");
    /* not a model name */
    expect_error("a/b/c", "is not a Hugging Face model name", NULL);
    /* the other variables lead to the same layout */
    clear_env();
    setenv("HF_HOME", root, 1);
    EXPECT(find("Qwen/Qwen3-8B", out, &e));
    EXPECT(strncmp(out, root, strlen(root)) == 0);
    clear_env();
    snprintf(p, sizeof(p), "%s/xdg", root);
    setenv("XDG_CACHE_HOME", p, 1);
    snprintf(p, sizeof(p), "%s/xdg/huggingface/hub", root);
    mkdirs(p);
    make_model(p, "models--Qwen--Qwen3-8B", "aa", true);
    EXPECT(find("Qwen/Qwen3-8B", out, &e));
    EXPECT(strstr(out, "/xdg/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/aa") != NULL);
    clear_env();
    const char *home = getenv("HOME");
    char saved_home[1024];
    snprintf(saved_home, sizeof(saved_home), "%s", home ? home : "");
    setenv("HOME", root, 1);
    snprintf(p, sizeof(p), "%s/.cache/huggingface/hub", root);
    mkdirs(p);
    make_model(p, "models--Qwen--Qwen3-8B", "bb", true);
    EXPECT(find("Qwen/Qwen3-8B", out, &e));
    EXPECT(strstr(out, "/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/bb") != NULL);
    /* the output buffer too small */
    char small[8];
    EXPECT(!hfcache_find("Qwen/Qwen3-8B", small, (iz)sizeof(small), &e));
    EXPECT_EQ(e.code, ERR_LIMIT);
    if (home)
        setenv("HOME", saved_home, 1);
}

int main(void)
{
    snprintf(root, sizeof(root), "/tmp/tally-hfcache-XXXXXX");
    if (!mkdtemp(root)) {
        printf("not ok 1 - mkdtemp\n");
        return 1;
    }
    RUN(test_model_id);
    RUN(test_hub_dir);
    RUN(test_find);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", root);
    return test_done();
}
