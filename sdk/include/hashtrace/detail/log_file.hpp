// hashtrace/detail/log_file.hpp - one log file being written, in either format.
//
// Used by the SDK's writer thread and by the logio library's writers, so both
// produce byte-identical logs. Records accumulate in memory and reach the file
// in one write() per flush; in the binary format each flush is one block.
#pragma once

#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/detail/csv_format.hpp"
#include "hashtrace/log_format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::detail {

class LogFile {
public:
    // `header` must hold "node" and "instance"; the binary format stores all of it.
    LogFile(const std::string& path, LogFormat format, const std::vector<std::pair<std::string, std::string>>& header)
        : path_(path), format_(format) {
        fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd_ < 0) throw std::runtime_error("hashtrace: cannot create log " + path + ": " + std::strerror(errno));
        std::string node, instance;
        for (const auto& [k, v] : header) {
            if (k == "node") node = v;
            if (k == "instance") instance = v;
        }
        if (format_ == LogFormat::binary) {
            binary_.emplace(buf_);
            binary_->file_header(header);
        } else {
            csv_.emplace(buf_, node, instance);
            csv_->file_header();
        }
        flush();  // a log that exists is readable from its first byte
    }
    LogFile(const LogFile&) = delete;
    LogFile& operator=(const LogFile&) = delete;
    ~LogFile() { close(false); }

    const std::string& path() const noexcept { return path_; }
    std::size_t buffered() const noexcept { return buf_.size(); }
    std::uint64_t bytes_written() const noexcept { return bytes_; }
    bool failed() const noexcept { return !error_.empty(); }
    const std::string& error() const noexcept { return error_; }

    void tracepoint(std::uint32_t index, const EncodedTracepoint& tp, std::int64_t time_hint_ns) {
        if (binary_) {
            open_block(time_hint_ns);
            binary_->tracepoint(index, tp);
        } else {
            csv_->tracepoint(index, tp);
        }
    }
    void thread(std::uint32_t id, std::int64_t os_tid, std::string_view name, std::int64_t time_hint_ns) {
        if (!binary_) return;  // the CSV log (docs/spec.md section 1) has no place for thread names
        open_block(time_hint_ns);
        binary_->thread(id, os_tid, name);
    }
    void sample(const EncodedSample& s) {
        if (binary_) {
            open_block(s.time_ns);
            binary_->sample(s);
        } else {
            csv_->sample(s);
        }
    }
    void drop(std::uint32_t tracepoint, std::int64_t time_ns, std::uint64_t count) {
        if (binary_) {
            open_block(time_ns);
            binary_->drop(tracepoint, time_ns, count);
        } else {
            csv_->drop(tracepoint, time_ns, count);
        }
    }

    // Writes what is buffered. Never throws: a full disk is recorded in error().
    void flush() {
        if (binary_ && binary_->in_block()) binary_->end_block();
        std::size_t done = 0;
        while (done < buf_.size() && fd_ >= 0 && error_.empty()) {
            const ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
            if (n < 0) {
                if (errno == EINTR) continue;
                error_ = "write to " + path_ + " failed: " + std::strerror(errno);
                break;
            }
            done += static_cast<std::size_t>(n);
        }
        bytes_ += done;
        buf_.clear();
    }

    // `clean`: the writer finished normally, and says so in a binary log.
    void close(bool clean) {
        if (fd_ < 0) return;
        if (binary_ && clean) {
            open_block(last_time_);
            binary_->end_marker();
        }
        flush();
        ::close(fd_);
        fd_ = -1;
    }

private:
    void open_block(std::int64_t time_ns) {
        last_time_ = time_ns;
        if (!binary_->in_block()) binary_->begin_block(time_ns);
    }

    std::string path_;
    LogFormat format_;
    int fd_ = -1;
    ByteBuffer buf_;
    std::optional<BinaryEncoder> binary_;
    std::optional<CsvEncoder> csv_;
    std::uint64_t bytes_ = 0;
    std::int64_t last_time_ = 0;
    std::string error_;
};

}  // namespace hashtrace::detail
