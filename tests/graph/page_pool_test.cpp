// PagePool (the columns' 2 MiB pages, reused from stage to stage) and the
// Column allocator on top of it: alignment, reuse with and without zeroing,
// splitting and merging free regions, moving scattered free pages into one
// range, release, and concurrent use (also run under ThreadSanitizer).
#include "hashtrace/graph/column.hpp"
#include "hashtrace/graph/detail/page_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace hashtrace::graph::detail {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % kHugePage == 0; }
unsigned char* bytes(void* p) { return static_cast<unsigned char*>(p); }
// A region kept in use, so that the pool keeps what the test gives back.
class Held {
public:
    explicit Held(PagePool& pool) : pool_(pool), p_(pool.take(kHugePage)) {}
    ~Held() { pool_.give(p_, kHugePage); }

private:
    PagePool& pool_;
    void* p_;
};

bool all_equal(const void* p, std::size_t n, unsigned char value) {
    const auto* b = static_cast<const unsigned char*>(p);
    return std::all_of(b, b + n, [&](unsigned char c) { return c == value; });
}

TEST(PagePool, TakesWholeHugePagesOnHugePageBoundaries) {
    PagePool pool;
    const Held held(pool);
    void* small = pool.take(1);
    void* odd = pool.take(3 * kMiB);
    EXPECT_TRUE(aligned(small));
    EXPECT_TRUE(aligned(odd));
    std::memset(odd, 1, 3 * kMiB);
    pool.give(small, 1);
    pool.give(odd, 3 * kMiB);
    EXPECT_EQ(pool.free_bytes(), 2 * kMiB + 4 * kMiB);  // rounded up to whole 2 MiB pages
}

TEST(PagePool, AGivenRegionIsTakenAgainAsItWasLeft) {
    PagePool pool;
    const Held held(pool);
    void* p = pool.take(4 * kMiB);
    std::memset(p, 0xAB, 4 * kMiB);
    pool.give(p, 4 * kMiB);
    void* q = pool.take(4 * kMiB);
    EXPECT_EQ(q, p);
    EXPECT_TRUE(all_equal(q, 4 * kMiB, 0xAB));  // not cleared: the next user writes it anyway
    pool.give(q, 4 * kMiB);
}

TEST(PagePool, TakeZeroedClearsWhatAnEarlierUserWrote) {
    PagePool pool;
    const Held held(pool);
    void* fresh = pool.take_zeroed(2 * kMiB);
    EXPECT_TRUE(all_equal(fresh, 2 * kMiB, 0));
    std::memset(fresh, 0x5C, 2 * kMiB);
    pool.give(fresh, 2 * kMiB);
    void* again = pool.take_zeroed(3 * kMiB / 2);
    EXPECT_EQ(again, fresh);
    EXPECT_TRUE(all_equal(again, 3 * kMiB / 2, 0));
    pool.give(again, 3 * kMiB / 2);
}

TEST(PagePool, SplitsAFreeRegionAndMergesNeighboursBack) {
    PagePool pool;
    const Held held(pool);
    unsigned char* p = bytes(pool.take(6 * kMiB));
    pool.give(p, 6 * kMiB);
    unsigned char* a = bytes(pool.take(2 * kMiB));
    unsigned char* b = bytes(pool.take(2 * kMiB));
    unsigned char* c = bytes(pool.take(2 * kMiB));
    EXPECT_EQ(a, p);
    EXPECT_EQ(b, p + 2 * kMiB);
    EXPECT_EQ(c, p + 4 * kMiB);
    EXPECT_EQ(pool.free_bytes(), 0u);
    pool.give(a, 2 * kMiB);
    pool.give(c, 2 * kMiB);
    pool.give(b, 2 * kMiB);  // joins both neighbours
    EXPECT_EQ(pool.free_bytes(), 6 * kMiB);
    EXPECT_EQ(pool.take(6 * kMiB), p);
    pool.give(p, 6 * kMiB);
}

TEST(PagePool, TakesTheSmallestFreeRegionThatHoldsARequest) {
    PagePool pool;
    void* large = pool.take(8 * kMiB);
    void* hold = pool.take(2 * kMiB);  // keeps the two free regions apart
    void* small = pool.take(4 * kMiB);
    pool.give(large, 8 * kMiB);
    pool.give(small, 4 * kMiB);
    EXPECT_EQ(pool.take(4 * kMiB), small);
    EXPECT_EQ(pool.free_bytes(), 8 * kMiB);
    pool.give(small, 4 * kMiB);
    pool.give(hold, 2 * kMiB);
}

// Free blocks kept apart by blocks still in use cannot serve a larger
// request as they are: their pages are moved into one new range, contents
// and all, instead of the request taking fresh pages beside them.
TEST(PagePool, MovesScatteredFreePagesIntoOneRange) {
    PagePool pool;
    std::vector<void*> blocks;
    for (int k = 0; k < 16; ++k) blocks.push_back(pool.take(kHugePage));
    std::set<unsigned char> given;
    for (int k = 0; k < 16; k += 2) {
        std::memset(blocks[k], k + 1, kHugePage);
        pool.give(blocks[k], kHugePage);
        given.insert(static_cast<unsigned char>(k + 1));
    }
    ASSERT_EQ(pool.free_bytes(), 8 * kHugePage);
    unsigned char* range = bytes(pool.take(10 * kHugePage));  // 8 moved, 2 fresh
    EXPECT_TRUE(aligned(range));
    EXPECT_EQ(pool.free_bytes(), 0u);
    std::set<unsigned char> moved;
    for (std::size_t page = 0; page < 8; ++page) {
        EXPECT_TRUE(all_equal(range + page * kHugePage, kHugePage, range[page * kHugePage])) << page;
        moved.insert(range[page * kHugePage]);
    }
    EXPECT_EQ(moved, given);
    EXPECT_TRUE(all_equal(range + 8 * kHugePage, 2 * kHugePage, 0));  // fresh
    std::memset(range, 0x77, 10 * kHugePage);
    for (int k = 1; k < 16; k += 2) EXPECT_TRUE(all_equal(blocks[k], kHugePage, 0)) << k;  // untouched by the move
    pool.give(range, 10 * kHugePage);
    for (int k = 1; k < 16; k += 2) pool.give(blocks[k], kHugePage);
}

TEST(PagePool, MovedPagesAreClearedForAZeroedRequest) {
    PagePool pool;
    void* a = pool.take(kHugePage);
    void* hold = pool.take(kHugePage);
    void* b = pool.take(kHugePage);
    std::memset(a, 9, kHugePage);
    std::memset(b, 9, kHugePage);
    pool.give(a, kHugePage);
    pool.give(b, kHugePage);
    void* range = pool.take_zeroed(3 * kHugePage);
    EXPECT_TRUE(all_equal(range, 3 * kHugePage, 0));
    pool.give(range, 3 * kHugePage);
    pool.give(hold, kHugePage);
}

TEST(PagePool, ReleaseFreeReturnsEveryFreePage) {
    PagePool pool;
    const Held held(pool);
    void* a = pool.take(4 * kMiB);
    void* b = pool.take(2 * kMiB);
    pool.give(a, 4 * kMiB);
    pool.give(b, 2 * kMiB);
    EXPECT_EQ(pool.free_bytes(), 6 * kMiB);
    pool.release_free();
    EXPECT_EQ(pool.free_bytes(), 0u);
    void* c = pool.take_zeroed(4 * kMiB);  // fresh again
    EXPECT_TRUE(all_equal(c, 4 * kMiB, 0));
    pool.give(c, 4 * kMiB);
}

// Two threads taking, filling, checking and giving back regions of random
// sizes: a region handed to both at once would show as the other's bytes.
TEST(PagePool, ThreadsNeverShareARegion) {
    PagePool pool;
    auto work = [&](unsigned char mark, unsigned seed) {
        std::mt19937 rng(seed);
        for (int i = 0; i < 100; ++i) {
            const std::size_t n = (1 + rng() % 8) * kMiB / 2;
            unsigned char* p = bytes(i % 3 ? pool.take(n) : pool.take_zeroed(n));
            std::memset(p, mark, n);
            std::this_thread::yield();
            ASSERT_TRUE(all_equal(p, n, mark)) << int(mark) << " " << i;
            pool.give(p, n);
        }
    };
    std::thread other(work, 0x11, 1);
    work(0x22, 2);
    other.join();
    EXPECT_EQ(pool.free_bytes(), 0u);  // all given back: released
}

// Once nothing taken is in use (an analysis is over), the free pages go back
// to the system rather than stay with the process.
TEST(PagePool, GivingBackTheLastRegionInUseReleasesTheFreeOnes) {
    PagePool pool;
    void* a = pool.take(4 * kMiB);
    void* b = pool.take(2 * kMiB);
    pool.give(a, 4 * kMiB);
    EXPECT_EQ(pool.free_bytes(), 4 * kMiB);
    pool.give(b, 2 * kMiB);
    EXPECT_EQ(pool.free_bytes(), 0u);
}

TEST(Column, LargeBuffersComeFromThePoolSmallOnesFromTheHeap) {
    Column<std::uint32_t> large(kMiB);  // 4 MiB
    EXPECT_TRUE(aligned(large.data()));
    Column<std::uint32_t> small(10, 3u);
    EXPECT_EQ(small, Column<std::uint32_t>(10, 3u));
    large.assign(kMiB, 0xFFFFFFFFu);
    Column<std::uint32_t>().swap(large);  // freed (`large = {}` would keep the buffer)
    EXPECT_EQ(large.capacity(), 0u);
    Column<std::uint32_t> zeros(kMiB, 0u);  // maybe on the pages just freed: a value is still a value
    EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](std::uint32_t v) { return v == 0; }));
    zeros.resize(2 * kMiB, 5u);
    EXPECT_EQ(zeros[kMiB - 1], 0u);
    EXPECT_EQ(zeros[2 * kMiB - 1], 5u);
}

}  // namespace
}  // namespace hashtrace::graph::detail
