#include "hashtrace/fileio/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hashtrace::fileio {

std::optional<std::string> read_file(const std::filesystem::path& file, std::string* why) {
    const auto fail = [why](std::string reason) -> std::optional<std::string> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    std::error_code ec;
    switch (std::filesystem::status(file, ec).type()) {
        case std::filesystem::file_type::regular: break;
        case std::filesystem::file_type::not_found: return fail("no such file");
        case std::filesystem::file_type::directory: return fail("is a directory");
        default: return fail(ec ? ec.message() : "is not a regular file");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) return fail(std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return fail("read error");
    return std::move(text).str();
}

}  // namespace hashtrace::fileio
