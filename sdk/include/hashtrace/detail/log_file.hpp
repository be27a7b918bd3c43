// hashtrace/detail/log_file.hpp - one log file being written, in either format.
//
// Used by the SDK's writer thread and by the logio library's writers, so both
// produce byte-identical logs. Records accumulate in memory and reach the file
// in one write() per flush; in the binary format each flush is one block.
//
// A flush that cannot write (a full disk) is undone to the last whole flush,
// so the file stays readable, and its samples are counted as lost. Every later
// flush tries again; the first that succeeds writes, before its own records,
// what the lost flushes held that later records need (tracepoint definitions,
// thread names, drop counts) and a loss record per tracepoint: how many of its
// samples were lost, first and last time (CSV: drop rows).
#pragma once

#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/detail/csv_format.hpp"
#include "hashtrace/log_format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::detail {

class LogFile;
// Receives every binary block as it is flushed, whether or not the disk took
// it (the stream to a collector, detail/stream.hpp). Called on the writer thread.
class BlockCopy {
public:
    virtual ~BlockCopy() = default;
    virtual void block(const LogFile& log, const char* bytes, std::size_t n) = 0;
};

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
        header_.assign(buf_.data(), buf_.size());  // written by the first flush that succeeds
        buf_.clear();
        flush();  // a log that exists is readable from its first byte
    }
    LogFile(const LogFile&) = delete;
    LogFile& operator=(const LogFile&) = delete;
    ~LogFile() { close(false); }

    const std::string& path() const noexcept { return path_; }
    std::size_t buffered() const noexcept { return buf_.size(); }
    std::uint64_t bytes_written() const noexcept { return bytes_; }
    std::uint64_t samples_saved() const noexcept { return saved_; }  // in flushes that reached the file
    std::uint64_t samples_lost() const noexcept { return lost_; }    // in flushes that could not be written
    bool failing() const noexcept { return failing_; }               // the last flush could not write
    bool failed() const noexcept { return !error_.empty(); }         // some flush could not write
    const std::string& error() const noexcept { return error_; }     // why the first one could not

    struct Tally {
        std::uint64_t count = 0;
        std::int64_t first = 0, last = 0;
        void add(std::int64_t t) { add({1, t, t}); }
        void add(const Tally& o) {
            first = count ? std::min(first, o.first) : o.first;
            last = count ? std::max(last, o.last) : o.last;
            count += o.count;
        }
    };
    struct Definition {
        std::string node, instance, name, input_type, output_type;
        HashFunction hash_function;
        bool typed_hashing;
    };
    struct Drop {
        std::uint32_t tracepoint;
        std::int64_t time_ns;
        std::uint64_t count;
    };
    struct Thread {
        std::int64_t os_tid;
        std::string name;
    };

    // What a copy of the blocks needs to stand alone after a gap.
    void copy_blocks_to(BlockCopy* copy) noexcept { copy_ = copy; }
    const std::string& header_bytes() const noexcept { return header_; }
    std::size_t definitions_before_block() const noexcept { return definitions_flushed_; }
    std::size_t definitions() const noexcept { return definitions_.size(); }
    const std::vector<Tally>& block_samples() const noexcept { return pending_; }  // by tracepoint
    const std::vector<Drop>& block_drops() const noexcept { return pending_drops_; }
    std::int64_t last_time() const noexcept { return last_time_; }
    void encode_definitions(BinaryEncoder& e, std::size_t from, std::size_t to) const {
        for (std::size_t i = from; i < to; ++i) {
            const Definition& d = definitions_[i];
            e.tracepoint(static_cast<std::uint32_t>(i),
                         {d.node, d.instance, d.name, d.input_type, d.output_type, d.hash_function, d.typed_hashing});
        }
    }
    void encode_threads(BinaryEncoder& e) const {
        for (const auto& [id, t] : threads_) e.thread(id, t.os_tid, t.name);
    }

    void tracepoint(std::uint32_t index, const EncodedTracepoint& tp, std::int64_t time_hint_ns) {
        definitions_.push_back({std::string(tp.node), std::string(tp.instance), std::string(tp.name),
                                std::string(tp.input_type), std::string(tp.output_type), tp.hash_function,
                                tp.typed_hashing});
        pending_.resize(definitions_.size());
        if (binary_) {
            open_block(time_hint_ns);
            binary_->tracepoint(index, tp);
        } else {
            csv_->tracepoint(index, tp);
        }
    }
    void thread(std::uint32_t id, std::int64_t os_tid, std::string_view name, std::int64_t time_hint_ns) {
        if (!binary_) return;  // the CSV log (docs/spec.md section 1) has no place for thread names
        threads_[id] = {os_tid, std::string(name)};
        open_block(time_hint_ns);
        binary_->thread(id, os_tid, name);
    }
    void sample(const EncodedSample& s) {
        pending_[s.tracepoint].add(s.time_ns);
        ++unsaved_;
        if (binary_) {
            open_block(s.time_ns);
            binary_->sample(s);
        } else {
            csv_->sample(s);
        }
    }
    void drop(std::uint32_t tracepoint, std::int64_t time_ns, std::uint64_t count) {
        pending_drops_.push_back({tracepoint, time_ns, count});
        if (binary_) {
            open_block(time_ns);
            binary_->drop(tracepoint, time_ns, count);
        } else {
            csv_->drop(tracepoint, time_ns, count);
        }
    }

    // Writes what is buffered, or counts it as lost. Never throws.
    void flush() {
        if (fd_ < 0) return;
        if (binary_ && binary_->in_block()) binary_->end_block();
        if (copy_ && binary_ && !buf_.empty()) copy_->block(*this, buf_.data(), buf_.size());
        if (failing_) encode_repair();
        if (header_unsaved_ + repair_.size() + buf_.size() == 0) return;
        const std::uint64_t start = bytes_;
        const bool ok = !unwritable_ && (!header_unsaved_ || write_all(header_.data(), header_.size())) &&
                        write_all(repair_.data(), repair_.size()) && write_all(buf_.data(), buf_.size());
        if (ok) {
            header_unsaved_ = false;
            failing_ = false;
            saved_ += unsaved_;
            lost_tally_.clear();
            carried_drops_.clear();
            definitions_saved_ = definitions_.size();
        } else {
            // Back to the last whole flush: no torn block, and room freed for the next try.
            bytes_ = start;
            if (::ftruncate(fd_, static_cast<off_t>(start)) != 0 || ::lseek(fd_, static_cast<off_t>(start), SEEK_SET) < 0)
                unwritable_ = true;  // cannot go back: writing more would tear the log
            failing_ = true;
            lost_ += unsaved_;
            for (std::uint32_t tp = 0; tp < pending_.size(); ++tp)
                if (pending_[tp].count) lost_tally_[tp].add(pending_[tp]);
            carried_drops_.insert(carried_drops_.end(), pending_drops_.begin(), pending_drops_.end());
            definitions_lost_end_ = definitions_.size();
        }
        unsaved_ = 0;
        definitions_flushed_ = definitions_.size();
        for (auto& t : pending_) t = {};
        pending_drops_.clear();
        repair_.clear();
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
    // Writes all of [p, p + n) at the file's offset, or returns false with the reason kept.
    bool write_all(const char* p, std::size_t n) {
        while (n > 0) {
            const ssize_t w = ::write(fd_, p, n);
            if (w < 0) {
                if (errno == EINTR) continue;
                if (error_.empty()) error_ = "write to " + path_ + " failed: " + std::strerror(errno);
                return false;
            }
            p += w, n -= static_cast<std::size_t>(w), bytes_ += static_cast<std::uint64_t>(w);
        }
        return true;
    }

    // What must precede this flush's records now that earlier flushes were
    // lost: in its own block (binary), or as drop rows (CSV, where every row
    // names its tracepoint in full and order does not matter).
    void encode_repair() {
        if (binary_) {
            BinaryEncoder e(repair_);
            e.begin_block(last_time_);
            encode_definitions(e, definitions_saved_, definitions_lost_end_);
            encode_threads(e);
            for (const Drop& d : carried_drops_) e.drop(d.tracepoint, d.time_ns, d.count);
            for (const auto& [tp, t] : lost_tally_) e.loss(tp, t.first, t.last, t.count);
            e.end_block();
        } else {
            for (const Drop& d : carried_drops_) csv_->drop(d.tracepoint, d.time_ns, d.count);
            for (const auto& [tp, t] : lost_tally_) csv_->drop(tp, t.last, t.count);
        }
    }

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
    std::uint64_t bytes_ = 0;  // on disk: the file's length
    std::int64_t last_time_ = 0;
    std::string error_;
    std::string header_;
    bool header_unsaved_ = true;
    bool unwritable_ = false;

    // What the buffered flush holds, and what earlier flushes lost.
    std::uint64_t unsaved_ = 0, saved_ = 0, lost_ = 0;
    std::vector<Tally> pending_;              // by tracepoint: the samples of this flush
    std::vector<Drop> pending_drops_;
    bool failing_ = false;
    std::map<std::uint32_t, Tally> lost_tally_;  // since the last flush that was written
    std::vector<Drop> carried_drops_;
    std::vector<Definition> definitions_;
    std::size_t definitions_saved_ = 0;     // definitions [0, this) are on disk
    std::size_t definitions_lost_end_ = 0;  // [saved, this) were in lost flushes
    std::map<std::uint32_t, Thread> threads_;
    ByteBuffer repair_;
    std::size_t definitions_flushed_ = 0;  // definitions [0, this) precede the open block
    BlockCopy* copy_ = nullptr;
};

}  // namespace hashtrace::detail
