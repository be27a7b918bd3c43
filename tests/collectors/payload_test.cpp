#include "hashtrace/collectors/payload.hpp"

#include "hashtrace/canonical.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace hashtrace;
using namespace hashtrace::collectors;

TEST(PayloadMapping, ParsesTheThreeKinds) {
    EXPECT_EQ(parse_payload_mapping("text").kind, PayloadMapping::Kind::text);
    EXPECT_EQ(parse_payload_mapping("hex").kind, PayloadMapping::Kind::hex);
    const auto m = parse_payload_mapping("int:16", HashFunction::xxh3_128);
    EXPECT_EQ(m.kind, PayloadMapping::Kind::integer);
    EXPECT_EQ(m.integer_bits, 16u);
    EXPECT_EQ(m.hash_function, HashFunction::xxh3_128);
    EXPECT_EQ(describe(m), "int:16");
}

TEST(PayloadMapping, RejectsUnknownSpecsWithTheReason) {
    for (const char* bad : {"", "int", "int:", "int:12", "int:32x", "integer:32", "TEXT"}) {
        try {
            parse_payload_mapping(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        }
    }
}

TEST(PayloadHash, TextIsLengthPrefixedUtf8AsTheSdkHashesStrings) {
    const auto m = parse_payload_mapping("text");
    const std::string canonical = std::string("\x05\x00\x00\x00", 4) + "hello";
    EXPECT_EQ(payload_hash(m, "hello"), hash_canonical_bytes(HashFunction::md5, canonical.data(), canonical.size()));
    EXPECT_EQ(payload_hash(m, "hello"), hash_of(HashFunction::md5, std::string("hello")));
}

TEST(PayloadHash, IntegersAreHashedAtTheirWidth) {
    const std::string canonical("\x2a\x00\x00\x00", 4);  // docs/spec.md section 2: uint32_t 42
    EXPECT_EQ(payload_hash(parse_payload_mapping("int:32"), "42"),
              hash_canonical_bytes(HashFunction::md5, canonical.data(), canonical.size()));
    EXPECT_EQ(payload_hash(parse_payload_mapping("int:8"), "255"), hash_of(HashFunction::md5, std::uint8_t{255}));
    EXPECT_EQ(payload_hash(parse_payload_mapping("int:64"), "18446744073709551615"),
              hash_of(HashFunction::md5, UINT64_MAX));
    // Negative values are two's complement of the width, as int16_t -1 hashes.
    EXPECT_EQ(payload_hash(parse_payload_mapping("int:16"), "-1"), hash_of(HashFunction::md5, std::int16_t{-1}));
    EXPECT_EQ(payload_hash(parse_payload_mapping("int:32", HashFunction::xxh3_128), "7"),
              hash_of(HashFunction::xxh3_128, std::uint32_t{7}));
    // Different widths of the same number are different state.
    EXPECT_NE(payload_hash(parse_payload_mapping("int:16"), "42"), payload_hash(parse_payload_mapping("int:32"), "42"));
}

TEST(PayloadHash, MisreadsGiveNoHash) {
    const auto i8 = parse_payload_mapping("int:8");
    EXPECT_FALSE(payload_hash(i8, "256"));
    EXPECT_FALSE(payload_hash(i8, "-129"));
    EXPECT_TRUE(payload_hash(i8, "-128"));
    EXPECT_FALSE(payload_hash(i8, ""));
    EXPECT_FALSE(payload_hash(i8, "12a"));
    EXPECT_FALSE(payload_hash(i8, " 12"));
    const auto hex = parse_payload_mapping("hex");
    EXPECT_FALSE(payload_hash(hex, "abc"));
    EXPECT_FALSE(payload_hash(hex, std::string(32, 'g')));
}

TEST(PayloadHash, HexIsTheHashItself) {
    const Hash128 h = hash_of(HashFunction::md5, std::uint32_t{1234});
    const auto text = to_hex(h);
    EXPECT_EQ(payload_hash(parse_payload_mapping("hex"), std::string_view(text.data(), text.size())), h);
}
