// docs/spec.md states the interchange contracts in the project's own words.
// The shared specification it restates may sit beside the checkout
// (../shared/SPEC.md); where it does, the two must agree on every name and
// number a reader or writer of hashtrace's files relies on: the sections, the
// CSV columns and their order, the code words of each section (column, key,
// scope and kind words, formulas), the standards each names (MD5, RFC 1321,
// IEEE-754, UTF-8), the number of rules listed, the analysis spec's TOML keys
// and words, the number of linking rules, the metric ids and names, and the
// JSON keys of 5b in their order and nesting.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Section {
    std::string id;    // "1", "2", ..., "5b"
    std::string prose; // the section without its fenced code blocks
    std::vector<std::string> code_blocks;
};

// The numbered `## N.` sections of a Markdown page, in order.
std::vector<Section> sections_of(const std::string& markdown) {
    static const std::regex heading(R"(^## ([0-9]+[a-z]?)\. )");
    std::vector<Section> sections;
    std::istringstream lines(markdown);
    std::string line;
    bool in_code = false, in_numbered = false;
    std::string block;
    while (std::getline(lines, line)) {
        if (line.starts_with("```")) {
            if (in_code && in_numbered) sections.back().code_blocks.push_back(block);
            in_code = !in_code;
            block.clear();
            continue;
        }
        if (in_code) {
            block += line + "\n";
            continue;
        }
        std::smatch m;
        if (std::regex_search(line, m, heading)) {
            sections.push_back({m[1].str(), "", {}});
            in_numbered = true;
        } else if (line.starts_with("## ") || line.starts_with("# ")) {
            in_numbered = false;
        } else if (in_numbered) {
            sections.back().prose += line + "\n";
        }
    }
    return sections;
}

const Section* find_section(const std::vector<Section>& sections, const std::string& id) {
    const auto it = std::find_if(sections.begin(), sections.end(), [&](const Section& s) { return s.id == id; });
    return it == sections.end() ? nullptr : &*it;
}

std::vector<std::string> all_matches(const std::string& text, const std::regex& pattern) {
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str());
    return out;
}

// The first group of `pattern` on each line it matches.
std::vector<std::string> line_matches(const std::string& text, const std::regex& pattern) {
    std::vector<std::string> out;
    std::istringstream lines(text);
    std::string line;
    std::smatch m;
    while (std::getline(lines, line))
        if (std::regex_search(line, m, pattern)) out.push_back(m[1].str());
    return out;
}

// `code words` of a section's prose (tables included).
std::vector<std::string> code_words(const Section& s) { return all_matches(s.prose, std::regex("`([^`]+)`")); }

// The backticked first cells of the first table of a section, in order.
std::vector<std::string> first_table_names(const Section& s) {
    std::vector<std::string> names;
    std::istringstream lines(s.prose);
    std::string line;
    bool in_table = false;
    static const std::regex row(R"(^\| `([^`]+)` \|)");
    while (std::getline(lines, line)) {
        std::smatch m;
        if (line.starts_with("|")) {
            in_table = true;
            if (std::regex_search(line, m, row)) names.push_back(m[1].str());
        } else if (in_table) {
            break;
        }
    }
    return names;
}

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
    return "[" + out + "]";
}

std::string all_code(const Section& s) {
    std::string out;
    for (const auto& b : s.code_blocks) out += b;
    return out;
}

// What `ours` (docs/spec.md) says differently from `theirs` (the shared
// specification), one line per disagreement; empty when they agree.
std::vector<std::string> disagreements(const std::string& ours_text, const std::string& theirs_text) {
    std::vector<std::string> out;
    const auto ours = sections_of(ours_text), theirs = sections_of(theirs_text);
    auto ids = [](const std::vector<Section>& s) {
        std::vector<std::string> v;
        for (const auto& x : s) v.push_back(x.id);
        return v;
    };
    if (theirs.empty()) out.push_back("the shared specification has no numbered sections");
    if (ids(ours) != ids(theirs)) out.push_back("sections " + join(ids(ours)) + " instead of " + join(ids(theirs)));
    auto expect_same = [&](const std::string& what, const std::vector<std::string>& a, const std::vector<std::string>& b) {
        if (b.empty()) out.push_back(what + ": none found in the shared specification");
        else if (a != b) out.push_back(what + ": " + join(a) + " instead of " + join(b));
    };

    for (const Section& t : theirs) {
        const Section* o = find_section(ours, t.id);
        if (!o) continue;  // reported above
        const auto our_words = code_words(*o);
        for (const auto& w : code_words(t))
            if (std::find(our_words.begin(), our_words.end(), w) == our_words.end())
                out.push_back("section " + t.id + " does not mention `" + w + "`");
        // Names of standards and formats: MD5, RFC 1321, IEEE-754, UTF-8, UTC.
        static const std::regex capitals(R"(\b([A-Z][A-Z0-9-]{2,}(?: [0-9]+)?)\b)");
        const auto our_capitals = all_matches(o->prose, capitals);
        for (const auto& w : all_matches(t.prose, capitals))
            if (std::find(our_capitals.begin(), our_capitals.end(), w) == our_capitals.end())
                out.push_back("section " + t.id + " does not mention " + w);
        static const std::regex bullet(R"(^(- ))");
        if (line_matches(o->prose, bullet).size() != line_matches(t.prose, bullet).size())
            out.push_back("section " + t.id + ": " + std::to_string(line_matches(o->prose, bullet).size()) + " list items instead of " +
                          std::to_string(line_matches(t.prose, bullet).size()));
    }
    const Section *o1 = find_section(ours, "1"), *t1 = find_section(theirs, "1");
    if (o1 && t1) expect_same("section 1 required columns", first_table_names(*o1), first_table_names(*t1));

    const Section *o3 = find_section(ours, "3"), *t3 = find_section(theirs, "3");
    if (o3 && t3) {
        const std::regex toml_key(R"(^[ \t]*(\[\[[a-z_]+\]\]|[a-z_]+)[ \t]*(=|#|$))");
        expect_same("section 3 TOML tables and keys", line_matches(all_code(*o3), toml_key), line_matches(all_code(*t3), toml_key));
        const std::regex word("\"([a-z_]+)\"");
        expect_same("section 3 scope and kind words", all_matches(all_code(*o3), word), all_matches(all_code(*t3), word));
    }
    const Section *o4 = find_section(ours, "4"), *t4 = find_section(theirs, "4");
    if (o4 && t4) {
        const std::regex rule(R"(^([0-9]+)\. )");
        expect_same("section 4 linking rules", line_matches(o4->prose, rule), line_matches(t4->prose, rule));
    }
    const Section *o5 = find_section(ours, "5"), *t5 = find_section(theirs, "5");
    if (o5 && t5) {
        const std::regex metric(R"(^\| (M[0-9]+ \| [^|]+) \|)");
        expect_same("section 5 metric ids and names", line_matches(o5->prose, metric), line_matches(t5->prose, metric));
    }
    const Section *o5b = find_section(ours, "5b"), *t5b = find_section(theirs, "5b");
    if (o5b && t5b) {
        // Keys in order, each with the brackets opened before it, so nesting counts too.
        auto keys = [](const std::string& json) {
            std::vector<std::string> out;
            std::string path;
            static const std::regex token(R"re("([A-Za-z0-9_]+)"\s*:|[\[\]{}])re");
            for (auto it = std::sregex_iterator(json.begin(), json.end(), token); it != std::sregex_iterator(); ++it) {
                const std::string t = (*it)[0].str();
                if (t == "{" || t == "[") path += t;
                else if (t == "}" || t == "]") path.resize(path.empty() ? 0 : path.size() - 1);
                else out.push_back(path + (*it)[1].str());
            }
            return out;
        };
        expect_same("section 5b JSON keys", keys(all_code(*o5b)), keys(all_code(*t5b)));
    }
    return out;
}

fs::path our_spec() { return fs::path(HASHTRACE_SOURCE_DIR) / "docs" / "spec.md"; }
fs::path shared_spec() { return fs::path(HASHTRACE_SOURCE_DIR).parent_path() / "shared" / "SPEC.md"; }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "the test's edit needs '" << from << "' in the text";
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

// A tiny contract page, so the comparison itself is tested without the shared copy.
const std::string kTinySpec = "# contracts\n\n## 1. Log\n\n| column | meaning |\n|---|---|\n| `a` | first |\n| `b` | second |\n\n"
                              "## 3. Spec\n\n```toml\n[[pair]]\nfrom = \"x\"\nscope = \"instance\"  # or \"thread\"\n```\n\n"
                              "## 5b. JSON\n\n```json\n{\"n\": 1, \"list\": [ {\"name\": \"\"} ]}\n```\n";

}  // namespace

TEST(SpecDoc, ATextAgreesWithItself) { EXPECT_EQ(disagreements(kTinySpec, kTinySpec), std::vector<std::string>{}); }

TEST(SpecDoc, ColumnsInAnotherOrderDisagree) {
    const auto swapped = replaced(replaced(kTinySpec, "| `a` | first |", "| `TMP` | first |"), "| `b` | second |", "| `a` | second |");
    const auto found = disagreements(replaced(swapped, "| `TMP` | first |", "| `b` | first |"), kTinySpec);
    ASSERT_EQ(found.size(), 1u) << join(found);
    EXPECT_EQ(found[0], "section 1 required columns: [b, a] instead of [a, b]");
}

TEST(SpecDoc, AMissingWordKeyOrSectionDisagrees) {
    EXPECT_EQ(disagreements(replaced(kTinySpec, "\"thread\"", "\"threads\""), kTinySpec),
              std::vector<std::string>{"section 3 scope and kind words: [x, instance, threads] instead of [x, instance, thread]"});
    EXPECT_EQ(disagreements(replaced(kTinySpec, "scope =", "scopes ="), kTinySpec),
              std::vector<std::string>{"section 3 TOML tables and keys: [[[pair]], from, scopes] instead of [[[pair]], from, scope]"});
    EXPECT_EQ(disagreements(replaced(kTinySpec, "| `b` | second |\n", ""), kTinySpec),
              (std::vector<std::string>{"section 1 does not mention `b`", "section 1 required columns: [a] instead of [a, b]"}));
    EXPECT_EQ(disagreements(replaced(kTinySpec, "## 3. Spec", "## 4. Spec"), kTinySpec),
              std::vector<std::string>{"sections [1, 4, 5b] instead of [1, 3, 5b]"});
}

TEST(SpecDoc, AJsonKeyNestedElsewhereDisagrees) {
    const auto flat = replaced(kTinySpec, "\"list\": [ {\"name\": \"\"} ]", "\"list\": [], \"name\": \"\"");
    EXPECT_EQ(disagreements(flat, kTinySpec), std::vector<std::string>{"section 5b JSON keys: [{n, {list, {name] instead of [{n, {list, {[{name]"});
}

TEST(SpecDoc, AgreesWithTheSharedSpecification) {
    if (!fs::exists(shared_spec())) GTEST_SKIP() << shared_spec() << " is absent: nothing to compare docs/spec.md with";
    const auto ours = read_text(our_spec()), theirs = read_text(shared_spec());
    ASSERT_FALSE(ours.empty()) << our_spec();
    EXPECT_EQ(disagreements(ours, theirs), std::vector<std::string>{});
}

// The comparison must see a change in each thing it guards on the real pages.
TEST(SpecDoc, NoticesEachKindOfChangeOnTheRealPages) {
    if (!fs::exists(shared_spec())) GTEST_SKIP() << shared_spec() << " is absent: nothing to compare docs/spec.md with";
    const auto ours = read_text(our_spec()), theirs = read_text(shared_spec());
    const std::vector<std::pair<std::string, std::string>> edits = {
        {"| `sample_time` |", "| `sample_time_ns` |"},
        {"kind = \"process\"", "kind = \"proc\""},
        {"defaults to `\"any\"`", "defaults to `\"all\"`"},
        {"| M12 |", "| M13 |"},
        {"\"p99_ms\": 0, \"max_ms\": 0} ],", "\"p99_ms\": 0} ], \"max_ms\": 0,"},
        {"ceil(p/100 * N)", "round(p/100 * N)"},
        {"\n5. among", "\n6. among"},
        {"## 5b.", "## 6."},
        {"MD5 (RFC 1321)", "MD5"},
        {"- a floating-point number", "a floating-point number"},
    };
    for (const auto& [from, to] : edits) EXPECT_FALSE(disagreements(replaced(ours, from, to), theirs).empty()) << from << " -> " << to;
}
