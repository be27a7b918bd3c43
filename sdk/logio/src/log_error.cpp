#include "hashtrace/logio/reader.hpp"

namespace hashtrace::logio {
namespace {

std::string message(const std::string& file, std::uint64_t line, std::uint64_t column, const std::string& reason) {
    std::string where = file;
    if (line) where += ":" + std::to_string(line);
    if (line && column) where += ":" + std::to_string(column);
    return where + ": " + reason;
}

}  // namespace

LogError::LogError(std::string file, std::uint64_t line, std::string reason) : LogError(std::move(file), line, 0, std::move(reason)) {}

LogError::LogError(std::string file, std::uint64_t line, std::uint64_t column, std::string reason)
    : std::runtime_error(message(file, line, column, reason)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)) {}

}  // namespace hashtrace::logio
