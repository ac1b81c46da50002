#!/usr/bin/python3
"""Check that IMA's binary and ASCII measurement lists say the same thing.

Usage: qemu/logcmp.py BINARY_LOG ASCII_LOG
Exit: 0 they agree, 1 they differ (the first difference is printed).

Hand-rolled because no Debian tool compares the two: evmctl replays the
binary list against the PCRs but never reads the ASCII one. Record layout
(ima_fs.c, ima_measurements_show; little-endian on x86): PCR (u32), template
digest (20 bytes), name length (u32), template name, data length (u32), then
the template's fields, each a u32 length and its bytes. For ima-ng: d-ng is
"<algo>:\\0<digest>", n-ng the path with its terminating NUL; ima-buf adds a
buf field, printed in hex (7.x records policy writes, "ima_policy_written",
with it).
"""
import struct
import sys


def binary_records(data):
    off = 0
    while off < len(data):
        pcr, tdigest, nlen = struct.unpack_from("<I20sI", data, off)
        off += 28
        name = data[off:off + nlen].decode()
        off += nlen
        (dlen,) = struct.unpack_from("<I", data, off)
        off += 4
        fields, end = [], off + dlen
        while off < end:
            (flen,) = struct.unpack_from("<I", data, off)
            fields.append(data[off + 4:off + 4 + flen])
            off += 4 + flen
        if off != end:
            raise ValueError(f"record {name}: fields overrun the template data")
        yield pcr, tdigest.hex(), name, fields


def as_ascii(pcr, tdigest, name, fields):
    if (name, len(fields)) not in (("ima-ng", 2), ("ima-buf", 3)):
        raise ValueError(f"template {name} with {len(fields)} fields: only ima-ng and ima-buf are read")
    algo, _, digest = fields[0].partition(b"\0")
    rest = fields[1].rstrip(b"\0").decode()
    if name == "ima-buf":
        rest += " " + fields[2].hex()
    return [str(pcr), tdigest, name, algo.decode() + digest.hex(), rest]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    with open(sys.argv[1], "rb") as f:
        binary = list(binary_records(f.read()))
    with open(sys.argv[2]) as f:
        ascii_lines = [line.split(" ", 4) for line in f.read().splitlines()]
    for i, (rec, line) in enumerate(zip(binary, ascii_lines), 1):
        want = as_ascii(*rec)
        if want != line:
            print(f"entry {i}: binary says {' '.join(want)}\n"
                  f"entry {i}: ASCII says  {' '.join(line)}")
            return 1
    if len(binary) != len(ascii_lines):
        print(f"the binary list has {len(binary)} entries, the ASCII list {len(ascii_lines)}")
        return 1
    print(f"{len(binary)} entries agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
