// Canonical bytes (docs/spec.md section 2) against hand-written expectations, and
// both hash functions against published vectors.
#include <hashtrace/canonical.hpp>

#include <gtest/gtest.h>
#include <openssl/md5.h>

#include <vector>

#include <string>

namespace {

std::string hex(const std::string& bytes) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (unsigned char c : bytes) {
        s += d[c >> 4];
        s += d[c & 15];
        s += ' ';
    }
    if (!s.empty()) s.pop_back();
    return s;
}
std::string hex(const hashtrace::Hash128& h) {
    auto a = hashtrace::to_hex(h);
    return std::string(a.data(), 32);
}
hashtrace::Hash128 md5_of_text(const std::string& s) {
    return hashtrace::hash_canonical_bytes(hashtrace::HashFunction::md5, s.data(), s.size());
}

struct Pose {
    float x, y;
    std::uint16_t id;
    std::uint16_t flags;
};

}  // namespace

HASHTRACE_RAW_HASHABLE(Pose);

TEST(CanonicalBytes, IntegersAreLittleEndianOfTheirWidth) {
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::uint32_t{42})), "2a 00 00 00");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::uint16_t{0x1234})), "34 12");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::int64_t{-2})), "fe ff ff ff ff ff ff ff");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::uint8_t{7})), "07");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(true)), "01");
}

TEST(CanonicalBytes, FloatsAreIeee754LittleEndian) {
    EXPECT_EQ(hex(hashtrace::canonical_bytes(1.0f)), "00 00 80 3f");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(-2.5)), "00 00 00 00 00 00 04 c0");
}

TEST(CanonicalBytes, StringsAndSpansAreLengthPrefixed) {
    EXPECT_EQ(hex(hashtrace::canonical_bytes("abc")), "03 00 00 00 61 62 63");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::string("abc"))), "03 00 00 00 61 62 63");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::string_view("ab"))), "02 00 00 00 61 62");
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::string())), "00 00 00 00");
    const unsigned char raw[] = {0xde, 0xad};
    EXPECT_EQ(hex(hashtrace::canonical_bytes(hashtrace::bytes(raw, 2))), "02 00 00 00 de ad");
}

// Deferred tracepoints copy with inline moves sized by the length: every
// length, at an odd offset, gives exactly the prefix and the bytes.
TEST(CanonicalBytes, SpansOfEveryLengthCopyExactly) {
    std::vector<unsigned char> source(301);
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 7 + 1);
    for (std::size_t n = 0; n <= 300; ++n) {
        const std::string got = hashtrace::canonical_bytes(hashtrace::bytes(source.data() + 1, n));
        std::string want(4, '\0');
        want[0] = static_cast<char>(n & 0xff);
        want[1] = static_cast<char>(n >> 8);
        want.append(reinterpret_cast<const char*>(source.data() + 1), n);
        ASSERT_EQ(got, want) << n;
    }
}

// Short messages are padded in place and compressed without MD5()'s context:
// every length, across the one- and two-block bounds (55/56, 119/120) and the
// hand-over to MD5() itself, gives MD5()'s digest, as raw bytes and as a span.
TEST(CanonicalBytes, Md5OfEveryLengthIsOpenSslsMd5) {
    std::vector<unsigned char> source(301);
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 13 + 5);
    auto reference = [](const unsigned char* p, std::size_t n) {
        hashtrace::Hash128 h;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        MD5(p, n, h.bytes.data());
#pragma GCC diagnostic pop
        return h;
    };
    for (std::size_t n = 0; n <= 300; ++n) {
        ASSERT_EQ(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::md5, source.data() + 1, n),
                  reference(source.data() + 1, n))
            << n;
        const std::string canonical = hashtrace::canonical_bytes(hashtrace::bytes(source.data() + 1, n));
        ASSERT_EQ(hashtrace::hash_of(hashtrace::HashFunction::md5, hashtrace::bytes(source.data() + 1, n)),
                  reference(reinterpret_cast<const unsigned char*>(canonical.data()), canonical.size()))
            << n;
    }
}

TEST(CanonicalBytes, RawStructsAreTheirMemoryWithoutLength) {
    Pose p{1.0f, 0.0f, 0x0102, 0};
    EXPECT_EQ(hex(hashtrace::canonical_bytes(p)), "00 00 80 3f 00 00 00 00 02 01 00 00");
}

TEST(CanonicalBytes, SeveralValuesConcatenateInOrder) {
    EXPECT_EQ(hex(hashtrace::canonical_bytes(std::uint32_t{1}, "x", std::uint8_t{2})), "01 00 00 00 01 00 00 00 78 02");
    EXPECT_NE(hashtrace::canonical_bytes(std::uint8_t{1}, std::uint8_t{2}),
              hashtrace::canonical_bytes(std::uint8_t{2}, std::uint8_t{1}));
}

// RFC 1321, appendix A.5.
TEST(Md5, MatchesRfc1321TestSuite) {
    EXPECT_EQ(hex(md5_of_text("")), "d41d8cd98f00b204e9800998ecf8427e");
    EXPECT_EQ(hex(md5_of_text("a")), "0cc175b9c0f1b6a831c399e269772661");
    EXPECT_EQ(hex(md5_of_text("abc")), "900150983cd24fb0d6963f7d28e17f72");
    EXPECT_EQ(hex(md5_of_text("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
    EXPECT_EQ(hex(md5_of_text("abcdefghijklmnopqrstuvwxyz")), "c3fcd3d76192e4007dfb496cca67e13b");
    EXPECT_EQ(hex(md5_of_text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")),
              "d174ab98d277d9f5a5611c2c9f419d9f");
    std::string eighty;
    for (int i = 0; i < 8; ++i) eighty += "1234567890";
    EXPECT_EQ(hex(md5_of_text(eighty)), "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, HashOfValueIsMd5OfItsCanonicalBytes) {
    // md5sum of the bytes 2a 00 00 00
    EXPECT_EQ(hex(hashtrace::hash_of(hashtrace::HashFunction::md5, std::uint32_t{42})), "9824a7030ce67cf3f0efe7529f0c6ecc");
}

TEST(Md5, LargeStateStreamsToTheSameDigestAsOneShot) {
    std::string big(100000, 'q');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
    const std::string canon = hashtrace::canonical_bytes(std::uint32_t{7}, big, std::uint8_t{9});
    EXPECT_EQ(hashtrace::hash_of(hashtrace::HashFunction::md5, std::uint32_t{7}, big, std::uint8_t{9}),
              hashtrace::hash_canonical_bytes(hashtrace::HashFunction::md5, canon.data(), canon.size()));
}

// Values from `xxhsum -H2` (xxhash 0.8.1) over files holding these bytes.
TEST(Xxh3, MatchesXxhsum) {
    EXPECT_EQ(hex(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::xxh3_128, "abc", 3)),
              "06b05ab6733a618578af5f94892f3950");
    EXPECT_EQ(hex(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::xxh3_128, "", 0)),
              "99aa06d3014798d86001c324468d497f");
    EXPECT_EQ(hex(hashtrace::hash_of(hashtrace::HashFunction::xxh3_128, std::uint32_t{42})),
              "9a455182d724f0341ad293a711858e8f");
}

TEST(Xxh3, LargeStateStreamsToTheSameDigestAsOneShot) {
    std::string big(5000, 'z');
    const std::string canon = hashtrace::canonical_bytes(big, big);
    EXPECT_EQ(hashtrace::hash_of(hashtrace::HashFunction::xxh3_128, big, big),
              hashtrace::hash_canonical_bytes(hashtrace::HashFunction::xxh3_128, canon.data(), canon.size()));
}

TEST(Hex, RoundTripsAndRejectsBadText) {
    hashtrace::Hash128 h;
    ASSERT_TRUE(hashtrace::from_hex("0123456789ABCDEFabcdef0123456789", h));
    EXPECT_EQ(hex(h), "0123456789abcdefabcdef0123456789");
    EXPECT_FALSE(hashtrace::from_hex("0123", h));
    EXPECT_FALSE(hashtrace::from_hex("g123456789abcdefabcdef0123456789", h));
}
