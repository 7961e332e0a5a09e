/* hfcache.c - Hugging Face cache lookup (hfcache.h): the hub folder from
 * the environment as huggingface_hub/constants.py computes it, and
 * try_to_load_from_cache's walk from models--ORG--NAME through refs/main
 * to the snapshot folder. Paths are built in fixed buffers; nothing is
 * allocated. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hfcache.h"

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool hfcache_is_model_id(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > HFCACHE_ID_MAX || strstr(name, "--") || strstr(name, ".."))
        return false;
    int slashes = 0;
    /* Each part (one or two, split at '/') starts and ends with a word
     * character, as the \b...\b of huggingface_hub's pattern requires. */
    size_t beg = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && name[i] != '/') {
            if (!word_char(name[i]) && name[i] != '-' && name[i] != '.')
                return false;
            continue;
        }
        if (i < n && ++slashes > 1)
            return false;
        if (i == beg || !word_char(name[beg]) || !word_char(name[i - 1]))
            return false;
        beg = i + 1;
    }
    return true;
}

/* getenv, with an empty value counted as unset. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Appends s[0..n) to out at *len; false when it does not fit. */
static bool put(char *out, iz cap, iz *len, const char *s, iz n)
{
    if (*len + n + 1 > cap)
        return false;
    memcpy(out + *len, s, (size_t)n);
    *len += n;
    out[*len] = 0;
    return true;
}

/* The home folder of `user` (the current user when user is empty), as
 * Python's expanduser finds it: $HOME for the current user, else the
 * password database. */
static bool home_of(const char *user, iz ulen, char *out, iz cap)
{
    if (ulen == 0 && env("HOME")) {
        iz len = 0;
        return put(out, cap, &len, env("HOME"), (iz)strlen(env("HOME")));
    }
    char name[256], pwbuf[4096];
    if (ulen >= (iz)sizeof(name))
        return false;
    memcpy(name, user, (size_t)ulen);
    name[ulen] = 0;
    struct passwd pw, *res = NULL;
    int rc = ulen ? getpwnam_r(name, &pw, pwbuf, sizeof(pwbuf), &res)
                  : getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res);
    if (rc != 0 || !res || !pw.pw_dir)
        return false;
    iz len = 0;
    return put(out, cap, &len, pw.pw_dir, (iz)strlen(pw.pw_dir));
}

/* os.path.expanduser: a leading ~ or ~user (up to the first '/') becomes
 * that home folder without its trailing slashes; a name that cannot be
 * found is left as written. */
static bool expanduser(const char *in, char *out, iz cap)
{
    iz len = 0;
    out[0] = 0;
    if (in[0] != '~')
        return put(out, cap, &len, in, (iz)strlen(in));
    const char *slash = strchr(in, '/');
    iz ulen = slash ? slash - in - 1 : (iz)strlen(in) - 1;
    char home[HFCACHE_PATH_MAX];
    if (!home_of(in + 1, ulen, home, (iz)sizeof(home)))
        return put(out, cap, &len, in, (iz)strlen(in));
    iz hl = (iz)strlen(home);
    while (hl > 0 && home[hl - 1] == '/')
        hl--;
    const char *rest = in + 1 + ulen;
    if (hl == 0 && !*rest)
        return put(out, cap, &len, "/", 1);
    return put(out, cap, &len, home, hl) && put(out, cap, &len, rest, (iz)strlen(rest));
}

/* os.path.expandvars: $NAME and ${NAME} (NAME of ASCII word characters for
 * the first form, anything up to '}' for the second) become the
 * variable's value when it is set; otherwise the text stays as written. */
static bool expandvars(const char *in, char *out, iz cap)
{
    iz len = 0;
    out[0] = 0;
    for (const char *p = in; *p;) {
        if (*p != '$') {
            if (!put(out, cap, &len, p, 1))
                return false;
            p++;
            continue;
        }
        const char *nb = p + 1, *ne;
        const char *after;
        if (*nb == '{') {
            ne = strchr(nb + 1, '}');
            if (!ne) {
                if (!put(out, cap, &len, p, 1))
                    return false;
                p++;
                continue;
            }
            after = ne + 1;
            nb++;
        } else {
            ne = nb;
            while (word_char(*ne))
                ne++;
            after = ne;
        }
        char name[256];
        const char *val = NULL;
        if (ne > nb && ne - nb < (iz)sizeof(name)) {
            memcpy(name, nb, (size_t)(ne - nb));
            name[ne - nb] = 0;
            val = getenv(name);   /* set to "" still replaces, as in Python */
        }
        if (!val) {
            /* Python keeps the unmatched text and goes on after it. */
            if (!put(out, cap, &len, p, after > p + 1 ? after - p : 1))
                return false;
            p = after > p + 1 ? after : p + 1;
            continue;
        }
        if (!put(out, cap, &len, val, (iz)strlen(val)))
            return false;
        p = after;
    }
    return true;
}

static bool expand(const char *in, char *out, iz cap)
{
    char tmp[HFCACHE_PATH_MAX];
    return expanduser(in, tmp, (iz)sizeof(tmp)) && expandvars(tmp, out, cap);
}

/* os.path.join(a, b) for a relative b. */
static bool join(char *out, iz cap, const char *a, const char *b)
{
    iz len = 0;
    out[0] = 0;
    iz al = (iz)strlen(a);
    if (!put(out, cap, &len, a, al))
        return false;
    if (al > 0 && a[al - 1] != '/' && !put(out, cap, &len, "/", 1))
        return false;
    return put(out, cap, &len, b, (iz)strlen(b));
}

bool hfcache_hub_dir(char *out, iz cap, const char **source, err *e)
{
    const char *src;
    char base[HFCACHE_PATH_MAX], home[HFCACHE_PATH_MAX];
    bool ok;
    /* huggingface_hub: HF_HOME = expand(HF_HOME or XDG_CACHE_HOME/huggingface
     * or ~/.cache/huggingface); HF_HUB_CACHE = expand(HF_HUB_CACHE or
     * HUGGINGFACE_HUB_CACHE or HF_HOME/hub). */
    if (env("HF_HUB_CACHE")) {
        src = "$HF_HUB_CACHE";
        ok = expand(env("HF_HUB_CACHE"), out, cap);
    } else if (env("HUGGINGFACE_HUB_CACHE")) {
        src = "$HUGGINGFACE_HUB_CACHE";
        ok = expand(env("HUGGINGFACE_HUB_CACHE"), out, cap);
    } else {
        if (env("HF_HOME")) {
            src = "$HF_HOME/hub";
            ok = expand(env("HF_HOME"), home, (iz)sizeof(home));
        } else if (env("XDG_CACHE_HOME")) {
            src = "$XDG_CACHE_HOME/huggingface/hub";
            ok = join(base, (iz)sizeof(base), env("XDG_CACHE_HOME"), "huggingface")
              && expand(base, home, (iz)sizeof(home));
        } else {
            src = "the default ~/.cache/huggingface/hub";
            ok = expand("~", base, (iz)sizeof(base));
            if (ok && base[0] == '~')
                return err_set(e, ERR_IO, -1, "no home folder ($HOME is not set) to find "
                               "~/.cache/huggingface/hub in"), false;
            ok = ok && join(home, (iz)sizeof(home), base, ".cache/huggingface");
        }
        char hub[HFCACHE_PATH_MAX];
        ok = ok && join(hub, (iz)sizeof(hub), home, "hub") && expand(hub, out, cap);
    }
    if (!ok)
        return err_set(e, ERR_LIMIT, -1, "the Hugging Face hub folder (from %s) is a path longer "
                       "than %td bytes", src, cap - 1), false;
    if (source)
        *source = src;
    return true;
}

/* Names of up to three snapshot folders of `repo`, for an error message. */
static void list_snapshots(const char *repo, char *out, iz cap)
{
    char dir[HFCACHE_PATH_MAX];
    out[0] = 0;
    if (!join(dir, (iz)sizeof(dir), repo, "snapshots"))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    iz len = 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n < 3) {
            if (!put(out, cap, &len, n ? ", " : "", n ? 2 : 0)
                || !put(out, cap, &len, de->d_name, (iz)strlen(de->d_name)))
                break;
        }
        n++;
    }
    closedir(d);
    if (n > 3)
        put(out, cap, &len, ", ...", 5);
}

bool hfcache_find(const char *name, char *out, iz cap, err *e)
{
    if (!hfcache_is_model_id(name))
        return err_set(e, ERR_INVALID, -1, "\"%s\" is not a Hugging Face model name (ORG/NAME)", name),
               false;
    char hub[HFCACHE_PATH_MAX];
    const char *src;
    if (!hfcache_hub_dir(hub, (iz)sizeof(hub), &src, e))
        return false;
    /* models--ORG--NAME: huggingface_hub's repo_folder_name. */
    char folder[16 + HFCACHE_ID_MAX * 2], repo[HFCACHE_PATH_MAX];
    iz fl = 0;
    put(folder, (iz)sizeof(folder), &fl, "models--", 8);
    for (const char *p = name; *p; p++)
        put(folder, (iz)sizeof(folder), &fl, *p == '/' ? "--" : p, *p == '/' ? 2 : 1);
    if (!join(repo, (iz)sizeof(repo), hub, folder))
        return err_set(e, ERR_LIMIT, -1, "the Hugging Face cache path of %s is too long", name), false;
    struct stat st;
    if (stat(repo, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (stat(hub, &st) != 0 || !S_ISDIR(st.st_mode))
            return err_set(e, ERR_IO, -1, "not found in the Hugging Face cache (looked in %s: no "
                           "such folder; the hub folder %s, from %s, does not exist)",
                           repo, hub, src), false;
        return err_set(e, ERR_IO, -1, "not found in the Hugging Face cache (looked in %s: no such "
                       "folder; the hub folder is from %s)", repo, src), false;
    }
    char refs[HFCACHE_PATH_MAX], snaps[256];
    if (!join(refs, (iz)sizeof(refs), repo, "refs/main"))
        return err_set(e, ERR_LIMIT, -1, "the Hugging Face cache path of %s is too long", name), false;
    int fd = open(refs, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        list_snapshots(repo, snaps, (iz)sizeof(snaps));
        return err_set(e, ERR_IO, -1, "not found in the Hugging Face cache (looked in %s: %s, so no "
                       "snapshot is the main revision%s%s)", refs, strerror(errno),
                       snaps[0] ? "; give one of its snapshots/ folders as the path: " : "", snaps),
               false;
    }
    char hash[256];
    ssize_t n = read(fd, hash, sizeof(hash) - 1);
    close(fd);
    if (n < 0)
        return err_set(e, ERR_IO, -1, "%s: %s", refs, strerror(errno)), false;
    /* huggingface_hub writes the hash without a newline; one added by hand
     * is forgiven. */
    while (n > 0 && (hash[n - 1] == '\n' || hash[n - 1] == '\r' || hash[n - 1] == ' '))
        n--;
    hash[n] = 0;
    if (n == 0 || n == (ssize_t)sizeof(hash) - 1 || strchr(hash, '/') || !strcmp(hash, ".")
        || !strcmp(hash, "..") || memchr(hash, 0, (size_t)n))
        return err_set(e, ERR_INVALID, -1, "%s does not hold a commit hash (it is %zd bytes: \"%.64s\")",
                       refs, n, hash), false;
    char snap[HFCACHE_PATH_MAX], tj[HFCACHE_PATH_MAX];
    iz sl = 0;
    snap[0] = 0;
    if (!put(snap, (iz)sizeof(snap), &sl, repo, (iz)strlen(repo))
        || !put(snap, (iz)sizeof(snap), &sl, "/snapshots/", 11)
        || !put(snap, (iz)sizeof(snap), &sl, hash, n)
        || !join(tj, (iz)sizeof(tj), snap, "tokenizer.json") || sl + 1 > cap)
        return err_set(e, ERR_LIMIT, -1, "the Hugging Face cache path of %s is too long", name), false;
    if (stat(snap, &st) != 0 || !S_ISDIR(st.st_mode))
        return err_set(e, ERR_IO, -1, "not found in the Hugging Face cache (%s names snapshot %s, but "
                       "looked in %s: no such folder)", refs, hash, snap), false;
    if (stat(tj, &st) != 0 || !S_ISREG(st.st_mode)) {
        struct stat lst;
        if (lstat(tj, &lst) == 0 && S_ISLNK(lst.st_mode))
            return err_set(e, ERR_IO, -1, "not found in the Hugging Face cache (looked in %s: a "
                           "broken link, its blob is missing: an incomplete download?)", tj), false;
        return err_set(e, ERR_IO, -1, "not found in the Hugging Face cache (looked in %s: no such "
                       "file; tally needs the fast tokenizer's tokenizer.json: download it into "
                       "the cache with huggingface_hub)", tj), false;
    }
    memcpy(out, snap, (size_t)sl + 1);
    return true;
}
