// The loader against a brute-force reference on random runs: the samples of
// all files stably sorted by time (ties in file order), hash ids dense and
// equal exactly where the hash values are. Files in time order (the merge),
// with a few backward steps (still the merge, more runs) and in random order
// (the sort of a copy); ties within and across files; 1-3 workers; CSV from
// memory and binary logs from disk, whose reader's ring of recent hashes the
// loader reuses (also across hash functions, which it must not confuse).
#include "hashtrace/graph/load.hpp"
#include "hashtrace/logio/writer.hpp"
#include "test_logs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>
#include <set>

namespace hashtrace::graph {
namespace {

namespace fs = std::filesystem;

struct Expected {
    std::uint32_t file;
    std::int64_t time_ns;
    int tracepoint;
    int in, out;  // label number, -1 for none
    std::uint32_t thread;
};

enum class Shape { sorted, few_runs, random };

// `max_files` files of up to `max_samples` samples each.
std::vector<std::vector<Expected>> random_run(std::mt19937& rng, Shape shape, int labels, int max_files = 6, int max_samples = 400) {
    std::vector<std::vector<Expected>> files(std::uniform_int_distribution<>(1, max_files)(rng));
    for (std::uint32_t f = 0; f < files.size(); ++f) {
        const int n = std::uniform_int_distribution<>(0, max_samples)(rng);
        std::int64_t t = std::uniform_int_distribution<>(0, 20)(rng);
        for (int i = 0; i < n; ++i) {
            if (shape == Shape::random)
                t = std::uniform_int_distribution<>(0, 300)(rng);
            else if (shape == Shape::few_runs && std::uniform_int_distribution<>(0, 150)(rng) == 0)
                t -= std::uniform_int_distribution<>(1, 40)(rng);  // may go below the file's start: ties with others
            else
                t += std::uniform_int_distribution<>(0, 3)(rng);  // 0: ties within the file
            auto label = [&] { return std::uniform_int_distribution<>(0, 9)(rng) < 7 ? std::uniform_int_distribution<>(0, labels - 1)(rng) : -1; };
            files[f].push_back({f, 100'000'000'000 + t, std::uniform_int_distribution<>(0, 2)(rng), label(), label(),
                                static_cast<std::uint32_t>(std::uniform_int_distribution<>(0, 3)(rng))});
        }
    }
    return files;
}

std::string label(int k) { return "h" + std::to_string(k); }

// The hash of label k, memoised: label_hash formats hex, which the large
// runs would otherwise spend most of their time in.
const Hash128& label_bytes(int k) {
    static std::map<int, Hash128> memo;
    const auto [it, added] = memo.try_emplace(k);
    if (added && !from_hex(testing::label_hash(label(k)), it->second)) throw std::logic_error("label_hash is not hex");
    return it->second;
}
std::string tracepoint_name(int t) { return "T" + std::to_string(t); }
std::string node_name(std::uint32_t f) { return "N" + std::to_string(f); }

// Whether tracepoint T2 of the binary logs hashes with xxh3: the same bytes
// under md5 and xxh3 are two hashes (and the binary reader's ring holds bytes
// only). Else every tracepoint uses md5, the loader's path for logs of one
// hash function.
enum class Functions { md5_only, md5_and_xxh3 };
Functions functions = Functions::md5_and_xxh3;  // of the binary test running
HashFunction function_of(int tracepoint, bool binary) {
    return binary && tracepoint == 2 && functions == Functions::md5_and_xxh3 ? HashFunction::xxh3_128 : HashFunction::md5;
}

void expect_matches(const SampleSet& s, const std::vector<std::vector<Expected>>& files, bool binary, const std::string& what) {
    std::vector<Expected> expected;
    for (const auto& f : files) expected.insert(expected.end(), f.begin(), f.end());
    std::stable_sort(expected.begin(), expected.end(), [](const Expected& a, const Expected& b) { return a.time_ns < b.time_ns; });
    ASSERT_EQ(s.size(), expected.size()) << what;
    std::set<std::pair<int, HashFunction>> labels;
    for (const Expected& e : expected) {
        if (e.in >= 0) labels.insert({e.in, function_of(e.tracepoint, binary)});
        if (e.out >= 0) labels.insert({e.out, function_of(e.tracepoint, binary)});
    }
    ASSERT_EQ(s.hash_count, labels.size()) << what;
    ASSERT_EQ(s.hash_values.size(), s.hash_count) << what;
    std::set<std::pair<std::array<char, 32>, HashFunction>> distinct;
    for (std::size_t id = 0; id < s.hash_values.size(); ++id) distinct.insert({to_hex(s.hash_values[id]), s.hash_functions[id]});
    ASSERT_EQ(distinct.size(), s.hash_count) << what << ": one id per hash";
    auto expect_hash = [&](HashId id, int k, HashFunction f, std::size_t i, const char* side) {
        if (k < 0) {
            EXPECT_EQ(id, kNoHash) << what << ", sample " << i << " " << side;
            return;
        }
        ASSERT_LT(id, s.hash_count) << what << ", sample " << i << " " << side;
        EXPECT_EQ(s.hash_values[id], label_bytes(k)) << what << ", sample " << i << " " << side;
        EXPECT_EQ(s.hash_functions[id], f) << what << ", sample " << i << " " << side;
    };
    for (SampleIndex i = 0; i < s.size(); ++i) {
        const Expected& e = expected[i];
        ASSERT_EQ(s.time_ns[i], e.time_ns) << what << ", sample " << i;
        ASSERT_EQ(s.file_of(i), e.file) << what << ", sample " << i;
        EXPECT_EQ(s.tracepoint_of(i).node_name, node_name(e.file)) << what << ", sample " << i;
        EXPECT_EQ(s.tracepoint_of(i).tracepoint_name, tracepoint_name(e.tracepoint)) << what << ", sample " << i;
        EXPECT_EQ(s.thread[i], e.thread) << what << ", sample " << i;
        expect_hash(s.input[i], e.in, function_of(e.tracepoint, binary), i, "input");
        expect_hash(s.output[i], e.out, function_of(e.tracepoint, binary), i, "output");
    }
}

LoadOptions options_with(unsigned threads) {
    LoadOptions options;
    options.keep_hash_values = true;
    options.threads = threads;
    return options;
}

TEST(LoadOrder, CsvRunsMatchAStableSortOfAllFiles) {
    std::mt19937 rng(7);
    for (int round = 0; round < 60; ++round) {
        const auto shape = static_cast<Shape>(round % 3);
        const auto files = random_run(rng, shape, round % 2 ? 20 : 2000);
        std::vector<std::pair<std::string, std::string>> logs;
        for (const auto& file : files) {
            testing::CsvLog log;
            for (const Expected& e : file)
                log.row(node_name(e.file), "1", tracepoint_name(e.tracepoint), static_cast<double>(e.time_ns) * 1e-9,
                        e.in < 0 ? "" : label(e.in), e.out < 0 ? "" : label(e.out), static_cast<int>(e.thread));
            logs.emplace_back(node_name(static_cast<std::uint32_t>(logs.size())) + ".csv", log.text());
        }
        for (unsigned threads : {1u, 2u, 3u})
            expect_matches(load_samples_from_memory(logs, options_with(threads)), files, false,
                           "round " + std::to_string(round) + ", " + std::to_string(threads) + " threads");
    }
}

// Writes `files` as binary logs into `dir` and checks what loading them on
// each number of workers gives.
void check_binary(const fs::path& dir, const std::vector<std::vector<Expected>>& files, const std::string& what,
                  std::initializer_list<unsigned> worker_counts = {1, 2, 3}) {
    std::vector<fs::path> paths;
    for (std::uint32_t f = 0; f < files.size(); ++f) {
        paths.push_back(dir / (node_name(f) + ".htlog"));
        auto writer = logio::open_writer(paths.back(), LogFormat::binary, {{"node", node_name(f)}, {"instance", "1"}});
        std::vector<std::uint32_t> tracepoints;
        for (int t = 0; t < 3; ++t) tracepoints.push_back(writer->add_tracepoint({node_name(f), "1", tracepoint_name(t), "id", "id", function_of(t, true)}));
        for (const Expected& e : files[f]) {
            logio::SampleRecord r;
            r.time_ns = e.time_ns;
            r.tracepoint = tracepoints[static_cast<std::size_t>(e.tracepoint)];
            r.thread = e.thread;
            r.flags = logio::SampleRecord::kHasThread;
            if (e.in >= 0) {
                r.input_hash = label_bytes(e.in);
                r.flags |= logio::SampleRecord::kHasInput;
            }
            if (e.out >= 0) {
                r.output_hash = label_bytes(e.out);
                r.flags |= logio::SampleRecord::kHasOutput;
            }
            writer->write(r);
        }
        writer->close();
    }
    for (const unsigned threads : worker_counts)
        expect_matches(load_samples(paths, options_with(threads)), files, true, what + ", " + std::to_string(threads) + " threads");
    for (const auto& p : paths) fs::remove(p);
}

fs::path scratch_dir(const char* name) {
    const fs::path dir = fs::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

// Logs of up to `max_samples` in every fourth round, so that some span
// several of the binary reader's batches (4096 samples) and repeat hashes of
// earlier batches.
void expect_binary_runs_match(Functions f, int rounds, int max_samples) {
    functions = f;
    const fs::path dir = scratch_dir("hashtrace-load-order");
    std::mt19937 rng(11);
    for (int round = 0; round < rounds; ++round) {
        const auto shape = static_cast<Shape>(round % 3);
        check_binary(dir, random_run(rng, shape, round % 2 ? 20 : 2000, 6, round % 4 == 3 ? max_samples : 400), "round " + std::to_string(round));
    }
    fs::remove_all(dir);
}

TEST(LoadOrder, BinaryRunsMatchAStableSortOfAllFiles) { expect_binary_runs_match(Functions::md5_and_xxh3, 30, 12000); }

TEST(LoadOrder, BinaryRunsOfOneHashFunctionMatchAStableSortOfAllFiles) {
    expect_binary_runs_match(Functions::md5_only, 30, 12000);
}

// A worker's chunk past one block of its columns (512k samples): the merge
// and the sort read each run's samples across the blocks, runs of one chunk
// crossing at different times.
TEST(LoadOrder, ChunksOfSeveralBlocksMatchAStableSort) {
    functions = Functions::md5_and_xxh3;
    const fs::path dir = scratch_dir("hashtrace-load-blocks");
    std::mt19937 rng(13);
    for (const Shape shape : {Shape::few_runs, Shape::random}) {
        std::vector<std::vector<Expected>> files;
        for (std::size_t samples = 0; samples < 600'000;) {  // one worker's chunk: more than a block
            files = random_run(rng, shape, 5000, 3, 400'000);
            samples = 0;
            for (const auto& f : files) samples += f.size();
        }
        check_binary(dir, files, shape == Shape::random ? "random order" : "few runs", {1});
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace hashtrace::graph
