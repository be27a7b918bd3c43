#!/usr/bin/env python3
"""Where the bytes of a Perfetto trace go: bytes per packet kind and per field.

    bench/report/pftrace_bytes.py TRACE.pftrace [--samples N]

Reads the protobuf wire format directly (no libprotobuf): each Trace.packet is
classified by what it carries (a track descriptor, interned data, a track
event of a given type on a thread track or on another track), and every byte
is charged to one field of the packet or of its TrackEvent, framing included
(a field's tag and length prefix count as its bytes). With --samples, the
totals are also given per sample. docs/benchmarks.md uses it on the demo's run.
"""
import argparse
import collections
import sys


def varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def fields(data, begin=0, end=None):
    """(field number, wire type, value or (begin, end) of the payload, bytes taken) per field."""
    at, end = begin, len(data) if end is None else end
    while at < end:
        start = at
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 1:
            value, at = int.from_bytes(data[at:at + 8], "little"), at + 8
        elif wire == 2:
            length, at = varint(data, at)
            value, at = (at, at + length), at + length
        elif wire == 5:
            value, at = int.from_bytes(data[at:at + 4], "little"), at + 4
        else:
            raise ValueError(f"wire type {wire} at byte {start}")
        yield number, wire, value, at - start


PACKET_FIELDS = {6: "clock_snapshot", 8: "timestamp", 10: "trusted_packet_sequence_id", 11: "track_event",
                 12: "interned_data", 13: "sequence_flags", 58: "timestamp_clock_id",
                 59: "trace_packet_defaults", 60: "track_descriptor"}
EVENT_FIELDS = {3: "category_iids", 4: "debug_annotations", 9: "type", 10: "name_iid", 11: "track_uuid",
                36: "flow_ids_old", 42: "terminating_flow_ids_old", 47: "flow_ids", 48: "terminating_flow_ids"}
TYPES = {1: "slice begin", 2: "slice end", 3: "instant", 4: "counter"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--samples", type=int, help="divide by this many samples too")
    args = parser.parse_args()
    data = open(args.trace, "rb").read()
    thread_tracks = set()
    default_track = None
    kinds = collections.Counter()          # kind -> packets
    kind_bytes = collections.Counter()     # kind -> bytes
    field_bytes = collections.Counter()    # (kind, field) -> bytes
    for number, wire, value, taken in fields(data):
        if number != 1 or wire != 2:
            raise ValueError(f"not a Trace: field {number} at top level")
        begin, end = value
        parts = list(fields(data, begin, end))
        kind, event = "other", None
        for n, w, v, _ in parts:
            if n == 60:
                kind = "track descriptor"
                for dn, _, dv, _ in fields(data, *v):
                    if dn == 4:
                        thread_tracks.add(next(x for x in fields(data, *v) if x[0] == 1)[2])
            elif n == 59:
                for dn, _, dv, _ in fields(data, *v):
                    if dn == 11:  # track_event_defaults
                        for en, _, ev, _ in fields(data, *dv):
                            if en == 11:
                                default_track = ev
            elif n == 11:
                event = v
        if event is not None:
            etype, track = None, default_track
            for n, w, v, _ in fields(data, *event):
                if n == 9:
                    etype = v
                elif n == 11:
                    track = v
            where = "thread track" if track in thread_tracks else "other track"
            kind = f"{TYPES.get(etype, etype)} on {where}"
        elif kind == "other" and any(n == 12 for n, *_ in parts):
            kind = "interned data"
        kinds[kind] += 1
        kind_bytes[kind] += taken
        field_bytes[(kind, "Trace.packet framing")] += taken - (end - begin)
        for n, w, v, t in parts:
            if n == 11:
                field_bytes[(kind, "track_event framing")] += t - (v[1] - v[0])
                for en, ew, ev, et in fields(data, *v):
                    field_bytes[(kind, "TrackEvent." + EVENT_FIELDS.get(en, str(en)))] += et
            else:
                field_bytes[(kind, PACKET_FIELDS.get(n, str(n)))] += t
    print(f"{len(data)} bytes" + (f", {len(data) / args.samples:.1f} a sample" if args.samples else ""))
    for kind, total in kind_bytes.most_common():
        share = f", {total / args.samples:.1f} B/sample" if args.samples else ""
        print(f"{kind}: {kinds[kind]} packets, {total} bytes ({total / kinds[kind]:.1f} a packet{share})")
        for (k, field), b in sorted(field_bytes.items(), key=lambda x: -x[1]):
            if k == kind:
                share = f", {b / args.samples:.2f} B/sample" if args.samples else ""
                print(f"    {field}: {b} bytes ({b / kinds[kind]:.2f} a packet{share})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
