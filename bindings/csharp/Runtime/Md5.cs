// MD5 (RFC 1321) without allocation: the tracepoint hashes on the calling
// thread, and System.Security.Cryptography's MD5 returns a new array per
// digest. Tests check it against System.Security.Cryptography and the golden
// vectors.
namespace HashTrace
{
    internal static class Md5
    {
        static readonly uint[] K = {
            0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
            0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
            0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
            0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
            0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
            0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
            0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
            0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
        };
        static readonly int[] S = { 7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21 };

        [System.ThreadStatic] static uint[] t_block;
        [System.ThreadStatic] static byte[] t_tail;

        /// <summary>MD5 of data[offset, offset + count).</summary>
        public static Hash128 Hash(byte[] data, int offset, int count)
        {
            uint[] x = t_block ?? (t_block = new uint[16]);
            byte[] tail = t_tail ?? (t_tail = new byte[128]);
            uint a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;
            int full = count & ~63;
            for (int p = 0; p < full; p += 64) Block(data, offset + p, x, ref a, ref b, ref c, ref d);
            // Padding: 0x80, zeros, then the bit length; one or two blocks.
            int rest = count - full;
            System.Buffer.BlockCopy(data, offset + full, tail, 0, rest);
            tail[rest] = 0x80;
            int tailLength = rest < 56 ? 64 : 128;
            System.Array.Clear(tail, rest + 1, tailLength - rest - 1);
            ulong bits = (ulong)count * 8;
            for (int i = 0; i < 8; ++i) tail[tailLength - 8 + i] = (byte)(bits >> (8 * i));
            for (int p = 0; p < tailLength; p += 64) Block(tail, p, x, ref a, ref b, ref c, ref d);
            return new Hash128(a | (ulong)b << 32, c | (ulong)d << 32);
        }

        static uint Rotl(uint v, int s) { return v << s | v >> (32 - s); }

        static void Block(byte[] p, int o, uint[] x, ref uint ra, ref uint rb, ref uint rc, ref uint rd)
        {
            for (int i = 0; i < 16; ++i, o += 4)
                x[i] = (uint)(p[o] | p[o + 1] << 8 | p[o + 2] << 16 | p[o + 3] << 24);
            uint a = ra, b = rb, c = rc, d = rd;
            for (int i = 0; i < 64; ++i)
            {
                uint f;
                int g;
                if (i < 16) { f = (b & c) | (~b & d); g = i; }
                else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) & 15; }
                else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) & 15; }
                else { f = c ^ (b | ~d); g = (7 * i) & 15; }
                uint t = d;
                d = c;
                c = b;
                b = b + Rotl(a + f + K[i] + x[g], S[(i >> 4) * 4 + (i & 3)]);
                a = t;
            }
            ra += a; rb += b; rc += c; rd += d;
        }
    }
}
