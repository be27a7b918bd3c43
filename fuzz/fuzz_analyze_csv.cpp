// The whole pipeline on an arbitrary CSV log.
#include "analyze_leniently.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    hashtrace::fuzz::analyze_leniently("fuzz.csv", std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
