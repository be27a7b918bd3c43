// generate_dataset DIR SAMPLES [csv|binary]: writes the benchmark dataset and
// its spec (DIR/spec.toml; analyze ignores it, reading only *.csv and *.htlog), for `hashtrace analyze` runs and the pandas/SQLite
// baselines (baseline.py).
#include "dataset.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s DIR SAMPLES [csv|binary]\n", argv[0]);
        return 2;
    }
    const auto format = argc > 3 && std::string(argv[3]) == "csv" ? hashtrace::LogFormat::csv : hashtrace::LogFormat::binary;
    const auto size = hashtrace::bench::generate_dataset(argv[1], std::strtoull(argv[2], nullptr, 10), format);
    std::ofstream(std::filesystem::path(argv[1]) / "spec.toml") << hashtrace::bench::bench_spec();
    std::printf("%llu samples in %llu files\n", (unsigned long long)size.samples, (unsigned long long)size.files);
}
