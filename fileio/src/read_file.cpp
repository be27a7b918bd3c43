#include "hashtrace/fileio/read_file.hpp"

#include <fstream>
#include <sstream>

namespace hashtrace::fileio {

std::optional<std::string> read_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return std::move(text).str();
}

}  // namespace hashtrace::fileio
