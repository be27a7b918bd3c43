#include "perfetto_stream.hpp"

namespace hashtrace::report::perfetto {

// The critical paths stand out as tracks of their own (tracks of no process,
// beside the node instances'): an instance's path there is visible along the
// whole run at a glance, while flows are drawn only for a selected slice.
// Each interval's track is a parent of its lanes (instances overlap in time),
// so it opens and closes as one.
PathSlices::PathSlices(Sequence& sequence, const std::vector<std::string>& intervals, const std::vector<std::string>& segment_names,
                       std::uint32_t first_lane_uuid)
    : sequence_(sequence), intervals_(intervals), segment_names_(segment_names), busy_lanes_(intervals.size()),
      free_lanes_(intervals.size()), lanes_(intervals.size(), 0), next_lane_uuid_(first_lane_uuid) {
    for (std::uint32_t k = 0; k < intervals.size(); ++k) {
        descriptor_.clear();
        descriptor_.varint(field::kUuid, interval_uuid(k));
        descriptor_.bytes(field::kTrackName, "critical path: " + intervals[k]);
        sequence_.descriptor(descriptor_);
    }
}

// The interval's first lane free at `begin_ns`, else a new one (its track
// written now): the first lanes carry most paths, and the smallest uuids.
std::uint32_t PathSlices::lane_for(std::uint32_t interval, std::int64_t begin_ns, std::int64_t end_ns) {
    auto& busy = busy_lanes_[interval];
    auto& free = free_lanes_[interval];
    for (; !busy.empty() && busy.top().first <= begin_ns; busy.pop()) free.push(busy.top().second);
    std::uint32_t lane = 0;
    if (!free.empty()) {
        lane = free.top();
        free.pop();
    } else {
        lane = next_lane_uuid_++;
        descriptor_.clear();
        descriptor_.varint(field::kUuid, lane);
        descriptor_.bytes(field::kTrackName, "lane " + std::to_string(++lanes_[interval]));
        descriptor_.varint(field::kParentUuid, interval_uuid(interval));
        sequence_.descriptor(descriptor_);
    }
    busy.emplace(end_ns, lane);
    return lane;
}

void PathSlices::sift_down(std::size_t at) {
    const std::size_t n = waiting_.size();
    const Active moving = waiting_[at];
    for (std::size_t child; (child = 2 * at + 1) < n; at = child) {
        if (child + 1 < n && waiting_[child] > waiting_[child + 1]) ++child;
        if (!(moving > waiting_[child])) break;
        waiting_[at] = waiting_[child];
    }
    waiting_[at] = moving;
}

std::uint64_t PathSlices::name_iid(std::vector<std::uint64_t>& cache, const std::vector<std::string>& names, std::uint32_t index) {
    if (cache.size() <= index) cache.resize(names.size(), 0);  // names may have grown
    if (cache[index] == 0) cache[index] = sequence_.iid(Interned::name, names[index]);
    return cache[index];
}

void PathSlices::write(const Active& a) {
    event_.clear();
    if ((a.step % 2 == 0 && a.step > 0) || a.step == 2 * a.count + 1) {  // a segment's end, or the path's
        event_.varint(field::kType, kSliceEnd);
        event_.varint(field::kTrackUuid, a.lane);
    } else {
        event_.varint(field::kType, kSliceBegin);
        event_.varint(field::kTrackUuid, a.lane);
        const bool instance = a.step == 0 && a.count > 1;
        event_.varint(field::kNameIid, instance ? name_iid(interval_iids_, intervals_, a.interval)
                                                : name_iid(segment_iids_, segment_names_, slots_[a.slot][a.step == 0 ? 0 : (a.step - 1) / 2].name));
    }
    sequence_.event(a.next_ns, event_);
}

}  // namespace hashtrace::report::perfetto
