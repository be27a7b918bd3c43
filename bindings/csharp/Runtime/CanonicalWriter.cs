// The canonical bytes of docs/spec.md section 2, as the C++ SDK makes them: each C#
// type encodes as the C++ type of the same width (int as int32_t, ulong as
// uint64_t, float and double as IEEE-754, bool as one byte), little-endian;
// strings as a uint32 length and their UTF-8 bytes; byte arrays as a uint32
// length and the bytes. Several values: the concatenation, in order.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace HashTrace
{
    public sealed class CanonicalWriter
    {
        // Strict: a lone UTF-16 surrogate has no UTF-8 form, so it is an error
        // rather than silently hashed as U+FFFD.
        static readonly UTF8Encoding Utf8 = new UTF8Encoding(false, true);

        [StructLayout(LayoutKind.Explicit)]
        struct FloatBits
        {
            [FieldOffset(0)] public float Float;
            [FieldOffset(0)] public uint Bits;
        }

        byte[] _bytes;
        int _length;

        public CanonicalWriter(int capacity = 256) { _bytes = new byte[Math.Max(capacity, 16)]; }

        /// <summary>The canonical bytes so far are Buffer[0, Length).</summary>
        public byte[] Buffer { get { return _bytes; } }
        public int Length { get { return _length; } }

        public CanonicalWriter Clear() { _length = 0; return this; }

        public CanonicalWriter Add(byte v) { Room(1)[_length++] = v; return this; }
        public CanonicalWriter Add(sbyte v) { Room(1)[_length++] = (byte)v; return this; }
        public CanonicalWriter Add(bool v) { Room(1)[_length++] = v ? (byte)1 : (byte)0; return this; }
        public CanonicalWriter Add(short v) { return Put((ulong)(ushort)v, 2); }
        public CanonicalWriter Add(ushort v) { return Put(v, 2); }
        public CanonicalWriter Add(int v) { return Put4((uint)v); }
        public CanonicalWriter Add(uint v) { return Put4(v); }
        public CanonicalWriter Add(long v) { return Put8((ulong)v); }
        public CanonicalWriter Add(ulong v) { return Put8(v); }
        public CanonicalWriter Add(float v)
        {
            FloatBits f = default(FloatBits);
            f.Float = v;
            return Put4(f.Bits);
        }
        public CanonicalWriter Add(double v) { return Put8((ulong)BitConverter.DoubleToInt64Bits(v)); }

        /// <summary>A uint32 length, then the UTF-8 bytes. Throws ArgumentException for null
        /// or for text with a lone surrogate (it has no UTF-8 form); nothing is added then.</summary>
        public CanonicalWriter Add(string text)
        {
            if (text == null) throw new ArgumentNullException("text", "hashtrace: a null string cannot be hashed");
            int n;
            try { n = Utf8.GetByteCount(text); }
            catch (EncoderFallbackException e)
            {
                throw new ArgumentException("hashtrace: the string is not valid Unicode (a lone surrogate at index " + e.Index + ")", "text", e);
            }
            Room(4 + n);
            Put((uint)n, 4);
            _length += Utf8.GetBytes(text, 0, text.Length, _bytes, _length);
            return this;
        }

        /// <summary>A uint32 length, then the bytes.</summary>
        public CanonicalWriter Add(byte[] bytes) { return Add(bytes, 0, bytes == null ? 0 : bytes.Length); }

        public CanonicalWriter Add(byte[] bytes, int offset, int count)
        {
            if (bytes == null) throw new ArgumentNullException("bytes", "hashtrace: a null byte array cannot be hashed");
            if (offset < 0 || count < 0 || offset > bytes.Length - count)
                throw new ArgumentOutOfRangeException("count", "hashtrace: [offset, offset + count) is outside the array");
            byte[] b = Room(4 + count);
            int at = _length;
            b[at] = (byte)count;
            b[at + 1] = (byte)(count >> 8);
            b[at + 2] = (byte)(count >> 16);
            b[at + 3] = (byte)(count >> 24);
            Bytes.Copy(bytes, offset, b, at + 4, count);
            _length = at + 4 + count;
            return this;
        }

        /// <summary>Bytes that are already canonical, appended as they are (no length).</summary>
        public CanonicalWriter AddCanonical(byte[] bytes, int offset, int count)
        {
            if (bytes == null) throw new ArgumentNullException("bytes");
            Room(count);
            Bytes.Copy(bytes, offset, _bytes, _length, count);
            _length += count;
            return this;
        }

        public byte[] ToArray()
        {
            var copy = new byte[_length];
            System.Buffer.BlockCopy(_bytes, 0, copy, 0, _length);
            return copy;
        }

        public Hash128 Md5Hash() { return Md5.Hash(_bytes, 0, _length); }
        public Hash128 Xxh3Hash() { return Xxh3.Hash(_bytes, 0, _length); }
        public Hash128 Hash(HashFunction f) { return HashOf(f, _bytes, 0, _length); }

        internal static Hash128 HashOf(HashFunction f, byte[] bytes, int offset, int count)
        {
            return f == HashFunction.Xxh3_128 ? Xxh3.Hash(bytes, offset, count) : Md5.Hash(bytes, offset, count);
        }

        CanonicalWriter Put(ulong v, int width)
        {
            byte[] b = Room(width);
            for (int i = 0; i < width; ++i) b[_length + i] = (byte)(v >> (8 * i));
            _length += width;
            return this;
        }

        // The common widths unrolled: the loop's shifts by a variable showed in profiles.
        CanonicalWriter Put4(uint v)
        {
            byte[] b = Room(4);
            int at = _length;
            b[at] = (byte)v;
            b[at + 1] = (byte)(v >> 8);
            b[at + 2] = (byte)(v >> 16);
            b[at + 3] = (byte)(v >> 24);
            _length = at + 4;
            return this;
        }

        CanonicalWriter Put8(ulong v)
        {
            byte[] b = Room(8);
            int at = _length;
            uint lo = (uint)v, hi = (uint)(v >> 32);
            b[at] = (byte)lo;
            b[at + 1] = (byte)(lo >> 8);
            b[at + 2] = (byte)(lo >> 16);
            b[at + 3] = (byte)(lo >> 24);
            b[at + 4] = (byte)hi;
            b[at + 5] = (byte)(hi >> 8);
            b[at + 6] = (byte)(hi >> 16);
            b[at + 7] = (byte)(hi >> 24);
            _length = at + 8;
            return this;
        }

        // Grows only when state is larger than any before on this writer.
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        byte[] Room(int n)
        {
            if (_length + n <= _bytes.Length) return _bytes;
            return Grow(n);
        }

        byte[] Grow(int n)
        {
            if (_length + n > _bytes.Length)
            {
                var bigger = new byte[Math.Max(_bytes.Length * 2, _length + n)];
                System.Buffer.BlockCopy(_bytes, 0, bigger, 0, _length);
                _bytes = bigger;
            }
            return _bytes;
        }
    }
}
