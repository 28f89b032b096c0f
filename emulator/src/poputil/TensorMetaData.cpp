// Tensor meta-data: an opaque, copyable payload (none in the emulator's own libraries).
#include <poputil/TensorMetaData.hpp>

namespace poputil {

class TensorMetaDataBase {
public:
  virtual ~TensorMetaDataBase() = default;
  virtual std::unique_ptr<TensorMetaDataBase> clone() const = 0;
};

TensorMetaData::TensorMetaData() = default;
TensorMetaData::TensorMetaData(std::unique_ptr<TensorMetaDataBase> data) : data(std::move(data)) {}
TensorMetaData::TensorMetaData(const TensorMetaData &other) : data(other.data ? other.data->clone() : nullptr) {}
TensorMetaData::TensorMetaData(TensorMetaData &&other) = default;
TensorMetaData &TensorMetaData::operator=(const TensorMetaData &other) {
  data = other.data ? other.data->clone() : nullptr;
  return *this;
}
TensorMetaData &TensorMetaData::operator=(TensorMetaData &&other) = default;
TensorMetaData::~TensorMetaData() = default;

} // namespace poputil
