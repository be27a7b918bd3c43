// The paper's Table 7 sizes for the managed C# runtime under Mono: ns per
// call on the application thread of the bare MD5s (ours over the canonical
// bytes, the framework's MD5.ComputeHash over the payload itself) and of
// inline and deferred tracepoints, hashing the payload as a byte array (a
// 4-byte length, then the bytes: as the C++ benchmark's hashtrace::bytes).
// The goals (docs/benchmarks.md) compare the tracepoints with
// MD5.ComputeHash measured in the same run, so load on the machine moves both.
// Times are CPU time of the calling thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID)),
// as Google Benchmark's CPU column for the C++ tracepoint, so other load on a
// shared machine does not count. Like the C++ benchmark, a session runs throughout, the clock pauses every
// 64 Ki calls until the writer has caught up, and a run with drops is an error.
//   mono --optimize=all CsBench.exe [repetitions]
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using HashTrace;

static class CsBench
{
    const int Batch = 1 << 16;

    [StructLayout(LayoutKind.Sequential)]
    struct Timespec { public long Seconds; public long Nanoseconds; }

    [DllImport("libc", EntryPoint = "clock_gettime")]
    static extern int ClockGettime(int clock, out Timespec t);

    static long ThreadCpuNs()
    {
        Timespec t;
        ClockGettime(3 /* CLOCK_THREAD_CPUTIME_ID */, out t);
        return t.Seconds * 1000000000 + t.Nanoseconds;
    }

    static byte[] Payload(int n)
    {
        var p = new byte[n];
        for (int i = 0; i < n; ++i) p[i] = (byte)(i * 131 + 7);
        return p;
    }

    // ns per call: the median of `repetitions` runs of `batches` x 64 Ki calls.
    static double Measure(int repetitions, int batches, Action<int> calls, bool drain)
    {
        var runs = new List<double>();
        for (int r = 0; r <= repetitions; ++r)  // run 0 warms the JIT up
        {
            long ns = 0;
            for (int b = 0; b < batches; ++b)
            {
                long start = ThreadCpuNs();
                calls(Batch);
                ns += ThreadCpuNs() - start;
                if (drain) WaitForWriter();
            }
            if (r > 0) runs.Add(ns / ((double)batches * Batch));
        }
        runs.Sort();
        return runs[runs.Count / 2];
    }

    static long s_recorded;

    static void WaitForWriter()
    {
        while (Tracing.Stats.Written + Tracing.Stats.Dropped < s_recorded) System.Threading.Thread.Sleep(0);
    }

    static int Main(string[] args)
    {
        int repetitions = args.Length > 0 ? int.Parse(args[0]) : 5;
        string dir = Path.Combine(Path.GetTempPath(), "hashtrace-bench-csharp");
        Tracing.Start(new TraceConfig { NodeName = "CsBench", LogDir = dir, QueueCapacity = 1 << 17 });
        Tracing.SetThreadName("bench");
        var inline = new Tracepoint("InlineMD5", "payload", "");
        var deferred = new Tracepoint("DeferredMD5", "payload", "", deferred: true);
        var off = new Tracepoint("Off", "loop", "loop");
        Console.WriteLine("C# under Mono: ns of CPU per call, median of " + repetitions + " runs");
        Console.WriteLine("{0,-48}{1,10}{2,10}{3,10}", "benchmark", "10 B", "100 B", "1000 B");
        var rows = new[] { "bare MD5 (managed, ours; canonical bytes)", "MD5.ComputeHash (System.Security.Cryptography)", "inline MD5 tracepoint", "deferred MD5 tracepoint" };
        var results = new double[rows.Length, 3];
        int[] sizes = { 10, 100, 1000 };
        using (var framework = System.Security.Cryptography.MD5.Create())
        {
            for (int s = 0; s < sizes.Length; ++s)
            {
                byte[] p = Payload(sizes[s]);
                var canonical = new CanonicalWriter().Add(p);
                int batches = sizes[s] >= 1000 ? 2 : 8;
                Hash128 sink = default(Hash128);
                results[0, s] = Measure(repetitions, batches, n => { for (int i = 0; i < n; ++i) sink = canonical.Md5Hash(); }, false);
                results[1, s] = Measure(repetitions, batches, n => { for (int i = 0; i < n; ++i) framework.ComputeHash(p); }, false);
                results[2, s] = Measure(repetitions, batches, n => { for (int i = 0; i < n; ++i) inline.Begin().In(p).Record(); s_recorded += n; }, true);
                results[3, s] = Measure(repetitions, batches, n => { for (int i = 0; i < n; ++i) deferred.Begin().In(p).Record(); s_recorded += n; }, true);
                GC.KeepAlive(sink);
            }
        }
        for (int r = 0; r < rows.Length; ++r)
            Console.WriteLine("{0,-48}{1,10:F0}{2,10:F0}{3,10:F0}", rows[r], results[r, 0], results[r, 1], results[r, 2]);
        Tracing.Enabled = false;
        uint loop = 0;
        double offNs = Measure(repetitions, 8, n => { for (int i = 0; i < n; ++i) off.Begin().InOut(++loop).Record(); }, false);
        Tracing.Enabled = true;
        Console.WriteLine("{0,-48}{1,10:F0}", "tracepoint switched off", offNs);
        // The goals at 10 B: deferred <= 200 ns, inline <= 1.0x MD5.ComputeHash.
        double ratio = results[2, 0] / results[1, 0];
        Console.WriteLine("10 B: deferred {0:F0} ns (goal <= 200: {1}); inline / MD5.ComputeHash = {2:F2} (goal <= 1.0: {3})",
                          results[3, 0], results[3, 0] <= 200 ? "met" : "NOT met", ratio, ratio <= 1.0 ? "met" : "NOT met");
        Tracing.Stop();
        TraceStats st = Tracing.Stats;
        Console.WriteLine("written " + st.Written + ", dropped " + st.Dropped);
        Directory.Delete(dir, true);
        return st.Dropped == 0 ? 0 : 1;
    }
}
