// group_by_consumer_block (the join's grouping of a wide unit's edges)
// against std::stable_sort by block on random edge lists: every span from a
// single consumer to 2^32 - 1 (where blocks coarsen to keep at most 2048),
// empty and one-edge lists, consumers at both ends of the range; and the
// block size itself; grouping a part of a list.
#include "consumer_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace hashtrace::graph::detail {
namespace {

TEST(LinkConsumerBlocks, BlocksOf8192ConsumersAtMost2048OfThem) {
    for (const std::uint32_t span : {1u, 2u, 8192u, 8193u, 1u << 24, (1u << 24) + 1, 1u << 30, 0xFFFFFFFFu}) {
        const unsigned shift = consumer_block_shift(span);
        EXPECT_GE(shift, 13u) << span;
        EXPECT_LT((std::uint64_t{span} - 1) >> shift, 2048u) << span;                         // at most 2048 blocks
        if (shift > 13) {
            EXPECT_GE((std::uint64_t{span} - 1) >> (shift - 1), 2048u) << span;  // and no coarser than that needs
        }
    }
    EXPECT_EQ(consumer_block_shift(1u << 24), 13u);
    EXPECT_EQ(consumer_block_shift((1u << 24) + 1), 14u);
}

TEST(LinkConsumerBlocks, StablePartitionByBlockOnRandomEdges) {
    std::mt19937 rng(20261123);
    Column<Edge> scratch;
    std::vector<std::uint32_t> block_start;
    for (const std::uint32_t span : {1u, 3u, 8192u, 8193u, 70000u, 1u << 20, (1u << 24) + 5, 0xFFFFFFFFu - 7}) {
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{40000}}) {
            const SampleIndex first = span > 0xFFFF0000u ? 7 : 1000;
            std::uniform_int_distribution<std::uint32_t> offset(0, span - 1);
            std::vector<Edge> edges(size);
            for (std::size_t k = 0; k < size; ++k) {
                // from: the edge's position, so that stability shows; consumers
                // often at the range's ends and repeated
                const std::uint32_t pick = rng() % 8;
                const std::uint32_t to = pick == 0 ? 0 : pick == 1 ? span - 1 : pick == 2 && k > 0 ? edges[k - 1].to - first : offset(rng);
                edges[k] = {static_cast<SampleIndex>(k), first + to};
            }
            const unsigned shift = consumer_block_shift(span);
            std::vector<Edge> want = edges;
            std::stable_sort(want.begin(), want.end(), [&](const Edge& a, const Edge& b) { return (a.to - first) >> shift < (b.to - first) >> shift; });
            group_by_consumer_block(edges, first, span, scratch, block_start);
            ASSERT_EQ(edges.size(), want.size()) << span << " " << size;
            for (std::size_t k = 0; k < size; ++k) {
                ASSERT_EQ(edges[k].from, want[k].from) << "span " << span << " size " << size << " at " << k;
                ASSERT_EQ(edges[k].to, want[k].to) << "span " << span << " size " << size << " at " << k;
            }
        }
    }
}

// The join groups a unit's part of its worker's edge list: only that part
// changes.
TEST(LinkConsumerBlocks, GroupsOnlyTheSpanGiven) {
    std::vector<Edge> edges;
    for (SampleIndex k = 0; k < 30000; ++k) edges.push_back({k, (k * 7919u) % 50000u});
    const std::vector<Edge> before = edges;
    Column<Edge> scratch;
    std::vector<std::uint32_t> block_start;
    group_by_consumer_block(std::span<Edge>(edges).subspan(10000, 10000), 0, 50000, scratch, block_start);
    const unsigned shift = consumer_block_shift(50000);
    std::vector<Edge> want(before.begin() + 10000, before.begin() + 20000);
    std::stable_sort(want.begin(), want.end(), [&](const Edge& a, const Edge& b) { return a.to >> shift < b.to >> shift; });
    for (std::size_t k = 0; k < edges.size(); ++k) {
        const Edge& expected = k < 10000 || k >= 20000 ? before[k] : want[k - 10000];
        ASSERT_EQ(edges[k].from, expected.from) << k;
        ASSERT_EQ(edges[k].to, expected.to) << k;
    }
}

}  // namespace
}  // namespace hashtrace::graph::detail
