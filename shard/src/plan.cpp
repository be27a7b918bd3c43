#include "hashtrace/shard/plan.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <exception>
#include <limits>

namespace hashtrace::shard {
namespace {

// The share of a span's samples before time t, the samples spread evenly over [min, max].
double before(const logio::TimeSpan& span, std::int64_t t) {
    if (t <= span.min_ns) return 0;
    if (t > span.max_ns) return double(span.samples);
    const double width = double(span.max_ns) - double(span.min_ns) + 1;
    return double(span.samples) * ((double(t) - double(span.min_ns)) / width);
}

double samples_before(const RunIndex& run, std::int64_t t) {
    double n = 0;
    for (const auto& log : run.logs)
        for (const auto& span : log.spans) n += before(span, t);
    return n;
}

// The first time before which at least `count` samples lie (bisection: the count only grows with time).
std::int64_t time_with_samples_before(const RunIndex& run, double count) {
    std::int64_t low = run.first_ns, high = run.last_ns;
    while (low < high) {
        const std::int64_t mid = low + (high - low) / 2;
        if (samples_before(run, mid) >= count) high = mid;
        else low = mid + 1;
    }
    return low;
}

}  // namespace

RunIndex index_run(const std::vector<std::filesystem::path>& files, bool lenient, unsigned threads) {
    RunIndex run;
    run.logs.resize(files.size());
    std::vector<std::exception_ptr> errors(files.size());
    logio::ReadOptions options;
    options.lenient = lenient;
    graph::parallel::for_each(files.size(), graph::parallel::thread_count(threads), [&](std::size_t i, unsigned) {
        try {
            run.logs[i] = logio::index_log(files[i], options);
        } catch (...) {
            errors[i] = std::current_exception();
        }
    });
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);  // the first bad file in the order given
    bool any = false;
    for (const auto& log : run.logs) {
        if (log.samples == 0) continue;
        run.first_ns = any ? std::min(run.first_ns, log.min_ns) : log.min_ns;
        run.last_ns = any ? std::max(run.last_ns, log.max_ns) : log.max_ns;
        run.samples += log.samples;
        any = true;
    }
    return run;
}

std::vector<TimeRange> cut_shards(const RunIndex& run, std::uint64_t shard_samples) {
    const std::int64_t end = run.last_ns == std::numeric_limits<std::int64_t>::max() ? run.last_ns : run.last_ns + 1;
    std::vector<TimeRange> shards;
    std::int64_t from = run.first_ns;
    const std::uint64_t count = shard_samples == 0 ? 1 : std::max<std::uint64_t>(1, (run.samples + shard_samples - 1) / shard_samples);
    for (std::uint64_t k = 1; k < count; ++k) {
        const std::int64_t to = time_with_samples_before(run, double(run.samples) * double(k) / double(count));
        if (to <= from) continue;  // samples at one time are never split
        shards.push_back({from, to});
        from = to;
    }
    shards.push_back({from, end});
    return shards;
}

std::vector<TimeRange> with_probe(const RunIndex& run, std::vector<TimeRange> shards, unsigned parts) {
    if (shards.empty() || parts < 2) return shards;
    const double first = double(samples_in(run, {run.first_ns, shards.front().to_ns}));
    const std::int64_t cut = time_with_samples_before(run, first / parts);
    if (cut <= shards.front().from_ns || cut >= shards.front().to_ns) return shards;
    shards.insert(shards.begin(), TimeRange{shards.front().from_ns, cut});
    shards[1].from_ns = cut;
    return shards;
}

std::vector<std::uint64_t> samples_per_log(const RunIndex& run, TimeRange range) {
    std::vector<std::uint64_t> out;
    for (const auto& log : run.logs) {
        double n = 0;
        for (const auto& span : log.spans)
            if (span.samples && span.max_ns >= range.from_ns && span.min_ns < range.to_ns) n += before(span, range.to_ns) - before(span, range.from_ns);
        out.push_back(static_cast<std::uint64_t>(n + 1));
    }
    return out;
}

std::uint64_t samples_in(const RunIndex& run, TimeRange range) {
    std::uint64_t n = 0;
    for (std::uint64_t k : samples_per_log(run, range)) n += k;
    return n;
}

}  // namespace hashtrace::shard
