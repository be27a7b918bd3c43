#include "output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace hashtrace::cli {
namespace {

// "what" and the system's reason for the last failure, when it gave one.
std::runtime_error failure(const std::string& what) {
    return std::runtime_error(errno != 0 ? what + " (" + std::strerror(errno) + ")" : what);
}

}  // namespace

void write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    if (!out) throw failure(path + ": cannot open for writing");
    errno = 0;  // from here on, the reason a write failed
    write(out);
    if (!out.flush()) throw failure(path + ": cannot write");
    out.close();
    if (out.fail()) throw failure(path + ": cannot write");
}

void write_file(const std::string& path, std::string_view text) {
    write_file(path, [text](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void flush_stdout() {
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw failure("standard output: cannot write");
}

}  // namespace hashtrace::cli
