// The label of in/out/inout is recorded, not hashed: ids of two kinds that
// are equal give equal hashes. hashtrace::typed hashes the label first, and
// the log says so in both formats.
#include "test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <fstream>
#include <map>
#include <sstream>

using hashtrace::HashFunction;
using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;

namespace {

struct Recorded {
    std::map<std::string, hashtrace::logio::SampleRecord> sample;  // by tracepoint name
    std::map<std::string, hashtrace::logio::TracepointInfo> tracepoint;
};

Recorded run(const std::filesystem::path& dir, hashtrace::LogFormat format) {
    {
        hashtrace::Session session(test_config(dir, format));
        const std::uint32_t id = 7;
        TRACEPOINT("Detect", hashtrace::none, hashtrace::out("det", id));
        TRACEPOINT("Frame", hashtrace::in("frame", id), hashtrace::none);
        TRACEPOINT("TypedDetect", hashtrace::typed, hashtrace::none, hashtrace::out("det", id));
        TRACEPOINT("TypedFrame", hashtrace::typed, hashtrace::in("frame", id), hashtrace::none);
        TRACEPOINT("TypedTrack", hashtrace::typed, hashtrace::inout("det", id));
        TRACEPOINT_DEFERRED("TypedDeferred", hashtrace::typed, hashtrace::in("det", id), hashtrace::out("frame", id));
        TRACEPOINT_FAST("TypedFast", hashtrace::typed, hashtrace::inout("det", id));
    }
    const auto log = hashtrace::logio::load_log(hashtrace::logio::find_logs({dir}).at(0));
    Recorded r;
    for (const auto& s : log.samples) {
        const auto& tp = log.tracepoints.at(s.tracepoint);
        r.sample[tp.tracepoint_name] = s;
        r.tracepoint[tp.tracepoint_name] = tp;
    }
    return r;
}

}  // namespace

TEST(TypedHashing, LabelsAreNotHashedUnlessTheTracepointHashesTyped) {
    for (auto format : {hashtrace::LogFormat::binary, hashtrace::LogFormat::csv}) {
        SCOPED_TRACE(format == hashtrace::LogFormat::csv ? "csv" : "binary");
        const auto dir = fresh_dir(format == hashtrace::LogFormat::csv ? "csv" : "bin");
        const Recorded r = run(dir, format);
        ASSERT_EQ(r.sample.size(), 7u);
        const std::uint32_t id = 7;
        // The default: the label is only recorded, so a "det" id links to a "frame" id.
        EXPECT_EQ(r.sample.at("Detect").output_hash, r.sample.at("Frame").input_hash);
        EXPECT_EQ(r.sample.at("Detect").output_hash, hashtrace::hash_of(HashFunction::md5, id));
        EXPECT_FALSE(r.tracepoint.at("Detect").typed_hashing);
        // Typed: the label's canonical bytes first.
        const auto det = hashtrace::hash_of(HashFunction::md5, std::string_view("det"), id);
        const auto frame = hashtrace::hash_of(HashFunction::md5, std::string_view("frame"), id);
        EXPECT_NE(det, frame);
        EXPECT_EQ(r.sample.at("TypedDetect").output_hash, det);
        EXPECT_EQ(r.sample.at("TypedFrame").input_hash, frame);
        EXPECT_EQ(r.sample.at("TypedTrack").input_hash, det);
        EXPECT_EQ(r.sample.at("TypedTrack").output_hash, det);
        // Deferred: hashed by the writer, with the same result.
        EXPECT_EQ(r.sample.at("TypedDeferred").input_hash, det);
        EXPECT_EQ(r.sample.at("TypedDeferred").output_hash, frame);
        EXPECT_EQ(r.sample.at("TypedFast").input_hash, hashtrace::hash_of(HashFunction::xxh3_128, std::string_view("det"), id));
        for (const char* name : {"TypedDetect", "TypedFrame", "TypedTrack", "TypedDeferred", "TypedFast"})
            EXPECT_TRUE(r.tracepoint.at(name).typed_hashing) << name;
        EXPECT_EQ(r.tracepoint.at("TypedFast").hash_function, HashFunction::xxh3_128);
        if (format == hashtrace::LogFormat::csv) {
            std::ifstream in(hashtrace::logio::find_logs({dir}).at(0));
            std::stringstream text;
            text << in.rdbuf();
            EXPECT_NE(text.str().find(",md5+typed,"), std::string::npos);
            EXPECT_NE(text.str().find(",xxh3_128+typed,"), std::string::npos);
        }
    }
}
