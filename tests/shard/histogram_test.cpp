// The log-bucket histogram: percentiles within the stated error of the exact
// nearest rank, merges that are additions, and its serialised buckets.
#include "hashtrace/metrics/statistics.hpp"
#include "hashtrace/shard/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hashtrace::shard {
namespace {

double exact_percentile(std::vector<std::int64_t> values, double p) {
    std::sort(values.begin(), values.end());
    return double(values[metrics::nearest_rank_index(p, values.size())]);
}

TEST(LogHistogram, StatesTheErrorItWasAskedFor) {
    EXPECT_LE(LogHistogram(0.001).relative_error(), 0.001);
    EXPECT_GT(LogHistogram(0.001).relative_error(), 0.0005);  // no finer than needed
    EXPECT_LE(LogHistogram(0.01).relative_error(), 0.01);
    EXPECT_THROW(LogHistogram(0), std::invalid_argument);
    EXPECT_THROW(LogHistogram(1.5), std::invalid_argument);
}

TEST(LogHistogram, SmallValuesAreExact) {
    LogHistogram h;
    for (int v : {0, 1, 2, 3, 500, 1000}) h.add(v);
    EXPECT_EQ(h.percentile(1), 0);
    EXPECT_EQ(h.percentile(50), 2);  // rank ceil(0.5 * 6) = 3
    EXPECT_EQ(h.percentile(100), 1000);
}

TEST(LogHistogram, PercentilesWithinTheStatedErrorOnSkewedData) {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> latency(std::log(2e6), 1.5);  // ns: ~2 ms, with a long tail
    std::vector<std::int64_t> values;
    LogHistogram h;
    for (int i = 0; i < 200000; ++i) {
        const auto v = static_cast<std::int64_t>(latency(rng));
        values.push_back(v);
        h.add(v);
    }
    for (double p : {0.1, 1.0, 25.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0}) {
        const double exact = exact_percentile(values, p);
        EXPECT_LE(std::abs(h.percentile(p) - exact), h.relative_error() * exact) << "p" << p;
    }
}

TEST(LogHistogram, NegativeValuesKeepTheirOrder) {
    LogHistogram h;
    std::vector<std::int64_t> values{-5'000'000, -3, 0, 7, 9'000'000'000};
    for (auto v : values) h.add(v);
    for (double p : {20.0, 40.0, 60.0, 80.0, 100.0}) {
        const double exact = exact_percentile(values, p);
        EXPECT_LE(std::abs(h.percentile(p) - exact), h.relative_error() * std::abs(exact)) << "p" << p;
    }
}

TEST(LogHistogram, MergeIsAdditionWhateverTheSplit) {
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::int64_t> any(-1'000'000, 50'000'000'000);
    LogHistogram whole, a, b, c;
    for (int i = 0; i < 30000; ++i) {
        const std::int64_t v = any(rng);
        whole.add(v);
        (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(v);
    }
    LogHistogram left = a;
    left.merge(b);
    left.merge(c);
    LogHistogram right = c;
    right.merge(a);
    right.merge(b);
    EXPECT_EQ(left, whole);
    EXPECT_EQ(right, whole);
    EXPECT_EQ(left.count(), 30000u);
}

TEST(LogHistogram, RefusesToMergeAnotherPrecision) {
    LogHistogram fine(0.001), coarse(0.01);
    fine.add(5);
    coarse.add(5);
    EXPECT_THROW(fine.merge(coarse), std::invalid_argument);
    EXPECT_EQ(fine.count(), 1u);
}

TEST(LogHistogram, BucketsRoundTripAndBadOnesAreRefused) {
    LogHistogram h;
    for (std::int64_t v : {std::int64_t{-70}, std::int64_t{0}, std::int64_t{12}, std::int64_t{123456789}, std::int64_t{987654321012}}) h.add(v, 3);
    const auto restored = LogHistogram::from_buckets(h.sub_bucket_bits(), h.buckets());
    EXPECT_EQ(restored, h);
    EXPECT_EQ(restored.count(), 15u);
    EXPECT_THROW(LogHistogram::from_buckets(h.sub_bucket_bits(), {{std::int64_t{1} << 40, 1}}), std::invalid_argument);
    EXPECT_THROW(LogHistogram::from_buckets(40, {}), std::invalid_argument);
}

TEST(LogHistogram, ValuesAreTheBucketsInOrderWithinTheError) {
    LogHistogram h;
    const std::vector<std::int64_t> values{-5'000'000, -3, 0, 7, 7, 1'234'567, 9'000'000'000};
    for (auto v : values) h.add(v);
    const auto drawn = h.values();
    ASSERT_EQ(drawn.size(), values.size() - 1);  // the two 7s share a bucket
    std::uint64_t n = 0;
    for (std::size_t k = 0; k < drawn.size(); ++k) {
        n += drawn[k].second;
        if (k) {
            EXPECT_LT(drawn[k - 1].first, drawn[k].first);
        }
    }
    EXPECT_EQ(n, values.size());
    EXPECT_EQ(drawn[3], (std::pair<double, std::uint64_t>{7, 2}));
    EXPECT_LE(std::abs(drawn[4].first - 1'234'567), h.relative_error() * 1'234'567);
    EXPECT_LE(std::abs(drawn[0].first + 5'000'000), h.relative_error() * 5'000'000);
}

TEST(LogHistogram, RanksAndBucketsAgreeWithPercentiles) {
    LogHistogram h;
    const std::vector<std::int64_t> values{-40, 3, 3, 900, 1'000'000, 1'000'001, 77'000'000};
    for (auto v : values) h.add(v);
    for (std::uint64_t k = 0; k < values.size(); ++k) {
        EXPECT_EQ(h.bucket_at_index(k), h.bucket_of(values[k])) << k;  // values are sorted
        EXPECT_LE(std::abs(h.at_index(k) - double(values[k])), h.relative_error() * std::abs(double(values[k]))) << k;
    }
    EXPECT_EQ(h.bucket_of(1'000'000), h.bucket_of(1'000'001));  // one bucket at 0.1 %
    EXPECT_EQ(h.percentile(50), h.at_index(metrics::nearest_rank_index(50, values.size())));
    EXPECT_THROW(h.bucket_at_index(values.size()), std::out_of_range);
}

// The bucket layout, as HdrHistogram states it: a value below 2^bits is its
// own bucket; above, its binade (its highest bit) is the group and its
// `bits` bits below the highest the sub-bucket. Keys are serialised in
// shard summaries, so the layout must not move.
std::int64_t layout_key(std::uint64_t v, unsigned bits) {
    const std::uint64_t one = std::uint64_t{1} << bits;
    if (v < one) return static_cast<std::int64_t>(v);
    unsigned high = 63;
    while (!(v >> high)) --high;
    return static_cast<std::int64_t>((high - bits + 1) * one + ((v >> (high - bits)) - one));
}

// Values at and beside every power of two, both signs, and the extremes.
std::vector<std::int64_t> binade_edges() {
    std::vector<std::int64_t> values{0, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min() + 1};
    for (unsigned b = 0; b < 63; ++b)
        for (const std::int64_t d : {-1, 0, 1, 3}) {
            const std::int64_t v = (std::int64_t{1} << b) + d;
            if (v > 0) values.insert(values.end(), {v, -v});
        }
    return values;
}

TEST(LogHistogram, BucketsFollowTheLayoutAtEveryBinadeEdge) {
    for (const double error : {0.001, 0.01, 0.3}) {
        const LogHistogram h(error);
        for (const std::int64_t v : binade_edges()) {
            const std::uint64_t magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
            const std::int64_t key = layout_key(magnitude, h.sub_bucket_bits());
            EXPECT_EQ(h.bucket_of(v), v < 0 ? -key - 1 : key) << v << " at " << error;
        }
    }
}

// add_all, with and without negative values among them, and split anywhere,
// counts exactly what add() of each value in turn counts, at every precision.
TEST(LogHistogram, AddAllEqualsAddingEachValue) {
    std::mt19937_64 rng(11);
    std::lognormal_distribution<double> latency(std::log(2e6), 2.0);
    std::vector<std::int64_t> positive;
    for (int i = 0; i < 20000; ++i) positive.push_back(static_cast<std::int64_t>(latency(rng)));
    std::vector<std::int64_t> mixed = binade_edges();
    mixed.insert(mixed.end(), positive.begin(), positive.begin() + 1000);
    // The summaries' and the time bins' precisions, the coarsest, and finer
    // ones than the tables made once cover (16 bits and up; positive values
    // only: a bucket a value up to 2^62 would be gigabytes).
    const std::vector<std::pair<std::vector<std::int64_t>, std::vector<double>>> cases{
        {positive, {0.001, 0.01, 0.4, std::ldexp(1.0, -17), std::ldexp(1.0, -19)}}, {mixed, {0.001, 0.01, 0.4}}};
    for (const auto& [values, errors] : cases)
        for (const double error : errors) {
            LogHistogram each(error), all(error);
            for (const std::int64_t v : values) each.add(v);
            const std::span<const std::int64_t> span(values);
            all.add_all(span.first(values.size() / 3));
            all.add_all(span.subspan(values.size() / 3));
            EXPECT_EQ(all.count(), each.count());
            EXPECT_EQ(all.buckets(), each.buckets());
        }
}

TEST(LogHistogram, EmptyGivesZero) { EXPECT_EQ(LogHistogram().percentile(99), 0); }

}  // namespace
}  // namespace hashtrace::shard
