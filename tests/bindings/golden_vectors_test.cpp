// The golden vectors are the C++ SDK's canonical bytes and hashes: every row
// of bindings/golden/canonical_vectors.tsv must be what the SDK computes from
// values of the C++ types the row names. `golden_vectors_test --write` fills
// the computed columns in after rows are added.
#include "golden_vectors.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>

namespace {

const std::string kFile = HASHTRACE_GOLDEN_VECTORS;

TEST(GoldenVectors, EveryRowIsWhatTheSdkComputes) {
    const auto vectors = golden::read(kFile);
    ASSERT_GE(vectors.size(), 50u);
    for (const auto& v : vectors) {
        SCOPED_TRACE(kFile + ":" + std::to_string(v.line) + " " + v.name);
        const std::string bytes = golden::encode_values(v.values);
        EXPECT_EQ(golden::to_hex(bytes), v.canonical_hex);
        EXPECT_EQ(golden::hash_hex(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::md5, bytes.data(), bytes.size())), v.md5_hex);
        EXPECT_EQ(golden::hash_hex(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::xxh3_128, bytes.data(), bytes.size())), v.xxh3_hex);
    }
}

// The concatenation rule, and hash_of's streaming path (state over the
// hashing sink's 256-byte block), give the rows' hashes for typed values too.
TEST(GoldenVectors, TypedHashOfMatchesTheRows) {
    std::map<std::string, golden::Vector> by_name;
    for (const auto& v : golden::read(kFile)) by_name[v.name] = v;
    using hashtrace::HashFunction;
    EXPECT_EQ(golden::hash_hex(hashtrace::hash_of(HashFunction::md5, std::uint32_t{42})), by_name.at("u32_spec_example").md5_hex);
    EXPECT_EQ(golden::hash_hex(hashtrace::hash_of(HashFunction::md5, std::uint64_t{42}, 1.5)), by_name.at("mix_id_and_force").md5_hex);
    EXPECT_EQ(golden::hash_hex(hashtrace::hash_of(HashFunction::xxh3_128, std::uint64_t{42}, 1.5)),
              by_name.at("mix_id_and_force").xxh3_hex);
    unsigned char b300[300];
    for (int i = 0; i < 300; ++i) b300[i] = static_cast<unsigned char>(i * 131 + 7);
    EXPECT_EQ(golden::hash_hex(hashtrace::hash_of(HashFunction::md5, hashtrace::bytes(b300, 300))), by_name.at("bytes_300").md5_hex);
    EXPECT_EQ(golden::hash_hex(hashtrace::hash_of(HashFunction::md5, std::string("messageid"))), by_name.at("str_ascii").md5_hex);
    // docs/spec.md section 2's own example: uint32_t 42 -> 2a 00 00 00.
    EXPECT_EQ(by_name.at("u32_spec_example").canonical_hex, "2a000000");
}

TEST(GoldenVectors, MalformedTokensAreRejected) {
    EXPECT_THROW(golden::encode_values("u128:1"), std::invalid_argument);
    EXPECT_THROW(golden::encode_values("42"), std::invalid_argument);
    EXPECT_THROW(golden::encode_values("str:abc"), std::invalid_argument);
}

}  // namespace

// --write: recompute the computed columns from the values column.
int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--write") == 0) {
        std::string preamble;
        const auto vectors = golden::read(kFile, &preamble);
        std::ofstream out(kFile);
        out << preamble;
        for (const auto& v : vectors) {
            const std::string b = golden::encode_values(v.values);
            out << v.name << '\t' << v.values << '\t' << golden::to_hex(b) << '\t'
                << golden::hash_hex(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::md5, b.data(), b.size())) << '\t'
                << golden::hash_hex(hashtrace::hash_canonical_bytes(hashtrace::HashFunction::xxh3_128, b.data(), b.size())) << '\n';
        }
        return 0;
    }
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
