#!/usr/bin/env python3
"""Check that an events.jsonl is encoded exactly as upstream's JSONL writer encodes it.

    check_encoding.py EVENTS.jsonl [...]

Every line is decoded with upstream's own reader (msgspec.json.Decoder(type=EventRecord,
dec_hook=EventType.decode_hook), evaluation/scoring.py:177) and encoded again with
upstream's writer (msgspec.json.Encoder(enc_hook=EventType.encode_hook),
event_logger/file_writer.py:172); the bytes must be the same. Lines that are not
upstream's encoding on purpose (the malformed and unusual lines of the `mixed` and
`interrupted` scenarios) are counted and listed, not failed: they are expected to
either not decode, or to decode to a record whose encoding differs.

Needs the reference environment of ../shared/oracle/aggregator (setup.sh); it finds it
as replay.py does ($UPSTREAM_AGG_HOME, default ~/.cache/upstream-agg).
"""
import os
import sys
from pathlib import Path

home = Path(os.environ.get("UPSTREAM_AGG_HOME") or Path.home() / ".cache" / "upstream-agg")
shared = Path(os.environ.get("TALLY_SHARED") or Path(__file__).resolve().parents[3].parent / "shared")
sys.path[:0] = [str(home / "site"), str(shared / "oracle" / "aggregator" / "shims"), str(home / "endpoints" / "src")]
sys.dont_write_bytecode = True

import msgspec  # noqa: E402
import upstream_preload  # noqa: E402,F401
from inference_endpoint.core.record import EventRecord, EventType  # noqa: E402


def main(paths):
    dec = msgspec.json.Decoder(type=EventRecord, dec_hook=EventType.decode_hook)
    encoder = msgspec.json.Encoder(enc_hook=EventType.encode_hook)
    bad = 0
    for p in paths:
        same = differ = undecodable = 0
        notes = []
        with open(p, "rb") as f:
            for lineno, line in enumerate(f, 1):
                body = line[:-1] if line.endswith(b"\n") else line
                try:
                    rec = dec.decode(body)
                except Exception as exc:  # noqa: BLE001
                    undecodable += 1
                    notes.append(f"  {lineno}: does not decode: {type(exc).__name__}: {str(exc)[:80]}")
                    continue
                if encoder.encode(rec) == body:
                    same += 1
                else:
                    differ += 1
                    notes.append(f"  {lineno}: decodes, encodes differently: {body[:90]!r}")
        print(f"{p}: {same} lines byte-identical to upstream's encoding, {differ} differ, "
              f"{undecodable} do not decode")
        for n in notes[:40]:
            print(n)
        name = Path(p).name
        if (differ or undecodable) and not (name.startswith("mixed") or name.startswith("interrupted")):
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
