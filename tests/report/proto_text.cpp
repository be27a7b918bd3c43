#include "proto_text.hpp"

#include <sstream>

namespace hashtrace::report::test {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string unquote(const std::string& v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    return v;
}

void parse_into(std::istream& in, ProtoNode& node, bool nested) {
    std::string line;
    while (std::getline(in, line)) {
        line = trim(line);
        if (line.empty()) continue;
        if (line == "}") {
            if (!nested) throw std::runtime_error("unbalanced '}' in protoc output");
            return;
        }
        if (line.back() == '{') {
            auto child = node.messages.emplace(trim(line.substr(0, line.size() - 1)), ProtoNode{});
            parse_into(in, child->second, true);
            continue;
        }
        const auto colon = line.find(':');
        if (colon == std::string::npos) throw std::runtime_error("unexpected protoc output line: " + line);
        node.scalars.emplace(trim(line.substr(0, colon)), unquote(trim(line.substr(colon + 1))));
    }
    if (nested) throw std::runtime_error("protoc output ends inside a message");
}

}  // namespace

ProtoNode parse_proto_text(const std::string& text) {
    std::istringstream in(text);
    ProtoNode root;
    parse_into(in, root, false);
    return root;
}

}  // namespace hashtrace::report::test
