#include "hashtrace/logio/reader.hpp"

#include <algorithm>
#include <fstream>

namespace hashtrace::logio {
namespace {

// In a directory, a .csv file is a sample log only if its header names the
// sample columns: run directories also hold other CSV (clock-quality records).
bool is_sample_csv(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::string first;
    std::getline(f, first);
    return first.find("node_name") != std::string::npos && first.find("sample_time") != std::string::npos;
}

}  // namespace

std::vector<std::filesystem::path> find_logs(const std::vector<std::filesystem::path>& inputs) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    for (const auto& in : inputs) {
        std::error_code ec;
        if (fs::is_directory(in, ec)) {
            std::vector<fs::path> found;
            for (const auto& e : fs::recursive_directory_iterator(in, ec)) {
                if (!e.is_regular_file()) continue;
                const auto ext = e.path().extension();
                if (ext == ".htlog" || (ext == ".csv" && is_sample_csv(e.path()))) found.push_back(e.path());
            }
            if (ec) throw LogError(in.string(), 0, "cannot list directory: " + ec.message());
            std::sort(found.begin(), found.end());
            out.insert(out.end(), found.begin(), found.end());
        } else if (fs::exists(in, ec)) {
            out.push_back(in);
        } else {
            throw LogError(in.string(), 0, "no such file or directory");
        }
    }
    return out;
}

}  // namespace hashtrace::logio
