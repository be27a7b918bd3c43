#include "hashtrace/logio/reader.hpp"

namespace hashtrace::logio {

LogError::LogError(std::string file, std::uint64_t line, std::string reason)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + reason),
      file_(std::move(file)),
      line_(line),
      reason_(std::move(reason)) {}

}  // namespace hashtrace::logio
