// The clock-quality record parser (clock-*.htclock) on arbitrary text: it may
// reject input only with ClockFileError, and records it accepts must survive
// being written out and read back unchanged.
#include "hashtrace/clocksync/clock_record.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace {

namespace cs = hashtrace::clocksync;

// Records' equality, a NaN drift equal to itself (the value read back is NaN as well).
bool same(const cs::ClockRecord& a, const cs::ClockRecord& b) {
    if (a.freq_ppb && b.freq_ppb && std::isnan(*a.freq_ppb) && std::isnan(*b.freq_ppb)) {
        cs::ClockRecord a_without = a, b_without = b;
        a_without.freq_ppb = b_without.freq_ppb = 0.0;
        return a_without == b_without;
    }
    return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<cs::ClockRecord> records;
    try {
        records = cs::parse_clock_records(text, "fuzz.htclock");
    } catch (const cs::ClockFileError&) {
        return 0;
    }
    std::string written = std::string(cs::kClockFileHeader) + "\n";
    for (const auto& r : records) {
        (void)cs::sync_status(r);
        written += cs::format_clock_record(r);
    }
    const auto back = cs::parse_clock_records(written, "written.htclock");  // a ClockFileError here is a finding too
    if (back.size() != records.size()) std::abort();
    for (std::size_t i = 0; i < records.size(); ++i)
        if (!same(records[i], back[i])) std::abort();
    return 0;
}
