// hashtrace::graph::parallel::for_each and hashtrace::graph::parallel::both: every task once, tasks handed out in
// order (so a task may wait for an earlier one), failures rethrown only once
// every thread is done.
#include "hashtrace/graph/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

namespace parallel = hashtrace::graph::parallel;

TEST(Parallel, EveryTaskRunsOnceOnAtMostTheGivenThreads) {
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
        for (std::size_t count : {0u, 1u, 2u, 5u, 1000u}) {
            std::vector<std::atomic<int>> runs(count);
            std::vector<std::atomic<unsigned>> worker_of(count);
            hashtrace::graph::parallel::for_each(count, threads, [&](std::size_t k, unsigned worker) {
                ++runs[k];
                worker_of[k] = worker;
            });
            std::set<unsigned> workers;
            for (std::size_t k = 0; k < count; ++k) {
                EXPECT_EQ(runs[k], 1) << "task " << k << " of " << count << " on " << threads << " threads";
                workers.insert(worker_of[k]);
            }
            for (const unsigned w : workers) EXPECT_LT(w, std::min<std::size_t>(threads, count));
        }
    }
}

TEST(Parallel, ATaskMayWaitForAnEarlierOne) {
    // Task 1 waits for task 0: it never starts before task 0 has.
    std::atomic<bool> first_done{false};
    hashtrace::graph::parallel::for_each(2, 2, [&](std::size_t k, unsigned) {
        if (k == 0) {
            first_done = true;
            first_done.notify_all();
        } else {
            first_done.wait(false);
        }
    });
    EXPECT_TRUE(first_done);
}

TEST(Parallel, AFailureIsRethrownOnceTheOthersAreDoneAndStopsTheRest) {
    for (unsigned threads : {1u, 2u, 4u}) {
        std::atomic<int> ran{0};
        EXPECT_THROW(hashtrace::graph::parallel::for_each(200, threads,
                                        [&](std::size_t k, unsigned) {
                                            ++ran;
                                            if (k == 3) throw std::runtime_error("task 3");
                                            if (k > 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                        }),
                     std::runtime_error);
        EXPECT_LT(ran.load(), 200) << threads << " threads";  // the tasks after the failure were not handed out
    }
}

TEST(Parallel, BothRunsEachOnceAndRethrowsAFailure) {
    std::atomic<int> a{0}, b{0};
    hashtrace::graph::parallel::both([&] { ++a; }, [&] { ++b; });
    EXPECT_EQ(a, 1);
    EXPECT_EQ(b, 1);
    EXPECT_THROW(hashtrace::graph::parallel::both([] { throw std::logic_error("a"); }, [] {}), std::logic_error);
    EXPECT_THROW(hashtrace::graph::parallel::both([] {}, [] { throw std::logic_error("b"); }), std::logic_error);
}

TEST(Parallel, ThreadCountZeroMeansOnePerCore) {
    EXPECT_EQ(hashtrace::graph::parallel::thread_count(3), 3u);
    EXPECT_EQ(hashtrace::graph::parallel::thread_count(0), std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace
