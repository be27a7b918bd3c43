// Tools' log writer: the SDK's own LogFile, fed with logio records, cut into
// blocks as the SDK's writer cuts them (1 MiB, or its 100 ms flush interval,
// here of the samples' own time), so a log written here is seekable by time as
// finely as one a traced process wrote.
#include "hashtrace/logio/writer.hpp"

#include "hashtrace/config.hpp"
#include "hashtrace/detail/log_file.hpp"

#include <chrono>
#include <limits>
#include <stdexcept>

namespace hashtrace::logio {
namespace {

class FileWriter final : public LogWriter {
public:
    FileWriter(const std::filesystem::path& path, LogFormat format, const LogHeader& header)
        : node_(value(header, "node")), instance_(value(header, "instance")), format_(format),
          file_(path.string(), format, {header.begin(), header.end()}) {}
    ~FileWriter() override { close(); }

    std::uint32_t add_tracepoint(const TracepointInfo& tp) override {
        const auto index = static_cast<std::uint32_t>(count_++);
        // Only a tracepoint of another node or instance than the header's names them.
        const std::string_view node = tp.node_name == node_ ? std::string_view{} : std::string_view(tp.node_name);
        const std::string_view inst = tp.instance == instance_ ? std::string_view{} : std::string_view(tp.instance);
        file_.tracepoint(index, {node, inst, tp.tracepoint_name, tp.input_hash_type, tp.output_hash_type, tp.hash_function, tp.typed_hashing},
                         last_time_);
        return index;
    }
    void add_thread(const ThreadInfo& t) override {
        check_thread(t.thread);
        file_.thread(t.thread, t.os_tid, t.name, last_time_);
    }
    void write(const SampleRecord& s) override {
        if (s.tracepoint >= count_) throw std::logic_error("LogWriter: sample names tracepoint " + std::to_string(s.tracepoint) + " before it was added");
        // What a reader would refuse, or (seq) read back as another value: refused here, not written.
        if (s.has_thread()) check_thread(s.thread);
        if (format_ == LogFormat::binary && s.has_seq() && s.seq == std::numeric_limits<std::uint64_t>::max())
            throw std::invalid_argument("LogWriter: sequence number " + std::to_string(s.seq) +
                                        " does not fit a binary log (at most 2^64 - 2; it is stored + 1)");
        last_time_ = s.time_ns;
        file_.sample({s.time_ns, s.has_input() ? &s.input_hash : nullptr, s.has_output() ? &s.output_hash : nullptr,
                      s.tracepoint, s.has_thread(), s.thread, s.has_seq(), s.seq});
        maybe_flush(s.time_ns);
    }
    void write(const DropRecord& d) override {
        last_time_ = d.time_ns;
        file_.drop(d.tracepoint, d.time_ns, d.count);
        maybe_flush(d.time_ns);
    }
    void close() override {
        if (closed_) return;
        closed_ = true;
        file_.close(true);
        if (file_.failed()) throw std::runtime_error(file_.error());
    }

private:
    static void check_thread(std::uint32_t id) {
        if (id == SampleColumns::kNoThread)
            throw std::invalid_argument("LogWriter: thread id " + std::to_string(id) + " is out of range (at most " +
                                        std::to_string(SampleColumns::kNoThread - 1) + ")");
    }
    static std::string value(const LogHeader& h, const char* key) {
        auto it = h.find(key);
        return it == h.end() ? std::string() : it->second;
    }
    void maybe_flush(std::int64_t time_ns) {
        if (!block_open_) {
            block_first_ns_ = time_ns;
            block_open_ = true;
        }
        if (file_.buffered() >= (1u << 20) || time_ns - block_first_ns_ >= kFlushEveryNs) {
            file_.flush();
            block_open_ = false;
        }
    }

    // The SDK's default flush interval.
    static inline const std::int64_t kFlushEveryNs = std::chrono::nanoseconds(Config{}.flush_interval).count();

    std::string node_, instance_;
    LogFormat format_;
    detail::LogFile file_;
    std::size_t count_ = 0;
    std::int64_t last_time_ = 0;
    std::int64_t block_first_ns_ = 0;
    bool block_open_ = false;
    bool closed_ = false;
};

}  // namespace

std::unique_ptr<LogWriter> open_writer(const std::filesystem::path& file, LogFormat format, const LogHeader& header) {
    return std::make_unique<FileWriter>(file, format, header);
}

void write_log(const std::filesystem::path& file, LogFormat format, const SampleLog& log) {
    auto w = open_writer(file, format, log.header);
    for (const auto& tp : log.tracepoints) w->add_tracepoint(tp);
    for (const auto& t : log.threads) w->add_thread(t);
    // Drops interleave with samples by time, as they were recorded.
    std::size_t d = 0;
    for (const auto& s : log.samples) {
        while (d < log.drops.size() && log.drops[d].time_ns <= s.time_ns) w->write(log.drops[d++]);
        w->write(s);
    }
    while (d < log.drops.size()) w->write(log.drops[d++]);
    w->close();
}

}  // namespace hashtrace::logio
