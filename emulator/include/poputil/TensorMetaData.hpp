#pragma once
// Some unspecified meta-data for a tensor, copied with it (poplibs attaches quantisation
// details this way); empty by default.
#include <memory>

namespace poputil {

class TensorMetaDataBase;

class TensorMetaData {
  std::unique_ptr<TensorMetaDataBase> data;

public:
  TensorMetaData();
  TensorMetaData(const TensorMetaData &other);
  TensorMetaData(TensorMetaData &&other);
  TensorMetaData &operator=(const TensorMetaData &other);
  TensorMetaData &operator=(TensorMetaData &&other);

  TensorMetaData(std::unique_ptr<TensorMetaDataBase> data);
  ~TensorMetaData();
  const TensorMetaDataBase *getData() const { return data.get(); }
};

} // namespace poputil
