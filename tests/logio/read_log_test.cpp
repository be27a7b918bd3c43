// read_log on files: the same records as parsing the bytes in memory, and
// the mapped pages behind the parser dropped, so that a large log is not
// resident while the samples it became are collected.
#include <hashtrace/logio/reader.hpp>
#include <hashtrace/logio/writer.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace hashtrace::logio;

namespace {

// Resident pages of mapped files (the log, the executable, its libraries), in KiB.
std::uint64_t resident_file_kib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("RssFile:", 0) == 0) return std::stoull(line.substr(8));
    return 0;
}

// Records every sample and the largest RssFile seen at a batch.
struct Collect : LogVisitor {
    std::vector<SampleRecord> samples;
    std::uint64_t peak_resident_kib = 0;
    void on_samples(std::span<const SampleRecord> b) override {
        samples.insert(samples.end(), b.begin(), b.end());
        peak_resident_kib = std::max(peak_resident_kib, resident_file_kib());
    }
};

// A 48 MB log (well past the 4 MiB steps in which pages are released).
fs::path write_large_log(LogFormat format) {
    const fs::path file = fs::temp_directory_path() / ("hashtrace-read-log-" + std::to_string(::getpid()) +
                                                       (format == LogFormat::csv ? ".csv" : ".htlog"));
    auto writer = open_writer(file, format, {{"node", "Chai"}, {"instance", "1"}});
    const std::uint32_t tp = writer->add_tracepoint({"Chai", "1", "Send", "messageid", "messageid", hashtrace::HashFunction::md5});
    const std::size_t samples = format == LogFormat::csv ? 550'000 : 2'400'000;  // ~20 B a sample in binary, ~94 B in CSV
    for (std::size_t i = 0; i < samples; ++i) {
        SampleRecord s;
        s.time_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(i) * 1000;
        s.tracepoint = tp;
        for (int b = 0; b < 8; ++b) s.output_hash.bytes[b] = static_cast<std::uint8_t>(i >> (8 * b));
        s.output_hash.bytes[8] = 0x5a;
        s.flags = SampleRecord::kHasOutput;
        writer->write(s);
    }
    writer->close();
    return file;
}

void expect_read_like_memory_and_released(LogFormat format) {
    const fs::path file = write_large_log(format);
    ASSERT_GT(fs::file_size(file), 40u << 20);
    Collect from_file, from_memory;
    const ReadReport report = read_log(file, from_file);
    std::stringstream bytes;
    bytes << std::ifstream(file, std::ios::binary).rdbuf();
    if (format == LogFormat::csv) read_csv(bytes.str(), file.string(), from_memory);
    else read_binary(bytes.str(), file.string(), from_memory);
    fs::remove(file);

    ASSERT_EQ(from_file.samples.size(), from_memory.samples.size());
    EXPECT_EQ(report.samples, from_file.samples.size());
    for (std::size_t i = 0; i < from_file.samples.size(); ++i) {
        ASSERT_EQ(from_file.samples[i].time_ns, from_memory.samples[i].time_ns) << i;
        ASSERT_EQ(from_file.samples[i].output_hash, from_memory.samples[i].output_hash) << i;
    }
    // Without the release every page of the 48 MB log would be resident by
    // the last batch; with it, about one 4 MiB step (plus the executable).
    EXPECT_LT(from_file.peak_resident_kib, 24u << 10) << "RssFile peaked at " << from_file.peak_resident_kib << " KiB";
}

}  // namespace

TEST(ReadLog, CsvFileReadsLikeMemoryAndDropsPagesBehindTheParser) { expect_read_like_memory_and_released(LogFormat::csv); }

TEST(ReadLog, BinaryFileReadsLikeMemoryAndDropsPagesBehindTheParser) { expect_read_like_memory_and_released(LogFormat::binary); }

namespace {

// The what() of reading `path` as a log.
std::string read_error(const fs::path& path) {
    try {
        load_log(path);
    } catch (const LogError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

// A path that is not a regular file is refused by name and kind (a
// directory used to fail with "cannot map: No such device", a FIFO to wait
// for a writer forever).
TEST(ReadLog, AnythingButARegularFileIsRefusedByName) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace-not-regular-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "logs.htlog");
    EXPECT_EQ(read_error(dir / "logs.htlog"), (dir / "logs.htlog").string() + ": is a directory, not a log file");
    ASSERT_EQ(::mkfifo((dir / "pipe.htlog").c_str(), 0600), 0);
    const int writer = ::open((dir / "pipe.htlog").c_str(), O_RDWR | O_NONBLOCK);  // so that an old reader's open returns
    ASSERT_GE(writer, 0);
    EXPECT_EQ(read_error(dir / "pipe.htlog"), (dir / "pipe.htlog").string() + ": is a FIFO, not a log file");
    ::close(writer);
    EXPECT_EQ(read_error("/dev/null"), "/dev/null: is a character device, not a log file");
    EXPECT_EQ(read_error(dir / "missing.htlog"), (dir / "missing.htlog").string() + ": cannot open: No such file or directory");
    fs::remove_all(dir);
}

// Inputs that hold no log are an error naming where it looked, not an empty run.
TEST(FindLogs, FoldersWithoutALogAreAnErrorNamingThem) {
    const fs::path dir = fs::temp_directory_path() / ("hashtrace-no-logs-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    std::ofstream(dir / "b" / "table.csv") << "metric,value\nM8,4\n";
    try {
        find_logs({dir / "a", dir / "b"});
        FAIL() << "no error for folders without logs";
    } catch (const LogError& e) {
        EXPECT_EQ(e.file(), (dir / "a").string() + ", " + (dir / "b").string());
        EXPECT_EQ(e.reason(), "no sample logs found (searched recursively for *.htlog, and for *.csv whose header names the "
                              "docs/spec.md section 1 columns; 1 other *.csv passed over)");
    }
    EXPECT_TRUE(find_logs({}).empty());  // nothing asked, nothing found
    fs::remove_all(dir);
}
