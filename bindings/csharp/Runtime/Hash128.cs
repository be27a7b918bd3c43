// The 128-bit hash every sample carries: the 16 digest bytes in the order the
// hash function emits them (for MD5, the order md5sum prints), kept as two
// little-endian words so a sample slot stores it without an array.
using System;

namespace HashTrace
{
    public struct Hash128 : IEquatable<Hash128>
    {
        /// <summary>Digest bytes 0-7 as a little-endian integer.</summary>
        public ulong Low;
        /// <summary>Digest bytes 8-15 as a little-endian integer.</summary>
        public ulong High;

        public Hash128(ulong low, ulong high) { Low = low; High = high; }

        public bool Equals(Hash128 other) { return Low == other.Low && High == other.High; }
        public override bool Equals(object obj) { return obj is Hash128 && Equals((Hash128)obj); }
        public override int GetHashCode() { return Low.GetHashCode(); }

        /// <summary>Writes the 16 digest bytes at buffer[offset].</summary>
        public void CopyTo(byte[] buffer, int offset)
        {
            for (int i = 0; i < 8; ++i)
            {
                buffer[offset + i] = (byte)(Low >> (8 * i));
                buffer[offset + 8 + i] = (byte)(High >> (8 * i));
            }
        }

        public byte[] ToBytes()
        {
            var b = new byte[16];
            CopyTo(b, 0);
            return b;
        }

        /// <summary>32 lowercase hex digits, as in a CSV log.</summary>
        public override string ToString()
        {
            var chars = new char[32];
            WriteHex(chars, 0);
            return new string(chars);
        }

        internal void WriteHex(char[] to, int offset)
        {
            const string digits = "0123456789abcdef";
            for (int i = 0; i < 16; ++i)
            {
                int b = (int)((i < 8 ? Low >> (8 * i) : High >> (8 * (i - 8))) & 0xff);
                to[offset + 2 * i] = digits[b >> 4];
                to[offset + 2 * i + 1] = digits[b & 15];
            }
        }
    }

    /// <summary>Which function made a sample's hashes; the values are stored in binary logs.</summary>
    public enum HashFunction : byte
    {
        /// <summary>RFC 1321: the default, and the paper's choice.</summary>
        Md5 = 0,
        /// <summary>XXH3-128: faster, not cryptographic; links only with other XXH3 samples.</summary>
        Xxh3_128 = 1,
    }
}
