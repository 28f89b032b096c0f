// Graph::serializeTensors and deserializeTensors: a tensor's type, shape, debug name
// and tile mapping, as JSON or as a binary record.
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <istream>
#include <iterator>
#include <limits>
#include <ostream>
#include <utility>

#include "GraphState.hpp"
#include "JsonText.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"

namespace poplar {

namespace {

// What is kept of one tensor.
struct TensorRecord {
  std::string name;
  std::string type;
  std::vector<std::size_t> shape;
  std::vector<std::pair<unsigned, std::vector<Interval>>> mapping; // tiles that hold elements
};

constexpr char kBinaryMagic[] = "POPDSLT1"; // the binary format's first bytes

Type typeNamed(const std::string &name) {
  for (unsigned id = 1;; ++id) { // id 0 is the invalid type
    const Type t = detail::typeFromId(id);
    if (t == Type()) break;
    if (t.toString().str() == name) return t;
  }
  throw parse_error("Graph::deserializeTensors: unknown element type '" + name + "'");
}

void writeJson(std::ostream &out, const std::vector<TensorRecord> &records) {
  out << "{\"tensors\":[";
  for (std::size_t r = 0; r < records.size(); ++r) {
    const TensorRecord &t = records[r];
    out << (r ? "," : "") << "{\"name\":";
    detail::writeJsonString(out, t.name);
    out << ",\"type\":";
    detail::writeJsonString(out, t.type);
    out << ",\"shape\":[";
    for (std::size_t d = 0; d < t.shape.size(); ++d) out << (d ? "," : "") << t.shape[d];
    out << "],\"mapping\":[";
    for (std::size_t m = 0; m < t.mapping.size(); ++m) {
      out << (m ? "," : "") << "{\"tile\":" << t.mapping[m].first << ",\"intervals\":[";
      const auto &intervals = t.mapping[m].second;
      for (std::size_t i = 0; i < intervals.size(); ++i)
        out << (i ? "," : "") << "[" << intervals[i].begin() << "," << intervals[i].end() << "]";
      out << "]}";
    }
    out << "]}";
  }
  out << "]}\n";
}

// Reads the JSON writeJson writes.
class JsonReader {
public:
  explicit JsonReader(std::string text) : json_(std::move(text), "Graph::deserializeTensors: invalid JSON") {}

  std::vector<TensorRecord> records() {
    std::vector<TensorRecord> out;
    json_.expect('{');
    key("tensors");
    list([&] { out.push_back(record()); });
    json_.expect('}');
    json_.finish();
    return out;
  }

private:
  TensorRecord record() {
    TensorRecord t;
    json_.expect('{');
    key("name");
    t.name = json_.readString();
    json_.expect(',');
    key("type");
    t.type = json_.readString();
    json_.expect(',');
    key("shape");
    list([&] { t.shape.push_back(json_.readSize()); });
    json_.expect(',');
    key("mapping");
    list([&] {
      std::pair<unsigned, std::vector<Interval>> tile;
      json_.expect('{');
      key("tile");
      const std::size_t tileNum = json_.readSize();
      if (tileNum > std::numeric_limits<unsigned>::max()) json_.fail("a tile number too large");
      tile.first = static_cast<unsigned>(tileNum);
      json_.expect(',');
      key("intervals");
      list([&] {
        json_.expect('[');
        const std::size_t begin = json_.readSize();
        json_.expect(',');
        const std::size_t end = json_.readSize();
        json_.expect(']');
        tile.second.emplace_back(begin, end);
      });
      json_.expect('}');
      t.mapping.push_back(std::move(tile));
    });
    json_.expect('}');
    return t;
  }

  template <class Item> void list(Item item) {
    json_.expect('[');
    if (json_.consume(']')) return;
    do item();
    while (json_.consume(','));
    json_.expect(']');
  }
  void key(const char *name) {
    if (json_.readString() != name) json_.fail(std::string("expected the key '") + name + "'");
    json_.expect(':');
  }

  detail::JsonCursor json_;
};

void writeU64(std::ostream &out, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) out.put(static_cast<char>((v >> (8 * b)) & 0xff));
}
void writeBytes(std::ostream &out, const std::string &s) {
  writeU64(out, s.size());
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

void writeBinary(std::ostream &out, const std::vector<TensorRecord> &records) {
  out.write(kBinaryMagic, sizeof(kBinaryMagic) - 1);
  writeU64(out, records.size());
  for (const TensorRecord &t : records) {
    writeBytes(out, t.name);
    writeBytes(out, t.type);
    writeU64(out, t.shape.size());
    for (std::size_t d : t.shape) writeU64(out, d);
    writeU64(out, t.mapping.size());
    for (const auto &tile : t.mapping) {
      writeU64(out, tile.first);
      writeU64(out, tile.second.size());
      for (const Interval &i : tile.second) {
        writeU64(out, i.begin());
        writeU64(out, i.end());
      }
    }
  }
}

class BinaryReader {
public:
  explicit BinaryReader(std::string bytes) : s_(std::move(bytes)) {}

  std::vector<TensorRecord> records() {
    const std::size_t magic = sizeof(kBinaryMagic) - 1;
    if (s_.compare(0, magic, kBinaryMagic) != 0) fail("it does not start as serializeTensors' binary format does");
    pos_ = magic;
    std::vector<TensorRecord> out(count());
    for (TensorRecord &t : out) {
      t.name = bytes();
      t.type = bytes();
      t.shape.resize(count());
      for (std::size_t &d : t.shape) d = u64();
      t.mapping.resize(count());
      for (auto &tile : t.mapping) {
        const std::uint64_t tileNum = u64();
        if (tileNum > std::numeric_limits<unsigned>::max()) fail("a tile number too large");
        tile.first = static_cast<unsigned>(tileNum);
        tile.second.resize(count());
        for (Interval &i : tile.second) {
          const std::size_t begin = u64();
          i = Interval(begin, u64());
        }
      }
    }
    if (pos_ != s_.size()) fail("bytes after the end");
    return out;
  }

private:
  std::uint64_t u64() {
    if (pos_ + 8 > s_.size()) fail("it ends early");
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= std::uint64_t(static_cast<unsigned char>(s_[pos_++])) << (8 * b);
    return v;
  }
  // A length, which cannot exceed the bytes left (every item takes at least one).
  std::size_t count() {
    const std::uint64_t n = u64();
    if (n > s_.size() - pos_) fail("a count larger than the data");
    return static_cast<std::size_t>(n);
  }
  std::string bytes() {
    const std::size_t n = count();
    std::string out = s_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  [[noreturn]] void fail(const std::string &what) const {
    throw parse_error("Graph::deserializeTensors: invalid binary data at byte " + std::to_string(pos_) + ": " + what);
  }

  std::string s_;
  std::size_t pos_ = 0;
};

} // namespace

void Graph::serializeTensors(std::ostream &out, ArrayRef<Tensor> tensors, SerializationFormat format) const {
  std::vector<TensorRecord> records;
  for (const Tensor &t : tensors) {
    const detail::TensorImpl &impl = detail::tensorImpl(t);
    if (impl.vars != state_->vars)
      throw poplar_error("Graph::serializeTensors: tensor " + impl.describe() + " belongs to a different graph");
    TensorRecord r;
    r.name = impl.blocks.empty() ? "" : state_->vars->vars[impl.blocks[0].var].name;
    r.type = impl.type.toString().str();
    r.shape = impl.shape;
    const TileToTensorMapping mapping = getTileMapping(t, false);
    for (unsigned tile = 0; tile < mapping.size(); ++tile)
      if (!mapping[tile].empty()) r.mapping.emplace_back(tile, mapping[tile]);
    records.push_back(std::move(r));
  }
  if (format == SerializationFormat::JSON) writeJson(out, records);
  else writeBinary(out, records);
  if (!out) throw poplar_error("Graph::serializeTensors: writing to the stream failed");
}

std::vector<Tensor> Graph::deserializeTensors(std::istream &in, SerializationFormat format) {
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<TensorRecord> records =
      format == SerializationFormat::JSON ? JsonReader(std::move(text)).records() : BinaryReader(std::move(text)).records();
  std::vector<Tensor> out;
  for (const TensorRecord &r : records) {
    Tensor t = addVariable(typeNamed(r.type), r.shape, r.name);
    TileToTensorMapping mapping;
    for (const auto &tile : r.mapping) {
      if (tile.first >= getTarget().getNumTiles())
        throw parse_error("Graph::deserializeTensors: tensor '" + r.name + "' is mapped to tile " +
                          std::to_string(tile.first) + " but the target has " +
                          std::to_string(getTarget().getNumTiles()) + " tiles");
      if (mapping.size() <= tile.first) mapping.resize(tile.first + 1);
      mapping[tile.first] = tile.second;
    }
    setTileMapping(t, mapping);
    out.push_back(t);
  }
  return out;
}

} // namespace poplar
