// Starting and stopping a session, and the switches and counters around it.
// One session per process at a time, as in the C++ SDK.
//
//   Tracing.Start(TraceConfig.FromEnvironment(new TraceConfig { NodeName = "Unity" }));
//   ...
//   Tracing.Stop();   // also runs when the process exits (AppDomain.ProcessExit)
using System;
using System.Collections.Generic;
using System.Threading;

namespace HashTrace
{
    public static class Tracing
    {
        static readonly object Gate = new object();
        static LogWriter s_writer;
        static volatile bool s_recording;
        static long s_session;
        static long s_rejected;
        static string s_lastError = "";
        static TraceStats s_lastStats;
        static string s_lastPath = "";
        static bool s_exitHooked;
        // Not a const: the compiler would call the rest of Start unreachable in WebGL builds.
#if UNITY_WEBGL && !UNITY_EDITOR
        static readonly bool NoThreadsNorFiles = true;
#else
        static readonly bool NoThreadsNorFiles = false;
#endif

        internal static FullPolicy Policy = FullPolicy.Drop;
        internal static int Capacity = 1 << 14;
        // Threads' rings of the current session, for the writer (copied on change).
        static ThreadRing[] s_rings = new ThreadRing[0];
        // Thread names for the log: id -> (managed id, name); the version counts renames.
        internal static readonly Dictionary<uint, KeyValuePair<int, string>> ThreadNames = new Dictionary<uint, KeyValuePair<int, string>>();
        internal static int NamesVersion;

        internal static bool IsRecording { get { return s_recording; } }
        internal static long SessionId { get { return Interlocked.Read(ref s_session); } }
        internal static ThreadRing[] Rings { get { return Volatile.Read(ref s_rings); } }

        /// <summary>Starts a session writing &lt;LogDir&gt;/&lt;NodeName&gt;-&lt;instance&gt;.htlog (or .csv).
        /// null: TraceConfig.FromEnvironment(). Throws InvalidOperationException when a session
        /// runs, ArgumentException for a bad config, IOException when the log cannot be created,
        /// PlatformNotSupportedException in a Unity WebGL player.</summary>
        public static void Start(TraceConfig config = null)
        {
            // A WebGL player has no threads for the writer and no files for the log: say so
            // here rather than fail later inside the writer. Tracepoints stay no-ops.
            if (NoThreadsNorFiles)
                throw new PlatformNotSupportedException("hashtrace: a WebGL player has no threads and no files: no session can run");
            TraceConfig c = config != null ? config.Clone() : TraceConfig.FromEnvironment();
            if (string.IsNullOrEmpty(c.NodeName)) throw new ArgumentException("hashtrace: NodeName is empty");
            if (c.NodeName.IndexOfAny(new[] { ',', '\r', '\n', '/' }) >= 0)
                throw new ArgumentException("hashtrace: NodeName '" + c.NodeName + "' contains a comma, a slash or a line break");
            if (c.QueueCapacity < 1 || c.QueueCapacity > (1 << 20)) throw new ArgumentException("hashtrace: QueueCapacity must be 1..1048576");
            if (c.FlushIntervalMs < 0) throw new ArgumentException("hashtrace: FlushIntervalMs must not be negative");
            if (!string.IsNullOrEmpty(c.StreamTo))
            {
                // A stream carries binary blocks (docs/log-formats.md); a CSV log has none to send.
                if (c.Format != LogFormat.Binary) throw new ArgumentException("hashtrace: StreamTo needs the binary log format");
                string host;
                int port;
                LogStream.Parse(c.StreamTo, out host, out port);  // throws ArgumentException naming the value
            }
            lock (Gate)
            {
                if (s_writer != null) throw new InvalidOperationException("hashtrace: a session is already running (" + s_writer.Path + ")");
                Policy = c.WhenFull;
                Capacity = c.QueueCapacity;
                Volatile.Write(ref s_rings, new ThreadRing[0]);
                long session = SessionId + 1;
                s_writer = new LogWriter(c, session);  // creates the log: may throw, nothing started yet
                Interlocked.Exchange(ref s_session, session);
                s_writer.StartThread();
                if (!s_exitHooked)
                {
                    AppDomain.CurrentDomain.ProcessExit += (sender, e) => Stop();
                    s_exitHooked = true;
                }
                s_recording = c.Enabled;
            }
        }

        /// <summary>Drains the queues, completes the log and closes it. A no-op without a session.</summary>
        public static void Stop()
        {
            lock (Gate)
            {
                if (s_writer == null) return;
                s_recording = false;
                s_writer.StopAndJoin();
                s_lastStats = s_writer.Stats(Interlocked.Read(ref s_rejected));
                s_lastPath = s_writer.Path;
                s_writer = null;
            }
        }

        public static bool IsRunning { get { lock (Gate) return s_writer != null; } }

        /// <summary>Recording on/off at run time; only meaningful while a session runs.</summary>
        public static bool Enabled
        {
            get { return s_recording; }
            set { lock (Gate) s_recording = value && s_writer != null; }
        }

        /// <summary>The log file of the current (or last) session.</summary>
        public static string LogPath { get { lock (Gate) return s_writer != null ? s_writer.Path : s_lastPath; } }

        public static TraceStats Stats
        {
            get { lock (Gate) return s_writer != null ? s_writer.Stats(Interlocked.Read(ref s_rejected)) : s_lastStats; }
        }

        /// <summary>Why the last refused sample was refused ("" if none was).</summary>
        public static string LastError { get { return Volatile.Read(ref s_lastError); } }

        /// <summary>Names the calling thread in the log, and prepares its queue now rather than
        /// at its first tracepoint.</summary>
        public static void SetThreadName(string name)
        {
            if (name == null) throw new ArgumentNullException("name");
            ThreadState ts = ThreadState.Current;
            if (s_recording && ts.Session != SessionId) Attach(ts);
            lock (ThreadNames)
            {
                ThreadNames[ts.Id] = new KeyValuePair<int, string>(ts.ManagedId, name);
                ++NamesVersion;
            }
        }

        internal static void Reject(string error)
        {
            Interlocked.Increment(ref s_rejected);
            Volatile.Write(ref s_lastError, error);
        }

        // A thread's first tracepoint in a session: its ring, registered for the writer.
        internal static bool Attach(ThreadState ts)
        {
            lock (Gate)
            {
                if (s_writer == null) return false;
                ts.Ring = new ThreadRing(Capacity, ts.Id);
                var rings = new ThreadRing[s_rings.Length + 1];
                Array.Copy(s_rings, rings, s_rings.Length);
                rings[s_rings.Length] = ts.Ring;
                Volatile.Write(ref s_rings, rings);
                ts.Session = SessionId;
            }
            lock (ThreadNames)
            {
                if (!ThreadNames.ContainsKey(ts.Id))
                    ThreadNames[ts.Id] = new KeyValuePair<int, string>(ts.ManagedId, Thread.CurrentThread.Name ?? "");
            }
            return true;
        }
    }

    /// <summary>A session for a using block: Start in the constructor, Stop in Dispose.</summary>
    public sealed class Session : IDisposable
    {
        public Session(TraceConfig config = null) { Tracing.Start(config); }
        public string LogPath { get { return Tracing.LogPath; } }
        public TraceStats Stats { get { return Tracing.Stats; } }
        public void Dispose() { Tracing.Stop(); }
    }
}
