// Which block checksum is cheaper for the writer thread: XXH3-64 (libxxhash,
// already the SDK's fast hash) or CRC32C with the SSE4.2 instruction, over a
// block of encoded samples (a flush's worth: 64 KiB, and the 1 MiB the writer
// flushes at most).
//
//   build/bench/sdk/bench_checksum
#include <benchmark/benchmark.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

std::vector<unsigned char> block(std::size_t n) {
    std::vector<unsigned char> b(n);
    std::uint64_t x = 0x9e3779b97f4a7c15u;
    for (auto& c : b) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = static_cast<unsigned char>(x);
    }
    return b;
}

// CRC32C eight bytes an instruction, one dependency chain: what a writer
// without a hand-interleaved kernel gets.
__attribute__((target("sse4.2"))) std::uint32_t crc32c(const unsigned char* p, std::size_t n) {
    std::uint64_t crc = 0xffffffffu;
    for (; n >= 8; n -= 8, p += 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        crc = __builtin_ia32_crc32di(crc, v);
    }
    auto c = static_cast<std::uint32_t>(crc);
    for (; n; --n) c = __builtin_ia32_crc32qi(c, *p++);
    return ~c;
}

void BM_BlockXXH3_64(benchmark::State& state) {
    const auto b = block(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(XXH3_64bits(b.data(), b.size()));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}

void BM_BlockCRC32C(benchmark::State& state) {
    const auto b = block(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(crc32c(b.data(), b.size()));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}

}  // namespace

BENCHMARK(BM_BlockXXH3_64)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_BlockCRC32C)->Arg(64 << 10)->Arg(1 << 20);

BENCHMARK_MAIN();
