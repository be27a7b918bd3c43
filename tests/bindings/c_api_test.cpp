// The C API (libhashtrace): canonical bytes and hashes equal the C++ SDK's
// (golden vectors), sessions write logs the readers take, and bad input gives
// a status and a message, never a crash.
#include "golden_vectors.hpp"

#include <hashtrace.h>
#include <hashtrace/logio/reader.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace-capi-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    return dir;
}

hashtrace_config config_for(const fs::path& dir, const char* node) {
    static std::string keep;  // the config points at it until hashtrace_start copies it
    keep = dir.string();
    hashtrace_config c;
    hashtrace_config_init(&c);
    c.node_name = node;
    c.log_dir = keep.c_str();
    c.install_signal_handlers = 0;
    c.read_environment = 0;
    return c;
}

std::string hex(const std::uint8_t* d) {
    hashtrace::Hash128 h;
    std::memcpy(h.bytes.data(), d, 16);
    return golden::hash_hex(h);
}

// A golden row's values as C values (the strings and bytes point into `storage`).
std::vector<hashtrace_value> c_values(const std::string& values, std::vector<std::string>& storage) {
    std::vector<hashtrace_value> out;
    const auto tokens = golden::tokens(values);
    storage.reserve(tokens.size());
    for (const auto& t : tokens) {
        const auto colon = t.find(':');
        const std::string type = t.substr(0, colon), lit = t.substr(colon + 1);
        if (type == "u8") out.push_back(hashtrace_u8(static_cast<std::uint8_t>(std::stoull(lit))));
        else if (type == "u16") out.push_back(hashtrace_u16(static_cast<std::uint16_t>(std::stoull(lit))));
        else if (type == "u32") out.push_back(hashtrace_u32(static_cast<std::uint32_t>(std::stoull(lit))));
        else if (type == "u64") out.push_back(hashtrace_u64(std::stoull(lit)));
        else if (type == "i8") out.push_back(hashtrace_i8(static_cast<std::int8_t>(std::stoll(lit))));
        else if (type == "i16") out.push_back(hashtrace_i16(static_cast<std::int16_t>(std::stoll(lit))));
        else if (type == "i32") out.push_back(hashtrace_i32(static_cast<std::int32_t>(std::stoll(lit))));
        else if (type == "i64") out.push_back(hashtrace_i64(std::stoll(lit)));
        else if (type == "f32") {
            const auto bits = static_cast<std::uint32_t>(std::stoul(lit, nullptr, 16));
            float f;
            std::memcpy(&f, &bits, 4);
            out.push_back(hashtrace_f32(f));
        } else if (type == "f64") {
            const auto bits = std::stoull(lit, nullptr, 16);
            double d;
            std::memcpy(&d, &bits, 8);
            out.push_back(hashtrace_f64(d));
        } else if (type == "bool") out.push_back(hashtrace_bool(lit == "1"));
        else {
            storage.push_back(golden::from_hex(lit));
            const std::string& s = storage.back();
            out.push_back(type == "str" ? hashtrace_strn(s.data(), s.size()) : hashtrace_bytes(s.data(), s.size()));
        }
    }
    return out;
}

TEST(CApi, GoldenVectorsEncodeAndHashAsTheSdkDoes) {
    for (const auto& v : golden::read(HASHTRACE_GOLDEN_VECTORS)) {
        SCOPED_TRACE(v.name);
        std::vector<std::string> storage;
        const auto values = c_values(v.values, storage);
        std::string buf(4096, '\0');
        std::size_t n = 0;
        ASSERT_EQ(hashtrace_encode(values.data(), values.size(), buf.data(), buf.size(), &n), HASHTRACE_OK);
        EXPECT_EQ(golden::to_hex(buf.substr(0, n)), v.canonical_hex);
        std::uint8_t d[16];
        ASSERT_EQ(hashtrace_hash_values(HASHTRACE_MD5, values.data(), values.size(), d), HASHTRACE_OK);
        EXPECT_EQ(hex(d), v.md5_hex);
        ASSERT_EQ(hashtrace_hash_values(HASHTRACE_XXH3_128, values.data(), values.size(), d), HASHTRACE_OK);
        EXPECT_EQ(hex(d), v.xxh3_hex);
        ASSERT_EQ(hashtrace_hash_bytes(HASHTRACE_MD5, buf.data(), n, d), HASHTRACE_OK);
        EXPECT_EQ(hex(d), v.md5_hex);
    }
}

TEST(CApi, EncodeReportsTheSizeItNeeds) {
    const hashtrace_value v[2] = {hashtrace_u64(1), hashtrace_str("abc")};
    char small[4];
    std::size_t n = 0;
    EXPECT_EQ(hashtrace_encode(v, 2, small, sizeof small, &n), HASHTRACE_E_BUFFER_TOO_SMALL);
    EXPECT_EQ(n, 8u + 4u + 3u);
    EXPECT_NE(std::string(hashtrace_last_error()).find("15 bytes"), std::string::npos);
}

TEST(CApi, BadValuesAreRejectedWithAReason) {
    const char bad_utf8[] = {'a', static_cast<char>(0xc3), '(', 0};
    const hashtrace_value overlong = hashtrace_strn("\xc0\xaf", 2);
    const hashtrace_value surrogate = hashtrace_strn("\xed\xa0\x80", 3);
    const hashtrace_value truncated = hashtrace_strn("\xe2\x82", 2);
    std::uint8_t d[16];
    const hashtrace_value s = hashtrace_str(bad_utf8);
    EXPECT_EQ(hashtrace_hash_values(HASHTRACE_MD5, &s, 1, d), HASHTRACE_E_INVALID_UTF8);
    EXPECT_NE(std::string(hashtrace_last_error()).find("not valid UTF-8"), std::string::npos);
    for (const auto& v : {overlong, surrogate, truncated}) EXPECT_EQ(hashtrace_hash_values(HASHTRACE_MD5, &v, 1, d), HASHTRACE_E_INVALID_UTF8);
    // The same bytes as HASHTRACE_TYPE_BYTES are fine.
    const hashtrace_value b = hashtrace_bytes(bad_utf8, 3);
    EXPECT_EQ(hashtrace_hash_values(HASHTRACE_MD5, &b, 1, d), HASHTRACE_OK);
    hashtrace_value unknown = hashtrace_u8(1);
    unknown.type = 99;
    EXPECT_EQ(hashtrace_hash_values(HASHTRACE_MD5, &unknown, 1, d), HASHTRACE_E_INVALID_ARGUMENT);
    EXPECT_NE(std::string(hashtrace_last_error()).find("type tag 99"), std::string::npos);
    const hashtrace_value null_span = hashtrace_bytes(nullptr, 5);
    EXPECT_EQ(hashtrace_hash_values(HASHTRACE_MD5, &null_span, 1, d), HASHTRACE_E_INVALID_ARGUMENT);
    EXPECT_EQ(hashtrace_hash_values(7, &b, 1, d), HASHTRACE_E_INVALID_ARGUMENT);
    EXPECT_EQ(hashtrace_hash_values(HASHTRACE_MD5, nullptr, 2, d), HASHTRACE_E_INVALID_ARGUMENT);
}

TEST(CApi, BadDefinitionsReturnNull) {
    EXPECT_EQ(hashtrace_tracepoint_define(nullptr, "a", "b", HASHTRACE_MD5, 0), nullptr);
    EXPECT_EQ(hashtrace_tracepoint_define("", "a", "b", HASHTRACE_MD5, 0), nullptr);
    EXPECT_EQ(hashtrace_tracepoint_define("x", "a", "b", 5, 0), nullptr);
    EXPECT_NE(std::string(hashtrace_last_error()).find("unknown hash function 5"), std::string::npos);
    EXPECT_EQ(hashtrace_tracepoint_define("has,comma", "a", "b", HASHTRACE_MD5, 0), nullptr);
    EXPECT_EQ(hashtrace_tracepoint_define("x", "line\nbreak", "b", HASHTRACE_MD5, 0), nullptr);
    hashtrace_tracepoint* a = hashtrace_tracepoint_define("Same", "in", "out", HASHTRACE_MD5, 0);
    EXPECT_NE(a, nullptr);
    EXPECT_EQ(hashtrace_tracepoint_define("Same", "in", "out", HASHTRACE_MD5, 0), a);
    EXPECT_NE(hashtrace_tracepoint_define("Same", "in", "out", HASHTRACE_MD5, 1), a);
}

TEST(CApi, SessionMisuseIsReportedNotFatal) {
    const fs::path dir = fresh_dir("misuse");
    hashtrace_tracepoint* tp = hashtrace_tracepoint_define("Misuse", "id", "id", HASHTRACE_MD5, 0);
    const hashtrace_value id = hashtrace_u32(1);
    EXPECT_EQ(hashtrace_record_inout(tp, &id, 1), HASHTRACE_E_NOT_RUNNING);  // before any session
    hashtrace_config c = config_for(dir, "Misuse");
    ASSERT_EQ(hashtrace_start(&c), HASHTRACE_OK) << hashtrace_last_error();
    EXPECT_EQ(hashtrace_start(&c), HASHTRACE_E_ALREADY_RUNNING);
    EXPECT_NE(std::string(hashtrace_last_error()).find("already running"), std::string::npos);
    EXPECT_EQ(hashtrace_record_inout(nullptr, &id, 1), HASHTRACE_E_INVALID_ARGUMENT);
    EXPECT_EQ(hashtrace_record_inout(tp, &id, 1), HASHTRACE_OK);
    EXPECT_EQ(hashtrace_stop(), HASHTRACE_OK);
    EXPECT_EQ(hashtrace_record_inout(tp, &id, 1), HASHTRACE_E_NOT_RUNNING);  // after stop
    EXPECT_EQ(hashtrace_stop(), HASHTRACE_OK);                               // twice: a no-op
    hashtrace_stats s;
    hashtrace_get_stats(&s);
    EXPECT_EQ(s.written, 1u);

    hashtrace_config bad = c;
    bad.struct_size = 8;
    EXPECT_EQ(hashtrace_start(&bad), HASHTRACE_E_INVALID_ARGUMENT);
    bad = c;
    bad.format = 7;
    EXPECT_EQ(hashtrace_start(&bad), HASHTRACE_E_INVALID_ARGUMENT);
    bad = c;
    bad.queue_capacity = 0;
    EXPECT_EQ(hashtrace_start(&bad), HASHTRACE_E_INVALID_ARGUMENT);
    const fs::path file = dir / "not-a-dir";
    fs::create_directories(dir);
    { std::ofstream(file) << "x"; }
    bad = config_for(file, "Misuse");
    EXPECT_EQ(hashtrace_start(&bad), HASHTRACE_E_IO);
    EXPECT_EQ(hashtrace_running(), 0);
    fs::remove_all(dir);
}

TEST(CApi, EnvironmentIsReadWhenAsked) {
    const fs::path dir = fresh_dir("env");
    hashtrace_config c = config_for(dir, "Env");
    c.read_environment = 1;
    ::setenv("HASHTRACE_FORMAT", "xml", 1);
    EXPECT_EQ(hashtrace_start(&c), HASHTRACE_E_INVALID_ARGUMENT);
    EXPECT_NE(std::string(hashtrace_last_error()).find("HASHTRACE_FORMAT"), std::string::npos);
    ::setenv("HASHTRACE_FORMAT", "csv", 1);
    ASSERT_EQ(hashtrace_start(&c), HASHTRACE_OK);
    hashtrace_stop();
    ::unsetenv("HASHTRACE_FORMAT");
    char path[4096];
    EXPECT_GT(hashtrace_log_path(path, sizeof path), 0u);
    EXPECT_EQ(fs::path(path).extension(), ".csv");
    fs::remove_all(dir);
}

// Every way of recording, in both formats: the log holds the labels, the
// hash function and exactly the hashes the SDK computes for the same state.
class CApiSession : public testing::TestWithParam<int> {};

TEST_P(CApiSession, LogHoldsTheSdksHashes) {
    const fs::path dir = fresh_dir("session" + std::to_string(GetParam()));
    hashtrace_config c = config_for(dir, "CNode");
    c.format = GetParam();
    ASSERT_EQ(hashtrace_start(&c), HASHTRACE_OK) << hashtrace_last_error();
    ASSERT_EQ(hashtrace_set_thread_name("main thread"), HASHTRACE_OK);
    EXPECT_EQ(hashtrace_set_thread_name("\xff"), HASHTRACE_E_INVALID_UTF8);
    auto* typed = hashtrace_tracepoint_define("Typed", "messageid", "force", HASHTRACE_MD5, 0);
    auto* deferred = hashtrace_tracepoint_define("Deferred", "messageid", "force", HASHTRACE_MD5, 1);
    auto* fast = hashtrace_tracepoint_define("Fast", "messageid", "messageid", HASHTRACE_XXH3_128, 0);
    auto* raw = hashtrace_tracepoint_define("Raw", "", "payload", HASHTRACE_MD5, 1);
    const hashtrace_value id = hashtrace_u64(42);
    const hashtrace_value out[2] = {hashtrace_u64(42), hashtrace_f64(1.5)};
    ASSERT_EQ(hashtrace_record(typed, &id, 1, out, 2), HASHTRACE_OK);
    ASSERT_EQ(hashtrace_record(deferred, &id, 1, out, 2), HASHTRACE_OK);
    ASSERT_EQ(hashtrace_record_inout(fast, &id, 1), HASHTRACE_OK);
    std::vector<unsigned char> big(300);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>(i * 131 + 7);
    const std::string canonical_big = hashtrace::canonical_bytes(hashtrace::bytes(big.data(), big.size()));
    ASSERT_EQ(hashtrace_record_bytes(raw, nullptr, 0, canonical_big.data(), canonical_big.size()), HASHTRACE_OK);
    hashtrace_set_enabled(0);
    EXPECT_EQ(hashtrace_enabled(), 0);
    EXPECT_EQ(hashtrace_record_inout(fast, &id, 1), HASHTRACE_OK);  // switched off: not recorded, not an error
    hashtrace_set_enabled(1);
    const hashtrace_value bad = hashtrace_strn("\xc3", 1);
    EXPECT_EQ(hashtrace_record(typed, &bad, 1, nullptr, 0), HASHTRACE_E_INVALID_UTF8);
    ASSERT_EQ(hashtrace_stop(), HASHTRACE_OK);

    char path[4096];
    hashtrace_log_path(path, sizeof path);
    const auto log = hashtrace::logio::load_log(path);
    ASSERT_EQ(log.samples.size(), 4u);
    using hashtrace::HashFunction;
    const auto md5_id = hashtrace::hash_of(HashFunction::md5, std::uint64_t{42});
    const auto md5_force = hashtrace::hash_of(HashFunction::md5, std::uint64_t{42}, 1.5);
    for (int i = 0; i < 2; ++i) {
        const auto& s = log.samples[i];
        const auto& tp = log.tracepoints[s.tracepoint];
        EXPECT_EQ(tp.tracepoint_name, i == 0 ? "Typed" : "Deferred");
        EXPECT_EQ(tp.input_hash_type, "messageid");
        EXPECT_EQ(tp.output_hash_type, "force");
        EXPECT_EQ(s.input_hash, md5_id);
        EXPECT_EQ(s.output_hash, md5_force);
    }
    const auto& f = log.samples[2];
    EXPECT_EQ(log.tracepoints[f.tracepoint].hash_function, HashFunction::xxh3_128);
    EXPECT_EQ(f.input_hash, hashtrace::hash_of(HashFunction::xxh3_128, std::uint64_t{42}));
    EXPECT_EQ(f.output_hash, f.input_hash);
    const auto& r = log.samples[3];
    EXPECT_FALSE(r.has_input());
    EXPECT_EQ(r.output_hash, hashtrace::hash_of(HashFunction::md5, hashtrace::bytes(big.data(), big.size())));
    if (GetParam() == HASHTRACE_FORMAT_BINARY) {
        ASSERT_FALSE(log.threads.empty());
        EXPECT_EQ(log.threads.back().name, "main thread");
        EXPECT_TRUE(log.report.clean_close);
    }
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Formats, CApiSession, testing::Values(HASHTRACE_FORMAT_BINARY, HASHTRACE_FORMAT_CSV));

TEST(CApi, FullQueueDropsAreCountedAndLogged) {
    const fs::path dir = fresh_dir("drops");
    hashtrace_config c = config_for(dir, "Drops");
    c.queue_capacity = 1;
    c.flush_interval_ms = 1000;
    ASSERT_EQ(hashtrace_start(&c), HASHTRACE_OK);
    auto* tp = hashtrace_tracepoint_define("Burst", "n", "n", HASHTRACE_MD5, 0);
    for (std::uint32_t i = 0; i < 100000; ++i) {
        const hashtrace_value v = hashtrace_u32(i);
        hashtrace_record_inout(tp, &v, 1);
    }
    hashtrace_stop();
    hashtrace_stats s;
    hashtrace_get_stats(&s);
    EXPECT_EQ(s.written + s.dropped, 100000u);
    EXPECT_GT(s.dropped, 0u);
    char path[4096];
    hashtrace_log_path(path, sizeof path);
    const auto log = hashtrace::logio::load_log(path);
    EXPECT_EQ(log.samples.size(), s.written);
    EXPECT_EQ(log.report.dropped_samples, s.dropped);
    fs::remove_all(dir);
}

TEST(CApi, ThreadsRecordConcurrently) {
    const fs::path dir = fresh_dir("threads");
    hashtrace_config c = config_for(dir, "Threads");
    c.when_full = HASHTRACE_FULL_BLOCK;
    ASSERT_EQ(hashtrace_start(&c), HASHTRACE_OK);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([t] {
            auto* tp = hashtrace_tracepoint_define("Worker", "n", "n", HASHTRACE_MD5, t % 2);
            for (std::uint32_t i = 0; i < 2000; ++i) {
                const hashtrace_value v[2] = {hashtrace_i32(t), hashtrace_u32(i)};
                hashtrace_record_inout(tp, v, 2);
            }
        });
    for (auto& th : threads) th.join();
    hashtrace_stop();
    hashtrace_stats s;
    hashtrace_get_stats(&s);
    EXPECT_EQ(s.written, 6000u);
    EXPECT_EQ(s.dropped, 0u);
    fs::remove_all(dir);
}

// The plain C99 example (no C++ in its own code) writes a log whose samples link.
TEST(CApi, PlainCExampleTraces) {
    const fs::path dir = fresh_dir("example");
    const std::string cmd = "HASHTRACE_LOG_DIR=" + dir.string() + " " HASHTRACE_C_EXAMPLE " 500 > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    const auto logs = hashtrace::logio::find_logs({dir});
    ASSERT_EQ(logs.size(), 1u);
    const auto log = hashtrace::logio::load_log(logs[0]);
    ASSERT_EQ(log.samples.size(), 1000u);
    for (std::size_t i = 0; i < log.samples.size(); i += 2) EXPECT_EQ(log.samples[i].output_hash, log.samples[i + 1].input_hash);
    EXPECT_EQ(log.header.at("node"), "CExample");
    fs::remove_all(dir);
}

}  // namespace
