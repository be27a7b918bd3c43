#include "hashtrace/report/trace_model.hpp"

#include <algorithm>
#include <limits>
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
