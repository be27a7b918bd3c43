// Reading bindings/golden/canonical_vectors.tsv, and the C++ SDK's answer for
// each row: the reference every other language is checked against.
#pragma once

#include <hashtrace/canonical.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace golden {

struct Vector {
    int line = 0;
    std::string name, values, canonical_hex, md5_hex, xxh3_hex;
};

inline std::string to_hex(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

inline std::string from_hex(const std::string& hex) {
    if (hex.size() % 2) throw std::invalid_argument("odd number of hex digits: " + hex);
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoul(hex.substr(i, 2), nullptr, 16));
    return out;
}

inline std::string hash_hex(const hashtrace::Hash128& h) {
    const auto a = hashtrace::to_hex(h);
    return std::string(a.data(), a.size());
}

// The canonical bytes of one "type:literal" token, made by the SDK from a
// value of the C++ type the token names.
inline std::string encode_token(const std::string& token) {
    const auto colon = token.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("no type in '" + token + "'");
    const std::string type = token.substr(0, colon), lit = token.substr(colon + 1);
    using hashtrace::canonical_bytes;
    if (type == "u8") return canonical_bytes(static_cast<std::uint8_t>(std::stoull(lit)));
    if (type == "u16") return canonical_bytes(static_cast<std::uint16_t>(std::stoull(lit)));
    if (type == "u32") return canonical_bytes(static_cast<std::uint32_t>(std::stoull(lit)));
    if (type == "u64") return canonical_bytes(static_cast<std::uint64_t>(std::stoull(lit)));
    if (type == "i8") return canonical_bytes(static_cast<std::int8_t>(std::stoll(lit)));
    if (type == "i16") return canonical_bytes(static_cast<std::int16_t>(std::stoll(lit)));
    if (type == "i32") return canonical_bytes(static_cast<std::int32_t>(std::stoll(lit)));
    if (type == "i64") return canonical_bytes(static_cast<std::int64_t>(std::stoll(lit)));
    if (type == "f32") {
        const auto bits = static_cast<std::uint32_t>(std::stoul(lit, nullptr, 16));
        float f;
        std::memcpy(&f, &bits, 4);
        return canonical_bytes(f);
    }
    if (type == "f64") {
        const auto bits = static_cast<std::uint64_t>(std::stoull(lit, nullptr, 16));
        double d;
        std::memcpy(&d, &bits, 8);
        return canonical_bytes(d);
    }
    if (type == "bool") return canonical_bytes(lit == "1");
    if (type == "str") return canonical_bytes(from_hex(lit));
    if (type == "bytes") {
        const std::string b = from_hex(lit);
        return canonical_bytes(hashtrace::bytes(b.data(), b.size()));
    }
    throw std::invalid_argument("unknown type '" + type + "'");
}

inline std::vector<std::string> tokens(const std::string& values) {
    std::vector<std::string> out;
    std::istringstream in(values);
    for (std::string t; in >> t;) out.push_back(t);
    return out;
}

inline std::string encode_values(const std::string& values) {
    std::string out;
    for (const auto& t : tokens(values)) out += encode_token(t);
    return out;
}

inline std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
        const auto tab = line.find('\t', start);
        f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
        if (tab == std::string::npos) return f;
        start = tab + 1;
    }
}

// Comment lines (#...) and the header row are kept verbatim in `preamble`.
inline std::vector<Vector> read(const std::string& path, std::string* preamble = nullptr) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<Vector> out;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#' || line.rfind("name\t", 0) == 0) {
            if (preamble) *preamble += line + "\n";
            continue;
        }
        const auto f = split_tabs(line);
        if (f.size() != 5) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 5 tab-separated fields");
        out.push_back({n, f[0], f[1], f[2], f[3], f[4]});
    }
    return out;
}

}  // namespace golden
