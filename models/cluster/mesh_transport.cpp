// CoherentMemorySystem as the controllers' coherence::Environment: the mesh
// transport of protocol messages (slots, mesh message types, express
// requests carried at once) and its scheduler of delayed actions (one
// SC_METHOD over a time-ordered queue). coherent_memory_system.h describes
// the time and the express path.
#include "cluster/coherent_memory_system.h"

#include "coherence/memory_controller.h"
#include "core/simulation.h"

#include <algorithm>
#include <string>

namespace npuvp {

using coherence::Cycles;
using coherence::Message;
using coherence::Port;

unsigned CoherentMemorySystem::register_mesh_type(unsigned protocol_type) {
  if (protocol_type >= mesh_types_.size()) mesh_types_.resize(protocol_type + 1, -1);
  int& type = mesh_types_[protocol_type];
  if (type < 0) {
    const char* memory_name = coherence::memory_message_name(protocol_type);
    std::string name = memory_name ? memory_name : message_name_(protocol_type);
    if (name.empty() || name == "?") name = "type" + std::to_string(protocol_type);
    type = static_cast<int>(network_.message_type(name));
  }
  return static_cast<unsigned>(type);
}

coherence::Cycles CoherentMemorySystem::now() const { return base_ticks() / period_ticks_; }

void CoherentMemorySystem::send(const Message& message, Cycles delay) {
  std::uint32_t slot;
  if (free_message_slots_.empty()) {
    slot = static_cast<std::uint32_t>(message_slots_.size());
    message_slots_.push_back(message);
  } else {
    slot = free_message_slots_.back();
    free_message_slots_.pop_back();
    message_slots_[slot] = message;
  }
  MeshMessage mesh_message;
  mesh_message.source = message.source;
  mesh_message.destination = message.destination;
  mesh_message.port = static_cast<unsigned>(message.destination_port);
  mesh_message.vnet = static_cast<unsigned>(message.vnet);
  mesh_message.type = mesh_type(message.type);
  mesh_message.data_bytes = message.has_data ? geometry_.line_bytes : 0;
  mesh_message.tag = slot;
  const Ticks at = base_ticks() + delay * period_ticks_;
  // Express: an L1's request during its hart's access (access_ticks_ set)
  // that its receiver will answer alone, and that answer.
  const bool carried =
      express_enabled_ &&
      (answering_ >= 0 ? message.destination == static_cast<unsigned>(answering_) &&
                             message.destination_port == Port::kL1
                       : access_ticks_ != 0 && express_request(message) &&
                             receivers_[message.destination * kPorts + mesh_message.port]->answers_alone(message));
  Ticks arrival = 0;
  if (carried && !queued_express_like(mesh_message) && network_.transfer_in_order(mesh_message, at, arrival)) {
    express_.push_back(Express{arrival, express_sequence_++, mesh_message});
    ++express_messages_;
    return;
  }
  network_.send(std::move(mesh_message), sc_core::sc_time::from_value(at));
}

bool CoherentMemorySystem::queued_express_like(const MeshMessage& message) const {
  for (const Express& queued : express_)
    if (queued.message.source == message.source && queued.message.destination == message.destination &&
        queued.message.vnet == message.vnet)
      return true;
  return false;
}

void CoherentMemorySystem::carry_queued_express() {
  while (!express_.empty()) {
    auto next = std::min_element(express_.begin(), express_.end(), [](const Express& a, const Express& b) {
      return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
    });
    const Express express = *next;
    express_.erase(next);
    const auto slot = static_cast<std::uint32_t>(express.message.tag);
    // While the receiver answers a request, its replies to the requester join.
    answering_ = express_request(message_slots_[slot]) ? static_cast<int>(express.message.source) : -1;
    access_ticks_ = express.time;  // the controllers' time: the message's arrival
    deliver(express.message.destination, express.message.port, slot);
  }
  answering_ = -1;
  access_ticks_ = 0;
}

void CoherentMemorySystem::deliver(MeshMessage& mesh_message) {
  deliver(mesh_message.destination, mesh_message.port, static_cast<std::uint32_t>(mesh_message.tag));
}

void CoherentMemorySystem::deliver(unsigned node, unsigned port, std::uint32_t slot) {
  const Message& message = message_slots_[slot];  // stays in place (and its slot taken) while handled
  coherence::Controller* receiver = receivers_[node * kPorts + port];
  if (port == static_cast<unsigned>(Port::kHome)) ++home_messages_[node];
  try {
    receiver->handle(message);
  } catch (const coherence::ProtocolError& error) {
    simulation().fail(ExitStatus::kInternalError, std::string(name()) + ": " + error.what());
  }
  free_message_slots_.push_back(slot);
}

void CoherentMemorySystem::schedule(Cycles delay, std::function<void()> action) {
  std::uint32_t slot;
  if (free_action_slots_.empty()) {
    slot = static_cast<std::uint32_t>(action_slots_.size());
    action_slots_.push_back(std::move(action));
  } else {
    slot = free_action_slots_.back();
    free_action_slots_.pop_back();
    action_slots_[slot] = std::move(action);
  }
  const Ticks at = base_ticks() + delay * period_ticks_;
  const bool earliest = scheduled_.empty() || at < scheduled_.top().time;
  scheduled_.push({at, next_sequence_++, slot});
  if (earliest) {
    const Ticks now = sc_core::sc_time_stamp().value();
    scheduled_event_.notify(sc_core::sc_time::from_value(at > now ? at - now : 0));
  }
}

void CoherentMemorySystem::run_scheduled() {
  const Ticks now = sc_core::sc_time_stamp().value();
  while (!scheduled_.empty() && scheduled_.top().time <= now) {
    const std::uint32_t slot = scheduled_.top().slot;
    scheduled_.pop();
    std::function<void()> action = std::move(action_slots_[slot]);
    action_slots_[slot] = nullptr;
    free_action_slots_.push_back(slot);
    try {
      action();
    } catch (const coherence::ProtocolError& error) {
      simulation().fail(ExitStatus::kInternalError, std::string(name()) + ": " + error.what());
    }
  }
  if (!scheduled_.empty()) scheduled_event_.notify(sc_core::sc_time::from_value(scheduled_.top().time - now));
}

bool CoherentMemorySystem::express_request(const Message& message) const {
  if (message.source_port != Port::kL1) return false;
  const coherence::ExpressRequests* l1 = express_l1s_[message.source];
  return l1 && l1->express(message);
}

}  // namespace npuvp
