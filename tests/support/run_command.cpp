#include "run_command.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

namespace hashtrace::test {

CommandResult run_command(const std::string& command) {
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run: " + command);
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.out.append(buf.data(), n);
    const int status = ::pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hashtrace-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

CommandResult run_node_script(const std::filesystem::path& dir, const std::string& body) {
    const std::string script = "cd " + shell_quote(dir.string()) +
                               " && mkdir -p logs && wait_port() { i=0; while [ ! -s \"$1\" ] && [ $i -lt 2000 ]; do sleep 0.01; "
                               "i=$((i+1)); done; cat \"$1\"; } && { " + body + "; }";
    return run_command("timeout 120 sh -c " + shell_quote(script) + " 2>&1");
}

}  // namespace hashtrace::test
