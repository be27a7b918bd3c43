// The loader's hash interner (graph/src/hash_interner.hpp): ids in
// order of first interning, whatever reserve() was told and when, checked
// against a std::map on random hashes with repeats.
#include "hash_interner.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

namespace hashtrace::graph::detail {
namespace {

using Key = std::pair<Hash128, HashFunction>;

struct KeyLess {
    bool operator()(const Key& a, const Key& b) const {
        if (a.first.bytes != b.first.bytes) return a.first.bytes < b.first.bytes;
        return a.second < b.second;
    }
};

// `pool` distinct hashes drawn `draws` times; reserve(bound) before the
// first draw and again halfway (a second log of a chunk).
void check(std::size_t pool, std::size_t draws, std::size_t bound, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Key> hashes(pool);
    for (auto& [h, f] : hashes) {
        for (auto& b : h.bytes) b = static_cast<unsigned char>(rng());
        f = static_cast<HashFunction>(rng() % 2);
    }
    HashInterner interner;
    std::map<Key, std::uint32_t, KeyLess> reference;
    for (std::size_t i = 0; i < draws; ++i) {
        if (i == 0 || i == draws / 2) interner.reserve(bound);
        const auto& [h, f] = hashes[rng() % pool];
        const auto expected = reference.try_emplace({h, f}, static_cast<std::uint32_t>(reference.size())).first->second;
        ASSERT_EQ(interner.intern(h, f), expected) << "draw " << i;
    }
    ASSERT_EQ(interner.size(), reference.size());
    for (const auto& [key, id] : reference) {
        EXPECT_EQ(interner.find(key.first, key.second, HashInterner::mix(key.first, key.second)), id);
        EXPECT_EQ(interner.keys()[id].hash, key.first);
        EXPECT_EQ(interner.keys()[id].function, key.second);
    }
}

TEST(LoadInterner, ReservedForFewerHashesThanComeStillGrows) { check(50'000, 120'000, 1'000, 1); }
TEST(LoadInterner, ReservedForAsManyHashesAsCome) { check(30'000, 60'000, 60'000, 2); }
TEST(LoadInterner, ReservedForFarMoreHashesThanAreDistinct) { check(2'000, 100'000, 1'000'000, 3); }
TEST(LoadInterner, NothingReserved) { check(20'000, 40'000, 0, 4); }

}  // namespace
}  // namespace hashtrace::graph::detail
