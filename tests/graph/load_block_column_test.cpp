// The loader's append-only column (graph/src/block_column.hpp): the
// values read back as appended, across blocks, whether the first block was
// put on a huge page (expect) or not, in batches of any size.
#include "block_column.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace hashtrace::graph::detail {
namespace {

// Appends `total` values in random batches (expecting `expected` first) and
// reads them back by index and by span, then again after clear().
template <typename T>
void check(std::size_t total, std::size_t expected, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    BlockColumn<T> column;
    for (int round = 0; round < 2; ++round) {
        column.expect(expected);
        std::vector<T> reference;
        while (reference.size() < total) {
            const std::size_t n = std::min<std::size_t>(total - reference.size(), rng() % 5000);
            const std::size_t first = reference.size();
            for (std::size_t i = 0; i < n; ++i) reference.push_back(static_cast<T>(rng()));
            column.append(n, [&](T* dst, std::size_t from, std::size_t count) {
                for (std::size_t i = 0; i < count; ++i) dst[i] = reference[first + from + i];
            });
            if (reference.size() == total / 3) column.expect(total);  // past the first block: no effect
        }
        ASSERT_EQ(column.size(), total);
        for (std::size_t i = 0; i < total; ++i) ASSERT_EQ(column[i], reference[i]) << i;
        const std::size_t from = total / 7, count = total - total / 7 - total / 11;
        std::size_t at = from;
        column.for_each_span(from, count, [&](const T* p, std::size_t n) {
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], reference[at + i]) << at + i;
            at += n;
        });
        EXPECT_EQ(at, from + count);
        column.clear();
        EXPECT_EQ(column.size(), 0u);
    }
}

TEST(LoadBlockColumn, ValuesReadBackAcrossBlocksWithTheFirstOnAHugePage) {
    check<std::int64_t>(3 * BlockColumn<std::int64_t>::kBlock + 123, 3 * BlockColumn<std::int64_t>::kBlock, 1);
    check<std::uint32_t>(2 * BlockColumn<std::uint32_t>::kBlock + 7, BlockColumn<std::uint32_t>::kBlock / 2, 2);
}

TEST(LoadBlockColumn, ValuesReadBackWithTheFirstBlockOnSmallPages) {
    check<std::int64_t>(BlockColumn<std::int64_t>::kBlock + 1, 0, 3);
    check<std::uint32_t>(1000, BlockColumn<std::uint32_t>::kBlock / 2 - 1, 4);  // too few expected
}

}  // namespace
}  // namespace hashtrace::graph::detail
