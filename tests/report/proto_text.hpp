// proto_text.hpp - reads the text format `protoc --decode` prints into a tree,
// so tests can check decoded Perfetto traces field by field.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hashtrace::report::test {

struct ProtoNode {
    std::multimap<std::string, std::string> scalars;  // field -> text (strings unquoted)
    std::multimap<std::string, ProtoNode> messages;

    std::string scalar(const std::string& name) const {
        auto it = scalars.find(name);
        if (it == scalars.end()) throw std::out_of_range("no field " + name);
        return it->second;
    }
    bool has(const std::string& name) const { return scalars.count(name) || messages.count(name); }
    std::vector<std::string> all(const std::string& name) const {
        std::vector<std::string> out;
        for (auto [it, end] = scalars.equal_range(name); it != end; ++it) out.push_back(it->second);
        return out;
    }
    std::vector<const ProtoNode*> children(const std::string& name) const {
        std::vector<const ProtoNode*> out;
        for (auto [it, end] = messages.equal_range(name); it != end; ++it) out.push_back(&it->second);
        return out;
    }
};

ProtoNode parse_proto_text(const std::string& text);

}  // namespace hashtrace::report::test
