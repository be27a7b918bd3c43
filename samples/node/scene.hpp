// samples/node/scene.hpp - the shared scene graph each node keeps a copy of,
// and the small amounts of real work the nodes do on it: rigid-body steps
// (physics), a spring force against a moving haptic cursor (haptics) and
// world matrices for drawing (render). Pure functions, so they test alone.
#pragma once

#include "samples/msg/message.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace hashtrace::samples {

struct Vec3 {
    float x = 0, y = 0, z = 0;
};

struct SceneObject {
    Vec3 position;
    std::array<float, 4> orientation{1, 0, 0, 0};  // unit quaternion w x y z
    Vec3 velocity;
    Vec3 applied_force;  // latest haptic force on this object
};

struct SceneGraph {
    std::vector<SceneObject> objects;
    Vec3 haptic_cursor;   // where the haptic device is (as the haptics node last said)

    explicit SceneGraph(int object_count);
};

// Applies a force or transform update. Messages about objects this graph does
// not have are ignored (returns false): nodes may be configured differently.
bool apply_update(SceneGraph& scene, const msg::SceneMessage& update);

// One physics step of dt seconds: gravity, the applied haptic forces, a
// bouncing floor, a slow spin.
void step_physics(SceneGraph& scene, float dt);

// Where the simulated operator holds the haptic device at time t (a circle
// through the objects, so forces come and go).
Vec3 cursor_at(double t_s) noexcept;

struct HapticForce {
    std::uint16_t object = 0;
    Vec3 force;  // on the object; the device feels the opposite
    Vec3 cursor;
};
// The spring force of the object nearest the cursor (zero outside its radius).
HapticForce compute_force(const SceneGraph& scene, Vec3 cursor) noexcept;

// Column-major 4x4 world matrices, one per object; returns a checksum of them
// so the work cannot be optimised away.
float compute_world_matrices(const SceneGraph& scene, std::vector<std::array<float, 16>>& out);

// Message payloads.
msg::SceneMessage make_transform(std::uint16_t object, const SceneObject& o);
msg::SceneMessage make_force(const HapticForce& f);

}  // namespace hashtrace::samples
