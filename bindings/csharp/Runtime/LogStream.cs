// The stream of a node's blocks to a collector (TraceConfig.StreamTo), the
// managed twin of the C++ SDK's sdk/include/hashtrace/detail/stream.hpp.
// Everything here runs on the writer thread; recording threads never see it.
//
// The bytes of one connection are a version-3 log as the node writes it: the
// file header, then whole blocks. The socket is non-blocking and the bytes it
// has not taken wait in a bounded backlog; a block that does not fit is
// dropped from the stream (never from the disk log) and its samples counted.
// The next block sent after such a gap, or after a reconnect (a fresh file
// header first), is preceded by one block holding what later records need
// (tracepoint definitions, thread names), the drop records of the dropped
// blocks and a loss record per tracepoint, so any log reader reads a stream
// like a log with losses (docs/log-formats.md, "A stream to a collector").
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace HashTrace
{
    internal struct Tally
    {
        public ulong Count;
        public long First, Last;

        public void Add(long t)
        {
            if (Count == 0 || t < First) First = t;
            if (Count == 0 || t > Last) Last = t;
            ++Count;
        }

        public void Add(Tally o)
        {
            if (o.Count == 0) return;
            First = Count != 0 ? Math.Min(First, o.First) : o.First;
            Last = Count != 0 ? Math.Max(Last, o.Last) : o.Last;
            Count += o.Count;
        }
    }

    internal struct DropRecord
    {
        public uint Tracepoint;
        public long TimeNs;
        public ulong Count;
    }

    internal sealed class Definition
    {
        public string Name, InputType, OutputType;
        public HashFunction Function;
    }

    /// <summary>What the stream needs of the log it copies (the writer's bookkeeping).</summary>
    internal interface IStreamedLog
    {
        byte[] HeaderBytes { get; }
        List<Definition> Definitions { get; }
        int DefinitionsBeforeBlock { get; }
        Tally[] BlockSamples { get; }  // by tracepoint index, Definitions.Count of them
        List<DropRecord> BlockDrops { get; }
        SortedDictionary<uint, KeyValuePair<long, string>> Threads { get; }
        long LastTime { get; }
    }

    internal sealed class LogStream
    {
        public const int BacklogLimit = 4 << 20;  // bytes the socket has not taken yet
        const long FirstBackoffNs = 100000000, LastBackoffNs = 5000000000;
        static readonly double NsPerTick = 1e9 / Stopwatch.Frequency;

        readonly string _where;
        readonly IPEndPoint _endPoint;
        Socket _socket;
        bool _connecting, _needHeader = true, _catchUp, _reported;
        long _nextAttempt, _backoffNs = FirstBackoffNs;
        byte[] _backlog = new byte[1 << 16];
        int _backlogLength, _sent;  // bytes in the backlog, and of them the socket took
        // The blocks in the backlog not yet sent in full, by where they end
        // (counted from the connection's first byte, as _appended is).
        struct Unsent
        {
            public long End;
            public Tally[] Samples;
        }
        readonly Queue<Unsent> _unsent = new Queue<Unsent>();
        long _appended;  // bytes removed from the front of the backlog
        int _definitionsSent;
        readonly SortedDictionary<uint, Tally> _lost = new SortedDictionary<uint, Tally>();
        readonly List<DropRecord> _carriedDrops = new List<DropRecord>();
        long _dropped, _connects;

        /// <summary>Parses and resolves HOST:PORT once, here: a name lookup may block, the writer
        /// thread must not. Throws ArgumentException for a bad or unknown address.</summary>
        public LogStream(string hostPort)
        {
            _where = hostPort;
            string host;
            int port;
            Parse(hostPort, out host, out port);
            IPAddress address;
            if (!IPAddress.TryParse(host, out address))
            {
                IPAddress[] found;
                try { found = Dns.GetHostAddresses(host); }
                catch (Exception e) { throw new ArgumentException("hashtrace: StreamTo '" + hostPort + "': cannot resolve " + host + " (" + e.Message + ")"); }
                if (found.Length == 0) throw new ArgumentException("hashtrace: StreamTo '" + hostPort + "': cannot resolve " + host);
                address = found[0];
            }
            _endPoint = new IPEndPoint(address, port);
        }

        /// <summary>HOST:PORT as the C++ SDK reads it: a name, an IPv4 address or a bracketed
        /// IPv6 one, and a port 1..65535.</summary>
        public static void Parse(string s, out string host, out int port)
        {
            int colon = s.LastIndexOf(':');
            if (colon <= 0 || colon + 1 == s.Length) throw new ArgumentException("'" + s + "': expected HOST:PORT");
            host = s.Substring(0, colon);
            if (host.Length >= 2 && host[0] == '[' && host[host.Length - 1] == ']') host = host.Substring(1, host.Length - 2);
            string digits = s.Substring(colon + 1);
            if (host.Length == 0 || digits.Length > 5
                || !int.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out port) || port < 1 || port > 65535)
                throw new ArgumentException("'" + s + "': expected HOST:PORT with a port 1..65535");
        }

        public long Dropped { get { return _dropped; } }
        public long Connects { get { return _connects; } }

        static long NowNs() { return (long)(Stopwatch.GetTimestamp() * NsPerTick); }

        /// <summary>Connects, or goes on connecting, and sends what waits. Never blocks.</summary>
        public void Pump()
        {
            long now = NowNs();
            if (_socket == null && now >= _nextAttempt) StartConnect(now);
            if (_connecting) FinishConnect(now);
            if (_socket != null && !_connecting) SendBacklog(now);
        }

        /// <summary>At the session's end: gives the collector up to patienceNs to take what waits;
        /// the connection stays open for the log's last block. A connection still being made is
        /// waited for too: a short session's blocks may all come before it.</summary>
        public void Drain(long patienceNs)
        {
            long giveUp = NowNs() + patienceNs;
            for (Pump(); _socket != null && (_connecting || _backlogLength > _sent) && NowNs() < giveUp; Pump())
            {
                try { _socket.Poll(10000, SelectMode.SelectWrite); }
                catch (Exception) { System.Threading.Thread.Sleep(1); }
            }
        }

        /// <summary>Then the last block (the end record) goes the same way and the connection
        /// closes; whatever is left is counted.</summary>
        public void Finish(long patienceNs)
        {
            Drain(patienceNs);
            Disconnect();
            _nextAttempt = long.MaxValue;  // no new connection for what remains
        }

        public void Block(IStreamedLog log, byte[] bytes, int n)
        {
            Pump();
            if (_socket == null || _connecting || _backlogLength + n > BacklogLimit)
            {
                Skip(log);
                return;
            }
            if (_needHeader)
            {
                Append(log.HeaderBytes, 0, log.HeaderBytes.Length);
                _needHeader = false;
                _definitionsSent = 0;
                _catchUp = true;
            }
            if (_catchUp) EncodeCatchUp(log);
            Append(bytes, 0, n);
            _unsent.Enqueue(new Unsent { End = _appended + _backlogLength, Samples = (Tally[])log.BlockSamples.Clone() });
            _definitionsSent = log.Definitions.Count;
            SendBacklog(NowNs());
        }

        // The block goes no further: its samples are counted, its definitions and
        // drop records kept for the block that follows the gap.
        void Skip(IStreamedLog log)
        {
            CountLost(log.BlockSamples);
            _carriedDrops.AddRange(log.BlockDrops);
            _catchUp = true;
        }

        void CountLost(Tally[] samples)
        {
            for (uint tp = 0; tp < samples.Length; ++tp)
            {
                if (samples[tp].Count == 0) continue;
                Tally t;
                _lost.TryGetValue(tp, out t);
                t.Add(samples[tp]);
                _lost[tp] = t;
                _dropped += (long)samples[tp].Count;
            }
        }

        void EncodeCatchUp(IStreamedLog log)
        {
            var output = new ByteBuffer();
            var e = new BinaryEncoder(output);
            long at = log.LastTime;
            e.BeginBlock(at);
            for (int i = _definitionsSent; i < log.DefinitionsBeforeBlock; ++i)
            {
                Definition d = log.Definitions[i];
                e.Tracepoint((uint)i, d.Name, d.InputType, d.OutputType, d.Function, at);
            }
            foreach (var kv in log.Threads) e.Thread(kv.Key, kv.Value.Key, kv.Value.Value, at);
            foreach (DropRecord d in _carriedDrops) e.Drop(d.Tracepoint, d.TimeNs, d.Count);
            foreach (var kv in _lost) e.Loss(kv.Key, kv.Value.First, kv.Value.Last, kv.Value.Count);
            e.EndOfFlush();
            Append(output.Bytes, 0, output.Length);
            _lost.Clear();
            _carriedDrops.Clear();
            _catchUp = false;
        }

        void Append(byte[] bytes, int offset, int n)
        {
            if (_backlogLength + n > _backlog.Length)
            {
                var bigger = new byte[Math.Max(_backlog.Length * 2, _backlogLength + n)];
                Buffer.BlockCopy(_backlog, 0, bigger, 0, _backlogLength);
                _backlog = bigger;
            }
            Buffer.BlockCopy(bytes, offset, _backlog, _backlogLength, n);
            _backlogLength += n;
        }

        void StartConnect(long now)
        {
            try
            {
                _socket = new Socket(_endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
                _socket.Blocking = false;
                _socket.NoDelay = true;
            }
            catch (Exception e)
            {
                RetryLater(now, e.Message);
                return;
            }
            try
            {
                _socket.Connect(_endPoint);
                Connected();
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.WouldBlock || e.SocketErrorCode == SocketError.InProgress)
            {
                _connecting = true;
            }
            catch (Exception e)
            {
                RetryLater(now, e.Message);
            }
        }

        void FinishConnect(long now)
        {
            int error;
            try
            {
                bool failed = _socket.Poll(0, SelectMode.SelectError);
                if (!failed && !_socket.Poll(0, SelectMode.SelectWrite)) return;  // still connecting
                error = (int)_socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.Error);
                if (error == 0 && failed) error = -1;
                if (error == 0 && !_socket.Connected) error = -1;
            }
            catch (Exception e)
            {
                _connecting = false;
                RetryLater(now, e.Message);
                return;
            }
            _connecting = false;
            if (error != 0)
            {
                RetryLater(now, error > 0 ? new SocketException(error).Message : "connection refused");
                return;
            }
            Connected();
        }

        void Connected()
        {
            _connecting = false;
            _needHeader = true;
            _backoffNs = FirstBackoffNs;
            ++_connects;
            if (_reported) Console.Error.WriteLine("hashtrace: streaming to " + _where + " again");
            _reported = false;
        }

        // The collector is absent or gone: try again later, each time waiting
        // twice as long up to a few seconds; said once, not at every attempt.
        void RetryLater(long now, string why)
        {
            Disconnect();
            if (!_reported)
                Console.Error.WriteLine("hashtrace: cannot stream to " + _where + " (" + why
                                        + "); samples are counted as stream drops until it can");
            _reported = true;
            _nextAttempt = now + _backoffNs;
            _backoffNs = Math.Min(_backoffNs * 2, LastBackoffNs);
        }

        void SendBacklog(long now)
        {
            while (_sent < _backlogLength)
            {
                int w;
                SocketError error;
                try { w = _socket.Send(_backlog, _sent, _backlogLength - _sent, SocketFlags.None, out error); }
                catch (Exception e)
                {
                    RetryLater(now, e.Message);
                    return;
                }
                if (error == SocketError.WouldBlock || error == SocketError.Interrupted) break;
                if (error != SocketError.Success)
                {
                    RetryLater(now, new SocketException((int)error).Message);
                    return;
                }
                _sent += w;
            }
            while (_unsent.Count > 0 && _unsent.Peek().End <= _appended + _sent) _unsent.Dequeue();
            if (_sent == _backlogLength || _sent > BacklogLimit / 2)
            {
                Buffer.BlockCopy(_backlog, _sent, _backlog, 0, _backlogLength - _sent);
                _backlogLength -= _sent;
                _appended += _sent;
                _sent = 0;
            }
        }

        // The blocks the backlog held, whole or in part, are gone with the
        // connection: counted. The next one starts with a file header and
        // everything later records need.
        void Disconnect()
        {
            if (_socket != null)
            {
                try { _socket.Close(); } catch (Exception) { }
            }
            _socket = null;
            _connecting = false;
            foreach (Unsent u in _unsent) CountLost(u.Samples);
            _unsent.Clear();
            _appended += _backlogLength;
            _backlogLength = 0;
            _sent = 0;
        }
    }
}
