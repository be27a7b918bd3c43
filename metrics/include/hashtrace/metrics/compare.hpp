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

struct ComparedMetric {
    std::string name;                        // "M4 <interval>", "M3", "M11", ...
    std::string unit;
    Better better = Better::none;
    std::vector<std::optional<Summary>> per_run;  // absent when a run lacks the metric
    std::optional<std::size_t> best;         // index of the best run
    std::string test;                        // "welch", "anova" or "" (single values: no test)
    std::optional<double> p_value;
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
std::optional<double> one_way_anova(std::span<const std::vector<double>> groups);

// Distribution functions behind them.
double regularized_incomplete_beta(double a, double b, double x);
double student_t_two_sided_p(double t, double dof);
double f_distribution_upper_p(double f, double dof1, double dof2);

}  // namespace hashtrace::metrics
