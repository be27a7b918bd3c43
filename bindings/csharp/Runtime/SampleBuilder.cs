// This thread's sample under construction: Tracepoint.Begin() stamps the time
// and hands it out; In/Out/InOut append state as canonical bytes; Record()
// hashes (or, deferred, copies) and queues the sample. One per thread,
// reused: recording allocates nothing once the buffers fit the state.
//
// State errors (a null string, a string with a lone surrogate) never throw:
// Record() then returns false, Tracing.Stats.Rejected counts the sample and
// Tracing.LastError says why.
using System;
using System.Diagnostics;
using System.Threading;

namespace HashTrace
{
    public sealed class SampleBuilder
    {
        readonly CanonicalWriter _in = new CanonicalWriter(), _out = new CanonicalWriter();
        readonly ThreadState _thread;
        Tracepoint _tp;
        long _stamp;
        bool _active, _hasIn, _hasOut, _outIsIn;
        string _error;

        internal SampleBuilder(ThreadState thread) { _thread = thread; }

        internal SampleBuilder Start(Tracepoint tp, bool active)
        {
            // First: the sample marks when the tracepoint was reached. Only when recording:
            // the clock read is most of what a switched-off tracepoint would cost.
            _stamp = active ? Stopwatch.GetTimestamp() : 0;
            _tp = tp;
            _active = active;
            _hasIn = _hasOut = _outIsIn = false;
            _error = null;
            _in.Clear();
            _out.Clear();
            return this;
        }

        public SampleBuilder In(byte v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(sbyte v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(short v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(ushort v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(int v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(uint v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(long v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(ulong v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(float v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(double v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(bool v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(string v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder In(byte[] v) { if (_active) try { _in.Add(v); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(byte v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(sbyte v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(short v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(ushort v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(int v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(uint v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(long v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(ulong v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(float v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(double v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(bool v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(string v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(byte[] v) { if (_active) try { OutSide().Add(v); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(byte v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(sbyte v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(short v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(ushort v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(int v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(uint v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(long v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(ulong v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(float v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(double v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(bool v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(string v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(byte[] v) { if (_active) try { _in.Add(v); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }

        /// <summary>bytes[offset, offset + count) as a byte span (a uint32 length, then the bytes).</summary>
        public SampleBuilder In(byte[] v, int offset, int count) { if (_active) try { _in.Add(v, offset, count); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder Out(byte[] v, int offset, int count) { if (_active) try { OutSide().Add(v, offset, count); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder InOut(byte[] v, int offset, int count) { if (_active) try { _in.Add(v, offset, count); _hasIn = _hasOut = _outIsIn = true; } catch (ArgumentException e) { Reject(e); } return this; }

        /// <summary>Bytes that are already canonical (from CanonicalWriter or another language), as
        /// the input or output state.</summary>
        public SampleBuilder InCanonical(byte[] b, int offset, int count) { if (_active) try { _in.AddCanonical(b, offset, count); _hasIn = true; } catch (ArgumentException e) { Reject(e); } return this; }
        public SampleBuilder OutCanonical(byte[] b, int offset, int count) { if (_active) try { OutSide().AddCanonical(b, offset, count); _hasOut = true; } catch (ArgumentException e) { Reject(e); } return this; }

        // After InOut(), Out() extends the output only: the input so far is its start.
        CanonicalWriter OutSide()
        {
            if (_outIsIn)
            {
                _outIsIn = false;
                _out.Clear().AddCanonical(_in.Buffer, 0, _in.Length);
            }
            return _out;
        }

        void Reject(ArgumentException e)
        {
            if (_error == null) _error = "tracepoint " + _tp.Name + ": " + e.Message;
        }

        /// <summary>Queues the sample. False when nothing was recorded: no session, recording
        /// switched off, bad state (see Tracing.LastError), or a full queue under the drop policy.</summary>
        public bool Record()
        {
            if (!_active) return false;
            _active = false;
            if (_error != null)
            {
                Tracing.Reject(_error);
                return false;
            }
            ThreadRing ring = _thread.Ring;
            int tail = ring.At.Tail;
            ulong seq = _thread.Seq++;  // also on a drop: the gap tells readers where samples are missing
            while (ring.Full(tail))
            {
                if (Tracing.Policy == FullPolicy.Drop || !Tracing.IsRecording)
                {
                    Interlocked.Increment(ref _tp.Dropped);
                    return false;
                }
                Thread.Yield();
            }
            int i = tail & ring.Mask;
            ref Slot slot = ref ring.Slots[i];  // one bounds check for the slot's fields
            slot.Stamp = _stamp;
            slot.Seq = seq;
            slot.Tracepoint = _tp;
            byte flags = (byte)((_hasIn ? Slot.HasInput : 0) | (_hasOut ? Slot.HasOutput : 0) | (_outIsIn ? Slot.OutIsInput : 0));
            int inLength = _hasIn ? _in.Length : 0;
            int outLength = _hasOut && !_outIsIn ? _out.Length : 0;
            if (_tp.Deferred && inLength + outLength <= ThreadRing.PayloadCapacity)
            {
                flags |= Slot.Deferred;
                slot.InputLength = (byte)inLength;
                slot.OutputLength = (byte)outLength;
                int at = i * ThreadRing.PayloadCapacity;
                Bytes.Copy(_in.Buffer, 0, ring.Payload, at, inLength);
                if (outLength > 0) Bytes.Copy(_out.Buffer, 0, ring.Payload, at + inLength, outLength);
            }
            else
            {
                // Too large to copy (or not deferred): hashed here, with identical results.
                if (_hasIn) slot.Input = _in.Hash(_tp.Function);
                if (_outIsIn) slot.Output = slot.Input;
                else if (_hasOut) slot.Output = _out.Hash(_tp.Function);
            }
            slot.Flags = flags;
            ring.Publish(tail);
            return true;
        }
    }
}
