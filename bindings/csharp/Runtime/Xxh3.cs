// XXH3-128 (xxHash 0.8, seed 0, the default secret) in managed code, for
// tracepoints declared with HashFunction.Xxh3_128: the same digests as
// libxxhash's XXH3_128bits, stored in its canonical (big-endian) byte order as
// the C++ SDK stores them. And XXH3-64, the checksum of the binary log's file
// header and blocks (docs/log-formats.md, version 3), as XXH3_64bits gives it. A port of the scalar reference code; tests check
// it against the golden vectors (every length class: 0-16, 17-128, 129-240,
// and the long loop past 240 bytes).
namespace HashTrace
{
    internal static class Xxh3
    {
        const ulong Prime32_1 = 0x9E3779B1UL, Prime32_2 = 0x85EBCA77UL, Prime32_3 = 0xC2B2AE3DUL;
        const ulong Prime64_1 = 0x9E3779B185EBCA87UL, Prime64_2 = 0xC2B2AE3D27D4EB4FUL, Prime64_3 = 0x165667B19E3779F9UL;
        const ulong Prime64_4 = 0x85EBCA77C2B2AE63UL, Prime64_5 = 0x27D4EB2F165667C5UL;
        const int StripeLength = 64, SecretConsumeRate = 8, SecretSize = 192;
        const int MidsizeStartOffset = 3, MidsizeLastOffset = 17, SecretSizeMin = 136;
        const int SecretLastAccStart = 7, SecretMergeAccsStart = 11;

        static readonly byte[] Secret = {
            0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
            0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
            0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
            0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
            0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
            0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
            0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
            0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
            0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
            0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
            0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
            0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
        };

        [System.ThreadStatic] static ulong[] t_acc;

        public static Hash128 Hash(byte[] p, int offset, int length)
        {
            ulong low, high;
            if (length <= 16) Len0To16(p, offset, length, out low, out high);
            else if (length <= 128) Len17To128(p, offset, length, out low, out high);
            else if (length <= 240) Len129To240(p, offset, length, out low, out high);
            else HashLong(p, offset, length, out low, out high);
            // Canonical form: high64 big-endian, then low64 big-endian.
            return new Hash128(Swap64(high), Swap64(low));
        }

        /// <summary>XXH3_64bits (seed 0) of p[offset, offset + length): the log's block checksum.</summary>
        public static ulong Hash64(byte[] p, int offset, int length)
        {
            if (length <= 16) return Len0To16Of64(p, offset, length);
            if (length <= 128)
            {
                ulong acc = (ulong)length * Prime64_1;
                if (length > 32)
                {
                    if (length > 64)
                    {
                        if (length > 96) acc += Mix16B(p, offset + 48, 96) + Mix16B(p, offset + length - 64, 112);
                        acc += Mix16B(p, offset + 32, 64) + Mix16B(p, offset + length - 48, 80);
                    }
                    acc += Mix16B(p, offset + 16, 32) + Mix16B(p, offset + length - 32, 48);
                }
                acc += Mix16B(p, offset, 0) + Mix16B(p, offset + length - 16, 16);
                return Avalanche(acc);
            }
            if (length <= 240)
            {
                ulong acc = (ulong)length * Prime64_1;
                int rounds = length / 16;
                for (int i = 0; i < 8; ++i) acc += Mix16B(p, offset + 16 * i, 16 * i);
                acc = Avalanche(acc);
                for (int i = 8; i < rounds; ++i) acc += Mix16B(p, offset + 16 * i, 16 * (i - 8) + MidsizeStartOffset);
                acc += Mix16B(p, offset + length - 16, SecretSizeMin - MidsizeLastOffset);
                return Avalanche(acc);
            }
            // The long loop is XXH3-128's; the 64-bit hash is its first merge.
            ulong[] accs = LongAccumulators(p, offset, length);
            return MergeAccs(accs, SecretMergeAccsStart, (ulong)length * Prime64_1);
        }

        static ulong Len0To16Of64(byte[] p, int o, int len)
        {
            byte[] s = Secret;
            if (len > 8)
            {
                ulong inputLo = Read64(p, o) ^ (Read64(s, 24) ^ Read64(s, 32));
                ulong inputHi = Read64(p, o + len - 8) ^ (Read64(s, 40) ^ Read64(s, 48));
                ulong acc = (ulong)len + Swap64(inputLo) + inputHi + Mul128Fold64(inputLo, inputHi);
                return Avalanche(acc);
            }
            if (len >= 4)
            {
                ulong input64 = Read32(p, o + len - 4) + ((ulong)Read32(p, o) << 32);
                ulong h = input64 ^ (Read64(s, 8) ^ Read64(s, 16));
                // rrmxmx
                h ^= Rotl64(h, 49) ^ Rotl64(h, 24);
                h *= 0x9FB21C651E98DF25UL;
                h ^= (h >> 35) + (ulong)len;
                h *= 0x9FB21C651E98DF25UL;
                return h ^ (h >> 28);
            }
            if (len > 0)
            {
                uint c1 = p[o], c2 = p[o + (len >> 1)], c3 = p[o + len - 1];
                uint combined = (c1 << 16) | (c2 << 24) | c3 | ((uint)len << 8);
                return Avalanche64(combined ^ (ulong)(Read32(s, 0) ^ Read32(s, 4)));
            }
            return Avalanche64(Read64(s, 56) ^ Read64(s, 64));
        }

        static ulong Read64(byte[] p, int o)
        {
            return (ulong)(uint)(p[o] | p[o + 1] << 8 | p[o + 2] << 16 | p[o + 3] << 24)
                 | (ulong)(uint)(p[o + 4] | p[o + 5] << 8 | p[o + 6] << 16 | p[o + 7] << 24) << 32;
        }
        static uint Read32(byte[] p, int o) { return (uint)(p[o] | p[o + 1] << 8 | p[o + 2] << 16 | p[o + 3] << 24); }
        static ulong Swap64(ulong v)
        {
            v = (v >> 32) | (v << 32);
            v = ((v & 0xFFFF0000FFFF0000UL) >> 16) | ((v & 0x0000FFFF0000FFFFUL) << 16);
            return ((v & 0xFF00FF00FF00FF00UL) >> 8) | ((v & 0x00FF00FF00FF00FFUL) << 8);
        }
        static uint Swap32(uint v) { return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24); }
        static ulong Rotl64(ulong v, int r) { return (v << r) | (v >> (64 - r)); }
        static uint Rotl32(uint v, int r) { return (v << r) | (v >> (32 - r)); }

        static void Mult64To128(ulong a, ulong b, out ulong low, out ulong high)
        {
            ulong aLo = (uint)a, aHi = a >> 32, bLo = (uint)b, bHi = b >> 32;
            ulong loLo = aLo * bLo, hiLo = aHi * bLo, loHi = aLo * bHi, hiHi = aHi * bHi;
            ulong cross = (loLo >> 32) + (uint)hiLo + loHi;
            high = (hiLo >> 32) + (cross >> 32) + hiHi;
            low = (cross << 32) | (uint)loLo;
        }
        static ulong Mul128Fold64(ulong a, ulong b)
        {
            ulong low, high;
            Mult64To128(a, b, out low, out high);
            return low ^ high;
        }
        static ulong Avalanche64(ulong h)
        {
            h ^= h >> 33;
            h *= Prime64_2;
            h ^= h >> 29;
            h *= Prime64_3;
            return h ^ (h >> 32);
        }
        static ulong Avalanche(ulong h)
        {
            h ^= h >> 37;
            h *= 0x165667919E3779F9UL;
            return h ^ (h >> 32);
        }

        static void Len0To16(byte[] p, int o, int len, out ulong low, out ulong high)
        {
            byte[] s = Secret;
            if (len > 8)
            {
                ulong bitflipl = Read64(s, 32) ^ Read64(s, 40), bitfliph = Read64(s, 48) ^ Read64(s, 56);
                ulong inputLo = Read64(p, o), inputHi = Read64(p, o + len - 8);
                ulong mLow, mHigh;
                Mult64To128(inputLo ^ inputHi ^ bitflipl, Prime64_1, out mLow, out mHigh);
                mLow += (ulong)(len - 1) << 54;
                inputHi ^= bitfliph;
                mHigh += inputHi + (ulong)(uint)inputHi * (Prime32_2 - 1);
                mLow ^= Swap64(mHigh);
                ulong hLow, hHigh;
                Mult64To128(mLow, Prime64_2, out hLow, out hHigh);
                hHigh += mHigh * Prime64_2;
                low = Avalanche(hLow);
                high = Avalanche(hHigh);
            }
            else if (len >= 4)
            {
                ulong input64 = Read32(p, o) + ((ulong)Read32(p, o + len - 4) << 32);
                ulong keyed = input64 ^ (Read64(s, 16) ^ Read64(s, 24));
                ulong mLow, mHigh;
                Mult64To128(keyed, Prime64_1 + ((ulong)len << 2), out mLow, out mHigh);
                mHigh += mLow << 1;
                mLow ^= mHigh >> 3;
                mLow ^= mLow >> 35;
                mLow *= 0x9FB21C651E98DF25UL;
                mLow ^= mLow >> 28;
                low = mLow;
                high = Avalanche(mHigh);
            }
            else if (len > 0)
            {
                uint c1 = p[o], c2 = p[o + (len >> 1)], c3 = p[o + len - 1];
                uint combinedl = (c1 << 16) | (c2 << 24) | c3 | ((uint)len << 8);
                uint combinedh = Rotl32(Swap32(combinedl), 13);
                ulong bitflipl = Read32(s, 0) ^ Read32(s, 4), bitfliph = Read32(s, 8) ^ Read32(s, 12);
                low = Avalanche64(combinedl ^ bitflipl);
                high = Avalanche64(combinedh ^ bitfliph);
            }
            else
            {
                low = Avalanche64(Read64(s, 64) ^ Read64(s, 72));
                high = Avalanche64(Read64(s, 80) ^ Read64(s, 88));
            }
        }

        static ulong Mix16B(byte[] p, int o, int secret)
        {
            return Mul128Fold64(Read64(p, o) ^ Read64(Secret, secret), Read64(p, o + 8) ^ Read64(Secret, secret + 8));
        }

        static void Mix32B(ref ulong accLow, ref ulong accHigh, byte[] p, int input1, int input2, int secret)
        {
            accLow += Mix16B(p, input1, secret);
            accLow ^= Read64(p, input2) + Read64(p, input2 + 8);
            accHigh += Mix16B(p, input2, secret + 16);
            accHigh ^= Read64(p, input1) + Read64(p, input1 + 8);
        }

        static void Finish(ulong accLow, ulong accHigh, int len, out ulong low, out ulong high)
        {
            ulong h = accLow + accHigh;
            ulong hh = accLow * Prime64_1 + accHigh * Prime64_4 + (ulong)len * Prime64_2;
            low = Avalanche(h);
            high = 0UL - Avalanche(hh);
        }

        static void Len17To128(byte[] p, int o, int len, out ulong low, out ulong high)
        {
            ulong accLow = (ulong)len * Prime64_1, accHigh = 0;
            if (len > 32)
            {
                if (len > 64)
                {
                    if (len > 96) Mix32B(ref accLow, ref accHigh, p, o + 48, o + len - 64, 96);
                    Mix32B(ref accLow, ref accHigh, p, o + 32, o + len - 48, 64);
                }
                Mix32B(ref accLow, ref accHigh, p, o + 16, o + len - 32, 32);
            }
            Mix32B(ref accLow, ref accHigh, p, o, o + len - 16, 0);
            Finish(accLow, accHigh, len, out low, out high);
        }

        static void Len129To240(byte[] p, int o, int len, out ulong low, out ulong high)
        {
            int rounds = len / 32;
            ulong accLow = (ulong)len * Prime64_1, accHigh = 0;
            for (int i = 0; i < 4; ++i) Mix32B(ref accLow, ref accHigh, p, o + 32 * i, o + 32 * i + 16, 32 * i);
            accLow = Avalanche(accLow);
            accHigh = Avalanche(accHigh);
            for (int i = 4; i < rounds; ++i)
                Mix32B(ref accLow, ref accHigh, p, o + 32 * i, o + 32 * i + 16, MidsizeStartOffset + 32 * (i - 4));
            // The last round: seed 0, so "0 - seed" is 0 too.
            Mix32B(ref accLow, ref accHigh, p, o + len - 16, o + len - 32, SecretSizeMin - MidsizeLastOffset - 16);
            Finish(accLow, accHigh, len, out low, out high);
        }

        static void Accumulate512(ulong[] acc, byte[] p, int input, int secret)
        {
            for (int i = 0; i < 8; ++i)
            {
                ulong dataVal = Read64(p, input + 8 * i);
                ulong dataKey = dataVal ^ Read64(Secret, secret + 8 * i);
                acc[i ^ 1] += dataVal;
                acc[i] += (ulong)(uint)dataKey * (dataKey >> 32);
            }
        }

        static void ScrambleAcc(ulong[] acc, int secret)
        {
            for (int i = 0; i < 8; ++i)
            {
                ulong a = acc[i];
                a ^= a >> 47;
                a ^= Read64(Secret, secret + 8 * i);
                acc[i] = a * Prime32_1;
            }
        }

        static ulong MergeAccs(ulong[] acc, int secret, ulong start)
        {
            ulong result = start;
            for (int i = 0; i < 4; ++i)
                result += Mul128Fold64(acc[2 * i] ^ Read64(Secret, secret + 16 * i), acc[2 * i + 1] ^ Read64(Secret, secret + 16 * i + 8));
            return Avalanche(result);
        }

        static void HashLong(byte[] p, int o, int len, out ulong low, out ulong high)
        {
            ulong[] acc = LongAccumulators(p, o, len);
            low = MergeAccs(acc, SecretMergeAccsStart, (ulong)len * Prime64_1);
            high = MergeAccs(acc, SecretSize - 64 - SecretMergeAccsStart, ~((ulong)len * Prime64_2));
        }

        // The long loop past 240 bytes, shared by both widths: the thread's accumulators after it.
        static ulong[] LongAccumulators(byte[] p, int o, int len)
        {
            ulong[] acc = t_acc ?? (t_acc = new ulong[8]);
            acc[0] = Prime32_3; acc[1] = Prime64_1; acc[2] = Prime64_2; acc[3] = Prime64_3;
            acc[4] = Prime64_4; acc[5] = Prime32_2; acc[6] = Prime64_5; acc[7] = Prime32_1;
            int stripesPerBlock = (SecretSize - StripeLength) / SecretConsumeRate;
            int blockLength = StripeLength * stripesPerBlock;
            int blocks = (len - 1) / blockLength;
            for (int n = 0; n < blocks; ++n)
            {
                for (int s = 0; s < stripesPerBlock; ++s)
                    Accumulate512(acc, p, o + n * blockLength + s * StripeLength, s * SecretConsumeRate);
                ScrambleAcc(acc, SecretSize - StripeLength);
            }
            int stripes = ((len - 1) - blockLength * blocks) / StripeLength;
            for (int s = 0; s < stripes; ++s)
                Accumulate512(acc, p, o + blocks * blockLength + s * StripeLength, s * SecretConsumeRate);
            Accumulate512(acc, p, o + len - StripeLength, SecretSize - StripeLength - SecretLastAccStart);
            return acc;
        }
    }
}
