// The writer thread of a session: drains every thread's ring, hashes deferred
// samples, converts time stamps, encodes and writes with one write per flush
// (when 1 MiB is buffered or the flush interval has passed), and logs the
// drops the tracepoints counted; with TraceConfig.StreamTo, also hands each
// block to the stream to a collector (LogStream.cs) and logs what the stream
// dropped. Nothing here runs on a tracepoint's path.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Net.NetworkInformation;
using System.Threading;

namespace HashTrace
{
    internal sealed class LogWriter : IStreamedLog
    {
        const int FlushBytes = 1 << 20;
        const long StreamPatienceNs = 1000000000;  // how long Stop() waits for a slow collector
        // The tracepoint whose drop records count the samples the stream dropped
        // (docs/log-formats.md, "Stream drops in the disk log").
        internal const string StreamDropsTracepoint = "hashtrace.stream_dropped";
        static readonly long EpochTicks = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;

        public readonly string Path;
        readonly TraceConfig _config;
        readonly long _session;
        readonly FileStream _file;
        readonly ByteBuffer _buffer = new ByteBuffer();
        readonly ILogEncoder _encoder;
        readonly BinaryEncoder _binary;  // the same encoder, when the log is binary
        readonly LogStream _stream;      // null: no stream
        // What the stream's catch-up block needs, kept only while streaming (the C++
        // LogFile's bookkeeping): every definition, thread name, and this block's
        // samples by tracepoint and drop records.
        byte[] _header = new byte[0];
        readonly List<Definition> _definitions = new List<Definition>();
        int _definitionsFlushed;
        Tally[] _blockSamples = new Tally[0];
        readonly List<DropRecord> _blockDrops = new List<DropRecord>();
        readonly SortedDictionary<uint, KeyValuePair<long, string>> _threads = new SortedDictionary<uint, KeyValuePair<long, string>>();
        uint _streamIndex = uint.MaxValue;
        long _streamDropsLogged;
        readonly StampClock _clock = new StampClock();
        readonly Dictionary<uint, long> _lastTime = new Dictionary<uint, long>();  // per thread: times never go backwards
        readonly HashSet<uint> _described = new HashSet<uint>();
        Thread _thread;
        volatile bool _stopRequested;
        uint _nextIndex;
        int _namesVersion = -1;
        long _written, _dropped, _bytes, _streamDropped;
        string _error;

        public LogWriter(TraceConfig config, long session)
        {
            _config = config;
            _session = session;
            long start = RealtimeNs();
            int pid = Process.GetCurrentProcess().Id;
            string host = Environment.MachineName;
            string instance = InstanceId(pid, host, start);
            // Before the file: a bad or unknown address leaves no log behind.
            if (!string.IsNullOrEmpty(config.StreamTo)) _stream = new LogStream(config.StreamTo);
            Directory.CreateDirectory(config.LogDir);
            Path = System.IO.Path.Combine(config.LogDir, config.NodeName + "-" + instance + (config.Format == LogFormat.Csv ? ".csv" : ".htlog"));
            _file = new FileStream(Path, FileMode.Create, FileAccess.Write, FileShare.ReadWrite, 1);
            if (config.Format == LogFormat.Csv) _encoder = new CsvEncoder(_buffer, config.NodeName, instance);
            else _encoder = _binary = new BinaryEncoder(_buffer);
            _encoder.FileHeader(new List<KeyValuePair<string, string>> {
                new KeyValuePair<string, string>("node", config.NodeName),
                new KeyValuePair<string, string>("instance", instance),
                new KeyValuePair<string, string>("host", host),
                new KeyValuePair<string, string>("pid", pid.ToString(System.Globalization.CultureInfo.InvariantCulture)),
                new KeyValuePair<string, string>("clock_source", "CLOCK_REALTIME"),
                new KeyValuePair<string, string>("time_stamps", "stopwatch"),
                new KeyValuePair<string, string>("start_time_ns", start.ToString(System.Globalization.CultureInfo.InvariantCulture)),
                new KeyValuePair<string, string>("hash_functions", "md5,xxh3_128"),
                new KeyValuePair<string, string>("writer", "hashtrace-csharp 0.1"),
            });
            _header = new byte[_buffer.Length];  // each stream connection starts with it
            Buffer.BlockCopy(_buffer.Bytes, 0, _header, 0, _buffer.Length);
            Flush(false);  // a log that exists is readable from its first byte
            // Old definitions' drop counts start from here in this log.
            foreach (Tracepoint tp in Tracepoint.Snapshot())
            {
                tp.DropSession = session;
                tp.DropsLogged = Interlocked.Read(ref tp.Dropped);
            }
        }

        public void StartThread()
        {
            _thread = new Thread(Run) { IsBackground = true, Name = "hashtrace writer" };
            _thread.Start();
        }

        public void StopAndJoin()
        {
            _stopRequested = true;
            _thread.Join();
        }

        public TraceStats Stats(long rejected)
        {
            return new TraceStats {
                Written = Interlocked.Read(ref _written), Dropped = Interlocked.Read(ref _dropped),
                Bytes = Interlocked.Read(ref _bytes), Rejected = rejected,
                StreamDropped = Interlocked.Read(ref _streamDropped),
            };
        }

        internal static long RealtimeNs() { return (DateTime.UtcNow.Ticks - EpochTicks) * 100; }

        // 16 hex digits naming this process run (the paper's "hash of PID and MAC", plus the
        // start time so a reused PID still gives a new instance).
        static string InstanceId(int pid, string host, long start)
        {
            var w = new CanonicalWriter().Add((long)pid).Add(FirstMacAddress()).Add(host).Add(start);
            return w.Md5Hash().ToString().Substring(0, 16);
        }

        static string FirstMacAddress()
        {
            try
            {
                foreach (NetworkInterface nic in NetworkInterface.GetAllNetworkInterfaces())
                {
                    string mac = nic.GetPhysicalAddress().ToString();
                    if (mac.Length > 0 && mac.Trim('0').Length > 0) return mac;
                }
            }
            catch (Exception) { }  // no network information on this platform: the PID and time still differ
            return "";
        }

        void Run()
        {
            long flushEvery = (long)_config.FlushIntervalMs * 1000000;
            long lastFlush = RealtimeNs(), lastDropCheck = lastFlush;
            int emptyPollsAfterStop = 0;
            try
            {
                for (;;)
                {
                    bool filling;
                    int n = DrainRings(out filling);
                    long now = RealtimeNs();
                    if (now - lastDropCheck >= 10000000 || n == 0)
                    {
                        LogDrops(now);
                        LogStreamDrops(now);
                        DescribeRenamedThreads(now);
                        lastDropCheck = now;
                        _clock.Recalibrate();
                    }
                    if (_stream != null) _stream.Pump();
                    if (_buffer.Length >= FlushBytes || (now - lastFlush >= flushEvery && _buffer.Length > 0))
                    {
                        Flush();
                        lastFlush = now;
                    }
                    if (n == 0)
                    {
                        // Stop only after the rings stayed empty across a short pause, so a
                        // tracepoint that passed the recording check just before Stop() lands.
                        if (_stopRequested && ++emptyPollsAfterStop >= 2) break;
                        Thread.Sleep(1);
                    }
                    else if (!filling && !_stopRequested)
                    {
                        // A pass a millisecond unless a queue is filling: a writer draining right
                        // behind a recording thread keeps pulling the lines of the slots it just
                        // wrote to the other core, and the thread pays for each one (the likely
                        // cause of benchmark runs where tracepoints cost 1.5-4x the usual).
                        Thread.Sleep(1);
                    }
                }
                bool unused;
                while (DrainRings(out unused) > 0) { }
                LogDrops(RealtimeNs());
                if (_stream != null)
                {
                    // The collector gets a moment for the rest; what it does not take is in the log.
                    Flush();
                    _stream.Drain(StreamPatienceNs);
                    LogStreamDrops(RealtimeNs());
                }
                _encoder.EndMarker();
                Flush();  // the end record: to the disk, and to a stream still connected
                if (_stream != null) _stream.Finish(StreamPatienceNs / 10);  // the end block holds no samples: nothing more to count
            }
            catch (Exception e)
            {
                // A full disk or a vanished directory must not end the traced program.
                _error = e.Message;
            }
            finally
            {
                try { _file.Dispose(); } catch (Exception) { }
                if (_stream != null) _stream.Finish(0);  // closes the connection if an error ended the log early
                if (_error != null) Console.Error.WriteLine("hashtrace: writing " + Path + " failed: " + _error);
            }
        }

        // filling: some ring was more than half full (its thread records faster than a
        // pass every millisecond drains).
        int DrainRings(out bool filling)
        {
            int total = 0;
            filling = false;
            foreach (ThreadRing ring in Tracing.Rings)
            {
                int head = ring.At.Head, tail = Volatile.Read(ref ring.At.Tail);
                if (head == tail) continue;
                if (tail - head > (ring.Mask + 1) / 2) filling = true;
                for (int t = head; t != tail; ++t) Write(ring, t & ring.Mask);
                Volatile.Write(ref ring.At.Head, tail);
                total += tail - head;
            }
            Interlocked.Add(ref _written, total);
            return total;
        }

        void Write(ThreadRing ring, int i)
        {
            Slot[] slots = ring.Slots;
            Tracepoint tp = slots[i].Tracepoint;
            long time = Converted(ring.ThreadId, slots[i].Stamp);
            EnsureLogged(tp, time);
            Describe(ring.ThreadId, time);
            var s = new EncodedSample {
                TimeNs = time, Tracepoint = tp.LogIndex, Thread = ring.ThreadId, Seq = slots[i].Seq,
                HasInput = (slots[i].Flags & Slot.HasInput) != 0, HasOutput = (slots[i].Flags & Slot.HasOutput) != 0,
            };
            if ((slots[i].Flags & Slot.Deferred) != 0)
            {
                int at = i * ThreadRing.PayloadCapacity;
                if (s.HasInput) s.Input = CanonicalWriter.HashOf(tp.Function, ring.Payload, at, slots[i].InputLength);
                if ((slots[i].Flags & Slot.OutIsInput) != 0) s.Output = s.Input;
                else if (s.HasOutput) s.Output = CanonicalWriter.HashOf(tp.Function, ring.Payload, at + slots[i].InputLength, slots[i].OutputLength);
            }
            else
            {
                s.Input = slots[i].Input;
                s.Output = slots[i].Output;
            }
            slots[i].Tracepoint = null;  // the definition is not kept alive by an old slot
            if (_stream != null) _blockSamples[s.Tracepoint].Add(time);
            _encoder.Sample(ref s);
        }

        long Converted(uint thread, long stamp)
        {
            long t = _clock.ToRealtimeNs(stamp), last;
            if (_lastTime.TryGetValue(thread, out last) && t < last) t = last;
            _lastTime[thread] = t;
            return t;
        }

        void EnsureLogged(Tracepoint tp, long time)
        {
            if (tp.LogSession == _session) return;
            tp.LogSession = _session;
            tp.LogIndex = _nextIndex++;
            Define(tp.LogIndex, tp.Name, tp.InputType, tp.OutputType, tp.Function, time);
        }

        void Define(uint index, string name, string inputType, string outputType, HashFunction function, long time)
        {
            _encoder.Tracepoint(index, name, inputType, outputType, function, time);
            if (_stream == null) return;
            _definitions.Add(new Definition { Name = name, InputType = inputType, OutputType = outputType, Function = function });
            Array.Resize(ref _blockSamples, _definitions.Count);
        }

        void ThreadRecord(uint id, long osTid, string name, long time)
        {
            _encoder.Thread(id, osTid, name, time);
            if (_stream != null) _threads[id] = new KeyValuePair<long, string>(osTid, name);
        }

        void Drop(uint tracepoint, long time, ulong count)
        {
            _encoder.Drop(tracepoint, time, count);
            if (_stream != null) _blockDrops.Add(new DropRecord { Tracepoint = tracepoint, TimeNs = time, Count = count });
        }

        // The disk log records what the stream dropped as drop records of a
        // tracepoint of its own (docs/log-formats.md), defined at the first.
        void LogStreamDrops(long time)
        {
            if (_stream == null || _stream.Dropped == _streamDropsLogged) return;
            if (_streamIndex == uint.MaxValue)
            {
                _streamIndex = _nextIndex++;
                Define(_streamIndex, StreamDropsTracepoint, "", "", HashFunction.Md5, time);
            }
            Drop(_streamIndex, time, (ulong)(_stream.Dropped - _streamDropsLogged));
            _streamDropsLogged = _stream.Dropped;
            Interlocked.Exchange(ref _streamDropped, _streamDropsLogged);
        }

        void Describe(uint thread, long time)
        {
            if (!_described.Add(thread)) return;
            KeyValuePair<int, string> entry;
            lock (Tracing.ThreadNames)
                if (!Tracing.ThreadNames.TryGetValue(thread, out entry)) entry = new KeyValuePair<int, string>(0, "");
            ThreadRecord(thread, entry.Key, entry.Value, time);
        }

        void DescribeRenamedThreads(long time)
        {
            lock (Tracing.ThreadNames)
            {
                if (Tracing.NamesVersion == _namesVersion) return;
                _namesVersion = Tracing.NamesVersion;
                foreach (var kv in Tracing.ThreadNames)
                    if (_described.Contains(kv.Key)) ThreadRecord(kv.Key, kv.Value.Key, kv.Value.Value, time);
            }
        }

        void LogDrops(long time)
        {
            foreach (Tracepoint tp in Tracepoint.Snapshot())
            {
                if (tp.DropSession != _session)
                {
                    tp.DropSession = _session;
                    tp.DropsLogged = 0;
                }
                long n = Interlocked.Read(ref tp.Dropped);
                if (n == tp.DropsLogged) continue;
                EnsureLogged(tp, time);
                Drop(tp.LogIndex, time, (ulong)(n - tp.DropsLogged));
                Interlocked.Add(ref _dropped, n - tp.DropsLogged);
                tp.DropsLogged = n;
            }
        }

        void Flush() { Flush(true); }

        // toStream false: the file header, which the stream sends itself at each connection.
        void Flush(bool toStream)
        {
            _encoder.EndOfFlush();
            if (toStream && _stream != null && _buffer.Length > 0) _stream.Block(this, _buffer.Bytes, _buffer.Length);
            if (_buffer.Length > 0) _file.Write(_buffer.Bytes, 0, _buffer.Length);
            _file.Flush();
            Interlocked.Add(ref _bytes, _buffer.Length);
            _buffer.Clear();
            if (_stream == null) return;
            _definitionsFlushed = _definitions.Count;
            for (int i = 0; i < _blockSamples.Length; ++i) _blockSamples[i] = default(Tally);
            _blockDrops.Clear();
        }

        byte[] IStreamedLog.HeaderBytes { get { return _header; } }
        List<Definition> IStreamedLog.Definitions { get { return _definitions; } }
        int IStreamedLog.DefinitionsBeforeBlock { get { return _definitionsFlushed; } }
        Tally[] IStreamedLog.BlockSamples { get { return _blockSamples; } }
        List<DropRecord> IStreamedLog.BlockDrops { get { return _blockDrops; } }
        SortedDictionary<uint, KeyValuePair<long, string>> IStreamedLog.Threads { get { return _threads; } }
        long IStreamedLog.LastTime { get { return _binary != null ? _binary.LastTime : 0; } }
    }

    // Stopwatch ticks (the monotonic clock, cheap to read on the recording
    // thread) to CLOCK_REALTIME ns: anchored to DateTime.UtcNow, re-anchored
    // by the writer every second so the log follows NTP's or PTP's slewing.
    internal sealed class StampClock
    {
        static readonly double NsPerTick = 1e9 / Stopwatch.Frequency;
        long _anchorTicks, _anchorNs, _nextCalibration;

        public StampClock() { Anchor(); }

        public long ToRealtimeNs(long ticks) { return _anchorNs + (long)((ticks - _anchorTicks) * NsPerTick); }

        public void Recalibrate()
        {
            if (Stopwatch.GetTimestamp() >= _nextCalibration) Anchor();
        }

        // The pair read closest together of three, so a preemption between the reads is passed over.
        void Anchor()
        {
            long best = long.MaxValue;
            for (int i = 0; i < 3; ++i)
            {
                long before = Stopwatch.GetTimestamp();
                long ns = LogWriter.RealtimeNs();
                long after = Stopwatch.GetTimestamp();
                if (after - before < best)
                {
                    best = after - before;
                    _anchorTicks = before + (after - before) / 2;
                    _anchorNs = ns;
                }
            }
            _nextCalibration = _anchorTicks + Stopwatch.Frequency;
        }
    }
}
