#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz corpus, fuzz/corpus/<target>/crafted-*:
inputs at the edges the fuzzers should start from (values past their
field's width, sums that overflow, text that is not UTF-8, logs not closed
cleanly, empty specs) and inputs larger than libFuzzer's default 4 kB limit
(a binary batch is 4096 samples, 20-90 kB of log). Run it again after
changing it; the files it writes are kept in git.

    fuzz/crafted_corpus.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, "crafted-" + name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# ---- binary logs (docs/log-formats.md) ----------------------------------------

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def string(s):
    s = s.encode()
    return varint(len(s)) + s


def file_header(**fields):
    text = "".join(f"{k}={v}\n" for k, v in fields.items()).encode()
    return b"\x89HTLOG\r\n" + struct.pack("<HHI", 1, 0, len(text)) + text


def block(records, base=1_700_000_000_000_000_000):
    return b"HTBK" + struct.pack("<Iq", len(records), base) + records


def tracepoint(index, name, in_type="id", out_type="id", fn=0, node="", instance=""):
    return b"\x80" + varint(index) + string(name) + string(in_type) + string(out_type) + bytes([fn]) + string(node) + string(instance)


def thread(thread_id, os_tid, name):
    return b"\x82" + varint(thread_id) + varint(zigzag(os_tid)) + string(name)


def drop(tp, delta, count):
    return b"\x81" + varint(tp) + varint(zigzag(delta)) + varint(count)


END = b"\x83"

NONE, LITERAL, RECENT, SAME = 0, 1, 2, 3


def sample(tp, delta, thread_code=None, seq_code=None, inp=(NONE, b""), out=(NONE, b"")):
    tag = inp[0] | out[0] << 2
    body = varint(tp) + varint(zigzag(delta))
    if thread_code is not None:
        tag |= 0x10
        body += varint(thread_code)
    if seq_code is not None:
        tag |= 0x20
        body += varint(seq_code)
    return bytes([tag]) + body + inp[1] + out[1]


def literal(i):
    return (LITERAL, struct.pack("<QQ", i, 0x5A5A5A5A5A5A5A5A))


def recent(slot):
    return (RECENT, bytes([slot]))


HEADER = file_header(node="Chai", instance="4108243516105288", host="lab1", clock_source="CLOCK_REALTIME")
DEFINITIONS = tracepoint(0, "ForceComputed", "loop", "messageid") + tracepoint(1, "MessageSent") + thread(0, 4242, "haptics")


def typical_records(n, first_literal=0):
    """n samples: a new message id out of ForceComputed, passed on by MessageSent."""
    r = b""
    for i in range(n):
        r += sample(0, 1000, 1 if i == 0 else None, 1 if i == 0 else None, (NONE, b""), literal(first_literal + i))
        r += sample(1, 200, None, None, recent(i % 256), (SAME, b""))
    return r


def binary_seeds():
    logs = {
        "clean.htlog": HEADER + block(DEFINITIONS + typical_records(20) + drop(0, 5, 3) + END),
        # SIGKILL between blocks: complete, but no end marker.
        "unclean.htlog": HEADER + block(DEFINITIONS + typical_records(20)) + block(typical_records(20, 20)),
        "torn.htlog": (HEADER + block(DEFINITIONS + typical_records(20)))[:-7],
        # id 2^32 + 5 (was read as thread 5), and a thread record past 32 bits.
        "thread-past-32-bits.htlog": HEADER + block(DEFINITIONS + sample(0, 1, 2**32 + 6, 1)),
        "thread-record-past-32-bits.htlog": HEADER + block(DEFINITIONS + thread(2**32 + 1, 7, "big")),
        "thread-no-thread-id.htlog": HEADER + block(DEFINITIONS + sample(0, 1, 2**32, 1)),
        # seq code 2^64 - 1, then one implied after it (was read as "no seq").
        "seq-implied-past-max.htlog": HEADER + block(DEFINITIONS + sample(0, 1, 1, 2**64 - 1) + sample(0, 1)),
        "drop-sum-overflow.htlog": HEADER + block(DEFINITIONS + drop(0, 1, 2**64 - 1) + drop(1, 1, 1)),
    }
    # A thousand threads, numbered past the reader's direct lookup, interleaved
    # over three blocks with implied sequence numbers (~40 kB).
    many = b""
    for b in range(3):
        records = DEFINITIONS if b == 0 else b""
        last_thread = None
        seqs = {}
        for i in range(1500):
            t = 40 + (i * 7919) % 1000
            code = t + 1
            seq = seqs.get(t)
            seqs[t] = (seq or 0) + 1
            records += sample(i % 2, 10, code if code != last_thread else None, 1 if seq is None else None,
                              (NONE, b""), literal(i) if i % 4 == 0 else (NONE, b""))
            last_thread = code
        many += block(records)
    logs["many-threads.htlog"] = HEADER + many + block(END)
    # More samples than one batch of columns (4096) in a single block (~45 kB).
    logs["larger-than-a-batch.htlog"] = HEADER + block(DEFINITIONS + typical_records(2100) + END)
    for name, data in logs.items():
        write("binary_reader", name, data)
        write("analyze_binary", name, data)


# ---- CSV logs (docs/spec.md section 1) ----------------------------------------------

CSV_HEADER = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash"
HASH_A = "0123456789abcdef0123456789abcdef"
HASH_B = "fedcba9876543210fedcba9876543210"


def csv_seeds():
    full = CSV_HEADER + ",thread,seq,hash_function,dropped\n"
    good = f"Chai,7,Send,id,id,1763814333.000000001,{HASH_A},{HASH_B},1,5,md5,\n"
    logs = {
        "not-utf8.csv": (full + good + "Chai,7,Sen\xff\xfe,id,id,1.5,,,1,6,,\n").encode("latin-1"),
        "overlong-utf8.csv": (full + good).encode() + b"Chai,7,\xc0\xafx,id,id,1.5,,,1,6,,\n" + b"Chai,7,\xed\xa0\x80,id,id,1.5,,,1,6,,\n",
        "valid-utf8.csv": (full + "Kr\u00e4fte,7,\u65e5\u672c,\U0001F680,id,1.5,,,1,6,,\n").encode(),
        "nul.csv": (full + good + "Chai,7\0,Send,id,id,1.5,,,1,6,,\n").encode(),
        "empty-instance.csv": full + good + "Chai,,Send,id,id,1.5,,,1,6,,\n",
        "thread-no-thread-id.csv": full + "Chai,7,Send,id,id,1.5,,,4294967295,6,,\n" + "Chai,7,Send,id,id,1.5,,,4294967296,6,,\n",
        "seq-max.csv": full + "Chai,7,Send,id,id,1.5,,,1,18446744073709551615,,\n",
        "drop-sum-overflow.csv": full + "Chai,7,Send,,,1.5,,,1,,,18446744073709551615\n" + "Chai,7,Send,,,1.6,,,1,,,1\n",
    }
    # More rows than one batch (4096), as short as rows get (~49 kB).
    logs["larger-than-a-batch.csv"] = CSV_HEADER + "\n" + "A,1,T,,,1,,\n" * 4097
    # A realistic run of ~10 kB: two nodes, linked hashes, threads, a drop, CRLF line ends.
    rows = [full.rstrip("\n")]
    for i in range(60):
        h = f"{i:032x}"
        rows.append(f"Chai,7,ForceComputed,loop,messageid,{1763814333 + i}.000000001,{HASH_A},{h},1,{2 * i},md5,")
        rows.append(f"Chai,7,MessageSent,messageid,messageid,{1763814333 + i}.000000500,{h},{h},2,{2 * i + 1},md5,")
        rows.append(f"Unity,90210,MessageReceived,messageid,frame,{1763814333 + i}.001000000,{h},{HASH_B},1,{i},xxh3_128,")
    rows.append("Chai,7,MessageSent,,,1763814400.0,,,2,,md5,4")
    logs["run-crlf.csv"] = "\r\n".join(rows) + "\r\n"
    for name, data in logs.items():
        write("csv_reader", name, data)
        write("analyze_csv", name, data)


# ---- analysis specs (docs/spec.md section 3) ----------------------------------------

def spec_seeds():
    write("spec_parser", "empty.toml", "")
    write("spec_parser", "comments-only.toml", "# pairs and intervals to come\n\n# [[pair]]\n")
    parts = []
    for i in range(40):
        parts.append(f'[[pair]]\nfrom = "Node{i}/Out*"\nto = "Node{i + 1}/In*"\nscope = "{["any", "instance", "thread"][i % 3]}"\n')
        parts.append(f'[[interval]]\nname = "M5.{i} node {i} to {i + 1}"\nfrom = "Node{i}/*"\nto = "Node{i + 1}/*"\n'
                     f'kind = "{["process", "end_to_end"][i % 2]}"\n')
    write("spec_parser", "large.toml", "\n".join(parts))  # ~8 kB


# ---- clock-quality records (clocksync/clock_record.hpp) -----------------------

CLOCK_HEADER = "# hashtrace clock-quality records v1\ntime_ns,host,source,state,offset_ns,path_delay_ns,freq_ppb,jitter_ns\n"


def clock_seeds():
    write("clock_records", "ptp.htclock", CLOCK_HEADER + "1700000000123456789,lab-pc-2,ptp,SLAVE,-812,2431,-10210.5,\n"
                                                          "1700000001123456789,lab-pc-2,ptp,UNCALIBRATED,,,,\n"
                                                          "1700000002123456789,lab-pc-1,ptp,MASTER,0,,0,\n")
    write("clock_records", "pps.htclock", CLOCK_HEADER + "1700000000000000000,lab-pc-3,pps,LOCKED,120,,3.25,45\n"
                                                          "# a comment\n1699999999000000000,lab-pc-3,pps,STEPPED,-5000000,,,\n")
    write("clock_records", "crlf-and-extremes.htclock", CLOCK_HEADER.replace("\n", "\r\n") +
          "-9223372036854775808,h,pps,NO_SIGNAL,9223372036854775807,-1,1e308,0\r\n"
          "9223372036854775807,h,ptp,NO_DAEMON,,,-0,\r\n")
    write("clock_records", "bad-fields.htclock", CLOCK_HEADER + "1,h,gps,LOCKED,,,,\n1,,ptp,SLAVE,,,,\n1,h,ptp,SLAVE,1.5,,,\n")
    write("clock_records", "not-a-number-drift.htclock", CLOCK_HEADER + "1,h,pps,LOCKED,1,,nan,2\n2,h,pps,LOCKED,1,,inf,2\n")
    rows = [f"{1700000000000000000 + i * 1000000000},lab-pc-{i % 3},{['ptp', 'pps'][i % 2]},{['SLAVE', 'LOCKED'][i % 2]},"
            f"{(-1) ** i * i * 37},{'' if i % 2 else 2400 + i},{-10210.5 + i / 8},{45 + i if i % 2 else ''}" for i in range(120)]
    write("clock_records", "long-run.htclock", CLOCK_HEADER + "\n".join(rows) + "\n")  # ~8 kB


if __name__ == "__main__":
    binary_seeds()
    csv_seeds()
    spec_seeds()
    clock_seeds()
