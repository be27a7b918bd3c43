// Runs a subcommand in a companion executable installed beside `hashtrace`.
#include "command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace hashtrace::cli {

int run_in_companion(const char* executable, const Args& args) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find the hashtrace executable: " + ec.message());
    const std::string path = (self.parent_path() / executable).string();
    std::vector<std::string> argv{executable};
    std::istringstream words(args.command());  // "collect video" -> "collect", "video"
    for (std::string w; words >> w;) argv.push_back(w);
    argv.insert(argv.end(), args.arguments().begin(), args.arguments().end());
    std::vector<char*> c_argv;
    for (auto& a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    ::execv(path.c_str(), c_argv.data());
    throw std::runtime_error("cannot run " + path + ": " + std::strerror(errno));
}

}  // namespace hashtrace::cli
