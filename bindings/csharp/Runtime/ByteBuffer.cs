// The writer's output buffer: records are appended in place and reach the
// file in one write per flush.
using System;
using System.Runtime.CompilerServices;

namespace HashTrace
{
    internal static class Bytes
    {
        // Buffer.BlockCopy and Array.Clear are runtime calls: under Mono each one
        // crosses into native code with a memory barrier, which costs more than
        // copying the few bytes a tracepoint's state usually has. Larger copies
        // still go to BlockCopy.
        const int LoopLimit = 32;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void Copy(byte[] from, int fromOffset, byte[] to, int toOffset, int count)
        {
            if (count > LoopLimit)
            {
                System.Buffer.BlockCopy(from, fromOffset, to, toOffset, count);
                return;
            }
            for (int i = 0; i < count; ++i) to[toOffset + i] = from[fromOffset + i];
        }

        public static void Clear(byte[] bytes, int offset, int count)
        {
            if (count > 128)  // zeroing needs no read: a loop wins for longer (MD5's padding is at most 119)
            {
                System.Array.Clear(bytes, offset, count);
                return;
            }
            for (int i = 0; i < count; ++i) bytes[offset + i] = 0;
        }
    }

    internal sealed class ByteBuffer
    {
        byte[] _bytes = new byte[1 << 16];
        int _length;

        public byte[] Bytes { get { return _bytes; } }
        public int Length { get { return _length; } }
        public void Clear() { _length = 0; }

        public void Add(byte b) { Room(1); _bytes[_length++] = b; }

        public void Add(byte[] b, int offset, int count)
        {
            Room(count);
            System.Buffer.BlockCopy(b, offset, _bytes, _length, count);
            _length += count;
        }

        public void AddAscii(string s)
        {
            Room(s.Length);
            for (int i = 0; i < s.Length; ++i) _bytes[_length++] = (byte)s[i];
        }

        public void AddLittleEndian(ulong v, int width)
        {
            Room(width);
            for (int i = 0; i < width; ++i) _bytes[_length++] = (byte)(v >> (8 * i));
        }

        /// <summary>Unsigned LEB128.</summary>
        public void AddVarint(ulong v)
        {
            Room(10);
            while (v >= 0x80)
            {
                _bytes[_length++] = (byte)(v | 0x80);
                v >>= 7;
            }
            _bytes[_length++] = (byte)v;
        }

        public void AddHash(Hash128 h) { Room(16); h.CopyTo(_bytes, _length); _length += 16; }

        public void Patch(int offset, uint v)
        {
            for (int i = 0; i < 4; ++i) _bytes[offset + i] = (byte)(v >> (8 * i));
        }

        public void Patch64(int offset, ulong v)
        {
            for (int i = 0; i < 8; ++i) _bytes[offset + i] = (byte)(v >> (8 * i));
        }

        void Room(int n)
        {
            if (_length + n <= _bytes.Length) return;
            var bigger = new byte[Math.Max(_bytes.Length * 2, _length + n)];
            System.Buffer.BlockCopy(_bytes, 0, bigger, 0, _length);
            _bytes = bigger;
        }
    }
}
