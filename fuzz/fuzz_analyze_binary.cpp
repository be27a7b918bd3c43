// The whole pipeline on an arbitrary binary log: the loader takes a binary
// log's samples through the reader's columns (SampleColumns) and maps ring
// repeats to ids itself, a path the record-based reader fuzzer never runs.
// Inputs without the binary magic would be read as CSV (fuzz_analyze_csv's
// job): they are passed over. Start from fuzz/corpus/binary_reader.
#include "analyze_leniently.hpp"
#include "hashtrace/detail/binary_format.hpp"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr auto& magic = hashtrace::detail::kBinaryMagic;
    if (size < sizeof magic || std::memcmp(data, magic, sizeof magic) != 0) return 0;
    hashtrace::fuzz::analyze_leniently("fuzz.htlog", std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
