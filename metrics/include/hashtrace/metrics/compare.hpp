// hashtrace/metrics/compare.hpp - several runs (configurations) side by side,
// with a significance test per metric as the paper did for its Table 5.
#pragma once

#include "hashtrace/metrics/analysis.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hashtrace::metrics {

struct NamedRun {
    std::string name;
    AnalysisResult result;  // analysed with MetricOptions::keep_values
};

enum class Better { lower, higher, none };

// The effect size beside a p-value: with thousands of samples every difference
// is "significant", so the reader needs how large it is. mean(b) - mean(a) with
// its 95 % confidence interval (Welch: unequal variances).
struct MeanDifference {
    double difference = 0;
    double low = 0, high = 0;  // 95 % confidence interval
};

struct ComparedMetric {
    std::string name;                        // "M4 <interval>", "M3", "M11", ...
    std::string unit;
    Better better = Better::none;
    std::vector<std::optional<Summary>> per_run;  // absent when a run lacks the metric
    std::optional<std::size_t> best;         // index of the best run
    std::string test;                        // "welch", "anova" or "" (single values: no test)
    std::optional<double> p_value;
    // Per run, its difference from the first run (the baseline); absent for the
    // first run, for single values and where the interval is undefined.
    std::vector<std::optional<MeanDifference>> vs_first;
};

struct Comparison {
    std::vector<std::string> runs;
    std::vector<ComparedMetric> metrics;
};

Comparison compare(std::span<const NamedRun> runs);
std::string render_comparison_table(const Comparison&);
std::string render_comparison_markdown(const Comparison&);

// Significance tests (two-sided). nullopt when undefined (too few values, zero variance).
std::optional<double> welch_t_test(std::span<const double> a, std::span<const double> b);
// mean(b) - mean(a) with its 95 % Welch interval; nullopt as welch_t_test.
std::optional<MeanDifference> welch_mean_difference(std::span<const double> a, std::span<const double> b);
std::optional<double> one_way_anova(std::span<const std::vector<double>> groups);

// Distribution functions behind them.
double regularized_incomplete_beta(double a, double b, double x);
double student_t_two_sided_p(double t, double dof);
// The t with student_t_two_sided_p(t, dof) == p, for 0 < p < 1.
double student_t_two_sided_quantile(double p, double dof);
double f_distribution_upper_p(double f, double dof1, double dof2);

}  // namespace hashtrace::metrics
