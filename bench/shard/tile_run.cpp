// tile_run IN OUT COPIES: a run COPIES times as long, with a known answer.
//
// Writes each log of the run IN (a directory) to OUT as COPIES copies one
// after the other in time, each shifted by the run's length (plus 1 ms), with
// every hash of copy k made unique to it (its last bytes xor k). No link can
// join two copies, so the long run's analysis is the short one's times
// COPIES, exactly: samples, edges, leftovers and interval counts multiply,
// minima, maxima and percentiles stay. Memory: one input log at a time.
// For the bounded-memory benchmarks (docs/benchmarks.md, "Runs of any
// length"): a 1 G-sample run from the 4 M Case Study 2 dataset.
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using namespace hashtrace;

namespace {

void mark_copy(Hash128& h, std::uint64_t copy) {
    for (int b = 0; b < 4; ++b) h.bytes[15 - b] ^= static_cast<std::uint8_t>(copy >> (8 * b));
}

std::uint64_t tile(const fs::path& in, const fs::path& out, std::uint64_t copies, std::int64_t period_ns) {
    const logio::SampleLog log = logio::load_log(in);
    auto writer = logio::open_writer(out, logio::LogFormat::binary, log.header);
    for (const auto& tp : log.tracepoints) writer->add_tracepoint(tp);
    for (const auto& t : log.threads) writer->add_thread(t);
    for (std::uint64_t k = 0; k < copies; ++k) {
        const std::int64_t shift = static_cast<std::int64_t>(k) * period_ns;
        for (logio::SampleRecord s : log.samples) {
            s.time_ns += shift;
            mark_copy(s.input_hash, k);
            mark_copy(s.output_hash, k);
            writer->write(s);
        }
        for (logio::DropRecord d : log.drops) {
            d.time_ns += shift;
            writer->write(d);
        }
    }
    writer->close();
    return log.samples.size() * copies;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR COPIES\n", argv[0]);
        return 2;
    }
    const fs::path in = argv[1], out = argv[2];
    const std::uint64_t copies = std::strtoull(argv[3], nullptr, 10);
    const auto files = logio::find_logs({in});
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto& f : files) {
        const logio::SampleLog log = logio::load_log(f);
        for (const auto& s : log.samples) first = std::min(first, s.time_ns), last = std::max(last, s.time_ns);
    }
    const std::int64_t period = last - first + 1'000'000;
    fs::create_directories(out);
    std::uint64_t samples = 0;
    for (const auto& f : files) samples += tile(f, out / f.filename(), copies, period);
    if (fs::exists(in / "spec.toml")) fs::copy_file(in / "spec.toml", out / "spec.toml", fs::copy_options::overwrite_existing);
    std::printf("%llu samples in %zu files, %llu copies of %.3f s\n", (unsigned long long)samples, files.size(), (unsigned long long)copies,
                double(period) / 1e9);
}
