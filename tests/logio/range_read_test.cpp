// Reading a time range (ReadOptions::from_ns, to_ns) in depth: every reader (CSV,
// binary versions 1 to 3, from memory and from files, records and columns)
// delivers what a whole read does, less the samples outside the range; a
// binary log of version 3 is decoded only in the blocks that reach into the
// range, and damage there is found as by a whole read.
#include "range_logs.hpp"

#include <hashtrace/logio/log_index.hpp>

#include <algorithm>

using namespace range_test;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();

// The logs of every format and version, whole and torn.
std::vector<NamedLog> all_logs() {
    const BuiltLog v3 = v3_log();
    const BuiltLog unclean = v3_log(40, 50, false);
    const std::string csv = as_csv(v3.bytes);
    const std::string v2 = slurp(HASHTRACE_SDK_TEST_DATA "/version2.htlog");
    return {
        {"v3", v3.bytes},
        {"v3 torn", unclean.bytes.substr(0, unclean.blocks.back() + detail::kBlockHeader + 300)},  // within the last block's records
        {"csv", csv},
        {"csv torn", csv.substr(0, csv.size() - 30)},
        {"v2", v2},
        {"v2 torn", v2.substr(0, v2.size() - 100)},
        {"v1", slurp(HASHTRACE_SDK_TEST_DATA "/version1.htlog")},
    };
}

// Ranges that start and end on sample times, between them, in the middle of
// the log, at its ends, past them, and empty.
std::vector<std::pair<std::int64_t, std::int64_t>> ranges_of(const Delivery& whole) {
    std::vector<std::int64_t> t;
    for (std::int64_t x : whole.times)
        if (x != kNotSample) t.push_back(x);
    std::sort(t.begin(), t.end());
    auto at = [&t](double share) { return t[std::min(t.size() - 1, static_cast<std::size_t>(share * double(t.size())))]; };
    return {{kMin, kMax},      {kMin, at(0.3)},       {at(0.7), kMax},    {at(0.25), at(0.3)}, {at(0.5) + 1, at(0.6) - 1},
            {at(0.4), at(0.4)}, {at(0.9), at(0.1)},    {kMin, t.front()},  {t.back() + 1, kMax}, {t.front(), t.back()},
            {t.back(), kMax}};
}

std::string text_of(std::int64_t from, std::int64_t to, Via via, bool columns) {
    return "[" + std::to_string(from) + ", " + std::to_string(to) + ") " + (via == Via::file ? "file" : "memory") +
           (columns ? " columns" : " records");
}

void expect_same(const Delivery& got, const Delivery& expected, const std::string& what) {
    ASSERT_EQ(got.events.size(), expected.events.size()) << what;
    for (std::size_t i = 0; i < got.events.size(); ++i) ASSERT_EQ(got.events[i], expected.events[i]) << what << ", event " << i;
}

// Every way of reading [from, to) of `bytes` delivers `whole`'s events
// within it and `whole`'s report, but for the samples counted.
void expect_range_reads(const std::string& bytes, const Outcome& whole, std::int64_t from, std::int64_t to, const std::string& name,
                        bool lenient = false) {
    const Delivery expected = filtered(whole.delivery, from, to);
    ReadReport expected_report = whole.report;
    expected_report.samples = expected.samples();
    for (Via via : {Via::memory, Via::file})
        for (bool columns : {false, true}) {
            const std::string what = name + " " + text_of(from, to, via, columns);
            const Outcome got = read(bytes, via, columns, ReadOptions{lenient, from, to});
            ASSERT_EQ(got.error, "") << what;
            expect_same(got.delivery, expected, what);
            EXPECT_EQ(report_text(got.report), report_text(expected_report)) << what;
            EXPECT_EQ(got.bad_repeats, 0u) << what << ": a repeat names a slot the visitor never saw filled";
        }
}

}  // namespace

TEST(RangeRead, EveryReaderDeliversAWholeReadsEventsWithinTheRange) {
    for (const auto& [name, bytes] : all_logs()) {
        const Outcome whole = read(bytes, Via::memory, false);
        ASSERT_EQ(whole.error, "") << name;
        ASSERT_GT(whole.delivery.samples(), 100u) << name;
        expect_same(read(bytes, Via::file, true).delivery, whole.delivery, name + ": columns");
        for (const auto& [from, to] : ranges_of(whole.delivery)) expect_range_reads(bytes, whole, from, to, name);
    }
}

// A window of a version-3 log is read from the blocks that reach into it
// (and those with other records): every other block is ruined here, records
// that do not parse under a checksum that does not match, and the window
// reads as from the intact log.
TEST(RangeRead, AVersion3WindowDecodesOnlyTheBlocksThatReachIntoIt) {
    const BuiltLog log = v3_log(60, 50);
    const std::int64_t from = kT0 + 30 * kBlockNs, to = kT0 + 32 * kBlockNs;
    std::string ruined = log.bytes;
    std::size_t ruined_blocks = 0;
    for (std::size_t at : log.blocks) {
        const bool records = u32_at(ruined, at + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords;
        const bool reaches = i64_at(ruined, at + detail::kBlockMaxTimeAt) >= from && i64_at(ruined, at + detail::kBlockMinTimeAt) < to;
        if (records || reaches) continue;
        std::memset(ruined.data() + at + detail::kBlockHeader, 0xff, u32_at(ruined, at + detail::kBlockLengthAt));
        ++ruined_blocks;
    }
    EXPECT_GT(ruined_blocks, log.blocks.size() * 2 / 3) << "of " << log.blocks.size();
    EXPECT_NE(read(ruined, Via::memory, false).error, "") << "a whole read decodes every block";
    expect_range_reads(ruined, read(log.bytes, Via::memory, false), from, to, "ruined outside the window");
}

// A drop in the middle of a block sends out the reader's batch of samples: a
// ring slot held before it (filled by a sample past the range's end) stays
// held after it, for a late sample of the range that repeats it.
TEST(RangeRead, AHeldSlotOutlivesTheBatch) {
    const BuiltLog log = v3_log();
    const Outcome whole = read(log.bytes, Via::memory, false);
    for (int i = 0; i < 50; i += 2) expect_range_reads(log.bytes, whole, kMin, kT0 + 9 * kBlockNs + i * (kBlockNs / 50), "block 9");
}

// Tracepoints defined, threads named, drops and losses recorded in blocks
// before (or after) a window are delivered with it: its samples use them.
TEST(RangeRead, DefinitionsDropsAndLossesOfOtherBlocksComeWithAWindow) {
    const BuiltLog log = v3_log();
    const Outcome got = read(log.bytes, Via::memory, true, ReadOptions{false, kT0 + 20 * kBlockNs, kT0 + 21 * kBlockNs});
    ASSERT_EQ(got.error, "");
    const auto& e = got.delivery.events;
    for (const char* event : {"tracepoint 0 a N 1", "tracepoint 1 b N 1", "tracepoint 2 c N 1", "thread 1 one"})
        EXPECT_NE(std::find(e.begin(), e.end(), event), e.end()) << event;
    EXPECT_EQ(std::count_if(e.begin(), e.end(), [](const std::string& s) { return s.rfind("sample ", 0) == 0 && s.find(" tp 2 ") != s.npos; }),
              16)
        << "tracepoint c, defined in block 7, in a window of block 20";
    EXPECT_EQ(got.report.drop_records, 8u);
    EXPECT_EQ(got.report.dropped_samples, 24u);
    EXPECT_EQ(got.report.loss_records, 1u);
    EXPECT_EQ(got.report.lost_samples, 7u);
    EXPECT_TRUE(got.report.clean_close);
}

// The binary writer writes a hash out in full once and repeats it from its
// block's ring: when the sample that wrote it is before the range, the first
// delivered sample repeating it gets it written out in full, as records and
// as columns.
TEST(RangeRead, ARepeatOfAHashWrittenBeforeTheRangeComesWrittenOutInFull) {
    detail::ByteBuffer out;
    detail::BinaryEncoder enc(out);
    enc.file_header({{"node", "N"}, {"instance", "1"}});
    enc.begin_block(1000);
    enc.tracepoint(0, {"", "", "a", "x", "y", hashtrace::HashFunction::md5});
    const auto h = hashtrace::hash_of(hashtrace::HashFunction::md5, 1), g = hashtrace::hash_of(hashtrace::HashFunction::md5, 2);
    enc.sample({1000, &h, &g, 0, false, 0, false, 0});  // h into ring slot 0, g into slot 1
    enc.sample({2000, &g, &h, 0, false, 0, false, 0});  // both repeated
    enc.sample({3000, &h, &h, 0, false, 0, false, 0});  // h repeated, output the same as the input
    enc.end_block();
    const std::string log(out.data(), out.size());

    struct Records : LogVisitor {
        std::vector<SampleRecord> s;
        void on_samples(std::span<const SampleRecord> b) override { s.insert(s.end(), b.begin(), b.end()); }
    } records;
    read_binary(log, "ring.htlog", records, ReadOptions{false, 2000, kMax});
    ASSERT_EQ(records.s.size(), 2u);
    EXPECT_EQ(records.s[0].input_ring, SampleRecord::kRingSlot + 1);
    EXPECT_EQ(records.s[0].input_hash, g);
    EXPECT_EQ(records.s[0].output_ring, SampleRecord::kRingSlot + 0);
    EXPECT_EQ(records.s[0].output_hash, h);
    EXPECT_EQ(records.s[1].input_ring, 0u) << "a repeat once its slot was delivered";
    EXPECT_EQ(records.s[1].output_ring, 0u);

    struct Columns : LogVisitor {
        std::size_t literals = 0;
        std::vector<std::uint16_t> refs;
        bool wants_columns() const override { return true; }
        void on_samples(std::span<const SampleRecord>) override { ADD_FAILURE(); }
        void on_sample_columns(const SampleColumns& c) override {
            literals += c.literal_count;
            for (std::size_t i = 0; i < c.size; ++i) refs.insert(refs.end(), {c.input_ref[i], c.output_ref[i]});
        }
    } columns;
    read_binary(log, "ring.htlog", columns, ReadOptions{false, 2000, kMax});
    EXPECT_EQ(columns.literals, 2u);
    constexpr std::uint16_t first = SampleColumns::kFirstLiteral;
    EXPECT_EQ(columns.refs, (std::vector<std::uint16_t>{first, first + 1, first + 1, first + 1}));
    expect_range_reads(log, read(log, Via::memory, false), 2000, kMax, "ring");
}

// Damage in a block a window reads is an error naming the file and the
// block's offset, as in a whole read; so is a damaged length of a block the
// window would pass over (no block marker follows where it says: its
// checksum is then checked). Lenient, both are skipped and counted.
TEST(RangeRead, DamageInTheWindowOrToABlockLengthIsFoundAsByAWholeRead) {
    const BuiltLog log = v3_log();
    const std::int64_t from = kT0 + 30 * kBlockNs, to = kT0 + 31 * kBlockNs;
    struct Damage {
        std::size_t block;
        std::size_t at;  // in the block
    };
    for (const Damage damage : {Damage{31, detail::kBlockHeader + 40}, Damage{11, detail::kBlockLengthAt}}) {
        std::string bad = log.bytes;
        const std::size_t block = log.blocks[damage.block];
        bad[block + damage.at] ^= 0x01;
        for (Via via : {Via::memory, Via::file})
            for (bool columns : {false, true}) {
                const Outcome strict = read(bad, via, columns, ReadOptions{false, from, to});
                EXPECT_NE(strict.error.find(temp_path("read.log").string() + ":" + std::to_string(block) + ": byte offset " +
                                            std::to_string(block) + ": block checksum mismatch"),
                          std::string::npos)
                    << strict.error;
            }
        ReadOptions lenient;
        lenient.lenient = true;
        const Outcome whole = read(bad, Via::memory, false, lenient);
        ASSERT_EQ(whole.report.bad_records, 1u);
        expect_range_reads(bad, whole, from, to, "damaged block " + std::to_string(damage.block), true);
    }
}

// A window read with the jumps its log's index gives (jumps_outside) maps
// only its own blocks: every block jumped over is ruined here, header and
// all (a read that walked the headers fails on the first), and the window
// reads as from the intact log. No jump covers a block with other records
// or one that reaches into the window.
TEST(RangeRead, JumpsFromTheIndexPassOverTheBlocksOutsideAWindowUnread) {
    const BuiltLog log = v3_log(60, 50);
    const fs::path path = temp_path("jumps.log");
    spill(path, log.bytes);
    const LogIndex index = index_log(path);
    fs::remove(path);
    const std::int64_t from = kT0 + 30 * kBlockNs, to = kT0 + 32 * kBlockNs;
    const std::vector<ByteJump> jumps = jumps_outside(index, from, to);
    // The runs of adjacent blocks a window passes over, from their headers.
    std::vector<ByteJump> expected_jumps;
    std::string ruined = log.bytes;
    std::size_t jumped = 0;
    for (const std::size_t at : log.blocks) {
        const bool records = u32_at(log.bytes, at + detail::kBlockFlagsAt) & detail::kBlockHoldsRecords;
        const bool outside = i64_at(log.bytes, at + detail::kBlockMaxTimeAt) < from || i64_at(log.bytes, at + detail::kBlockMinTimeAt) >= to;
        if (records || !outside) continue;
        if (!expected_jumps.empty() && expected_jumps.back().to == at) expected_jumps.back().to = block_end(log.bytes, at);
        else expected_jumps.push_back({at, block_end(log.bytes, at)});
        std::memset(ruined.data() + at, 0xff, block_end(log.bytes, at) - at);
        ++jumped;
    }
    ASSERT_EQ(jumps.size(), expected_jumps.size());
    for (std::size_t k = 0; k < jumps.size(); ++k) {
        EXPECT_EQ(jumps[k].at, expected_jumps[k].at) << "jump " << k;
        EXPECT_EQ(jumps[k].to, expected_jumps[k].to) << "jump " << k;
    }
    EXPECT_GT(jumped, log.blocks.size() * 2 / 3) << "of " << log.blocks.size();
    EXPECT_LT(jumps.size(), jumped / 2) << "adjacent blocks are one jump";
    ReadOptions window;
    window.from_ns = from;
    window.to_ns = to;
    EXPECT_NE(read(ruined, Via::file, true, window).error, "") << "without the jumps, the read walks the ruined headers";
    window.jumps = jumps;
    const Outcome expected = read(log.bytes, Via::memory, false, ReadOptions{false, from, to});
    for (Via via : {Via::memory, Via::file})
        for (bool columns : {false, true}) {
            const Outcome got = read(ruined, via, columns, window);
            ASSERT_EQ(got.error, "") << text_of(from, to, via, columns);
            expect_same(got.delivery, expected.delivery, text_of(from, to, via, columns));
            EXPECT_EQ(report_text(got.report), report_text(expected.report));
        }
}

// A jump is taken only from a block boundary the read reaches, and only to a
// block marker (or the end): one from a stale index, or landing inside a
// block, is not taken, and the read is a plain one.
TEST(RangeRead, AJumpThatDoesNotLandOnABlockIsNotTaken) {
    const BuiltLog log = v3_log();
    const std::int64_t from = kT0 + 30 * kBlockNs, to = kT0 + 31 * kBlockNs;
    const Outcome expected = read(log.bytes, Via::memory, true, ReadOptions{false, from, to});
    const std::vector<ByteJump> stale = {{log.blocks[2] + 1, log.blocks[9]},   // not a block boundary
                                         {log.blocks[10], log.blocks[20] + 7},  // into a block
                                         {log.blocks[21], log.bytes.size() + 100}};  // past the end
    ReadOptions window{false, from, to};
    window.jumps = stale;
    const Outcome got = read(log.bytes, Via::memory, true, window);
    ASSERT_EQ(got.error, "");
    expect_same(got.delivery, expected.delivery, "stale jumps");
    EXPECT_EQ(report_text(got.report), report_text(expected.report));
}
