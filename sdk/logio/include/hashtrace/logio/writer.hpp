// hashtrace/logio/writer.hpp - writing sample logs from tools (the converter,
// the collectors, generators of test data). Traced programs do not use this:
// their writer thread lives in the header-only SDK and shares the encoders.
#pragma once

#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/sample_log.hpp"

#include <filesystem>
#include <memory>

namespace hashtrace::logio {

class LogWriter {
public:
    virtual ~LogWriter() = default;
    // Tracepoints are numbered in the order they are added, from 0.
    virtual std::uint32_t add_tracepoint(const TracepointInfo&) = 0;
    virtual void add_thread(const ThreadInfo&) = 0;
    virtual void write(const SampleRecord&) = 0;
    virtual void write(const DropRecord&) = 0;
    virtual void close() = 0;  // flushes; the destructor closes too
};

// `header` should name at least node and instance; the binary format stores it
// whole, the CSV format has no header block and repeats node/instance per row.
std::unique_ptr<LogWriter> open_writer(const std::filesystem::path& file, LogFormat format, const LogHeader& header);

// Writes a whole SampleLog (used by `hashtrace convert`).
void write_log(const std::filesystem::path& file, LogFormat format, const SampleLog& log);

}  // namespace hashtrace::logio
