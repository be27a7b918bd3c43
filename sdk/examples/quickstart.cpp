// The smallest real use of the SDK: two threads passing messages through a
// queue, traced at each step. Build it against an installed hashtrace:
//
//   find_package(hashtrace REQUIRED)
//   target_link_libraries(app PRIVATE hashtrace::sdk)
//
// Run it, then look at the log:  hashtrace log logs/
#include <hashtrace/hashtrace.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <concurrentqueue/concurrentqueue.h>

struct Message {
    std::uint32_t id;
    float force[3];
};

int main() {
    hashtrace::Config defaults;
    defaults.node_name = "Quickstart";
    defaults.log_dir = "logs";
    hashtrace::Session tracing(hashtrace::Config::from_env(defaults));  // HASHTRACE_* may override

    moodycamel::ConcurrentQueue<Message> queue;
    std::atomic<bool> done{false};

    std::thread consumer([&] {
        hashtrace::set_thread_name("consumer");
        Message m;
        while (!done || queue.size_approx() > 0) {
            if (!queue.try_dequeue(m)) continue;
            TRACEPOINT("MessageReceived", hashtrace::inout("messageid", m.id));
            TRACEPOINT("ForceApplied", hashtrace::in("messageid", m.id), hashtrace::out("force", m.force[0], m.force[1], m.force[2]));
        }
    });

    hashtrace::set_thread_name("producer");
    for (std::uint32_t loop = 0; loop < 1000; ++loop) {
        Message m{loop, {loop * 0.1f, 0.f, -1.f}};
        TRACEPOINT("ForceComputed", hashtrace::in("loop", loop), hashtrace::out("messageid", m.id));
        queue.enqueue(m);
        TRACEPOINT("MessageSent", hashtrace::inout("messageid", m.id));
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    done = true;
    consumer.join();
    std::printf("wrote %s\n", tracing.log_path().c_str());
}
