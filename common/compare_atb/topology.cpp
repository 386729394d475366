// model_tree.json and ATB model JSON -> TopoTree. Every key is type-checked; sizes, JSON depth
// and node counts are capped before anything is built.
#include "common/compare_atb/topology.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "common/base/unique_fd.h"
#include "common/formats/json_depth.h"

namespace msit::atb {
namespace {

using Json = nlohmann::json;

Result<Json> parse_json(std::string_view text, const std::string& path) {
  if (text.size() > kMaxTopologyBytes) return make_error(path, Stage::kTopology, "file larger than the topology limit");
  MSIT_TRY(check_json_depth(text, kMaxJsonDepth, path));
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error(path, Stage::kTopology, "not valid JSON");
  return j;
}

const Json* member(const Json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

// Names become directory names below the token dir: never a path of their own.
bool safe_component(const std::string& s) {
  return s.find('/') == std::string::npos && s.find('\0') == std::string::npos && s != "." && s != "..";
}

std::string string_member(const Json& o, const char* key) {
  const Json* v = member(o, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

struct TorchBuilder {
  TopoTree& tree;
  const std::string& path;

  Status add(const Json& o, int32_t parent, uint32_t depth) {
    if (!o.is_object()) return make_error(path, Stage::kTopology, "a model_tree node is not an object");
    if (tree.nodes.size() >= kMaxTopologyNodes) return make_error(path, Stage::kTopology, "too many nodes");
    const Json* name = member(o, "name");
    if (!name || !name->is_string())
      return make_error(path, Stage::kTopology, "a model_tree node has no string \"name\"");
    TopoNode n;
    n.name = name->get<std::string>();
    if (!safe_component(n.name))
      return make_error(path, Stage::kTopology, "module name \"" + n.name + "\" is not a directory name");
    n.type = string_member(o, "type");
    n.tensor_path = n.name;
    n.parent = parent;
    n.depth = depth;
    auto self = static_cast<uint32_t>(tree.nodes.size());
    if (parent >= 0) tree.nodes[static_cast<size_t>(parent)].children.push_back(self);
    tree.nodes.push_back(std::move(n));
    const Json* kids = member(o, "children");
    if (!kids || kids->is_null()) return ok_status();
    if (!kids->is_array())
      return make_error(path, Stage::kTopology, "\"children\" of " + tree.nodes[self].name + " is not a list");
    for (const Json& k : *kids) MSIT_TRY(add(k, static_cast<int32_t>(self), depth + 1));
    return ok_status();
  }
};

void read_param(const Json& o, OpParam& p) {
  const Json* param = member(o, "param");
  if (!param) return;
  p.present = true;
  if (!param->is_object()) return;
  p.is_object = true;
  if (const Json* hb = member(*param, "hasBias")) {
    p.has_bias_key = true;
    p.has_bias_true = hb->is_boolean() && hb->get<bool>();
  }
  if (const Json* et = member(*param, "elewiseType"); et && et->is_number_integer())
    p.elewise_type = et->get<int64_t>();
}

struct AtbBuilder {
  TopoTree& tree;
  const std::string& path;
  uint32_t& show;

  Status add(const Json& o, int32_t parent, uint32_t depth, const std::string& rel) {
    if (!o.is_object()) return make_error(path, Stage::kTopology, "an ATB node is not an object");
    if (tree.nodes.size() >= kMaxTopologyNodes) return make_error(path, Stage::kTopology, "too many nodes");
    TopoNode n;
    n.name = string_member(o, "opName");
    n.type = string_member(o, "opType");
    if (!safe_component(n.type))
      return make_error(path, Stage::kTopology, "opType \"" + n.type + "\" is not a directory name");
    n.tensor_path = rel;
    n.parent = parent;
    n.depth = depth;
    n.show_order = ++show;
    read_param(o, n.param);
    auto self = static_cast<uint32_t>(tree.nodes.size());
    if (parent >= 0) tree.nodes[static_cast<size_t>(parent)].children.push_back(self);
    tree.nodes.push_back(std::move(n));
    const Json* kids = member(o, "nodes");
    if (!kids || kids->is_null()) return ok_status();
    if (!kids->is_array())
      return make_error(path, Stage::kTopology, "\"nodes\" of " + tree.nodes[self].name + " is not a list");
    size_t q = 0;
    for (const Json& k : *kids) {
      std::string child = rel + "/" + std::to_string(q++) + "_" + string_member(k, "opType");
      MSIT_TRY(add(k, static_cast<int32_t>(self), depth + 1, child));
    }
    return ok_status();
  }
};

}  // namespace

Status check_json_depth(std::string_view text, uint32_t max_depth, const std::string& path) {
  if (!json_nesting_exceeds(text, max_depth)) return ok_status();
  return make_error(path, Stage::kTopology, "JSON nested deeper than " + std::to_string(max_depth) + " levels");
}

int64_t trailing_number(std::string_view name) {
  auto pos = name.find_last_of('_');
  std::string_view tail = pos == std::string_view::npos ? name : name.substr(pos + 1);
  if (tail.empty() || tail.size() > 15) return 0;
  int64_t v = 0;
  for (char c : tail) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + (c - '0');
  }
  return v;
}

Result<TopoTree> parse_torch_model_tree(std::string_view text, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(Json j, parse_json(text, path));
  TopoTree t;
  t.source = path;
  TorchBuilder b{t, path};
  MSIT_TRY(b.add(j, -1, 0));
  return t;
}

Result<TopoTree> parse_atb_model(std::string_view text, const std::string& path, bool transdata, uint32_t& show_counter,
                                 bool legacy_start0) {
  MSIT_ASSIGN_OR_RETURN(Json j, parse_json(text, path));
  if (!j.is_object()) return make_error(path, Stage::kTopology, "an ATB model JSON must be an object");
  const Json* nodes = member(j, "nodes");
  if (!nodes || !nodes->is_array()) return make_error(path, Stage::kTopology, "no \"nodes\" list");
  TopoTree t;
  t.source = path;
  t.atb = true;
  if (!legacy_start0 && !nodes->empty()) t.start = trailing_number(string_member(nodes->front(), "opName"));
  if (transdata && !legacy_start0) t.start += 1;
  TopoNode root;
  root.name = string_member(j, "modelName");
  root.type = root.name;
  root.show_order = ++show_counter;
  t.nodes.push_back(std::move(root));
  AtbBuilder b{t, path, show_counter};
  int64_t p = 0;
  for (const Json& n : *nodes) {
    std::string rel = std::to_string(t.start + p++) + "_" + string_member(n, "opType");
    MSIT_TRY(b.add(n, 0, 1, rel));
  }
  return t;
}

Result<std::string> read_topology_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return make_sys_error(path, Stage::kOpen, "cannot open topology file", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_sys_error(path, Stage::kOpen, "fstat", errno);
  if (!S_ISREG(st.st_mode)) return make_error(path, Stage::kOpen, "not a regular file");
  if (static_cast<uint64_t>(st.st_size) > kMaxTopologyBytes) {
    return make_error(path, Stage::kTopology,
                      "file of " + std::to_string(st.st_size) + " bytes exceeds the topology limit");
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_sys_error(path, Stage::kRead, "read topology file", errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace msit::atb
