// The inferred structure as an analysis spec (SPEC.md section 3) a person
// reads and edits: every entry says where it came from.
#include "hashtrace/infer/writers.hpp"

#include "text.hpp"

#include <sstream>

namespace hashtrace::infer {
namespace {

using detail::format;

// A selector has one '/' and treats '*' as a wildcard, so names holding
// either cannot be written exactly.
bool spellable(const TracepointClass& c) {
    auto plain = [](const std::string& s) { return !s.empty() && s.find_first_of("/*") == std::string::npos; };
    return plain(c.node) && plain(c.tracepoint);
}

std::string toml_string(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char ch : text) {
        if (ch == '"' || ch == '\\') out += '\\', out += static_cast<char>(ch);
        else if (ch < 0x20 || ch == 0x7f) out += format("\\u%04x", unsigned(ch));
        else out += static_cast<char>(ch);
    }
    return out + "\"";
}

// Comments are free text: keep each on one line.
std::string comment(const std::string& text) {
    std::string out = "# ";
    for (const char ch : text) out += (ch == '\n' || ch == '\r') ? ' ' : ch;
    return out + "\n";
}

}  // namespace

std::string write_spec(const Evidence& ev, const std::vector<ProposedInterval>& intervals) {
    std::ostringstream out;
    out << "# Analysis spec inferred by `hashtrace infer` (docs/infer.md) from\n"
        << format("# %llu samples of %zu nodes over %.3f s, which link %llu times when every pair may link.\n",
                  (unsigned long long)ev.samples, ev.nodes, ev.window_s, (unsigned long long)ev.links)
        << "# Each entry says why it is here; delete what you do not want. Rejected\n"
        << "# candidate pairs are listed at the end, as comments.\n";
    std::vector<std::string> unspellable;
    out << "\n# ---- allowed pairs ----------------------------------------------------------\n";
    for (const auto& p : ev.pairs) {
        if (p.verdict != Verdict::kept) continue;
        const auto& a = ev.classes[p.from];
        const auto& b = ev.classes[p.to];
        if (!spellable(a) || !spellable(b)) {
            unspellable.push_back(a.selector() + " -> " + b.selector());
            continue;
        }
        out << "\n"
            << comment(format("%llu links (%s), %s of %s's inputs, median %s", (unsigned long long)p.links, detail::rate_text(p.rate_per_s).c_str(),
                              detail::percent_text(p.consumer_share).c_str(), b.selector().c_str(), detail::duration_text(p.p50_ms).c_str()))
            << comment(p.reason) << comment("scope " + p.scope_reason) << "[[pair]]\nfrom = " << toml_string(a.selector())
            << "\nto = " << toml_string(b.selector()) << "\nscope = " << toml_string(std::string(graph::to_string(p.scope))) << "\n";
    }
    for (const auto& u : unspellable) out << "\n" << comment("not written: a selector cannot name " + u + " (a '/' or '*' in a name)");
    out << "\n# ---- intervals --------------------------------------------------------------\n";
    for (const auto& i : intervals) {
        const auto& a = ev.classes[i.from];
        const auto& b = ev.classes[i.to];
        if (!spellable(a) || !spellable(b)) continue;
        out << "\n"
            << comment(i.why) << "[[interval]]\nname = " << toml_string(i.name) << "\nfrom = " << toml_string(a.selector())
            << "\nto = " << toml_string(b.selector()) << "\nkind = " << toml_string(std::string(graph::to_string(i.kind))) << "\n";
    }
    bool header = false;
    for (const auto& p : ev.pairs) {
        if (p.verdict == Verdict::kept) continue;
        if (!header) out << "\n# ---- rejected candidate pairs (not written as [[pair]]) ----------------------\n";
        header = true;
        out << "\n"
            << comment(format("%s -> %s: %llu links", ev.classes[p.from].selector().c_str(), ev.classes[p.to].selector().c_str(),
                              (unsigned long long)p.links))
            << comment(p.reason);
    }
    return out.str();
}

}  // namespace hashtrace::infer
