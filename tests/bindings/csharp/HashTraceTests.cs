// Tests of the managed C# runtime, run under Mono by ctest:
//   mono HashTraceTests.exe <canonical_vectors.tsv> <log dir>
// Each test prints PASS or FAIL; the last line sums up, and the exit code is
// the number of failures. The logs left in <log dir> are read afterwards by
// the C++ readers (csharp_logs_test), which check them byte for byte.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Text;
using System.Threading;
using HashTrace;

static class Check
{
    public static void True(bool condition, string what)
    {
        if (!condition) throw new Exception("expected: " + what);
    }
    public static void Equal<T>(T expected, T actual, string what)
    {
        if (!EqualityComparer<T>.Default.Equals(expected, actual))
            throw new Exception(what + ": expected " + expected + ", got " + actual);
    }
    public static T Throws<T>(Action action, string what) where T : Exception
    {
        try { action(); }
        catch (T e) { return e; }
        catch (Exception e) { throw new Exception(what + ": expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message); }
        throw new Exception(what + ": expected " + typeof(T).Name + ", nothing was thrown");
    }
}

static class Tests
{
    static string s_golden, s_logDir;

    static int Main(string[] args)
    {
        if (args.Length == 2 && args[0] == "--exit-without-stop") return ExitWithoutStop(args[1]);
        if (args.Length != 2)
        {
            Console.Error.WriteLine("usage: HashTraceTests.exe <canonical_vectors.tsv> <log dir> | --exit-without-stop <log dir>");
            return 2;
        }
        s_golden = args[0];
        s_logDir = args[1];
        if (Directory.Exists(s_logDir)) Directory.Delete(s_logDir, true);
        int passed = 0, failed = 0;
        foreach (MethodInfo m in typeof(Tests).GetMethods(BindingFlags.Static | BindingFlags.NonPublic).Where(m => m.Name.StartsWith("Test")))
        {
            try
            {
                m.Invoke(null, null);
                Console.WriteLine("PASS " + m.Name);
                ++passed;
            }
            catch (TargetInvocationException e)
            {
                Console.WriteLine("FAIL " + m.Name + ": " + e.InnerException.Message + "\n" + e.InnerException.StackTrace);
                ++failed;
                if (Tracing.IsRunning) Tracing.Stop();
            }
        }
        Console.WriteLine("csharp tests: " + passed + " passed, " + failed + " failed");
        return failed;
    }

    // Returns from Main with the session still running: the ProcessExit handler
    // must complete the log (csharp_logs_test checks it: CsExit).
    static int ExitWithoutStop(string logDir)
    {
        Tracing.Start(new TraceConfig { NodeName = "CsExit", LogDir = logDir, FlushIntervalMs = 60000 });
        var tp = new Tracepoint("BeforeExit", "n", "n");
        for (int i = 0; i < 10; ++i) tp.Begin().InOut(i).Record();
        Console.WriteLine("exiting with the session running");
        return 0;
    }

    static TraceConfig Config(string node, LogFormat format = LogFormat.Binary)
    {
        return new TraceConfig { NodeName = node, LogDir = s_logDir, Format = format };
    }

    static byte[] FromHex(string hex)
    {
        var b = new byte[hex.Length / 2];
        for (int i = 0; i < b.Length; ++i) b[i] = Convert.ToByte(hex.Substring(2 * i, 2), 16);
        return b;
    }

    static string Hex(byte[] b, int n)
    {
        var s = new StringBuilder();
        for (int i = 0; i < n; ++i) s.Append(b[i].ToString("x2"));
        return s.ToString();
    }

    // A golden row's values as the C# types of the same widths.
    static CanonicalWriter Encode(string values)
    {
        var w = new CanonicalWriter();
        foreach (string token in values.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries))
        {
            int colon = token.IndexOf(':');
            string type = token.Substring(0, colon), lit = token.Substring(colon + 1);
            var inv = System.Globalization.CultureInfo.InvariantCulture;
            switch (type)
            {
                case "u8": w.Add(byte.Parse(lit, inv)); break;
                case "u16": w.Add(ushort.Parse(lit, inv)); break;
                case "u32": w.Add(uint.Parse(lit, inv)); break;
                case "u64": w.Add(ulong.Parse(lit, inv)); break;
                case "i8": w.Add(sbyte.Parse(lit, inv)); break;
                case "i16": w.Add(short.Parse(lit, inv)); break;
                case "i32": w.Add(int.Parse(lit, inv)); break;
                case "i64": w.Add(long.Parse(lit, inv)); break;
                case "f32": w.Add(BitConverter.ToSingle(BitConverter.GetBytes(Convert.ToUInt32(lit, 16)), 0)); break;
                case "f64": w.Add(BitConverter.Int64BitsToDouble((long)Convert.ToUInt64(lit, 16))); break;
                case "bool": w.Add(lit == "1"); break;
                case "str": w.Add(Encoding.UTF8.GetString(FromHex(lit))); break;  // through a .NET string and back
                case "bytes": w.Add(FromHex(lit)); break;
                default: throw new Exception("unknown type " + type);
            }
        }
        return w;
    }

    // The log's checksum (XXH3-64, seed 0) against libxxhash's XXH3_64bits over
    // bytes i * 131 + 7, every length class of the algorithm.
    static void TestXxh3_64MatchesLibxxhash()
    {
        var expected = new Dictionary<int, ulong> {
            { 0, 0x2d06800538d394c2UL }, { 1, 0x4c5cca45d0f4811fUL }, { 2, 0x29c60963cbfa4e6eUL }, { 3, 0x6e3e2670e61106acUL },
            { 4, 0x5c4c63133443d03fUL }, { 5, 0x49f5eb3111280b63UL }, { 8, 0xf9fd4dd0b04d78f5UL }, { 9, 0x7c20df9712c26edfUL },
            { 12, 0x16d2dff54dc2ee45UL }, { 16, 0x86abf6baccea0858UL }, { 17, 0xb58bf5dc5022d071UL }, { 32, 0xe3712ed84c04a66eUL },
            { 33, 0xa4dee99b093e1f73UL }, { 64, 0x1291d2d4042330ddUL }, { 65, 0x97c6bf83217e5ec9UL }, { 96, 0x81296929fc063365UL },
            { 97, 0xf145a45b658ab9ddUL }, { 128, 0x10d17f72c0ccba41UL }, { 129, 0x1648bdc3db49d1a2UL }, { 200, 0xc0fbc0f4e181c826UL },
            { 240, 0xb6cfaf343fab81e6UL }, { 241, 0x956cae592c67279eUL }, { 1024, 0x70bd377d9574f4bbUL },
            { 1025, 0x66c4487c41e127a7UL }, { 4999, 0xc3af6109daa0965bUL },
        };
        var data = new byte[5003];
        for (int i = 0; i < 5000; ++i) data[3 + i] = (byte)(i * 131 + 7);
        MethodInfo hash64 = typeof(Tracing).Assembly.GetType("HashTrace.Xxh3").GetMethod("Hash64", BindingFlags.Static | BindingFlags.Public);
        foreach (var kv in expected)  // at an offset: blocks are hashed inside the writer's buffer
            Check.Equal(kv.Value, (ulong)hash64.Invoke(null, new object[] { data, 3, kv.Key }), "XXH3-64 of " + kv.Key + " bytes");
    }

    static void TestGoldenVectors()
    {
        int rows = 0;
        foreach (string line in File.ReadAllLines(s_golden))
        {
            if (line.Length == 0 || line.StartsWith("#") || line.StartsWith("name\t")) continue;
            string[] f = line.Split('\t');
            CanonicalWriter w = Encode(f[1]);
            Check.Equal(f[2], Hex(w.Buffer, w.Length), f[0] + " canonical bytes");
            Check.Equal(f[3], w.Md5Hash().ToString(), f[0] + " md5");
            Check.Equal(f[4], w.Xxh3Hash().ToString(), f[0] + " xxh3_128");
            ++rows;
        }
        Check.True(rows >= 50, "at least 50 golden rows, got " + rows);
    }

    // The allocation-free MD5 against the framework's, at every length around the block boundaries.
    static void TestMd5MatchesSystemCryptography()
    {
        using (var reference = System.Security.Cryptography.MD5.Create())
        {
            var data = new byte[300];
            for (int i = 0; i < data.Length; ++i) data[i] = (byte)(i * 131 + 7);
            for (int n = 0; n <= 200; ++n)
            {
                string expected = Hex(reference.ComputeHash(data, 3, n), 16);
                Check.Equal(expected, Md5Of(data, 3, n), "MD5 of " + n + " bytes");
            }
        }
    }

    static string Md5Of(byte[] data, int offset, int count)
    {
        return new CanonicalWriter().AddCanonical(data, offset, count).Md5Hash().ToString();
    }

    static void TestBadStringsThrowInCanonicalWriter()
    {
        Check.Throws<ArgumentException>(() => new CanonicalWriter().Add("a\ud800b"), "lone surrogate");
        Check.Throws<ArgumentNullException>(() => new CanonicalWriter().Add((string)null), "null string");
        Check.Throws<ArgumentNullException>(() => new CanonicalWriter().Add((byte[])null), "null bytes");
        Check.Throws<ArgumentOutOfRangeException>(() => new CanonicalWriter().Add(new byte[3], 2, 5), "span outside the array");
        var w = new CanonicalWriter().Add(1);
        try { w.Add("\udc00"); } catch (ArgumentException) { }
        Check.Equal(4, w.Length, "nothing added by a refused string");
    }

    static void TestBadDefinitionsThrow()
    {
        Check.Throws<ArgumentException>(() => new Tracepoint("", "a", "b"), "empty name");
        Check.Throws<ArgumentException>(() => new Tracepoint("a,b", "a", "b"), "comma in the name");
        Check.Throws<ArgumentException>(() => new Tracepoint("x", "line\nbreak", "b"), "line break in a label");
        Check.Throws<ArgumentException>(() => Tracing.Start(new TraceConfig { NodeName = "" }), "empty node");
        Check.Throws<ArgumentException>(() => Tracing.Start(new TraceConfig { NodeName = "n", QueueCapacity = 0 }), "no capacity");
        Check.True(!Tracing.IsRunning, "no session after refused starts");
    }

    static void TestEnvironmentOverridesAndNamesBadValues()
    {
        Environment.SetEnvironmentVariable("HASHTRACE_FORMAT", "xml");
        var e = Check.Throws<ArgumentException>(() => TraceConfig.FromEnvironment(), "bad format");
        Check.True(e.Message.Contains("HASHTRACE_FORMAT"), "the message names the variable: " + e.Message);
        Environment.SetEnvironmentVariable("HASHTRACE_FORMAT", "csv");
        Environment.SetEnvironmentVariable("HASHTRACE_NODE", "FromEnv");
        TraceConfig c = TraceConfig.FromEnvironment(new TraceConfig { NodeName = "InCode" });
        Environment.SetEnvironmentVariable("HASHTRACE_FORMAT", null);
        Environment.SetEnvironmentVariable("HASHTRACE_NODE", null);
        Check.Equal(LogFormat.Csv, c.Format, "format from the environment");
        Check.Equal("FromEnv", c.NodeName, "the environment wins");
    }

    static void TestMisuseIsReportedNotFatal()
    {
        var tp = new Tracepoint("Misuse", "id", "id");
        Check.True(!tp.Begin().InOut(1).Record(), "no record before a session");
        Tracing.Start(Config("CsMisuse"));
        Check.Throws<InvalidOperationException>(() => Tracing.Start(Config("CsMisuse")), "second start");
        Check.True(tp.Begin().InOut(1).Record(), "recorded in a session");
        long rejectedBefore = Tracing.Stats.Rejected;
        Check.True(!tp.Begin().InOut("bad \ud800 text").Record(), "a lone surrogate is refused");
        Check.True(!tp.Begin().In((string)null).Out(2).Record(), "a null string is refused");
        Check.Equal(rejectedBefore + 2, Tracing.Stats.Rejected, "refused samples counted");
        Check.True(Tracing.LastError.Contains("Misuse") && Tracing.LastError.Contains("null"), "last error names the tracepoint: " + Tracing.LastError);
        Tracing.Enabled = false;
        Check.True(!tp.Begin().InOut(3).Record(), "switched off: not recorded");
        Tracing.Enabled = true;
        Tracing.Stop();
        Check.True(!tp.Begin().InOut(4).Record(), "no record after stop");
        Tracing.Stop();  // twice: a no-op
        Check.Equal(1L, Tracing.Stats.Written, "one sample written");
        Tracing.Enabled = true;
        Check.True(!Tracing.Enabled, "Enabled stays off without a session");
    }

    // The states the C++ checker expects (tests/bindings/csharp_logs_test.cpp), in both formats.
    static void WriteKnownStates(string node, LogFormat format)
    {
        var typed = new Tracepoint("Typed", "messageid", "force");
        var deferred = new Tracepoint("Deferred", "messageid", "force", deferred: true);
        var inout = new Tracepoint("InOut", "key", "key");
        var big = new Tracepoint("Big", "", "payload", deferred: true);
        var source = new Tracepoint("Source", "", "messageid");
        var extended = new Tracepoint("Extended", "messageid", "messageid+n");
        var fast = new Tracepoint("Fast", "messageid", "messageid", function: HashFunction.Xxh3_128);
        var fastDeferred = new Tracepoint("FastDeferred", "payload", "", deferred: true, function: HashFunction.Xxh3_128);
        Tracing.Start(Config(node, format));
        Tracing.SetThreadName("main thread");
        var payload = new byte[300];
        for (int i = 0; i < payload.Length; ++i) payload[i] = (byte)(i * 131 + 7);
        for (ulong id = 0; id < 100; ++id)
        {
            Check.True(typed.Begin().In(id).Out(id).Out(1.5).Record(), "typed");
            Check.True(deferred.Begin().In(id).Out(id).Out(1.5).Record(), "deferred");
            Check.True(inout.Begin().InOut(7).InOut("héllo wörld ✓").Record(), "inout");
            Check.True(big.Begin().Out(payload).Record(), "big");
            Check.True(source.Begin().Out(id).Record(), "source");
            Check.True(extended.Begin().InOut(id).Out((ushort)3).Record(), "extended");
            Check.True(fast.Begin().InOut(id).Record(), "fast");
            Check.True(fastDeferred.Begin().In(payload, 0, (int)id).Record(), "fast deferred");
        }
        Tracing.Stop();
        Check.Equal(800L, Tracing.Stats.Written, "samples written");
        Check.True(Tracing.LogPath.EndsWith(format == LogFormat.Csv ? ".csv" : ".htlog"), "log suffix: " + Tracing.LogPath);
    }

    static void TestSessionBinary() { WriteKnownStates("CsTypes", LogFormat.Binary); }
    static void TestSessionCsv() { WriteKnownStates("CsTypesCsv", LogFormat.Csv); }

    static void TestFullQueueDropsAreCountedAndLogged()
    {
        var tp = new Tracepoint("Burst", "n", "n");
        var c = Config("CsDrops");
        c.QueueCapacity = 1;
        c.FlushIntervalMs = 1000;
        Tracing.Start(c);
        int recorded = 0, droppedBeforeHalf = 0;
        for (int i = 0; i < 100000; ++i)
        {
            // Halfway, the queue is let drain, so a sample after the first half's drops is
            // queued: the log's sequence numbers then have a gap between two samples
            // (csharp_logs_test checks it), however fast the burst ran.
            if (i == 50000)
                while (Tracing.Stats.Written < recorded) Thread.Sleep(1);
            bool queued = tp.Begin().InOut(i).Record();
            if (queued) ++recorded;
            else if (i < 50000) ++droppedBeforeHalf;
            if (i == 50000) Check.True(queued, "the sample after the queue drained is queued");
        }
        Tracing.Stop();
        TraceStats s = Tracing.Stats;
        Check.Equal(100000L, s.Written + s.Dropped, "every sample written or dropped");
        Check.Equal((long)recorded, s.Written, "Record() said which were queued");
        Check.True(droppedBeforeHalf > 0, "drops with a 1-sample queue");
    }

    static void TestThreadsRecordConcurrently()
    {
        var c = Config("CsThreads");
        c.WhenFull = FullPolicy.Block;
        c.QueueCapacity = 64;
        Tracing.Start(c);
        var threads = new List<Thread>();
        for (int t = 0; t < 4; ++t)
        {
            int me = t;
            var th = new Thread(() => {
                var tp = new Tracepoint("Worker", "n", "n", deferred: me % 2 == 0);
                Tracing.SetThreadName("worker " + me);
                for (int i = 0; i < 5000; ++i) tp.Begin().InOut(me).InOut(i).Record();
            });
            threads.Add(th);
            th.Start();
        }
        foreach (Thread th in threads) th.Join();
        Tracing.Stop();
        Check.Equal(20000L, Tracing.Stats.Written, "all samples written with the block policy");
        Check.Equal(0L, Tracing.Stats.Dropped, "none dropped");
    }

    // The hot path allocates nothing once a thread's buffers fit its state: a
    // tracepoint in a game loop must not feed the garbage collector. Measured on
    // this thread's own allocation counter, so the writer thread does not count.
    static void TestRecordingAllocatesNothing()
    {
        var inline = new Tracepoint("NoAllocInline", "payload", "n");
        var deferred = new Tracepoint("NoAllocDeferred", "payload", "n", deferred: true);
        var c = Config("CsNoAlloc");
        c.WhenFull = FullPolicy.Block;
        using (new Session(c))
        {
            var payload = new byte[10];
            Func<int, bool> record = n => {
                bool all = true;
                for (int i = 0; i < n; ++i)
                {
                    all &= inline.Begin().In(payload).Out(i).Record();
                    all &= deferred.Begin().In(payload).Out((ulong)i).Out("text").Record();
                    all &= deferred.Begin().InOut(i).Out(2.5).Record();
                }
                return all;
            };
            Check.True(record(100), "warm-up samples recorded");  // JIT, the ring, the builders' buffers
            long before = GC.GetAllocatedBytesForCurrentThread();
            bool recorded = record(10000);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Check.True(recorded, "all samples recorded");
            Check.Equal(0L, allocated, "bytes allocated by 30000 tracepoints");
            // The counter does see allocation on this thread (or the check above proves nothing).
            before = GC.GetAllocatedBytesForCurrentThread();
            GC.KeepAlive(new byte[1000]);
            Check.True(GC.GetAllocatedBytesForCurrentThread() - before >= 1000, "the allocation counter counts");
        }
        Check.Equal(30300L, Tracing.Stats.Written, "samples written");
    }

    static void TestUsingSessionStopsOnDispose()
    {
        string path;
        using (var session = new Session(Config("CsUsing")))
        {
            new Tracepoint("Once", "", "x").Begin().Out(1).Record();
            path = session.LogPath;
        }
        Check.True(!Tracing.IsRunning, "stopped by Dispose");
        byte[] log = File.ReadAllBytes(path);
        Check.Equal((byte)0x83, log[log.Length - 1], "the end marker closes the log");
    }
    // A node streaming to a loopback collector (this TcpListener, which keeps the
    // bytes in <log dir>/received/CsStream.htlog): the stream is a log closed
    // cleanly with every sample of the disk log (csharp_logs_test compares them).
    static void TestStreamToCollector()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        var received = new MemoryStream();
        var connected = new ManualResetEvent(false);
        int connections = 0;
        var server = new Thread(() => {
            using (TcpClient client = listener.AcceptTcpClient())
            {
                ++connections;
                connected.Set();
                client.GetStream().CopyTo(received);  // to the node's close
            }
        });
        server.Start();
        var c = Config("CsStream");
        c.StreamTo = "127.0.0.1:" + port;
        c.FlushIntervalMs = 5;  // several blocks, each its own send
        var tp = new Tracepoint("Streamed", "n", "n");
        TraceStats stats;
        using (var session = new Session(c))
        {
            // Blocks flushed before the connection is made are dropped from the stream (and
            // counted): this test wants them all, so it records once the collector has the node.
            Check.True(connected.WaitOne(5000), "the node connected to the collector");
            for (int batch = 0; batch < 5; ++batch)
            {
                for (int i = 0; i < 1000; ++i) tp.Begin().InOut(batch * 1000 + i).Record();
                Thread.Sleep(20);
            }
        }
        stats = Tracing.Stats;
        Check.True(server.Join(5000), "the node closed the connection at Stop");
        listener.Stop();
        Check.Equal(5000L, stats.Written, "samples written");
        Check.Equal(0L, stats.StreamDropped, "stream drops");
        Check.Equal(1, connections, "connections");
        byte[] bytes = received.ToArray();
        Check.True(bytes.Length > 5000 * 3, "the stream carries the samples (" + bytes.Length + " bytes)");
        Check.Equal((byte)0x89, bytes[0], "the stream starts with the file header");
        Check.Equal((byte)0x83, bytes[bytes.Length - 1], "the stream ends with the end record");
        Directory.CreateDirectory(Path.Combine(s_logDir, "received"));
        File.WriteAllBytes(Path.Combine(s_logDir, "received", "CsStream.htlog"), bytes);
    }

    // No collector listens: every block is a stream drop, counted, and the disk
    // log is complete, its drop records of hashtrace.stream_dropped saying how
    // many (csharp_logs_test reads it); Stop still returns promptly.
    static void TestStreamWithoutCollectorCountsDrops()
    {
        var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        int port = ((IPEndPoint)probe.LocalEndpoint).Port;
        probe.Stop();  // a port nobody listens on
        var c = Config("CsStreamAbsent");
        c.StreamTo = "127.0.0.1:" + port;
        c.FlushIntervalMs = 5;
        var tp = new Tracepoint("NotStreamed", "n", "n");
        var watch = System.Diagnostics.Stopwatch.StartNew();
        using (new Session(c))
        {
            for (int batch = 0; batch < 4; ++batch)
            {
                for (int i = 0; i < 250; ++i) tp.Begin().InOut(i).Record();
                Thread.Sleep(20);
            }
        }
        Check.Equal(1000L, Tracing.Stats.Written, "samples written to the disk log");
        Check.Equal(1000L, Tracing.Stats.StreamDropped, "samples the stream dropped");
        Check.Equal(0L, Tracing.Stats.Dropped, "no sample dropped from the disk log");
        Check.True(watch.ElapsedMilliseconds < 5000, "Stop waited at most about a second for the absent collector");
    }

    static void TestStreamConfiguration()
    {
        string before = Environment.GetEnvironmentVariable("HASHTRACE_STREAM");
        try
        {
            Environment.SetEnvironmentVariable("HASHTRACE_STREAM", "collector.example:7070");
            Check.Equal("collector.example:7070", TraceConfig.FromEnvironment().StreamTo, "HASHTRACE_STREAM read");
            Environment.SetEnvironmentVariable("HASHTRACE_STREAM", "[::1]:7070");
            Check.Equal("[::1]:7070", TraceConfig.FromEnvironment().StreamTo, "a bracketed IPv6 address");
            foreach (string bad in new[] { "nohost", "host:", ":7070", "host:0", "host:65536", "host:7x" })
            {
                Environment.SetEnvironmentVariable("HASHTRACE_STREAM", bad);
                var e = Check.Throws<ArgumentException>(() => TraceConfig.FromEnvironment(), "HASHTRACE_STREAM=" + bad);
                Check.True(e.Message.Contains("HASHTRACE_STREAM"), "the message names the variable: " + e.Message);
            }
        }
        finally
        {
            Environment.SetEnvironmentVariable("HASHTRACE_STREAM", before);
        }
        var csv = Config("CsStreamCsv", LogFormat.Csv);
        csv.StreamTo = "127.0.0.1:7070";
        Check.Throws<ArgumentException>(() => Tracing.Start(csv), "a stream of a CSV log");
        var badPort = Config("CsStreamBad");
        badPort.StreamTo = "127.0.0.1:99999";
        Check.Throws<ArgumentException>(() => Tracing.Start(badPort), "a bad StreamTo");
        Check.True(!Tracing.IsRunning, "no session started");
    }
}
