#include "hashtrace/metrics/compare.hpp"
#include "hashtrace/metrics/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace hashtrace::metrics {
namespace {

TEST(Statistics, SummaryByHand) {
    // 10 values: mean 5.5, population variance (sum of squared deviations 82.5) / 10 = 8.25.
    const std::vector<double> v{7, 1, 10, 2, 9, 3, 8, 4, 6, 5};
    const Summary s = summarize(v);
    EXPECT_EQ(s.count, 10u);
    EXPECT_DOUBLE_EQ(s.mean, 5.5);
    EXPECT_DOUBLE_EQ(s.sd, std::sqrt(8.25));
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.max, 10);
    EXPECT_EQ(s.p50, 5);   // rank ceil(5.0) = 5
    EXPECT_EQ(s.p95, 10);  // rank ceil(9.5) = 10
    EXPECT_EQ(s.p99, 10);
    // Successive differences: -6 9 -8 7 -6 5 -4 2 -1: mean -2/9.
    double mean = -2.0 / 9, sq = 0;
    for (double d : {-6, 9, -8, 7, -6, 5, -4, 2, -1}) sq += (d - mean) * (d - mean);
    EXPECT_NEAR(s.jitter, std::sqrt(sq / 9), 1e-12);
}

TEST(Statistics, NearestRank) {
    const std::vector<double> sorted{15, 20, 35, 40, 50};  // the textbook example
    EXPECT_EQ(nearest_rank(sorted, 5), 15);
    EXPECT_EQ(nearest_rank(sorted, 30), 20);
    EXPECT_EQ(nearest_rank(sorted, 40), 20);
    EXPECT_EQ(nearest_rank(sorted, 50), 35);
    EXPECT_EQ(nearest_rank(sorted, 100), 50);
    EXPECT_EQ(nearest_rank(sorted, 0), 15);
}

TEST(Statistics, EmptyAndSingle) {
    EXPECT_EQ(summarize(std::vector<double>{}).count, 0u);
    const Summary one = summarize(std::vector<double>{4.5});
    EXPECT_EQ(one.mean, 4.5);
    EXPECT_EQ(one.sd, 0);
    EXPECT_EQ(one.jitter, 0);
    EXPECT_EQ(one.p99, 4.5);
}

// A zero minimum is the first of the zeros and a zero maximum the last, as
// std::minmax_element gives them: -0 and +0 compare equal but print apart.
TEST(Statistics, ZeroExtremesAreTheFirstMinimumAndTheLastMaximum) {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 300; ++trial) {
        const double sign = trial % 2 ? 1.0 : -1.0;  // the zeros are the minimum, or the maximum
        std::vector<double> v(rng() % 40 + 1);
        for (double& x : v) x = rng() % 3 ? (rng() % 2 ? 0.0 : -0.0) : sign * double(rng() % 5 + 1);
        const Summary s = summarize(v);
        const auto [first_min, last_max] = std::minmax_element(v.begin(), v.end());
        SCOPED_TRACE(testing::Message() << "trial " << trial);
        EXPECT_EQ(s.min, *first_min);
        EXPECT_EQ(std::signbit(s.min), std::signbit(*first_min));
        EXPECT_EQ(s.max, *last_max);
        EXPECT_EQ(std::signbit(s.max), std::signbit(*last_max));
        std::vector<double> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(s.p50, nearest_rank(sorted, 50));
        EXPECT_EQ(s.p95, nearest_rank(sorted, 95));
        EXPECT_EQ(s.p99, nearest_rank(sorted, 99));
    }
}

// summarize against the definitions computed the plain way (a full sort for
// the nearest ranks; mean, sd and jitter by two passes in long double) on
// random inputs with ties, negatives, zeros of both signs, extremes and
// values crowded into one binade (one histogram bucket), at sizes from 1 up.
TEST(Statistics, SummaryMatchesSortedReference) {
    std::mt19937_64 rng(17);
    constexpr double kMax = std::numeric_limits<double>::max(), kTiny = std::numeric_limits<double>::denorm_min();
    const std::vector<double> extremes{kMax, -kMax, kTiny, -kTiny, 0.0, -0.0, 1e-300, -1e300, 1.0, 1.0 + 1e-15};
    auto draw = [&](int kind) -> double {
        switch (kind) {
            case 0: return std::uniform_real_distribution<double>(-1e3, 1e3)(rng);
            case 1: return 0.5 * double(std::uniform_int_distribution<int>(-3, 3)(rng));     // many ties
            case 2: return extremes[rng() % extremes.size()];
            case 3: return 0.3 + std::exponential_distribution<double>(20)(rng);          // latencies: one crowded binade
            default: return 7.25;                                                         // all equal
        }
    };
    // Population mean and sd of values(i), i in [0, n), in long double.
    auto moments = [](std::size_t n, auto values) {
        long double sum = 0, sq = 0;
        for (std::size_t i = 0; i < n; ++i) sum += values(i);
        const long double mean = n ? sum / n : 0;
        for (std::size_t i = 0; i < n; ++i) sq += (values(i) - mean) * (values(i) - mean);
        return std::pair<double, double>(double(mean), n ? double(std::sqrt(sq / n)) : 0.0);
    };
    auto close = [](double want, double got, double scale) { return std::abs(want - got) <= 1e-12 * scale; };
    for (int trial = 0; trial < 400; ++trial) {
        const int kind = trial % 5;
        const std::size_t n = trial < 15 ? std::size_t(trial / 5 + 1) : std::size_t(rng() % (trial < 390 ? 3000 : 200000)) + 1;
        std::vector<double> v(n);
        for (double& x : v) x = draw(kind);
        const Summary s = summarize(v);
        std::vector<double> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        const auto [mean, sd] = moments(n, [&](std::size_t i) -> long double { return v[i]; });
        const double jitter = moments(n - 1, [&](std::size_t i) -> long double { return v[i + 1] - v[i]; }).second;
        SCOPED_TRACE(testing::Message() << "trial " << trial << " kind " << kind << " n " << n);
        EXPECT_EQ(s.count, n);
        EXPECT_EQ(s.min, sorted.front());
        EXPECT_EQ(s.max, sorted.back());
        const auto [first_min, last_max] = std::minmax_element(v.begin(), v.end());
        EXPECT_EQ(std::signbit(s.min), std::signbit(*first_min));
        EXPECT_EQ(std::signbit(s.max), std::signbit(*last_max));
        EXPECT_EQ(s.p50, nearest_rank(sorted, 50));
        EXPECT_EQ(s.p95, nearest_rank(sorted, 95));
        EXPECT_EQ(s.p99, nearest_rank(sorted, 99));
        if (kind == 2) continue;  // sums of extremes overflow
        const double magnitude = std::max(std::abs(sorted.front()), std::abs(sorted.back()));
        EXPECT_PRED3(close, mean, s.mean, magnitude);
        EXPECT_PRED3(close, sd, s.sd, magnitude);
        EXPECT_PRED3(close, jitter, s.jitter, magnitude);
    }
}

// The JSON prints mean, sd and jitter as summarize computes them, so their
// bits are fixed by the order of its additions: pairwise halves down to
// leaves of at most 1024 terms, each leaf four sums of every fourth term
// (the last terms into the first sum) combined as (0 + 1) + (2 + 3). This
// reference adds one double at a time in that order; summarize must give
// the same bits however it groups the arithmetic in registers.
double reference_pairwise_sum(std::size_t begin, std::size_t end, const std::function<double(std::size_t)>& term) {
    if (end - begin > 1024) {
        const std::size_t middle = begin + (end - begin) / 2;
        return reference_pairwise_sum(begin, middle, term) + reference_pairwise_sum(middle, end, term);
    }
    double sum[4] = {0, 0, 0, 0};
    std::size_t i = begin;
    for (; i + 4 <= end; i += 4)
        for (std::size_t k = 0; k < 4; ++k) sum[k] += term(i + k);
    for (; i < end; ++i) sum[0] += term(i);
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

TEST(Statistics, MomentsHaveTheBitsOfPairwiseSumsInOrder) {
    std::mt19937_64 rng(23);
    auto same = [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b)); };
    // Sizes around the leaves' four terms and 1024-term bound, and large.
    std::vector<std::size_t> sizes{1, 2, 3, 4, 5, 6, 7, 8, 9, 1023, 1024, 1025, 1026, 1027, 1028, 2047, 2048, 2049, 4100, 100003};
    for (int k = 0; k < 40; ++k) sizes.push_back(rng() % 20000 + 1);
    for (std::size_t trial = 0; trial < sizes.size(); ++trial) {
        const std::size_t n = sizes[trial];
        std::vector<double> v(n);
        const int kind = int(trial % 4);
        for (double& x : v)
            x = kind == 0   ? std::uniform_real_distribution<double>(-1e3, 1e3)(rng)
                : kind == 1 ? 0.3 + std::exponential_distribution<double>(20)(rng)
                : kind == 2 ? (rng() % 2 ? 1e300 : -1e-300) * double(rng() % 7)  // overflowing sums: infinities and NaN
                            : std::ldexp(double(rng() % 1000), int(rng() % 200) - 100);
        const Summary s = summarize(v);
        const double mean = reference_pairwise_sum(0, n, [&](std::size_t i) { return v[i]; }) / double(n);
        const double sd = std::sqrt(reference_pairwise_sum(0, n, [&](std::size_t i) { return (v[i] - mean) * (v[i] - mean); }) / double(n));
        double jitter = 0;
        if (n > 1) {
            const double diff_mean = reference_pairwise_sum(1, n, [&](std::size_t i) { return v[i] - v[i - 1]; }) / double(n - 1);
            jitter = std::sqrt(reference_pairwise_sum(1, n, [&](std::size_t i) {
                                   const double deviation = (v[i] - v[i - 1]) - diff_mean;
                                   return deviation * deviation;
                               }) /
                               double(n - 1));
        }
        SCOPED_TRACE(testing::Message() << "n " << n << " kind " << kind);
        EXPECT_PRED2(same, s.mean, mean);
        EXPECT_PRED2(same, s.sd, sd);
        EXPECT_PRED2(same, s.jitter, jitter);
    }
}

// Closed forms: I_x(2,3) = sum_{j=2..4} C(4,j) x^j (1-x)^(4-j); I_x(1/2,1/2) = 2/pi asin(sqrt x).
TEST(Significance, IncompleteBeta) {
    EXPECT_NEAR(regularized_incomplete_beta(2, 3, 0.4), 6 * .16 * .36 + 4 * .064 * .6 + .0256, 1e-12);
    EXPECT_NEAR(regularized_incomplete_beta(0.5, 0.5, 0.9), 2 / M_PI * std::asin(std::sqrt(0.9)), 1e-10);
    EXPECT_EQ(regularized_incomplete_beta(3, 4, 0), 0);
    EXPECT_EQ(regularized_incomplete_beta(3, 4, 1), 1);
}

TEST(Significance, DistributionTails) {
    EXPECT_NEAR(student_t_two_sided_p(1.0, 1), 0.5, 1e-12);                            // Cauchy: 1 - 2/pi atan 1
    EXPECT_NEAR(student_t_two_sided_p(2.0, 2), 1 - 2 / std::sqrt(6.0), 1e-12);         // dof 2: 1 - t/sqrt(2+t^2)
    EXPECT_NEAR(f_distribution_upper_p(3.0, 2, 10), std::pow(10.0 / 16.0, 5), 1e-12);  // dof1 2: (d2/(d2+2f))^(d2/2)
}

// a = {1,2,3}, b = {4,5,6}: t = -3/sqrt(2/3), Welch dof = 4; the t(4) CDF has
// the closed form 1/2 + 3/8 u (1 - t^2 / (12 (1 + t^2/4))), u = t / sqrt(1 + t^2/4).
TEST(Significance, WelchByHand) {
    const double t = 3 / std::sqrt(2.0 / 3), q = 1 + t * t / 4;
    const double cdf = 0.5 + 3.0 / 8 * (t / std::sqrt(q)) * (1 - t * t / (12 * q));
    const auto p = welch_t_test(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
    ASSERT_TRUE(p);
    EXPECT_NEAR(*p, 2 * (1 - cdf), 1e-10);
    EXPECT_FALSE(welch_t_test(std::vector<double>{1}, std::vector<double>{4, 5}));        // too few
    EXPECT_FALSE(welch_t_test(std::vector<double>{1, 1}, std::vector<double>{1, 1}));     // no variance
}

// Closed forms of the two-sided quantile: Cauchy (dof 1) t = tan(pi/2 (1 - p));
// dof 2: t = sqrt(2 / (p (2 - p)) - 2)... checked through p(t) instead, and the
// table values t(0.05, 10) = 2.228139 and the normal limit 1.959964.
TEST(Significance, TwoSidedQuantile) {
    EXPECT_NEAR(student_t_two_sided_quantile(0.5, 1), 1.0, 1e-9);
    EXPECT_NEAR(student_t_two_sided_quantile(0.05, 1), std::tan(M_PI / 2 * 0.95), 1e-6);
    EXPECT_NEAR(student_t_two_sided_quantile(0.05, 10), 2.228139, 1e-6);
    EXPECT_NEAR(student_t_two_sided_quantile(0.05, 1e7), 1.959964, 1e-5);
    EXPECT_NEAR(student_t_two_sided_p(student_t_two_sided_quantile(0.01, 4.5), 4.5), 0.01, 1e-12);
}

// a = {1..5}, b = {3..7}: difference 2, standard error sqrt(2.5/5 + 2.5/5) = 1,
// Welch dof 8, t(0.05, 8) = 2.306004: the interval is 2 -+ 2.306004.
TEST(Significance, WelchMeanDifferenceByHand) {
    const auto d = welch_mean_difference(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{3, 4, 5, 6, 7});
    ASSERT_TRUE(d);
    EXPECT_DOUBLE_EQ(d->difference, 2);
    EXPECT_NEAR(d->low, 2 - 2.306004, 1e-6);
    EXPECT_NEAR(d->high, 2 + 2.306004, 1e-6);
    EXPECT_FALSE(welch_mean_difference(std::vector<double>{1}, std::vector<double>{4, 5}));
    EXPECT_FALSE(welch_mean_difference(std::vector<double>{1, 1}, std::vector<double>{1, 1}));
}

// Groups {1,2,3} {2,3,4} {5,6,7,8}: SSB 39.9, SSW 9, F = 19.95 / (9/7) with
// dof (2, 7), whose tail is (7 / (7 + 2F))^3.5.
TEST(Significance, AnovaByHand) {
    const std::vector<std::vector<double>> groups{{1, 2, 3}, {2, 3, 4}, {5, 6, 7, 8}};
    const double f = 19.95 / (9.0 / 7);
    const auto p = one_way_anova(groups);
    ASSERT_TRUE(p);
    EXPECT_NEAR(*p, std::pow(7 / (7 + 2 * f), 3.5), 1e-10);
    EXPECT_FALSE(one_way_anova(std::vector<std::vector<double>>{{1, 2}, {}}));
}

}  // namespace
}  // namespace hashtrace::metrics
