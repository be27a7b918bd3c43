// The shared text helpers: formatting never cuts a result short, and lines
// split as a reader of the text would count them.
#include "hashtrace/text/text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hashtrace::text {
namespace {

TEST(Format, FollowsPrintfsRules) {
    EXPECT_EQ(format("%.3f ms, %d links, %s", 1.23456, 42, "ok"), "1.235 ms, 42 links, ok");
    EXPECT_EQ(format("no arguments"), "no arguments");
    EXPECT_EQ(format("%s", ""), "");
}

// The copies it replaced cut at 256 or 512 bytes; a long node name in a
// warning must come out whole.
TEST(Format, ALongResultComesOutWhole) {
    const std::string name(1000, 'n');
    const std::string out = format("node %s: %d", name.c_str(), 7);
    EXPECT_EQ(out.size(), 5 + 1000 + 3);
    EXPECT_EQ(out, "node " + name + ": 7");
    EXPECT_EQ(format("%s", std::string(255, 'a').c_str()).size(), 255u);  // the stack buffer's edge
    EXPECT_EQ(format("%s", std::string(256, 'a').c_str()).size(), 256u);
}

TEST(Lines, SplitAtNewlinesWithoutThem) {
    const auto three = lines("a\nbb\n\nccc");
    ASSERT_EQ(three.size(), 4u);
    EXPECT_EQ(three[0], "a");
    EXPECT_EQ(three[1], "bb");
    EXPECT_EQ(three[2], "");
    EXPECT_EQ(three[3], "ccc");
    EXPECT_EQ(lines("one\ntwo\n").size(), 2u);  // a final newline ends the last line, it starts none
    EXPECT_TRUE(lines("").empty());
    EXPECT_EQ(lines("\n").size(), 1u);
}

// Line numbers count every line, the skipped ones too: an error names the
// line a user sees in an editor.
TEST(Records, SkipBlanksAndCommentsAndKeepTheLineNumbers) {
    std::vector<std::pair<std::string, std::size_t>> seen;
    for_each_record("# comment\nheader\r\n\n  \nrow,1\r\n#\nrow,2", [&](std::string_view line, std::size_t number) {
        seen.emplace_back(std::string(line), number);
    });
    EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::size_t>>{{"header", 2}, {"  ", 4}, {"row,1", 5}, {"row,2", 7}}));
    std::size_t calls = 0;
    for_each_record("", [&](std::string_view, std::size_t) { ++calls; });
    for_each_record("\n\r\n#x\n", [&](std::string_view, std::size_t) { ++calls; });
    EXPECT_EQ(calls, 0u);
}

TEST(Split, FieldsBetweenSeparatorsAndTooMany) {
    std::string_view f[3];
    EXPECT_EQ(split("a,,c", ',', f), 3u);
    EXPECT_EQ(f[0], "a");
    EXPECT_EQ(f[1], "");
    EXPECT_EQ(f[2], "c");
    EXPECT_EQ(split("", ',', f), 1u);
    EXPECT_EQ(f[0], "");
    EXPECT_EQ(split("x,y", ',', f), 2u);
    EXPECT_EQ(split("1,2,3,4", ',', f), 4u);  // more than it holds
    EXPECT_EQ(split("1,2,3,", ',', f), 4u);   // an empty fourth field is a field
}

}  // namespace
}  // namespace hashtrace::text
