// The binary reader's time per sample as a log grows, for a log of one
// recording thread and for one whose every sample names another thread (a
// thread per task; the reader follows each thread's sequence number, and
// once looked the thread up in a list: quadratic time). Linear reading shows
// as the same ns/sample at every size, close to one thread's.
//
//   build/bench/logio/bench_binary_reader
#include <hashtrace/detail/binary_format.hpp>
#include <hashtrace/logio/reader.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

namespace detail = hashtrace::detail;

void put_varint(std::string& out, std::uint64_t v) {
    unsigned char bytes[10];
    out.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(detail::put_varint(bytes, v) - bytes));
}

// `samples` samples 1 ns apart, each with its thread and sequence number
// written out and a new output hash, in blocks of 1 MiB as the writers cut them.
std::string make_log(std::size_t samples, bool thread_per_sample) {
    std::string out;
    std::string block;
    auto end_block = [&] {
        out.append(reinterpret_cast<const char*>(detail::kBlockMagic), 4);
        for (int i = 0; i < 4; ++i) out += static_cast<char>(block.size() >> (8 * i));
        const std::uint64_t base = 1'700'000'000'000'000'000 + out.size();
        for (int i = 0; i < 8; ++i) out += static_cast<char>(base >> (8 * i));
        out += block;
        block.clear();
    };
    out.append(reinterpret_cast<const char*>(detail::kBinaryMagic), 8);
    const std::string header = "node=N\ninstance=1\n";
    out += static_cast<char>(detail::kBinaryVersion & 0xff);
    out += static_cast<char>(detail::kBinaryVersion >> 8);
    out += std::string(2, '\0');  // flags
    for (int i = 0; i < 4; ++i) out += static_cast<char>(header.size() >> (8 * i));
    out += header;
    block += static_cast<char>(detail::kTagTracepoint);
    block += std::string{0, 2, 't', 'p', 0, 0, 0, 0, 0};  // index 0, name "tp", no hash types, md5, the header's node and instance
    for (std::size_t i = 0; i < samples; ++i) {
        block += static_cast<char>(detail::kSampleThreadBit | detail::kSampleSeqBit | detail::kHashLiteral << 2);
        block += '\0';  // tracepoint
        block += '\2';  // time + 1 ns
        put_varint(block, thread_per_sample ? i + 1 : 1);
        put_varint(block, thread_per_sample ? 1 : i + 1);
        for (int b = 0; b < 16; ++b) block += static_cast<char>(b < 8 ? i >> (8 * b) : 0x5a);
        if (block.size() >= (std::size_t{1} << 20)) end_block();
    }
    if (!block.empty()) end_block();
    return out;
}

// Receives the columns as analyze does, and keeps nothing.
struct Discard : hashtrace::logio::LogVisitor {
    std::size_t samples = 0;
    bool wants_columns() const override { return true; }
    void on_samples(std::span<const hashtrace::logio::SampleRecord>) override {}
    void on_sample_columns(const hashtrace::logio::SampleColumns& c) override { samples += c.size; }
};

void BM_ReadBinary(benchmark::State& state) {
    const auto samples = static_cast<std::size_t>(state.range(0));
    const bool thread_per_sample = state.range(1) != 0;
    const std::string log = make_log(samples, thread_per_sample);
    for (auto _ : state) {
        Discard visitor;
        hashtrace::logio::read_binary(log, "bench.htlog", visitor);
        if (visitor.samples != samples) state.SkipWithError("samples missing");
        benchmark::DoNotOptimize(visitor.samples);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * samples));
    state.SetLabel(thread_per_sample ? "a thread per sample" : "one thread");
}

}  // namespace

BENCHMARK(BM_ReadBinary)->ArgsProduct({{10'000, 40'000, 80'000, 240'000}, {0, 1}})->ArgNames({"samples", "threads"})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
