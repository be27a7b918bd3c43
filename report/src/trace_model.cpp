#include "hashtrace/report/trace_model.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>

namespace hashtrace::report {

void check_trace_model(const TraceModel& model) {
    for (std::size_t i = 0; i < model.threads.size(); ++i) {
        if (model.threads[i].process >= model.processes.size())
            throw std::invalid_argument("trace model: thread " + std::to_string(i) + " names process " +
                                        std::to_string(model.threads[i].process) + " of " +
                                        std::to_string(model.processes.size()));
    }
    for (std::size_t i = 0; i < model.events.size(); ++i) {
        const auto& e = model.events[i];
        if (e.thread >= model.threads.size() || e.name >= model.names.size())
            throw std::invalid_argument("trace model: event " + std::to_string(i) + " names thread " +
                                        std::to_string(e.thread) + " or name " + std::to_string(e.name) +
                                        " that does not exist");
        if (i > 0 && e.time_ns < model.events[i - 1].time_ns)
            throw std::invalid_argument("trace model: event " + std::to_string(i) + " is earlier than event " +
                                        std::to_string(i - 1) + " (events must be sorted by time)");
    }
    for (std::size_t i = 0; i < model.flows.size(); ++i) {
        const auto& f = model.flows[i];
        if (f.from >= model.events.size() || f.to >= model.events.size() || f.from == f.to)
            throw std::invalid_argument("trace model: flow " + std::to_string(i) + " (" + std::to_string(f.from) +
                                        " -> " + std::to_string(f.to) + ") does not join two events");
    }
    if (model.slice_ns < 0) throw std::invalid_argument("trace model: negative slice length");
    for (std::size_t i = 0; i < model.critical_segments.size(); ++i) {
        const auto& s = model.critical_segments[i];
        if (s.from >= model.events.size() || s.to >= model.events.size() || s.name >= model.segment_names.size())
            throw std::invalid_argument("trace model: critical-path segment " + std::to_string(i) + " names an event or name that does not exist");
    }
    for (std::size_t i = 0; i < model.critical_paths.size(); ++i) {
        const auto& p = model.critical_paths[i];
        if (p.interval >= model.critical_path_intervals.size() || p.count == 0 ||
            std::size_t{p.first} + p.count > model.critical_segments.size())
            throw std::invalid_argument("trace model: critical path " + std::to_string(i) + " names an interval or segments that do not exist");
        if (i > 0 && p.interval < model.critical_paths[i - 1].interval)
            throw std::invalid_argument("trace model: critical path " + std::to_string(i) + " is out of its interval's group");
    }
}

CriticalPathLayout layout_critical_paths(const TraceModel& model) {
    CriticalPathLayout layout;
    layout.lanes.assign(model.critical_path_intervals.size(), 0);
    layout.lane.assign(model.critical_paths.size(), 0);
    layout.begin_ns.resize(model.critical_segments.size());
    layout.end_ns.resize(model.critical_segments.size());
    for (const auto& p : model.critical_paths) {
        std::int64_t cursor = model.events[model.critical_segments[p.first].from].time_ns;
        for (std::uint32_t k = p.first; k < p.first + p.count; ++k) {
            const auto& s = model.critical_segments[k];
            layout.begin_ns[k] = std::max(cursor, model.events[s.from].time_ns);
            layout.end_ns[k] = cursor = std::max(layout.begin_ns[k], model.events[s.to].time_ns);
        }
    }
    // Per interval, instances by start time, each on the lane that has been
    // free longest if it is free by then, else on a new lane.
    for (std::size_t begin = 0; begin < model.critical_paths.size();) {
        const auto interval = model.critical_paths[begin].interval;
        std::size_t end = begin;
        while (end < model.critical_paths.size() && model.critical_paths[end].interval == interval) ++end;
        std::vector<std::size_t> order(end - begin);
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = begin + i;
        const auto start_of = [&](std::size_t path) { return layout.begin_ns[model.critical_paths[path].first]; };
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return start_of(a) < start_of(b); });
        using FreeAt = std::pair<std::int64_t, std::uint32_t>;  // (time the lane is free, lane)
        std::priority_queue<FreeAt, std::vector<FreeAt>, std::greater<>> lanes;
        for (const std::size_t path : order) {
            const auto& p = model.critical_paths[path];
            std::uint32_t lane = layout.lanes[interval];
            if (!lanes.empty() && lanes.top().first <= start_of(path)) {
                lane = lanes.top().second;
                lanes.pop();
            } else {
                ++layout.lanes[interval];
            }
            layout.lane[path] = lane;
            lanes.emplace(layout.end_ns[p.first + p.count - 1], lane);
        }
        begin = end;
    }
    return layout;
}

std::vector<std::int64_t> slice_durations(const TraceModel& model) {
    std::vector<std::int64_t> duration(model.events.size(), model.slice_ns);
    // Walk backwards remembering each thread's next event time.
    std::vector<std::int64_t> next_time(model.threads.size(), std::numeric_limits<std::int64_t>::max());
    for (std::size_t i = model.events.size(); i-- > 0;) {
        const auto& e = model.events[i];
        const auto next = next_time[e.thread];
        if (next != std::numeric_limits<std::int64_t>::max())
            duration[i] = std::min(duration[i], next - e.time_ns);
        next_time[e.thread] = e.time_ns;
    }
    return duration;
}

std::size_t count_backward_flows(const TraceModel& model) {
    return static_cast<std::size_t>(std::count_if(model.flows.begin(), model.flows.end(), [&](const TraceFlow& f) {
        return model.events[f.to].time_ns < model.events[f.from].time_ns;
    }));
}

}  // namespace hashtrace::report
