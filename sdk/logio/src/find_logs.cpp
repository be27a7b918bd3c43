#include "hashtrace/logio/reader.hpp"
#include "parsers.hpp"

#include <algorithm>
#include <fstream>
#include <string_view>

namespace hashtrace::logio {
namespace {

// In a directory, a .csv file is taken for a sample log when its header names
// at least half of the required columns. Run directories also hold other CSV
// (clock-quality records, ground truth, tables written by `analyze --csv`),
// which are passed over; but a node's log whose header has a typo must not
// drop out of the analysis unsaid: it is read, and its reader names the
// column that is wrong.
bool looks_like_sample_csv(const std::filesystem::path& p) {
    std::ifstream f(p);
    if (!f) return true;  // unreadable: listed, so that reading it says why
    std::string header;
    std::getline(f, header);
    std::string_view rest = header;
    if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
    const auto required_begin = parsers::kCsvColumnNames.begin(), required_end = required_begin + parsers::kRequiredCsvColumns;
    int named = 0;
    for (;;) {
        const std::size_t comma = rest.find(',');
        named += std::find(required_begin, required_end, rest.substr(0, comma)) != required_end;
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return 2 * named >= parsers::kRequiredCsvColumns;
}

}  // namespace

std::vector<std::filesystem::path> find_logs(const std::vector<std::filesystem::path>& inputs) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    std::string searched;  // the directories, for the error when they hold nothing
    std::size_t other_csv = 0;
    for (const auto& in : inputs) {
        std::error_code ec;
        if (fs::is_directory(in, ec)) {
            std::vector<fs::path> found;
            for (const auto& e : fs::recursive_directory_iterator(in, ec)) {
                if (!e.is_regular_file()) continue;
                const auto ext = e.path().extension();
                if (ext == ".htlog" || (ext == ".csv" && looks_like_sample_csv(e.path()))) found.push_back(e.path());
                else other_csv += ext == ".csv";
            }
            if (ec) throw LogError(in.string(), 0, "cannot list directory: " + ec.message());
            std::sort(found.begin(), found.end());
            out.insert(out.end(), found.begin(), found.end());
            searched += (searched.empty() ? "" : ", ") + in.string();
        } else if (fs::exists(in, ec)) {
            out.push_back(in);
        } else {
            throw LogError(in.string(), 0, "no such file or directory");
        }
    }
    if (out.empty() && !inputs.empty())
        throw LogError(searched, 0,
                       "no sample logs found (searched recursively for *.htlog, and for *.csv whose header names the "
                       "docs/spec.md section 1 columns" + (other_csv ? "; " + std::to_string(other_csv) + " other *.csv passed over" : std::string()) + ")");
    return out;
}

}  // namespace hashtrace::logio
