// The two log formats, byte for byte as the C++ SDK writes them
// (sdk/include/hashtrace/detail/binary_format.hpp and csv_format.hpp;
// docs/log-formats.md): a C#-written log reads in every hashtrace tool.
using System;
using System.Collections.Generic;
using System.Text;

namespace HashTrace
{
    internal struct EncodedSample
    {
        public long TimeNs;
        public bool HasInput, HasOutput;
        public Hash128 Input, Output;
        public uint Tracepoint;
        public uint Thread;
        public ulong Seq;
    }

    internal interface ILogEncoder
    {
        void FileHeader(List<KeyValuePair<string, string>> fields);
        void Tracepoint(uint index, string name, string inputType, string outputType, HashFunction function, long timeHint);
        void Thread(uint id, long osTid, string name, long timeHint);
        void Sample(ref EncodedSample s);
        void Drop(uint tracepoint, long timeNs, ulong count);
        /// <summary>Before each flush: closes the binary format's open block.</summary>
        void EndOfFlush();
        void EndMarker();
    }

    internal static class Utf8Text
    {
        public static readonly UTF8Encoding Encoding = new UTF8Encoding(false, false);
    }

    internal sealed class BinaryEncoder : ILogEncoder
    {
        static readonly byte[] Magic = { 0x89, (byte)'H', (byte)'T', (byte)'L', (byte)'O', (byte)'G', (byte)'\r', (byte)'\n' };
        static readonly byte[] BlockMagic = { (byte)'H', (byte)'T', (byte)'B', (byte)'K' };
        const byte TagTracepoint = 0x80, TagDrop = 0x81, TagThread = 0x82, TagEnd = 0x83, TagLoss = 0x84;
        const int HashNone = 0, HashLiteral = 1, HashRecent = 2, HashSameAsInput = 3;
        const int ThreadBit = 0x10, SeqBit = 0x20;
        const int RingSize = 256, LookupSize = 4096;
        const ushort EmptySlot = 0xffff;
        // Version 3 (docs/log-formats.md): magic, u64 checksum, u32 payload length,
        // i64 base time, then the time index: i64 smallest and largest sample time,
        // u32 samples, u32 flags. The checksum covers everything after it.
        const int BlockHeader = 48;
        const int ChecksumAt = 4, LengthAt = 12, MinTimeAt = 24, MaxTimeAt = 32, SamplesAt = 40, FlagsAt = 44;
        const uint HoldsRecords = 1;  // the block holds records other than samples: readers never pass over it

        readonly ByteBuffer _out;
        int _blockStart = -1;
        long _minTime, _maxTime;
        uint _samples, _flags;
        long _prevTime, _lastTime;
        ulong _prevThread;
        bool _havePrevThread;
        readonly Dictionary<ulong, ulong> _lastSeq = new Dictionary<ulong, ulong>();  // thread code -> last seq code
        readonly Hash128[] _ring = new Hash128[RingSize];
        int _ringPos;
        readonly ushort[] _lookup = new ushort[LookupSize];

        public BinaryEncoder(ByteBuffer output) { _out = output; }

        static ulong ZigZag(long v) { return (ulong)(v << 1) ^ (ulong)(v >> 63); }

        public void FileHeader(List<KeyValuePair<string, string>> fields)
        {
            _out.Add(Magic, 0, 8);
            int start = _out.Length - 8;
            _out.AddLittleEndian(3, 2);  // format version
            _out.AddLittleEndian(0, 2);  // flags
            var text = new StringBuilder();
            foreach (var kv in fields) text.Append(kv.Key).Append('=').Append(kv.Value).Append('\n');
            byte[] bytes = Utf8Text.Encoding.GetBytes(text.ToString());
            _out.AddLittleEndian((ulong)bytes.Length, 4);
            _out.Add(bytes, 0, bytes.Length);
            _out.AddLittleEndian(Xxh3.Hash64(_out.Bytes, start, _out.Length - start), 8);
        }

        public bool InBlock { get { return _blockStart >= 0; } }

        /// <summary>The time of the last record: a catch-up block's base time.</summary>
        public long LastTime { get { return _lastTime; } }

        /// <summary>Opens a block now, even one that may stay empty (the stream's catch-up block).</summary>
        public void BeginBlock(long timeNs) { OpenBlock(timeNs); }

        void OpenBlock(long timeNs)
        {
            _lastTime = timeNs;
            if (_blockStart >= 0) return;
            _blockStart = _out.Length;
            _out.Add(BlockMagic, 0, 4);
            _out.AddLittleEndian(0, 8);  // checksum, length and time index: patched by EndOfFlush
            _out.AddLittleEndian(0, 4);
            _out.AddLittleEndian((ulong)timeNs, 8);
            _out.AddLittleEndian(0, 8);
            _out.AddLittleEndian(0, 8);
            _out.AddLittleEndian(0, 4);
            _out.AddLittleEndian(0, 4);
            _minTime = long.MaxValue;  // a block without samples says so: an empty range
            _maxTime = long.MinValue;
            _samples = 0;
            _flags = 0;
            _prevTime = timeNs;
            _prevThread = 0;
            _havePrevThread = false;
            _ringPos = 0;
            for (int i = 0; i < LookupSize; ++i) _lookup[i] = EmptySlot;
            _lastSeq.Clear();
        }

        public void EndOfFlush()
        {
            if (_blockStart < 0) return;
            _out.Patch(_blockStart + LengthAt, (uint)(_out.Length - _blockStart - BlockHeader));
            _out.Patch64(_blockStart + MinTimeAt, (ulong)_minTime);
            _out.Patch64(_blockStart + MaxTimeAt, (ulong)_maxTime);
            _out.Patch(_blockStart + SamplesAt, _samples);
            _out.Patch(_blockStart + FlagsAt, _flags);
            int covered = _blockStart + LengthAt;
            _out.Patch64(_blockStart + ChecksumAt, Xxh3.Hash64(_out.Bytes, covered, _out.Length - covered));
            _blockStart = -1;
        }

        void AddString(string s)
        {
            byte[] b = Utf8Text.Encoding.GetBytes(s);
            _out.AddVarint((ulong)b.Length);
            _out.Add(b, 0, b.Length);
        }

        public void Tracepoint(uint index, string name, string inputType, string outputType, HashFunction function, long timeHint)
        {
            OpenBlock(timeHint);
            _flags |= HoldsRecords;
            _out.Add(TagTracepoint);
            _out.AddVarint(index);
            AddString(name);
            AddString(inputType);
            AddString(outputType);
            _out.Add((byte)function);
            AddString("");  // node: the header's
            AddString("");  // instance: the header's
        }

        public void Thread(uint id, long osTid, string name, long timeHint)
        {
            OpenBlock(timeHint);
            _flags |= HoldsRecords;
            _out.Add(TagThread);
            _out.AddVarint(id);
            _out.AddVarint(ZigZag(osTid));
            AddString(name);
        }

        // A drop or loss record's start: its block, its tag, the tracepoint
        // and the time (a delta from the record before).
        void BeginTracepointRecord(byte tag, uint tracepoint, long timeNs)
        {
            OpenBlock(timeNs);
            _flags |= HoldsRecords;
            _out.Add(tag);
            _out.AddVarint(tracepoint);
            _out.AddVarint(ZigZag(timeNs - _prevTime));
            _prevTime = timeNs;
        }

        public void Drop(uint tracepoint, long timeNs, ulong count)
        {
            BeginTracepointRecord(TagDrop, tracepoint, timeNs);
            _out.AddVarint(count);
        }

        public void EndMarker()
        {
            OpenBlock(_lastTime);
            _flags |= HoldsRecords;
            _out.Add(TagEnd);
        }

        /// <summary>Samples of a tracepoint that this log's reader will not get (the stream's
        /// catch-up block says so for the blocks it dropped), first and last time.</summary>
        public void Loss(uint tracepoint, long firstNs, long lastNs, ulong count)
        {
            BeginTracepointRecord(TagLoss, tracepoint, firstNs);
            _out.AddVarint((ulong)(lastNs - firstNs));
            _out.AddVarint(count);
        }

        public void Sample(ref EncodedSample s)
        {
            OpenBlock(s.TimeNs);
            int tagAt = _out.Length;
            _out.Add(0);  // the tag, patched below
            int tag = 0;
            _out.AddVarint(s.Tracepoint);
            _out.AddVarint(ZigZag(s.TimeNs - _prevTime));
            _prevTime = s.TimeNs;
            // The block's time index: two compares a sample.
            if (s.TimeNs < _minTime) _minTime = s.TimeNs;
            if (s.TimeNs > _maxTime) _maxTime = s.TimeNs;
            ++_samples;
            ulong threadCode = (ulong)s.Thread + 1;
            if (!_havePrevThread || threadCode != _prevThread)
            {
                tag |= ThreadBit;
                _out.AddVarint(threadCode);
                _prevThread = threadCode;
                _havePrevThread = true;
            }
            ulong seqCode = s.Seq + 1;
            ulong last;
            _lastSeq.TryGetValue(threadCode, out last);
            if (!(last != 0 && seqCode == last + 1))
            {
                tag |= SeqBit;
                _out.AddVarint(seqCode);
            }
            _lastSeq[threadCode] = seqCode;
            tag |= s.HasInput ? PutHash(s.Input) : HashNone;
            if (s.HasOutput && s.HasInput && s.Output.Equals(s.Input)) tag |= HashSameAsInput << 2;
            else tag |= (s.HasOutput ? PutHash(s.Output) : HashNone) << 2;
            _out.Bytes[tagAt] = (byte)tag;
        }

        // A ring reference when the hash was written in this block recently,
        // else the literal; the direct-mapped index is the C++ encoder's.
        int PutHash(Hash128 h)
        {
            int key = (int)(h.Low & (LookupSize - 1));
            ushort entry = _lookup[key];
            if (entry != EmptySlot && _ring[entry].Equals(h))
            {
                _out.Add((byte)entry);
                return HashRecent;
            }
            _out.AddHash(h);
            _ring[_ringPos] = h;
            _lookup[key] = (ushort)_ringPos;
            _ringPos = (_ringPos + 1) % RingSize;
            return HashLiteral;
        }
    }

    internal sealed class CsvEncoder : ILogEncoder
    {
        const string Header = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash,"
                              + "thread,seq,hash_function,dropped\n";
        readonly ByteBuffer _out;
        readonly string _node, _instance;
        readonly List<byte[]> _prefixes = new List<byte[]>();
        readonly List<string> _functions = new List<string>();
        readonly char[] _hex = new char[32];
        readonly byte[] _digits = new byte[20];

        public CsvEncoder(ByteBuffer output, string node, string instance)
        {
            _out = output;
            _node = node;
            _instance = instance;
        }

        public void FileHeader(List<KeyValuePair<string, string>> fields) { _out.AddAscii(Header); }

        public void Tracepoint(uint index, string name, string inputType, string outputType, HashFunction function, long timeHint)
        {
            while (_prefixes.Count <= index) { _prefixes.Add(null); _functions.Add(null); }
            _prefixes[(int)index] = Utf8Text.Encoding.GetBytes(_node + "," + _instance + "," + name + "," + inputType + "," + outputType + ",");
            _functions[(int)index] = function == HashFunction.Xxh3_128 ? "xxh3_128" : "md5";
        }

        public void Thread(uint id, long osTid, string name, long timeHint) { }  // CSV has no place for thread names
        public void EndOfFlush() { }
        public void EndMarker() { }

        public void Sample(ref EncodedSample s)
        {
            Row(s.Tracepoint, s.TimeNs, s.HasInput, s.Input, s.HasOutput, s.Output, true, s.Thread, s.Seq, 0);
        }

        public void Drop(uint tracepoint, long timeNs, ulong count)
        {
            Row(tracepoint, timeNs, false, default(Hash128), false, default(Hash128), false, 0, 0, count);
        }

        void Row(uint tp, long timeNs, bool hasIn, Hash128 input, bool hasOut, Hash128 output, bool sample, uint thread, ulong seq, ulong dropped)
        {
            byte[] prefix = _prefixes[(int)tp];
            _out.Add(prefix, 0, prefix.Length);
            AddTime(timeNs);
            _out.Add((byte)',');
            if (hasIn) AddHash(input);
            _out.Add((byte)',');
            if (hasOut) AddHash(output);
            _out.Add((byte)',');
            if (sample) AddUnsigned(thread);
            _out.Add((byte)',');
            if (sample) AddUnsigned(seq);
            _out.Add((byte)',');
            _out.AddAscii(_functions[(int)tp]);
            _out.Add((byte)',');
            if (dropped != 0) AddUnsigned(dropped);
            _out.Add((byte)'\n');
        }

        void AddUnsigned(ulong v)
        {
            int n = 0;
            do { _digits[n++] = (byte)('0' + v % 10); v /= 10; } while (v != 0);
            while (n != 0) _out.Add(_digits[--n]);
        }

        // Seconds with all nine fractional digits, as the C++ writer prints them.
        void AddTime(long ns)
        {
            ulong mag = ns < 0 ? (ulong)(-ns) : (ulong)ns;
            if (ns < 0) _out.Add((byte)'-');
            AddUnsigned(mag / 1000000000UL);
            _out.Add((byte)'.');
            ulong frac = mag % 1000000000UL;
            for (int i = 8; i >= 0; --i) { _digits[i] = (byte)('0' + frac % 10); frac /= 10; }
            _out.Add(_digits, 0, 9);
        }

        void AddHash(Hash128 h)
        {
            h.WriteHex(_hex, 0);
            for (int i = 0; i < 32; ++i) _out.Add((byte)_hex[i]);
        }
    }
}
