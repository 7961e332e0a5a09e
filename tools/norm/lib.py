"""lib.py - shared by the Python tools of this folder: where things are, the
oracle's side and tally's side of a normalizer, and the Unicode data the
tables are made from.

Paths (no absolute path is written anywhere): the project root is two levels
above this file; the shared folder is $TALLY_SHARED, else <root>/../shared;
the oracle is <shared>/oracle/count.sh; the tokenizer assets are in
$TALLY_ASSETS, else <root>/assets. Temporary files go to $TALLY_NORM_TMP (set
by lib.sh to its mktemp dir), else to a temp dir of our own, removed at exit.

The oracle runs a whole tokenizer.json, so to see what one normalizer does
the tools generate a small tokenizer around it (mini_tokenizer): ByteLevel
pre-tokenizer without regex and a BPE model with no merges whose vocabulary
is the 256 byte characters, id = byte value. The ids the oracle returns are
then the bytes of the normalizer's output, exactly."""
import atexit
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get('TALLY_SHARED') or os.path.join(os.path.dirname(ROOT), 'shared')
ASSETS = os.environ.get('TALLY_ASSETS') or os.path.join(ROOT, 'assets')
COUNT_SH = os.path.join(SHARED, 'oracle', 'count.sh')
NORMALIZE_C = os.path.join(ROOT, 'src', 'tok', 'normalize.c')
TEST_NORM_C = os.path.join(ROOT, 'tests', 'test_norm.c')

_tmp = os.environ.get('TALLY_NORM_TMP')
if not _tmp:
    _tmp = tempfile.mkdtemp(prefix='tally-norm-')
    atexit.register(shutil.rmtree, _tmp, True)
TMP = _tmp
_seq = [0]


def tmpdir(prefix):
    """A new folder in TMP."""
    _seq[0] += 1
    d = os.path.join(TMP, '%s.%d.%d' % (prefix, os.getpid(), _seq[0]))
    os.makedirs(d)
    return d


# ---- the oracle ------------------------------------------------------------

class OracleError(Exception):
    """The oracle failed: the tokenizer did not load (kind 'load'), or it
    panicked ('panic'), or something else went wrong ('other')."""

    def __init__(self, msg):
        super().__init__(msg)
        self.kind = 'panic' if msg.startswith('panic') else 'load' if 'Error loading' in msg else 'other'


def _b2u():
    """GPT-2's byte -> character table (the ByteLevel pre-tokenizer's)."""
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def mini_tokenizer(normalizer):
    """A folder (in TMP) with a tokenizer.json around `normalizer` (a JSON
    value) whose ids are the bytes of the normalized text."""
    m = _b2u()
    tok = {
        'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': [],
        'normalizer': normalizer,
        'pre_tokenizer': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False,
                          'use_regex': False},
        'post_processor': None, 'decoder': None,
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': None,
                  'end_of_word_suffix': None, 'fuse_unk': False, 'byte_fallback': False,
                  'ignore_merges': False, 'vocab': {m[b]: b for b in range(256)}, 'merges': []},
    }
    d = tmpdir('tok')
    with open(os.path.join(d, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        json.dump(tok, f)
    return d


def _oracle_error(stderr):
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for i, l in enumerate(lines):
        if 'panicked at' in l:
            return 'panic: ' + (lines[i + 1] if i + 1 < len(lines) else l)
    for l in lines:
        if 'Error loading' in l or 'Error:' in l:
            return l[l.find('Error'):]
    return lines[-1] if lines else 'failed'


def oracle_ids(tokdir, texts):
    """The oracle's ids of each text (add_special_tokens false)."""
    if not os.path.exists(COUNT_SH):
        raise SystemExit('lib.py: no oracle at %s (set TALLY_SHARED; install with '
                         'sh <shared>/oracle/install.sh)' % COUNT_SH)
    if not texts:
        return []
    inp = ''.join(json.dumps({'text': t}) + '\n' for t in texts)
    r = subprocess.run(['sh', COUNT_SH, '--tokenizer', tokdir, 'text', '--ids'],
                       input=inp, capture_output=True, text=True)
    out = r.stdout.splitlines()
    if r.returncode or len(out) != len(texts):
        raise OracleError(_oracle_error(r.stderr))
    return [json.loads(l)['ids'] for l in out]


def oracle_norm(normalizer, texts):
    """What the oracle's `normalizer` (a JSON value) makes of each text.
    Raises OracleError when it does not load or panics on some text."""
    d = mini_tokenizer(normalizer)
    try:
        return [bytes(ids).decode('utf-8') for ids in oracle_ids(d, texts)]
    finally:
        shutil.rmtree(d, True)


def oracle_norm_each(normalizer, texts):
    """As oracle_norm, but a text the oracle panics on gets an OracleError
    in its place (found by halving the batch). Raises OracleError when the
    normalizer does not load."""
    d = mini_tokenizer(normalizer)

    def run(ts):
        try:
            return [bytes(ids).decode('utf-8') for ids in oracle_ids(d, ts)]
        except OracleError as ex:
            if ex.kind == 'load':
                raise
            if len(ts) == 1:
                return [ex]
            h = len(ts) // 2
            return run(ts[:h]) + run(ts[h:])
    try:
        return run(texts)
    finally:
        shutil.rmtree(d, True)


# ---- tally ------------------------------------------------------------------

class LoadError(Exception):
    """tally did not load the normalizer or tokenizer."""


def _hex_lines(texts):
    return ''.join(t.encode('utf-8', 'surrogatepass').hex() + '\n' for t in texts)


def tally_norm(drv, normalizer, texts):
    """What tally's `normalizer` makes of each text (drv.c): a str, or
    'ERR ...' when it fails on that text. Raises LoadError."""
    r = subprocess.run([drv, json.dumps(normalizer)], input=_hex_lines(texts),
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit('drv failed (%d): %s' % (r.returncode, r.stderr[-1000:]))
    out = r.stdout.splitlines()
    if out and out[0].startswith('LOADERR'):
        raise LoadError(out[0][8:])
    if len(out) != len(texts):
        raise SystemExit('drv: %d lines for %d texts' % (len(out), len(texts)))
    return [o if o.startswith('ERR') else bytes.fromhex(o).decode('utf-8') for o in out]


def tally_ids(enc, tokdir, texts):
    """tally's ids of each text through the whole pipeline (enc.c), as
    'id,id,...' strings, or 'ERR ...'. Raises LoadError."""
    r = subprocess.run([enc, tokdir], input=_hex_lines(texts), capture_output=True, text=True)
    if r.returncode:
        raise SystemExit('enc failed (%d): %s' % (r.returncode, r.stderr[-1000:]))
    out = r.stdout.splitlines()
    if out and out[0].startswith('LOADERR'):
        raise LoadError(out[0][8:])
    if len(out) != len(texts):
        raise SystemExit('enc: %d lines for %d texts' % (len(out), len(texts)))
    return out


# ---- every code point through the oracle -----------------------------------

BERT = 'BertNormalizer'
# name: (normalizer, separator). Scans join 2048 code points with the
# separator, which the normalizer must leave alone and which must not
# interact with its neighbours; the separator itself is asked alone.
SCANS = {
    'nfc': ({'type': 'NFC'}, '\x01'),
    'nfd': ({'type': 'NFD'}, '\x01'),
    'nfkc': ({'type': 'NFKC'}, '\x01'),
    'nfkd': ({'type': 'NFKD'}, '\x01'),
    'lower': ({'type': 'Lowercase'}, '\x01'),
    'stripacc': ({'type': 'StripAccents'}, '\x01'),
    'nmt': ({'type': 'Nmt'}, '|'),
    'bert': ({'type': BERT, 'clean_text': True, 'handle_chinese_chars': True, 'strip_accents': None,
              'lowercase': True}, '|'),
    'bert_nolower': ({'type': BERT, 'clean_text': True, 'handle_chinese_chars': False, 'strip_accents': True,
                      'lowercase': False}, '|'),
    'bert_strip': ({'type': BERT, 'clean_text': False, 'handle_chinese_chars': False, 'strip_accents': True,
                    'lowercase': False}, '\x01'),
}

ALL_CPS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def scan(name, cache=None):
    """{code point: its normalization} by the oracle, for every code point
    (surrogates aside) that SCANS[name] changes. With `cache` (a folder):
    read cache/NAME.txt when it exists, else scan and write it there, as
    lines 'CP HEX HEX ...' (the code points of the result, none when empty)."""
    path = os.path.join(cache, name + '.txt') if cache else None
    if path and os.path.exists(path):
        res = {}
        with open(path) as f:
            for l in f:
                p = l.split()
                res[int(p[0], 16)] = ''.join(chr(int(x, 16)) for x in p[1:])
        return res
    spec, sep = SCANS[name]
    cps = [c for c in ALL_CPS if c != ord(sep)]
    ch = 2048
    texts = [sep.join(chr(c) for c in cps[i:i + ch]) for i in range(0, len(cps), ch)] + [sep]
    outs = oracle_norm(spec, texts)
    res = {}
    for i, o in enumerate(outs[:-1]):
        parts = o.split(sep)
        chunk = cps[i * ch:(i + 1) * ch]
        if len(parts) != len(chunk):
            raise SystemExit('scan %s: chunk %d: %d parts for %d code points' % (name, i, len(parts), len(chunk)))
        for c, p in zip(chunk, parts):
            if p != chr(c):
                res[c] = p
    if outs[-1] != sep:
        res[ord(sep)] = outs[-1]
    if path:
        os.makedirs(cache, exist_ok=True)
        with open(path, 'w') as f:
            for c in sorted(res):
                f.write('%X %s\n' % (c, ' '.join('%X' % ord(x) for x in res[c])))
    return res


# ---- Unicode data -----------------------------------------------------------

def assigned_invlist(version='9.0'):
    """Inversion list of the code points assigned in Unicode `version`
    (assigned.pl: Perl's Unicode::UCD)."""
    r = subprocess.run(['perl', os.path.join(HERE, 'assigned.pl'), version], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit('assigned.pl failed: ' + r.stderr)
    return [int(x) for x in r.stdout.split(',')]


def in_invlist(inv):
    """A membership test for an inversion list."""
    import bisect
    return lambda c: bisect.bisect_right(inv, c) % 2 == 1


class UProps:
    """utf8proc's data for every code point (uprops.c's output)."""
    CAT_MN, CAT_MC, CAT_ME = 6, 7, 8

    def __init__(self, uprops_bin):
        r = subprocess.run([uprops_bin], capture_output=True, text=True)
        if r.returncode:
            raise SystemExit('uprops failed: ' + r.stderr)
        n = 0x110000
        self.cat = [0] * n
        self.ccc = [0] * n
        self.dtype = [0] * n
        self.dec = [False] * n
        self.comb = [0] * n
        self.lower = list(range(n))
        for l in r.stdout.splitlines():
            p = l.split()
            c = int(p[0], 16)
            self.cat[c], self.ccc[c], self.dtype[c] = int(p[1]), int(p[2]), int(p[3])
            self.dec[c], self.comb[c], self.lower[c] = p[4] == '1', int(p[5]), int(p[6], 16)

    def canonical_dec(self, c):
        """Has a canonical decomposition in utf8proc's table."""
        return self.dec[c] and self.dtype[c] == 0


def ranges(cps):
    """Runs of consecutive code points, as [lo, hi] pairs."""
    r = []
    for c in sorted(cps):
        if r and r[-1][1] == c - 1:
            r[-1][1] = c
        else:
            r.append([c, c])
    return r


def fmt_cps(s):
    return ' '.join('%04X' % ord(c) for c in s) if s else '(empty)'
