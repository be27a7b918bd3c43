#include "scene.hpp"

#include <cmath>

namespace hashtrace::samples {

namespace {
constexpr float kObjectRadius = 0.3f;
constexpr float kStiffness = 400.f;  // N/m, a soft haptic spring
constexpr float kMass = 1.f;
constexpr float kGravity = -9.81f;
}  // namespace

SceneGraph::SceneGraph(int object_count) : objects(static_cast<std::size_t>(object_count)) {
    for (int i = 0; i < object_count; ++i) {
        auto& o = objects[static_cast<std::size_t>(i)];
        const float angle = 6.2831853f * static_cast<float>(i) / static_cast<float>(object_count);
        o.position = {std::cos(angle), 1.f + 0.2f * static_cast<float>(i % 3), std::sin(angle)};
    }
}

bool apply_update(SceneGraph& scene, const msg::SceneMessage& m) {
    if (m.object >= scene.objects.size()) return false;
    SceneObject& o = scene.objects[m.object];
    switch (m.kind) {
        case msg::Kind::transform:
            o.position = {m.values[0], m.values[1], m.values[2]};
            o.orientation = {m.values[3], m.values[4], m.values[5], m.values[6]};
            return true;
        case msg::Kind::force:
            o.applied_force = {m.values[0], m.values[1], m.values[2]};
            scene.haptic_cursor = {m.values[3], m.values[4], m.values[5]};
            return true;
        default:
            return false;
    }
}

void step_physics(SceneGraph& scene, float dt) {
    for (auto& o : scene.objects) {
        o.velocity.x += o.applied_force.x / kMass * dt;
        o.velocity.y += (kGravity + o.applied_force.y / kMass) * dt;
        o.velocity.z += o.applied_force.z / kMass * dt;
        o.position.x += o.velocity.x * dt;
        o.position.y += o.velocity.y * dt;
        o.position.z += o.velocity.z * dt;
        if (o.position.y < kObjectRadius) {  // the floor: bounce, losing some energy
            o.position.y = kObjectRadius;
            o.velocity.y = std::fabs(o.velocity.y) < 0.5f ? 3.f : -0.8f * o.velocity.y;
        }
        // Keep the objects near the cursor's circle.
        o.velocity.x -= o.position.x * 0.5f * dt;
        o.velocity.z -= o.position.z * 0.5f * dt;
        // Spin about y by a small angle: q = q * (cos a, 0, sin a, 0).
        const float a = 0.5f * dt, c = std::cos(a), s = std::sin(a);
        auto& q = o.orientation;
        const std::array<float, 4> r{q[0] * c - q[2] * s, q[1] * c + q[3] * s, q[2] * c + q[0] * s, q[3] * c - q[1] * s};
        const float norm = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        for (int i = 0; i < 4; ++i) q[static_cast<std::size_t>(i)] = r[static_cast<std::size_t>(i)] / norm;
    }
}

Vec3 cursor_at(double t_s) noexcept {
    const double a = t_s * 1.3;
    return {static_cast<float>(std::cos(a)), static_cast<float>(1.1 + 0.2 * std::sin(3 * a)), static_cast<float>(std::sin(a))};
}

HapticForce compute_force(const SceneGraph& scene, Vec3 cursor) noexcept {
    HapticForce best;
    best.cursor = cursor;
    float best_distance = 1e30f;
    for (std::size_t i = 0; i < scene.objects.size(); ++i) {
        const Vec3& p = scene.objects[i].position;
        const Vec3 d{p.x - cursor.x, p.y - cursor.y, p.z - cursor.z};
        const float distance = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        if (distance < best_distance) {
            best_distance = distance;
            best.object = static_cast<std::uint16_t>(i);
            const float depth = kObjectRadius - distance;
            if (depth > 0 && distance > 1e-6f) {
                const float k = kStiffness * depth / distance;
                best.force = {d.x * k, d.y * k, d.z * k};
            } else {
                best.force = {};
            }
        }
    }
    return best;
}

float compute_world_matrices(const SceneGraph& scene, std::vector<std::array<float, 16>>& out) {
    out.resize(scene.objects.size());
    float checksum = 0;
    for (std::size_t i = 0; i < scene.objects.size(); ++i) {
        const auto& [w, x, y, z] = scene.objects[i].orientation;
        const Vec3& p = scene.objects[i].position;
        out[i] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),     0,
                  2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),     0,
                  2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y), 0,
                  p.x,                     p.y,                     p.z,                     1};
        for (float v : out[i]) checksum += v;
    }
    return checksum;
}

msg::SceneMessage make_transform(std::uint16_t object, const SceneObject& o) {
    msg::SceneMessage m;
    m.kind = msg::Kind::transform;
    m.origin = msg::NodeId::physics;
    m.object = object;
    m.values = {o.position.x, o.position.y, o.position.z, o.orientation[0], o.orientation[1], o.orientation[2],
                o.orientation[3]};
    return m;
}

msg::SceneMessage make_force(const HapticForce& f) {
    msg::SceneMessage m;
    m.kind = msg::Kind::force;
    m.origin = msg::NodeId::haptics;
    m.object = f.object;
    m.values = {f.force.x, f.force.y, f.force.z, f.cursor.x, f.cursor.y, f.cursor.z, 0};
    return m;
}

}  // namespace hashtrace::samples
