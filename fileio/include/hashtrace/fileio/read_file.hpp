// hashtrace/fileio/read_file.hpp - a whole file as a string, for parsers
// that take text (the caller names the file in its own error).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hashtrace::fileio {

// The file's bytes, or nullopt with the reason in *why: "no such file", "is a
// directory" (which would otherwise read as an empty file), "is not a regular
// file" (a FIFO would block, a device never ends) or the system's error text.
std::optional<std::string> read_file(const std::filesystem::path& file, std::string* why = nullptr);

}  // namespace hashtrace::fileio
