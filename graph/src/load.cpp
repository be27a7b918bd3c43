// The loading stage: parse files in parallel (one worker per file at a time,
// each worker filling its own chunk with its own hash interner), then merge
// the chunks into the SampleSet: the run's tracepoint and hash ids, then
// the columns in time order (ties in the files' given order).
#include "hashtrace/graph/load.hpp"

#include "chunk_filler.hpp"
#include "hash_numbering.hpp"
#include "placement.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/logio/reader.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <tuple>
#include <vector>

namespace hashtrace::graph {
namespace {

using detail::Chunk;
using detail::ParsedFile;
using detail::RunStarts;

// The parsing workers' blocks and the sort's scratch columns are freed by
// now, but glibc keeps such mid-sized blocks in its arenas (its mmap
// threshold rises after the first large free): hand the pages back, or the
// process's peak stays ~1.5x the samples' size through linking.
void release_free_memory() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

// The run's tracepoints, instances, nodes and sources, numbered in file
// order (not in the order in which the workers happened to parse the files,
// so that one input always gives one SampleSet); returns each chunk's map
// from its tracepoint ids to the run's.
std::vector<std::vector<TracepointId>> number_tracepoints(const std::vector<Chunk>& chunks, SampleSet& out) {
    std::map<std::pair<std::string, std::string>, std::uint32_t> instance_ids;
    std::map<std::tuple<std::string, std::string, std::string>, std::uint32_t> source_ids;
    std::map<std::string, std::uint32_t> node_ids;
    std::vector<std::vector<TracepointId>> tracepoint_map(chunks.size());
    std::vector<std::pair<std::uint32_t, std::size_t>> by_file;  // (chunk, local id), in file order
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        tracepoint_map[c].resize(chunks[c].tracepoints.size());
        for (std::size_t t = 0; t < chunks[c].tracepoints.size(); ++t) by_file.emplace_back(static_cast<std::uint32_t>(c), t);
    }
    std::stable_sort(by_file.begin(), by_file.end(), [&](const auto& a, const auto& b) {
        return chunks[a.first].tracepoints[a.second].second < chunks[b.first].tracepoints[b.second].second;
    });
    for (const auto& [c, t] : by_file) {
        const auto& [info, file] = chunks[c].tracepoints[t];
        tracepoint_map[c][t] = static_cast<TracepointId>(out.tracepoints.size());
        Tracepoint tp{info, 0, 0, 0, file};
        auto node = node_ids.try_emplace(info.node_name, static_cast<std::uint32_t>(out.node_names.size()));
        if (node.second) out.node_names.push_back(info.node_name);
        tp.node_id = node.first->second;
        auto inst = instance_ids.try_emplace({info.node_name, info.instance}, static_cast<std::uint32_t>(out.instances.size()));
        if (inst.second) out.instances.push_back({info.node_name, info.instance, tp.node_id});
        tp.instance_id = inst.first->second;
        auto source = source_ids.try_emplace({info.node_name, info.instance, info.tracepoint_name}, out.source_count);
        if (source.second) ++out.source_count;
        tp.source_id = source.first->second;
        out.tracepoints.push_back(std::move(tp));
    }
    return tracepoint_map;
}

// The chunks into one SampleSet (peak: the chunks' columns and the final ones).
SampleSet merge(std::vector<Chunk>& chunks, std::vector<ParsedFile>& files, bool keep_hash_values) {
    SampleSet out;
    const std::vector<std::vector<TracepointId>> tracepoint_map = number_tracepoints(chunks, out);
    std::size_t total = 0;
    for (const ParsedFile& f : files) total += f.meta.sample_count;
    if (total >= 0xFFFFFFFFull) throw std::length_error("more than 4294967294 samples in one analysis");
    const std::vector<std::vector<HashId>> hash_map = detail::number_hashes(chunks, out, keep_hash_values);

    // Every column written once, in its final place, straight from the
    // chunks (so not filled with zeros first: Column's resize leaves them).
    out.for_each_column([total](auto& column) { column.resize(total); });
    std::vector<detail::ChunkColumns> columns;
    for (std::size_t c = 0; c < chunks.size(); ++c) columns.push_back({&chunks[c], hash_map[c].data(), tracepoint_map[c].data()});
    detail::place_in_time_order(chunks, files, total, columns, out);
    for (Chunk& c : chunks) c.for_each_column([](auto& column) { column.clear(); });

    for (ParsedFile& f : files) {
        out.dropped_samples += f.meta.report.dropped_samples;
        out.lost_samples += f.meta.report.lost_samples;
        out.files.push_back(std::move(f.meta));
    }
    release_free_memory();
    return out;
}

// Parses every file (`names`, `sizes`: the bytes of each) with parse(file
// index, visitor) on the option's threads, largest files first so that the
// workers finish together, and merges what they parsed.
using Parse = std::function<logio::ReadReport(std::size_t, logio::LogVisitor&)>;
SampleSet load_with(const std::vector<std::string>& names, const std::vector<std::uintmax_t>& sizes, const LoadOptions& options,
                    const Parse& parse) {
    const std::size_t file_count = names.size();
    std::vector<std::size_t> claim_order(file_count);
    for (std::size_t i = 0; i < file_count; ++i) claim_order[i] = i;
    std::stable_sort(claim_order.begin(), claim_order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
    const auto threads =
        static_cast<unsigned>(std::clamp<std::size_t>(graph::parallel::thread_count(options.threads), 1, std::max<std::size_t>(file_count, 1)));
    std::vector<Chunk> chunks(threads);
    std::vector<ParsedFile> files(file_count);
    // The first bad file in the given order is reported: after a failure,
    // only files before it are still parsed.
    std::atomic<std::size_t> first_failed{file_count};
    std::vector<std::exception_ptr> errors(file_count);
    std::mutex progress_mutex;
    LoadProgress progress{0, file_count, 0};

    auto report = [&](std::uint64_t samples, bool file_done) {
        if (!options.progress) return;
        std::lock_guard lock(progress_mutex);
        progress.samples_read += samples;
        progress.files_done += file_done;
        options.progress(progress);
    };
    const std::function<void(std::uint64_t)> on_batch = [&](std::uint64_t n) { report(n, false); };
    graph::parallel::for_each(file_count, threads, [&](std::size_t k, unsigned c) {
        const std::size_t i = claim_order[k];
        if (i > first_failed) return;
        ParsedFile& f = files[i];
        f.chunk = c;
        f.first = chunks[c].time.size();
        f.runs = RunStarts(f.first);
        f.meta.path = names[i];
        try {
            f.meta.report = detail::fill_chunk(chunks[c], static_cast<std::uint32_t>(i), sizes[i], f.meta, f.runs, on_batch,
                                               [&](logio::LogVisitor& v) { return parse(i, v); });
        } catch (...) {
            errors[i] = std::current_exception();
            for (std::size_t seen = first_failed; i < seen && !first_failed.compare_exchange_weak(seen, i);) {
            }
        }
        f.meta.sample_count = static_cast<SampleIndex>(chunks[c].time.size() - f.first);
        report(0, true);
    });
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    return merge(chunks, files, options.keep_hash_values);
}

logio::ReadOptions read_options_of(const LoadOptions& options) {
    logio::ReadOptions read;
    read.lenient = options.lenient;
    read.from_ns = options.from_ns;
    read.to_ns = options.to_ns;
    return read;
}

}  // namespace

SampleSet load_samples(const std::vector<std::filesystem::path>& paths, const LoadOptions& options) {
    std::vector<std::string> names;
    std::vector<std::uintmax_t> sizes;
    for (const auto& p : paths) {
        names.push_back(p.string());
        std::error_code unknown;  // reported by the reader
        const auto size = std::filesystem::file_size(p, unknown);
        sizes.push_back(unknown ? 0 : size);
    }
    // A sample takes ~20-40 bytes of a binary log (chunk_filler.cpp sizes its columns by the bytes).
    for (std::size_t i = 0; i < options.expected_samples.size() && i < sizes.size(); ++i)
        sizes[i] = std::min<std::uintmax_t>(sizes[i], options.expected_samples[i] * 32 + 4096);
    const logio::ReadOptions read_options = read_options_of(options);
    return load_with(names, sizes, options, [&](std::size_t i, logio::LogVisitor& v) {
        logio::ReadOptions file_options = read_options;
        if (i < options.jumps.size()) file_options.jumps = options.jumps[i];
        return logio::read_log(paths[i], v, file_options);
    });
}

SampleSet load_samples_from_memory(const std::vector<std::pair<std::string, std::string>>& logs, const LoadOptions& options) {
    std::vector<std::string> names;
    std::vector<std::uintmax_t> sizes;
    for (const auto& l : logs) {
        names.push_back(l.first);
        sizes.push_back(l.second.size());
    }
    const logio::ReadOptions read_options = read_options_of(options);
    return load_with(names, sizes, options, [&](std::size_t i, logio::LogVisitor& v) {
        const auto& [name, data] = logs[i];
        return logio::read_log(data, name, v, read_options);
    });
}

}  // namespace hashtrace::graph
