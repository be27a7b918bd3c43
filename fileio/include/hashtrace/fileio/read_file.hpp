// hashtrace/fileio/read_file.hpp - a whole file as a string, for parsers
// that take text (the caller names the file in its own error).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hashtrace::fileio {

// The file's bytes, or nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::filesystem::path& file);

}  // namespace hashtrace::fileio
