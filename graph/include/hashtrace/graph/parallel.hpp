// hashtrace/graph/parallel.hpp - the one way the analysis stages spread work
// over cores: loading, linking and the metrics each hand a list of tasks to
// for_each, which runs them on threads started for that call.
//
//   hashtrace::graph::parallel::for_each(units.size(), threads, [&](std::size_t k, unsigned worker) { ... });
//   hashtrace::graph::parallel::both([&] { first_half(); }, [&] { second_half(); });
//
// Threads are started per call rather than kept in a pool: a stage makes a
// handful of calls per run, each of milliseconds at least, and a thread's
// start (~20 us) is noise beside that.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace hashtrace::graph::parallel {

// The threads to use for a requested count, 0 meaning one per core.
inline unsigned thread_count(unsigned requested) noexcept {
    return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

// The part [begin, end) of `n` items that task c of `chunks` takes: the
// items in order, split as evenly as whole items allow.
template <typename Index = std::size_t>
std::pair<Index, Index> chunk(std::size_t n, std::size_t c, std::size_t chunks) noexcept {
    return {Index(n * c / chunks), Index(n * (c + 1) / chunks)};
}

// Runs task(k, worker) for every k in [0, count) on up to `threads` threads,
// the calling thread's being worker 0. Each worker takes the next k when
// done, so tasks start in increasing k: a task may wait for an earlier one,
// which has started. Returns once all are done; a failed task stops the
// handing out of others, and its exception is rethrown here (the calling
// thread's, when several failed).
template <typename Task>
void for_each(std::size_t count, unsigned threads, const Task& task) {
    std::atomic<std::size_t> next{0};
    std::mutex failure_mutex;
    std::exception_ptr other_failed;
    auto work = [&](unsigned worker) {
        for (std::size_t k; (k = next.fetch_add(1)) < count;) task(k, worker);
    };
    auto work_on_other_thread = [&](unsigned worker) {
        try {
            work(worker);
        } catch (...) {
            next = count;
            const std::lock_guard lock(failure_mutex);
            if (!other_failed) other_failed = std::current_exception();
        }
    };
    {
        std::vector<std::jthread> others;
        for (unsigned w = 1; w < std::min<std::size_t>(threads, count); ++w) others.emplace_back(work_on_other_thread, w);
        try {
            work(0);
        } catch (...) {
            next = count;
            throw;  // once the others are joined
        }
    }
    if (other_failed) std::rethrow_exception(other_failed);
}

// Runs `a` and `b` on two threads, this one and a new one, whatever the
// analysis's thread count (for the two halves of one step).
template <typename A, typename B>
void both(const A& a, const B& b) {
    for_each(2, 2, [&](std::size_t k, unsigned) {
        if (k == 0) b();
        else a();
    });
}

}  // namespace hashtrace::graph::parallel
