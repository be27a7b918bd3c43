// Reading a log file: map it, detect its format from its first bytes, parse.
#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/logio/reader.hpp"
#include "parsers.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hashtrace::logio {
namespace {

std::string not_a_regular_file(mode_t mode) {
    const char* kind = S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
                     : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "something other than a regular file";
    return std::string("is ") + kind + ", not a log file";
}

// A read-only mapping of a whole file (the parsers work on one contiguous view).
class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& path) : name_(path.string()) {
        // O_NONBLOCK: a FIFO named as a log must be refused below, not wait for a writer.
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd_ < 0) throw LogError(name_, 0, std::string("cannot open: ") + std::strerror(errno));
        struct stat st;
        if (::fstat(fd_, &st) != 0) throw LogError(name_, 0, std::string("cannot stat: ") + std::strerror(errno));
        if (!S_ISREG(st.st_mode)) throw LogError(name_, 0, not_a_regular_file(st.st_mode));
        size_ = static_cast<std::size_t>(st.st_size);
        if (size_ > 0) {
            void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
            if (p == MAP_FAILED) throw LogError(name_, 0, std::string("cannot map: ") + std::strerror(errno));
            data_ = static_cast<const char*>(p);
        }
    }
    ~MappedFile() {
        if (data_) ::munmap(const_cast<char*>(data_), size_);
        if (fd_ >= 0) ::close(fd_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::string_view view() const { return {data_, size_}; }
    // It will be read from start to end: the kernel reads ahead.
    void advise_sequential() {
        if (data_) ::madvise(const_cast<char*>(data_), size_, MADV_SEQUENTIAL);
    }

    // Drops the whole pages of the first `bytes` from this process (a later
    // read would fault them in again from the page cache).
    void release_before(std::size_t bytes) {
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const std::size_t end = std::min(bytes, size_) / page * page;
        if (end <= released_) return;
        ::madvise(const_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
        released_ = end;
    }

private:
    std::string name_;
    int fd_ = -1;
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t released_ = 0;
};

LogFormat detect(std::string_view head, const std::string& name) {
    if (head.size() >= 8 && std::memcmp(head.data(), detail::kBinaryMagic, 8) == 0) return LogFormat::binary;
    if (head.size() >= 4 && std::memcmp(head.data(), "\x89HTL", 4) == 0)
        throw LogError(name, 0, "binary log header is cut short");
    if (head.substr(0, std::min<std::size_t>(head.size(), 256)).find("node_name") != std::string_view::npos)
        return LogFormat::csv;
    if (head.empty()) throw LogError(name, 0, "empty file: not a hashtrace log");
    throw LogError(name, 1, "not a hashtrace log: neither the binary magic nor a CSV header naming node_name");
}

struct Collector : LogVisitor {
    SampleLog& log;
    explicit Collector(SampleLog& l) : log(l) {}
    void on_header(const LogHeader& h) override { log.header = h; }
    void on_tracepoint(std::uint32_t index, const TracepointInfo& tp) override {
        if (log.tracepoints.size() <= index) log.tracepoints.resize(index + 1);
        log.tracepoints[index] = tp;
    }
    void on_thread(const ThreadInfo& t) override {
        for (auto& known : log.threads)
            if (known.thread == t.thread) {
                known = t;  // a later record renames the thread
                return;
            }
        log.threads.push_back(t);
    }
    void on_samples(std::span<const SampleRecord> batch) override {
        log.samples.insert(log.samples.end(), batch.begin(), batch.end());
    }
    void on_drop(const DropRecord& d) override { log.drops.push_back(d); }
    void on_loss(const LossRecord& l) override { log.losses.push_back(l); }
};

}  // namespace

LogFormat detect_format(const std::filesystem::path& file) {
    MappedFile f(file);
    return detect(f.view(), file.string());
}

ReadReport parsers::read_file(const std::filesystem::path& file, LogVisitor& visitor, const ReadOptions& options,
                              const BlockSkipped& indexing) {
    MappedFile f(file);
    const std::string name = file.string();
    const parsers::Consumed release = [&f](std::size_t bytes) { f.release_before(bytes); };
    const bool binary = detect(f.view(), name) == LogFormat::binary;
    // A time range of a binary log is read where its blocks are, not ahead of them.
    if (!binary || options.whole_range()) f.advise_sequential();
    if (binary) return parsers::parse_binary(f.view(), name, visitor, options, release, indexing);
    return parsers::parse_csv(f.view(), name, visitor, options, release);
}

ReadReport read_log(const std::filesystem::path& file, LogVisitor& visitor, const ReadOptions& options) {
    return parsers::read_file(file, visitor, options, nullptr);
}

ReadReport read_log(std::string_view data, const std::string& name, LogVisitor& visitor, const ReadOptions& options) {
    if (detect(data, name) == LogFormat::binary) return read_binary(data, name, visitor, options);
    return read_csv(data, name, visitor, options);
}

SampleLog load_log(const std::filesystem::path& file, const ReadOptions& options) {
    SampleLog log;
    log.path = file.string();
    Collector c(log);
    log.report = read_log(file, c, options);
    if (log.header.empty() && !log.tracepoints.empty()) {  // CSV: no header block; name the node from the rows
        log.header["node"] = log.tracepoints.front().node_name;
        log.header["instance"] = log.tracepoints.front().instance;
    }
    return log;
}

}  // namespace hashtrace::logio
