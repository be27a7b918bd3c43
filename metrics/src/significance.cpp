// Two-sided significance tests for compare. The distributions reduce to the
// regularized incomplete beta function, evaluated by its continued fraction
// (Lentz's method, as in Numerical Recipes 6.4) - no statistics library needed.
#include "hashtrace/metrics/compare.hpp"

#include <cmath>
#include <limits>

namespace hashtrace::metrics {
namespace {

double beta_continued_fraction(double a, double b, double x) {
    constexpr int kMaxIterations = 500;
    constexpr double kEpsilon = 1e-15, kTiny = 1e-300;
    const double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    if (std::fabs(d) < kTiny) d = kTiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= kMaxIterations; ++m) {
        const int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1 + aa / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1 + aa / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1 / d;
        const double delta = d * c;
        h *= delta;
        if (std::fabs(delta - 1) < kEpsilon) break;
    }
    return h;
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    // The continued fraction converges fast for x < (a+1)/(a+b+2); use symmetry otherwise.
    if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * beta_continued_fraction(a, b, x) / a;
    return 1 - std::exp(log_front) * beta_continued_fraction(b, a, 1 - x) / b;
}

double student_t_two_sided_p(double t, double dof) { return regularized_incomplete_beta(dof / 2, 0.5, dof / (dof + t * t)); }

double f_distribution_upper_p(double f, double dof1, double dof2) {
    if (f <= 0) return 1;
    return regularized_incomplete_beta(dof2 / 2, dof1 / 2, dof2 / (dof2 + dof1 * f));
}

double student_t_two_sided_quantile(double p, double dof) {
    // The two-sided p falls monotonically in t: bisect on [0, hi] after
    // doubling hi past the answer (60 halvings reach double precision).
    double lo = 0, hi = 1;
    while (student_t_two_sided_p(hi, dof) > p && hi < 1e12) hi *= 2;
    for (int i = 0; i < 60; ++i) {
        const double mid = (lo + hi) / 2;
        (student_t_two_sided_p(mid, dof) > p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

namespace {

struct WelchTerms {
    double mean_a, mean_b, se, dof;
};

// Welch's standard error and Welch-Satterthwaite degrees of freedom.
std::optional<WelchTerms> welch_terms(std::span<const double> a, std::span<const double> b) {
    if (a.size() < 2 || b.size() < 2) return std::nullopt;
    Moments ma, mb;
    for (double x : a) ma.add(x);
    for (double x : b) mb.add(x);
    const double va = ma.sample_variance() / double(a.size()), vb = mb.sample_variance() / double(b.size());
    if (va + vb <= 0) return std::nullopt;
    const double dof = (va + vb) * (va + vb) / (va * va / double(a.size() - 1) + vb * vb / double(b.size() - 1));
    return WelchTerms{ma.mean, mb.mean, std::sqrt(va + vb), dof};
}

}  // namespace

std::optional<double> welch_t_test(std::span<const double> a, std::span<const double> b) {
    const auto w = welch_terms(a, b);
    if (!w) return std::nullopt;
    return student_t_two_sided_p((w->mean_a - w->mean_b) / w->se, w->dof);
}

std::optional<MeanDifference> welch_mean_difference(std::span<const double> a, std::span<const double> b) {
    const auto w = welch_terms(a, b);
    if (!w) return std::nullopt;
    const double d = w->mean_b - w->mean_a, half = student_t_two_sided_quantile(0.05, w->dof) * w->se;
    return MeanDifference{d, d - half, d + half};
}

std::optional<double> one_way_anova(std::span<const std::vector<double>> groups) {
    std::size_t k = 0, n = 0;
    Moments all;
    for (const auto& g : groups) {
        if (g.empty()) continue;
        ++k;
        n += g.size();
        for (double x : g) all.add(x);
    }
    if (k < 2 || n <= k) return std::nullopt;
    double between = 0, within = 0;
    for (const auto& g : groups) {
        if (g.empty()) continue;
        Moments m;
        for (double x : g) m.add(x);
        between += double(g.size()) * (m.mean - all.mean) * (m.mean - all.mean);
        within += m.m2;
    }
    if (within <= 0) return std::nullopt;
    const double f = (between / double(k - 1)) / (within / double(n - k));
    return f_distribution_upper_p(f, double(k - 1), double(n - k));
}

}  // namespace hashtrace::metrics
