// The binary reader decodes a sample record without any bounds check when
// its longest form fits before the data's end, a varint without a bounds
// check per byte when ten bytes or more remain, and with one (get_varint)
// near the data's end: all three must give the same values, the same errors
// and the same torn tails, for every length a varint can have, padded
// (non-canonical) encodings included.
#include <hashtrace/detail/binary_format.hpp>
#include <hashtrace/logio/reader.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

using namespace hashtrace::logio;
namespace detail = hashtrace::detail;

namespace {

using Bytes = std::vector<unsigned char>;

// A log of one block: a tracepoint, a sample whose sequence number is
// `seq_varint` (its record's last field), then `after` samples of one-byte
// fields. With after = 0 the varint ends the data (the checked decoder reads
// it when it is shorter than ten bytes); with 12 (60 bytes), the unchecked
// one does, in a record read with bounds checks; with 40, in a record read
// without.
std::string log_with(const Bytes& seq_varint, int after, std::size_t& record_offset) {
    detail::ByteBuffer out;
    detail::BinaryEncoder enc(out);
    enc.file_header({{"node", "N"}, {"instance", "1"}});
    enc.begin_block(1000);
    enc.tracepoint(0, {"", "", "tp", "a", "b", hashtrace::HashFunction::md5});
    record_offset = out.size();
    constexpr char kThreadAndSeq = detail::kSampleThreadBit | detail::kSampleSeqBit;  // no hashes
    out += std::string{kThreadAndSeq, 0 /*tracepoint*/, 2 /*time +1*/, 0 /*thread*/};
    out.append(seq_varint.data(), seq_varint.size());
    for (int i = 0; i < after; ++i) out += std::string{kThreadAndSeq, 0, 2, 0, 5};
    enc.end_block();
    return std::string(out.data(), out.size());
}

struct Samples : LogVisitor {
    std::vector<SampleRecord> s;
    void on_samples(std::span<const SampleRecord> b) override { s.insert(s.end(), b.begin(), b.end()); }
};

// The value LEB128 gives, or nothing for more than 64 bits or no last byte.
std::optional<std::uint64_t> reference(const Bytes& v) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < v.size() && i < 10; ++i) {
        if (i == 9 && v[i] > 1) return std::nullopt;
        value |= std::uint64_t{v[i] & 0x7fu} << (7 * i);
        if (!(v[i] & 0x80)) return value;
    }
    return std::nullopt;
}

// What reading a log gave: the first sample's sequence number code, or the error.
std::string outcome(const std::string& log, std::size_t expected_samples) {
    Samples v;
    try {
        const ReadReport r = read_binary(log, "v.htlog", v);
        if (v.s.size() != expected_samples) return "samples " + std::to_string(v.s.size()) + (r.torn ? " torn" : "");
        return v.s[0].has_seq() ? "seq " + std::to_string(v.s[0].seq) : "no seq";
    } catch (const LogError& e) {
        return "error at " + std::to_string(e.line()) + ": " + e.reason();
    }
}

std::vector<Bytes> encodings() {
    std::vector<Bytes> all;
    for (std::size_t length = 1; length <= 10; ++length) {
        Bytes small(length, 0x80), large(length, 0xff);  // padded zero; the largest value of that length
        small.back() = 0;
        large.back() = length == 10 ? 0x01 : 0x7f;
        all.push_back(small);
        all.push_back(large);
    }
    all.push_back(Bytes{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02});  // beyond 64 bits
    all.push_back(Bytes(11, 0x80));  // no last byte within ten
    return all;
}

}  // namespace

TEST(BinaryVarint, EveryLengthReadsTheSameNearAndFarFromTheEnd) {
    for (const Bytes& v : encodings()) {
        std::size_t record = 0;
        const std::string far = log_with(v, 40, record), middle = log_with(v, 12, record), near = log_with(v, 0, record);
        const auto value = reference(v);
        const std::string expected =
            // The code is value; 0 would mean "not recorded", which no encoding here gives but padded zero.
            value ? (*value ? "seq " + std::to_string(*value - 1) : "no seq")
                  : "error at " + std::to_string(record) + ": byte offset " + std::to_string(record) + ": malformed integer";
        EXPECT_EQ(outcome(far, 41), expected) << v.size() << " bytes";
        EXPECT_EQ(outcome(middle, 13), expected) << v.size() << " bytes";
        EXPECT_EQ(outcome(near, 1), expected) << v.size() << " bytes";
    }
}

TEST(BinaryVarint, AVarintCutShortIsATornTail) {
    for (const Bytes& v : encodings()) {
        if (!reference(v)) continue;
        std::size_t record = 0;
        const std::string whole = log_with(v, 0, record);
        for (std::size_t keep = 1; keep < v.size(); ++keep) {
            // The block header still claims the whole record: the last block is cut short.
            Samples s;
            const ReadReport r = read_binary(std::string_view(whole).substr(0, whole.size() - keep), "v.htlog", s);
            EXPECT_TRUE(r.torn) << v.size() << " bytes, " << keep << " cut";
            EXPECT_EQ(s.s.size(), 0u);
            EXPECT_EQ(r.torn_tail.offset, record);
        }
    }
}
