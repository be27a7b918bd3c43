// The analysis spec parser on arbitrary text: SpecError or a spec; a parsed
// spec is then matched and linked against a small fixed run (globs, pair table).
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/graph/spec.hpp"

#include <string>

namespace {

const hashtrace::graph::SampleSet& fixed_run() {
    static const auto samples = hashtrace::graph::load_samples_from_memory(
        {{"run.csv",
          "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash,thread\n"
          "Chai,1,Force,,id,100.000,,0123456789abcdef0123456789abcdef,1\n"
          "Chai,1,Send,id,id,100.001,0123456789abcdef0123456789abcdef,0123456789abcdef0123456789abcdef,2\n"
          "Unity,2,Receive,id,,100.002,0123456789abcdef0123456789abcdef,,1\n"}},
        {false, false, 1, {}});
    return samples;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto spec = hashtrace::graph::parse_spec(text, "fuzz.toml");
        (void)hashtrace::graph::unmatched_selectors(spec, fixed_run());
        (void)hashtrace::graph::link(fixed_run(), spec);
    } catch (const hashtrace::graph::SpecError&) {
    }
    return 0;
}
