// The CSV reader against docs/spec.md section 1: what it accepts, what it rejects
// (with file, line and reason), and what a torn tail does.
#include <hashtrace/logio/reader.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <random>

using namespace hashtrace::logio;

namespace {

const std::string kHeader =
    "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n";
const std::string kHashA = "0123456789abcdef0123456789abcdef";
const std::string kHashB = "fedcba9876543210fedcba9876543210";

struct Collect : LogVisitor {
    std::vector<TracepointInfo> tps;
    std::vector<SampleRecord> samples;
    std::vector<DropRecord> drops;
    void on_tracepoint(std::uint32_t i, const TracepointInfo& t) override {
        ASSERT_EQ(i, tps.size());
        tps.push_back(t);
    }
    void on_samples(std::span<const SampleRecord> b) override { samples.insert(samples.end(), b.begin(), b.end()); }
    void on_drop(const DropRecord& d) override { drops.push_back(d); }
};

ReadReport parse(const std::string& text, Collect& c, bool lenient = false) {
    return read_csv(text, "run/chai.csv", c, {lenient});
}

void expect_error(const std::string& text, std::uint64_t line, const std::string& reason_part) {
    Collect c;
    try {
        parse(text, c);
        FAIL() << "accepted: " << text;
    } catch (const LogError& e) {
        EXPECT_EQ(e.file(), "run/chai.csv");
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("run/chai.csv:" + std::to_string(line) + ":"), std::string::npos);
    }
}

}  // namespace

TEST(CsvReader, ReadsThePapersEightColumns) {
    Collect c;
    const auto r = parse(kHeader + "Chai,4108243516105288,Send,messageid,messageid,1505300904.9114494," + kHashA + "," +
                             kHashB + "\nChai,4108243516105288,Recv,messageid,,1505300905," + kHashB + ",\n",
                         c);
    ASSERT_EQ(c.samples.size(), 2u);
    EXPECT_EQ(r.samples, 2u);
    ASSERT_EQ(c.tps.size(), 2u);
    EXPECT_EQ(c.tps[0].node_name, "Chai");
    EXPECT_EQ(c.tps[0].instance, "4108243516105288");
    EXPECT_EQ(c.tps[0].tracepoint_name, "Send");
    EXPECT_EQ(c.tps[0].hash_function, hashtrace::HashFunction::md5);  // absent column: md5
    EXPECT_EQ(c.samples[0].time_ns, 1505300904911449400);
    EXPECT_EQ(c.samples[1].time_ns, 1505300905000000000);
    EXPECT_TRUE(c.samples[1].has_input());
    EXPECT_FALSE(c.samples[1].has_output());
    EXPECT_FALSE(c.samples[0].has_thread());
    EXPECT_EQ(hashtrace::to_hex(c.samples[0].input_hash)[0], '0');
}

TEST(CsvReader, HashesInEitherCaseDecodeToTheSameBytes) {
    Collect c;
    parse(kHeader + "A,1,T,x,x,1.0,0123456789ABCDEF0123456789abcdef,0123456789abcdef0123456789ABCDEF\n", c);
    ASSERT_EQ(c.samples.size(), 1u);
    EXPECT_EQ(c.samples[0].input_hash, c.samples[0].output_hash);
    const auto hex = hashtrace::to_hex(c.samples[0].input_hash);
    EXPECT_EQ(std::string(hex.begin(), hex.end()), kHashA);
}

// The decoder (16 digits at a time where SSE2 is available) against
// from_hex, the reference: every byte value at every position of both halves
// of the field, in a valid hash otherwise.
TEST(CsvReader, HashFieldsAcceptExactlyHexDigitsAtEveryPosition) {
    for (int position = 0; position < 32; ++position) {
        for (int b = 0; b < 256; ++b) {
            if (b == '\n' || b == ',' || b == '\r') continue;  // these change the row, not the field
            std::string hash = kHashA;
            hash[position] = static_cast<char>(b);
            hashtrace::Hash128 reference;
            const bool valid = hashtrace::from_hex(hash, reference);
            Collect c;
            if (valid) {
                parse(kHeader + "A,1,T,x,x,1.0," + hash + ",\n", c);
                ASSERT_EQ(c.samples.size(), 1u);
                EXPECT_EQ(c.samples[0].input_hash, reference) << "byte " << b << " at " << position;
            } else {
                EXPECT_THROW(parse(kHeader + "A,1,T,x,x,1.0," + hash + ",\n", c), LogError) << "byte " << b << " at " << position;
            }
        }
    }
}

TEST(CsvReader, ManyTracepointsAndLongFieldsSplitCorrectly) {
    // More tracepoints than the reader compares field by field, names longer
    // than a 16-byte scan step, and commas at every offset within a step.
    std::string text = kHeader;
    for (int row = 0; row < 100; ++row) {
        const std::string name(static_cast<std::size_t>(row % 37), static_cast<char>('a' + row % 26));
        text += "Node" + std::to_string(row % 20) + ",1,T" + name + ",x,x,1." + std::to_string(row) + "," + kHashA + "," +
                (row % 2 ? kHashB : "") + "\n";
    }
    Collect c;
    parse(text, c);
    ASSERT_EQ(c.samples.size(), 100u);
    for (int row = 0; row < 100; ++row) {
        const TracepointInfo& tp = c.tps[c.samples[row].tracepoint];
        EXPECT_EQ(tp.node_name, "Node" + std::to_string(row % 20));
        EXPECT_EQ(tp.tracepoint_name, "T" + std::string(static_cast<std::size_t>(row % 37), static_cast<char>('a' + row % 26)));
        EXPECT_EQ(c.samples[row].has_output(), row % 2 == 1);
    }
    EXPECT_EQ(c.tps.size(), 100u);  // (row % 20, row % 37 with its letter) never repeats within 100 rows
}

TEST(CsvReader, FindsColumnsByNameAndIgnoresUnknownOnes) {
    Collect c;
    parse("sample_time,extra,node_name,instance,tracepoint_name,input_hash_type,output_hash_type,input_hash,output_hash,"
          "thread,seq,hash_function\n1.5,whatever,Unity,7,Draw,frame,frame," +
              kHashA + ",," + "3,42,xxh3_128\n",
          c);
    ASSERT_EQ(c.samples.size(), 1u);
    EXPECT_EQ(c.samples[0].time_ns, 1500000000);
    EXPECT_EQ(c.samples[0].thread, 3u);
    EXPECT_EQ(c.samples[0].seq, 42u);
    EXPECT_EQ(c.tps[0].node_name, "Unity");
    EXPECT_EQ(c.tps[0].hash_function, hashtrace::HashFunction::xxh3_128);
}

TEST(CsvReader, DroppedRowsAreDropRecordsNotSamples) {
    Collect c;
    const auto r = parse(kHeader.substr(0, kHeader.size() - 1) + ",dropped\nA,1,T,x,x,2.0,,,17\nA,1,T,x,x,2.5," + kHashA +
                             ",,\n",
                         c);
    ASSERT_EQ(c.drops.size(), 1u);
    EXPECT_EQ(c.drops[0].count, 17u);
    EXPECT_EQ(c.samples.size(), 1u);
    EXPECT_EQ(r.dropped_samples, 17u);
}

TEST(CsvReader, TimeIsParsedExactlyIntoNanoseconds) {
    std::int64_t t = 0;
    ASSERT_TRUE(parse_time_ns("1763814333.123456789", t));
    EXPECT_EQ(t, 1763814333123456789);  // a double would round this
    ASSERT_TRUE(parse_time_ns("0.000000001", t));
    EXPECT_EQ(t, 1);
    ASSERT_TRUE(parse_time_ns("12", t));
    EXPECT_EQ(t, 12000000000);
    EXPECT_FALSE(parse_time_ns("1.0000000001", t));  // finer than a nanosecond
    EXPECT_FALSE(parse_time_ns("1e9", t));
    EXPECT_FALSE(parse_time_ns("", t));
    EXPECT_FALSE(parse_time_ns(".", t));
    EXPECT_FALSE(parse_time_ns("99999999999999999999", t));
    EXPECT_EQ(format_time_ns(1763814333000000005), "1763814333.000000005");
}

namespace {

// The language of parse_time_ns as first written, a digit at a time: the
// reference for the faster parser (eight digits at a time).
bool reference_parse_time(std::string_view text, std::int64_t& out) {
    std::size_t i = 0;
    const bool negative = !text.empty() && text[0] == '-';
    if (negative) ++i;
    std::uint64_t seconds = 0;
    std::size_t int_digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++int_digits) {
        if (seconds > (std::numeric_limits<std::int64_t>::max() / 1000000000 - 9) / 10) return false;
        seconds = seconds * 10 + static_cast<std::uint64_t>(text[i] - '0');
    }
    std::uint64_t frac = 0;
    std::size_t frac_digits = 0;
    if (i < text.size() && text[i] == '.') {
        ++i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++frac_digits) {
            if (frac_digits == 9) return false;
            frac = frac * 10 + static_cast<std::uint64_t>(text[i] - '0');
        }
    }
    if (i != text.size() || (int_digits == 0 && frac_digits == 0)) return false;
    for (std::size_t d = frac_digits; d < 9; ++d) frac *= 10;
    const auto ns = static_cast<std::int64_t>(seconds * 1000000000 + frac);
    out = negative ? -ns : ns;
    return true;
}

}  // namespace

TEST(CsvReader, TimeParserAgreesWithTheDigitByDigitReference) {
    std::mt19937_64 random(7);
    const std::string alphabet = "0123456789.-e /:";
    std::vector<std::string> texts = {"9223372029", "9223372030", "9223372029.999999999", "-9223372029.999999999",
                                      "00000000000000000000000000001.5", "12345678", "12345678.", ".12345678", "1.12345678x",
                                      "1234567a", "12345678.123456789", "12345678.1234567890", "0.00000000"};
    for (int n = 0; n < 200000; ++n) {
        std::string t;
        const std::size_t length = random() % 30;
        for (std::size_t k = 0; k < length; ++k)
            t += random() % 4 ? static_cast<char>('0' + random() % 10) : alphabet[random() % alphabet.size()];
        texts.push_back(t);
    }
    for (int b = 0; b < 256; ++b) texts.push_back("1700000000.0004" + std::string(1, static_cast<char>(b)) + "7697");
    for (const std::string& t : texts) {
        std::int64_t fast = 0, reference = 0;
        const bool fast_ok = parse_time_ns(t, fast), reference_ok = reference_parse_time(t, reference);
        ASSERT_EQ(fast_ok, reference_ok) << "'" << t << "'";
        if (fast_ok) {
            ASSERT_EQ(fast, reference) << "'" << t << "'";
        }
    }
}

TEST(CsvReader, MalformedLinesNameFileLineAndReason) {
    expect_error("", 1, "empty file");
    expect_error("node_name,instance\n", 1, "missing required column 'tracepoint_name'");
    expect_error(kHeader.substr(0, kHeader.size() - 1) + ",node_name\n", 1, "appears twice");
    expect_error(kHeader + "A,1,T,x,x,1.0," + kHashA + "\n", 2, "expected 8 fields, found 7");
    expect_error(kHeader + "A,1,T,x,x,1.0," + kHashA + ",,,\n", 2, "more fields");
    expect_error(kHeader + "A,1,T,x,x,1.0," + kHashA + "," + kHashB + "\nA,1,T,x,x,soon,,\n", 3, "sample_time 'soon'");
    expect_error(kHeader + "A,1,T,x,x,1.0,abc,\n", 2, "input_hash 'abc' is not 32 hex digits");
    // 32 characters, one not a hex digit (':' and 'g' border the digit ranges).
    expect_error(kHeader + "A,1,T,x,x,1.0,,0123456789abcdef0123456789abcde:\n", 2, "output_hash '0123456789abcdef0123456789abcde:'");
    expect_error(kHeader + "A,1,T,x,x,1.0,g123456789abcdef0123456789abcdef,\n", 2, "is not 32 hex digits");
    expect_error(kHeader + ",1,T,x,x,1.0,,\n", 2, "node_name is empty");
    expect_error("node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash,"
                 "hash_function\nA,1,T,x,x,1.0,,,sha1\n",
                 2, "unknown hash_function 'sha1'");
}

TEST(CsvReader, LenientModeSkipsAndCountsBadLines) {
    Collect c;
    const auto r = parse(kHeader + "A,1,T,x,x,1.0,,\nbroken line\nA,1,T,x,x,zz,,\nA,1,T,x,x,2.0,,\n", c, true);
    EXPECT_EQ(c.samples.size(), 2u);
    EXPECT_EQ(r.bad_records, 2u);
    ASSERT_EQ(r.bad_record_messages.size(), 2u);
    EXPECT_NE(r.bad_record_messages[0].find("run/chai.csv:3:"), std::string::npos);
}

TEST(CsvReader, TornLastLineIsReportedNotAnError) {
    Collect c;
    const std::string good = kHeader + "A,1,T,x,x,1.0," + kHashA + ",\n";
    const auto r = parse(good + "A,1,T,x,x,2.0,01234", c);
    EXPECT_EQ(c.samples.size(), 1u);
    EXPECT_TRUE(r.torn);
    EXPECT_EQ(r.torn_tail.offset, good.size());
    EXPECT_NE(r.torn_tail.reason.find("line 3"), std::string::npos);
}

TEST(CsvReader, CrLfLineEndsAreAccepted) {
    Collect c;
    parse("node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\r\n"
          "A,1,T,x,x,1.0,,\r\n",
          c);
    EXPECT_EQ(c.samples.size(), 1u);
}

namespace {

// The error a one-row log gives: "line:column: reason".
std::string row_error(const std::string& row, const std::string& header = kHeader) {
    Collect c;
    try {
        parse(header + row + "\n", c);
    } catch (const LogError& e) {
        EXPECT_EQ(std::string(e.what()), "run/chai.csv:" + std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.reason());
        return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.reason();
    }
    return "accepted";
}

}  // namespace

// docs/spec.md section 1: a log is UTF-8 text. A NUL, a byte that is not UTF-8 (overlong
// forms, surrogates and code points past U+10FFFF included) or a sequence cut
// short is an error at its line and column, whichever field it is in.
TEST(CsvReader, BytesThatAreNotUtf8TextAreErrorsAtTheirLineAndColumn) {
    EXPECT_EQ(row_error("A,1,T\xff,x,x,1.0,,"), "2:6: field 'tracepoint_name' has a byte 0xff that is not UTF-8 (a log is UTF-8 text)");
    EXPECT_EQ(row_error(std::string("A,1\0,T,x,x,1.0,,", 16)), "2:4: field 'instance' has a NUL byte (a log is UTF-8 text)");
    EXPECT_EQ(row_error("A,1,T,x,x\xc0\xaf,1.0,,"), "2:10: field 'output_hash_type' has a byte 0xc0 that is not UTF-8 (a log is UTF-8 text)");
    EXPECT_EQ(row_error("A,1,T,\xed\xa0\x80,x,1.0,,"), "2:7: field 'input_hash_type' has a byte 0xed that is not UTF-8 (a log is UTF-8 text)");
    EXPECT_EQ(row_error("A,1,T,x,x,1.0,,,\xf4\x90\x80\x80", kHeader.substr(0, kHeader.size() - 1) + ",note\n"),
              "2:17: field 'note' has a byte 0xf4 that is not UTF-8 (a log is UTF-8 text)");
    EXPECT_EQ(row_error("A\xe2\x82,1,T,x,x,1.0,,"), "2:2: field 'node_name' has a byte 0xe2 that is not UTF-8 (a log is UTF-8 text)");
    // Past the first 16 bytes (the vectorised scan) and in an unknown column too.
    EXPECT_EQ(row_error("Node,1,LongTracepointName\x80,x,x,1.0,,"), "2:26: field 'tracepoint_name' has a byte 0x80 that is not UTF-8 (a log is UTF-8 text)");
    EXPECT_EQ(row_error("A,1,T,x,x,1.0,,", "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,"
                                             "input_hash,output_\xfehash\n"),
              "1:99: header has a byte 0xfe that is not UTF-8 (a log is UTF-8 text)");
    // Well-formed UTF-8 of every length is text.
    Collect c;
    parse(kHeader + "Kr\xc3\xa4" "fte,1,\xe6\x97\xa5\xe6\x9c\xac,\xf0\x9f\x9a\x80,x,1.0,,\n", c);
    ASSERT_EQ(c.samples.size(), 1u);
    EXPECT_EQ(c.tps[0].node_name, "Kr\xc3\xa4" "fte");
    EXPECT_EQ(c.tps[0].input_hash_type, "\xf0\x9f\x9a\x80");
}

TEST(CsvReader, AnEmptyInstanceIsAnErrorAtItsColumn) {
    EXPECT_EQ(row_error("Chai,,Send,x,x,1.0,,"), "2:6: instance is empty (docs/spec.md section 1: decimal or hex text naming the process run)");
}

TEST(CsvReader, FieldErrorsNameTheirColumn) {
    EXPECT_EQ(row_error("A,1,T,x,x,soon,,"), "2:11: sample_time 'soon' is not decimal seconds with at most 9 fractional digits");
    EXPECT_EQ(row_error("A,1,T,x,x,1.0,," + kHashA.substr(1)), "2:16: output_hash '" + kHashA.substr(1) + "' is not 32 hex digits");
}

TEST(CsvReader, LenientModeSkipsAndCountsTextErrorsAndEmptyInstances) {
    Collect c;
    const auto r = parse(kHeader + "A,1,T,x,x,1.0,,\nA,1,T\xff,x,x,1.1,,\nA,,T,x,x,1.2,,\n" + std::string("A,1,T,x\0,x,1.3,,\n", 17) +
                             "A,1,T,x,x,2.0,,\n",
                         c, true);
    EXPECT_EQ(c.samples.size(), 2u);
    EXPECT_EQ(r.bad_records, 3u);
    ASSERT_EQ(r.bad_record_messages.size(), 3u);
    EXPECT_EQ(r.bad_record_messages[0], "run/chai.csv:3:6: field 'tracepoint_name' has a byte 0xff that is not UTF-8 (a log is UTF-8 text)");
    EXPECT_EQ(r.bad_record_messages[1], "run/chai.csv:4:3: instance is empty (docs/spec.md section 1: decimal or hex text naming the process run)");
    EXPECT_EQ(r.bad_record_messages[2], "run/chai.csv:5:8: field 'input_hash_type' has a NUL byte (a log is UTF-8 text)");
}

// Thread ids are 32-bit after reading, the largest meaning "no thread": that
// one is refused, not taken for "no thread".
TEST(CsvReader, AThreadIdOutsideItsWidthIsRefused) {
    const std::string header = kHeader.substr(0, kHeader.size() - 1) + ",thread\n";
    EXPECT_EQ(row_error("A,1,T,x,x,1.0,,,4294967295", header), "2:17: thread '4294967295' is not an integer id from 0 to 4294967294");
    EXPECT_EQ(row_error("A,1,T,x,x,1.0,,,4294967296", header), "2:17: thread '4294967296' is not an integer id from 0 to 4294967294");
    Collect c;
    parse(header + "A,1,T,x,x,1.0,,,4294967294\n", c);
    ASSERT_EQ(c.samples.size(), 1u);
    EXPECT_EQ(c.samples[0].thread, 4294967294u);
}

// The full width of seq is kept; a sum of drop counts past 64 bits is refused, not wrapped.
TEST(CsvReader, SeqKeepsItsFullWidthAndDropCountsMayNotOverflowTheirSum) {
    const std::string header = kHeader.substr(0, kHeader.size() - 1) + ",seq,dropped\n";
    Collect c;
    auto r = parse(header + "A,1,T,x,x,1.0,,,18446744073709551615,\nA,1,T,x,x,1.0,,,,18446744073709551615\n", c);
    ASSERT_EQ(c.samples.size(), 1u);
    EXPECT_TRUE(c.samples[0].has_seq());
    EXPECT_EQ(c.samples[0].seq, 18446744073709551615u);
    EXPECT_EQ(r.dropped_samples, 18446744073709551615u);
    expect_error(header + "A,1,T,x,x,1.0,,,,18446744073709551615\nA,1,T,x,x,1.0,,,,1\n", 3, "sum of drops past 2^64 - 1");
    Collect lenient;
    r = parse(header + "A,1,T,x,x,1.0,,,,18446744073709551615\nA,1,T,x,x,1.0,,,,1\n", lenient, true);
    EXPECT_EQ(r.dropped_samples, 18446744073709551615u);
    EXPECT_EQ(r.drop_records, 1u);
    EXPECT_EQ(r.bad_records, 1u);
}
