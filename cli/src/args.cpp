#include "hashtrace/cli/args.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace hashtrace::cli {

bool Args::help_requested() const {
    for (const auto& a : argv_)
        if (a == "--help" || a == "-h") return true;
    return false;
}

std::optional<std::size_t> Args::find(std::string_view name) const {
    for (std::size_t i = 0; i < argv_.size(); ++i) {
        if (used_[i]) continue;
        std::string_view a = argv_[i];
        if (a == "--") return std::nullopt;
        if (a == name || (a.size() > name.size() && a.substr(0, name.size()) == name && a[name.size()] == '='))
            return i;
    }
    return std::nullopt;
}

bool Args::flag(std::string_view name) {
    bool seen = false;
    while (auto i = find(name)) {
        if (argv_[*i].size() != name.size()) throw UsageError(std::string(name) + " takes no value");
        used_[*i] = true;
        seen = true;
    }
    return seen;
}

std::vector<std::string> Args::option_all(std::string_view name) {
    std::vector<std::string> values;
    while (auto i = find(name)) {
        used_[*i] = true;
        const std::string& a = argv_[*i];
        if (a.size() > name.size()) {
            values.push_back(a.substr(name.size() + 1));
        } else {
            if (*i + 1 >= argv_.size() || used_[*i + 1]) throw UsageError(std::string(name) + " needs a value");
            used_[*i + 1] = true;
            values.push_back(argv_[*i + 1]);
        }
    }
    return values;
}

std::optional<std::string> Args::option(std::string_view name) {
    auto all = option_all(name);
    if (all.empty()) return std::nullopt;
    if (all.size() > 1) throw UsageError(std::string(name) + " given more than once");
    return all.front();
}

std::optional<std::string> Args::flag_or_word(std::string_view name, std::initializer_list<std::string_view> words) {
    const auto i = find(name);
    if (!i) return std::nullopt;
    used_[*i] = true;
    const auto is_word = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
    std::optional<std::string> value;
    if (argv_[*i].size() > name.size()) {
        value = argv_[*i].substr(name.size() + 1);
        if (!is_word(*value)) throw UsageError(std::string(name) + ": unknown value '" + *value + "'");
    } else if (*i + 1 < argv_.size() && !used_[*i + 1] && is_word(argv_[*i + 1])) {
        used_[*i + 1] = true;
        value = argv_[*i + 1];
    } else {
        value = "";
    }
    if (find(name)) throw UsageError(std::string(name) + " given more than once");
    return value;
}

std::string Args::option_or(std::string_view name, std::string fallback) {
    auto v = option(name);
    return v ? *v : std::move(fallback);
}

std::optional<double> parse_number(std::string_view text) {
    const std::string whole(text);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(whole.c_str(), &end);
    if (whole.empty() || *end != '\0' || errno == ERANGE) return std::nullopt;
    return d;
}

double Args::number(std::string_view name, double fallback) {
    auto v = option(name);
    if (!v) return fallback;
    const auto d = parse_number(*v);
    if (!d) throw UsageError(std::string(name) + ": '" + *v + "' is not a number");
    return *d;
}

long long Args::integer(std::string_view name, long long fallback) {
    auto v = option(name);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || errno == ERANGE)
        throw UsageError(std::string(name) + ": '" + *v + "' is not an integer");
    return n;
}

std::vector<std::string> Args::positionals() {
    std::vector<std::string> out;
    bool after_dashes = false;
    for (std::size_t i = 0; i < argv_.size(); ++i) {
        if (used_[i]) continue;
        const std::string& a = argv_[i];
        if (!after_dashes && a == "--") {
            after_dashes = true;
            used_[i] = true;
            continue;
        }
        if (!after_dashes && a.size() > 1 && a[0] == '-') continue;  // an option nobody asked for: finish() reports it
        used_[i] = true;
        out.push_back(a);
    }
    return out;
}

void Args::finish() const {
    for (std::size_t i = 0; i < argv_.size(); ++i)
        if (!used_[i]) throw UsageError("unknown option '" + argv_[i] + "'");
}

}  // namespace hashtrace::cli
