// output.hpp - where a command's results go: files it is told to write, and
// standard output. Every write is checked, so that a full disk or a closed
// pipe is an error with a nonzero exit, never a result silently cut short.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace hashtrace::cli {

// Replaces the file at `path` with `text`; throws std::runtime_error naming
// the file and the reason when it cannot be opened or written.
void write_file(const std::string& path, std::string_view text);
// The same with the text streamed by `write`.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& write);

// Flushes standard output; throws std::runtime_error when this or any
// earlier write to it failed (for commands that print as they go).
void flush_stdout();

}  // namespace hashtrace::cli
