// Each recording thread's own queue: a single-producer, single-consumer ring
// of pre-allocated slots. The thread writes a slot and publishes it by
// advancing Tail; the writer thread reads up to Tail and frees by advancing
// Head. No lock, no allocation, no interlocked instruction on the way.
//
// Head and Tail sit on cache lines of their own, and the thread checks for
// room against its last look at Head, reading the writer's Head only when
// that look says full: a line the other core wrote costs the thread a miss,
// and this way a sample touches no such line of the ring's bookkeeping.
using System.Runtime.InteropServices;
using System.Threading;

namespace HashTrace
{
    internal struct Slot
    {
        public const byte HasInput = 1, HasOutput = 2, Deferred = 4, OutIsInput = 8;
        public long Stamp;  // Stopwatch ticks; the writer converts them to CLOCK_REALTIME ns
        public ulong Seq;
        public Tracepoint Tracepoint;
        public Hash128 Input, Output;  // hashed on the recording thread
        public byte Flags;
        public byte InputLength, OutputLength;  // deferred: canonical bytes in the ring's payload
    }

    internal sealed class ThreadRing
    {
        /// <summary>Deferred tracepoints copy at most this many canonical bytes (in and out together),
        /// as the C++ SDK's kDeferredCapacity; larger state is hashed inline.</summary>
        public const int PayloadCapacity = 96;

        public readonly Slot[] Slots;
        public readonly byte[] Payload;
        public readonly int Mask;
        public readonly uint ThreadId;
        public Indices At;

        public ThreadRing(int capacity, uint threadId)
        {
            int size = 1;
            while (size < capacity) size <<= 1;
            Slots = new Slot[size];
            Payload = new byte[size * PayloadCapacity];
            Mask = size - 1;
            ThreadId = threadId;
        }

        public bool Full(int tail)
        {
            if (tail - At.SeenHead <= Mask) return false;
            At.SeenHead = Volatile.Read(ref At.Head);
            return tail - At.SeenHead > Mask;
        }

        public void Publish(int tail) { Volatile.Write(ref At.Tail, tail + 1); }
    }

    // 64 bytes (a cache line) between Head and Tail, and around them.
    [StructLayout(LayoutKind.Explicit, Size = 3 * 64)]
    internal struct Indices
    {
        [FieldOffset(64)] public int Head;       // next slot the writer reads (written by the writer only)
        [FieldOffset(128)] public int Tail;      // next slot the thread fills (written by the thread only)
        [FieldOffset(132)] public int SeenHead;  // the thread's last look at Head
    }
}
