// The CSV reader on arbitrary bytes, strict and lenient: it may reject input
// only with LogError, and never crash or read out of bounds.
#include "counting_visitor.hpp"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (bool lenient : {false, true}) {
        hashtrace::fuzz::CountingVisitor visitor;
        try {
            hashtrace::logio::read_csv(text, "fuzz.csv", visitor, {lenient});
        } catch (const hashtrace::logio::LogError&) {
        }
    }
    return 0;
}
