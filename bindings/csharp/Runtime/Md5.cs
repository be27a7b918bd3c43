// MD5 (RFC 1321) without allocation: the tracepoint hashes on the calling
// thread, and System.Security.Cryptography's MD5 returns a new array per
// digest (and costs more per call under Mono). The 64 steps are unrolled, as
// in RFC 1321's reference code. Tests check it against
// System.Security.Cryptography and the golden vectors.
namespace HashTrace
{
    internal static class Md5
    {
        [System.ThreadStatic] static byte[] t_tail;

        /// <summary>MD5 of data[offset, offset + count).</summary>
        public static Hash128 Hash(byte[] data, int offset, int count)
        {
            byte[] tail = t_tail ?? (t_tail = new byte[128]);
            uint a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;
            int full = count & ~63;
            for (int p = 0; p < full; p += 64) Block(data, offset + p, ref a, ref b, ref c, ref d);
            // Padding: 0x80, zeros, then the bit length; one or two blocks.
            int rest = count - full;
            Bytes.Copy(data, offset + full, tail, 0, rest);
            tail[rest] = 0x80;
            int tailLength = rest < 56 ? 64 : 128;
            Bytes.Clear(tail, rest + 1, tailLength - rest - 9);
            ulong bits = (ulong)count * 8;
            for (int i = 0; i < 8; ++i) tail[tailLength - 8 + i] = (byte)(bits >> (8 * i));
            for (int p = 0; p < tailLength; p += 64) Block(tail, p, ref a, ref b, ref c, ref d);
            return new Hash128(a | (ulong)b << 32, c | (ulong)d << 32);
        }

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        static uint Word(byte[] p, int o) { return (uint)(p[o] | p[o + 1] << 8 | p[o + 2] << 16 | p[o + 3] << 24); }

        static void Block(byte[] p, int o, ref uint ra, ref uint rb, ref uint rc, ref uint rd)
        {
            uint x0 = Word(p, o + 0);
            uint x1 = Word(p, o + 4);
            uint x2 = Word(p, o + 8);
            uint x3 = Word(p, o + 12);
            uint x4 = Word(p, o + 16);
            uint x5 = Word(p, o + 20);
            uint x6 = Word(p, o + 24);
            uint x7 = Word(p, o + 28);
            uint x8 = Word(p, o + 32);
            uint x9 = Word(p, o + 36);
            uint x10 = Word(p, o + 40);
            uint x11 = Word(p, o + 44);
            uint x12 = Word(p, o + 48);
            uint x13 = Word(p, o + 52);
            uint x14 = Word(p, o + 56);
            uint x15 = Word(p, o + 60);
            uint a = ra, b = rb, c = rc, d = rd;
            a += ((b & c) | (~b & d)) + x0 + 0xd76aa478u; a = (a << 7 | a >> 25) + b;
            d += ((a & b) | (~a & c)) + x1 + 0xe8c7b756u; d = (d << 12 | d >> 20) + a;
            c += ((d & a) | (~d & b)) + x2 + 0x242070dbu; c = (c << 17 | c >> 15) + d;
            b += ((c & d) | (~c & a)) + x3 + 0xc1bdceeeu; b = (b << 22 | b >> 10) + c;
            a += ((b & c) | (~b & d)) + x4 + 0xf57c0fafu; a = (a << 7 | a >> 25) + b;
            d += ((a & b) | (~a & c)) + x5 + 0x4787c62au; d = (d << 12 | d >> 20) + a;
            c += ((d & a) | (~d & b)) + x6 + 0xa8304613u; c = (c << 17 | c >> 15) + d;
            b += ((c & d) | (~c & a)) + x7 + 0xfd469501u; b = (b << 22 | b >> 10) + c;
            a += ((b & c) | (~b & d)) + x8 + 0x698098d8u; a = (a << 7 | a >> 25) + b;
            d += ((a & b) | (~a & c)) + x9 + 0x8b44f7afu; d = (d << 12 | d >> 20) + a;
            c += ((d & a) | (~d & b)) + x10 + 0xffff5bb1u; c = (c << 17 | c >> 15) + d;
            b += ((c & d) | (~c & a)) + x11 + 0x895cd7beu; b = (b << 22 | b >> 10) + c;
            a += ((b & c) | (~b & d)) + x12 + 0x6b901122u; a = (a << 7 | a >> 25) + b;
            d += ((a & b) | (~a & c)) + x13 + 0xfd987193u; d = (d << 12 | d >> 20) + a;
            c += ((d & a) | (~d & b)) + x14 + 0xa679438eu; c = (c << 17 | c >> 15) + d;
            b += ((c & d) | (~c & a)) + x15 + 0x49b40821u; b = (b << 22 | b >> 10) + c;
            a += ((d & b) | (~d & c)) + x1 + 0xf61e2562u; a = (a << 5 | a >> 27) + b;
            d += ((c & a) | (~c & b)) + x6 + 0xc040b340u; d = (d << 9 | d >> 23) + a;
            c += ((b & d) | (~b & a)) + x11 + 0x265e5a51u; c = (c << 14 | c >> 18) + d;
            b += ((a & c) | (~a & d)) + x0 + 0xe9b6c7aau; b = (b << 20 | b >> 12) + c;
            a += ((d & b) | (~d & c)) + x5 + 0xd62f105du; a = (a << 5 | a >> 27) + b;
            d += ((c & a) | (~c & b)) + x10 + 0x02441453u; d = (d << 9 | d >> 23) + a;
            c += ((b & d) | (~b & a)) + x15 + 0xd8a1e681u; c = (c << 14 | c >> 18) + d;
            b += ((a & c) | (~a & d)) + x4 + 0xe7d3fbc8u; b = (b << 20 | b >> 12) + c;
            a += ((d & b) | (~d & c)) + x9 + 0x21e1cde6u; a = (a << 5 | a >> 27) + b;
            d += ((c & a) | (~c & b)) + x14 + 0xc33707d6u; d = (d << 9 | d >> 23) + a;
            c += ((b & d) | (~b & a)) + x3 + 0xf4d50d87u; c = (c << 14 | c >> 18) + d;
            b += ((a & c) | (~a & d)) + x8 + 0x455a14edu; b = (b << 20 | b >> 12) + c;
            a += ((d & b) | (~d & c)) + x13 + 0xa9e3e905u; a = (a << 5 | a >> 27) + b;
            d += ((c & a) | (~c & b)) + x2 + 0xfcefa3f8u; d = (d << 9 | d >> 23) + a;
            c += ((b & d) | (~b & a)) + x7 + 0x676f02d9u; c = (c << 14 | c >> 18) + d;
            b += ((a & c) | (~a & d)) + x12 + 0x8d2a4c8au; b = (b << 20 | b >> 12) + c;
            a += (b ^ c ^ d) + x5 + 0xfffa3942u; a = (a << 4 | a >> 28) + b;
            d += (a ^ b ^ c) + x8 + 0x8771f681u; d = (d << 11 | d >> 21) + a;
            c += (d ^ a ^ b) + x11 + 0x6d9d6122u; c = (c << 16 | c >> 16) + d;
            b += (c ^ d ^ a) + x14 + 0xfde5380cu; b = (b << 23 | b >> 9) + c;
            a += (b ^ c ^ d) + x1 + 0xa4beea44u; a = (a << 4 | a >> 28) + b;
            d += (a ^ b ^ c) + x4 + 0x4bdecfa9u; d = (d << 11 | d >> 21) + a;
            c += (d ^ a ^ b) + x7 + 0xf6bb4b60u; c = (c << 16 | c >> 16) + d;
            b += (c ^ d ^ a) + x10 + 0xbebfbc70u; b = (b << 23 | b >> 9) + c;
            a += (b ^ c ^ d) + x13 + 0x289b7ec6u; a = (a << 4 | a >> 28) + b;
            d += (a ^ b ^ c) + x0 + 0xeaa127fau; d = (d << 11 | d >> 21) + a;
            c += (d ^ a ^ b) + x3 + 0xd4ef3085u; c = (c << 16 | c >> 16) + d;
            b += (c ^ d ^ a) + x6 + 0x04881d05u; b = (b << 23 | b >> 9) + c;
            a += (b ^ c ^ d) + x9 + 0xd9d4d039u; a = (a << 4 | a >> 28) + b;
            d += (a ^ b ^ c) + x12 + 0xe6db99e5u; d = (d << 11 | d >> 21) + a;
            c += (d ^ a ^ b) + x15 + 0x1fa27cf8u; c = (c << 16 | c >> 16) + d;
            b += (c ^ d ^ a) + x2 + 0xc4ac5665u; b = (b << 23 | b >> 9) + c;
            a += (c ^ (b | ~d)) + x0 + 0xf4292244u; a = (a << 6 | a >> 26) + b;
            d += (b ^ (a | ~c)) + x7 + 0x432aff97u; d = (d << 10 | d >> 22) + a;
            c += (a ^ (d | ~b)) + x14 + 0xab9423a7u; c = (c << 15 | c >> 17) + d;
            b += (d ^ (c | ~a)) + x5 + 0xfc93a039u; b = (b << 21 | b >> 11) + c;
            a += (c ^ (b | ~d)) + x12 + 0x655b59c3u; a = (a << 6 | a >> 26) + b;
            d += (b ^ (a | ~c)) + x3 + 0x8f0ccc92u; d = (d << 10 | d >> 22) + a;
            c += (a ^ (d | ~b)) + x10 + 0xffeff47du; c = (c << 15 | c >> 17) + d;
            b += (d ^ (c | ~a)) + x1 + 0x85845dd1u; b = (b << 21 | b >> 11) + c;
            a += (c ^ (b | ~d)) + x8 + 0x6fa87e4fu; a = (a << 6 | a >> 26) + b;
            d += (b ^ (a | ~c)) + x15 + 0xfe2ce6e0u; d = (d << 10 | d >> 22) + a;
            c += (a ^ (d | ~b)) + x6 + 0xa3014314u; c = (c << 15 | c >> 17) + d;
            b += (d ^ (c | ~a)) + x13 + 0x4e0811a1u; b = (b << 21 | b >> 11) + c;
            a += (c ^ (b | ~d)) + x4 + 0xf7537e82u; a = (a << 6 | a >> 26) + b;
            d += (b ^ (a | ~c)) + x11 + 0xbd3af235u; d = (d << 10 | d >> 22) + a;
            c += (a ^ (d | ~b)) + x2 + 0x2ad7d2bbu; c = (c << 15 | c >> 17) + d;
            b += (d ^ (c | ~a)) + x9 + 0xeb86d391u; b = (b << 21 | b >> 11) + c;
            ra += a; rb += b; rc += c; rd += d;
        }
    }
}
