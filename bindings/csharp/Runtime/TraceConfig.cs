// How a node is configured: in code, from the environment, or both (the
// environment wins, as in the C++ SDK, so a lab can redirect logs without
// rebuilding the game). Same variables, same defaults: docs/sdk.md.
using System;

namespace HashTrace
{
    public enum LogFormat { Binary, Csv }

    public enum FullPolicy
    {
        /// <summary>The sample is dropped and counted per tracepoint; the count is logged.</summary>
        Drop,
        /// <summary>The tracepoint waits (yielding) until the writer makes room.</summary>
        Block,
    }

    public sealed class TraceConfig
    {
        public string NodeName = "node";
        public string LogDir = ".";
        public LogFormat Format = LogFormat.Binary;
        /// <summary>Samples each recording thread can have waiting for the writer.</summary>
        public int QueueCapacity = 1 << 14;
        public FullPolicy WhenFull = FullPolicy.Drop;
        public int FlushIntervalMs = 100;
        public bool Enabled = true;
        /// <summary>HOST:PORT of a collector (`hashtrace live`) the writer thread also streams the
        /// log's blocks to over TCP; null or empty: no stream. Needs the binary format. The stream
        /// never blocks a tracepoint nor costs the disk log a sample: what it cannot send is
        /// dropped from the stream only, counted (TraceStats.StreamDropped) and logged.</summary>
        public string StreamTo;

        public TraceConfig Clone() { return (TraceConfig)MemberwiseClone(); }

        /// <summary>A copy of `defaults` overridden by every HASHTRACE_* variable that is set.
        /// Throws ArgumentException naming the variable for a bad value.</summary>
        public static TraceConfig FromEnvironment(TraceConfig defaults = null)
        {
            TraceConfig c = (defaults ?? new TraceConfig()).Clone();
            string v;
            if ((v = Get("HASHTRACE_NODE")) != null) c.NodeName = v;
            if ((v = Get("HASHTRACE_LOG_DIR")) != null) c.LogDir = v;
            if ((v = Get("HASHTRACE_FORMAT")) != null)
            {
                if (v == "binary") c.Format = LogFormat.Binary;
                else if (v == "csv") c.Format = LogFormat.Csv;
                else throw Bad("HASHTRACE_FORMAT", v, "binary or csv");
            }
            if ((v = Get("HASHTRACE_QUEUE_CAPACITY")) != null)
            {
                c.QueueCapacity = Number("HASHTRACE_QUEUE_CAPACITY", v);
                if (c.QueueCapacity == 0) throw Bad("HASHTRACE_QUEUE_CAPACITY", v, "at least 1");
            }
            if ((v = Get("HASHTRACE_WHEN_FULL")) != null)
            {
                if (v == "drop") c.WhenFull = FullPolicy.Drop;
                else if (v == "block") c.WhenFull = FullPolicy.Block;
                else throw Bad("HASHTRACE_WHEN_FULL", v, "drop or block");
            }
            if ((v = Get("HASHTRACE_FLUSH_MS")) != null) c.FlushIntervalMs = Number("HASHTRACE_FLUSH_MS", v);
            if ((v = Get("HASHTRACE_ENABLED")) != null)
            {
                if (v == "0" || v == "false") c.Enabled = false;
                else if (v == "1" || v == "true") c.Enabled = true;
                else throw Bad("HASHTRACE_ENABLED", v, "0 or 1");
            }
            if ((v = Get("HASHTRACE_STREAM")) != null)
            {
                string host;
                int port;
                try { LogStream.Parse(v, out host, out port); }
                catch (ArgumentException) { throw Bad("HASHTRACE_STREAM", v, "HOST:PORT with a port 1..65535"); }
                c.StreamTo = v;
            }
            return c;
        }

        static string Get(string name)
        {
            string v = Environment.GetEnvironmentVariable(name);
            return string.IsNullOrEmpty(v) ? null : v;
        }

        static int Number(string name, string v)
        {
            int n;
            if (!int.TryParse(v, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out n))
                throw Bad(name, v, "a non-negative integer");
            return n;
        }

        static ArgumentException Bad(string name, string value, string expected)
        {
            return new ArgumentException(name + "='" + value + "': expected " + expected);
        }
    }

    public struct TraceStats
    {
        /// <summary>Samples the writer has written.</summary>
        public long Written;
        /// <summary>Samples a full queue dropped (all are logged as drop records).</summary>
        public long Dropped;
        /// <summary>Bytes written to the log.</summary>
        public long Bytes;
        /// <summary>Samples refused for bad state (a null or invalid string): see Tracing.LastError.</summary>
        public long Rejected;
        /// <summary>Samples the stream to the collector dropped (slow or absent collector); all are
        /// in the disk log, which records this count as drops of `hashtrace.stream_dropped`.</summary>
        public long StreamDropped;
    }
}
