// What each recording thread keeps: its ring in the current session, its id
// in the log, its sequence number and its sample builder.
using System;
using System.Threading;

namespace HashTrace
{
    internal sealed class ThreadState
    {
        [ThreadStatic] static ThreadState t_current;
        static int s_nextId;

        public readonly uint Id = (uint)Interlocked.Increment(ref s_nextId);
        public readonly int ManagedId = Thread.CurrentThread.ManagedThreadId;
        public ulong Seq;
        public ThreadRing Ring;
        public long Session;
        readonly SampleBuilder _builder;

        ThreadState() { _builder = new SampleBuilder(this); }

        public static ThreadState Current { get { return t_current ?? (t_current = new ThreadState()); } }

        public SampleBuilder Begin(Tracepoint tp)
        {
            bool active = Tracing.IsRecording;
            if (active && Session != Tracing.SessionId) active = Tracing.Attach(this);
            return _builder.Start(tp, active);
        }
    }
}
