#pragma once
// The plan of a CTC operation (popnn::ctc): what CTCLoss.hpp's plan() was given, which
// the operations check their tensors against.
#include <memory>
#include <ostream>

namespace popnn {
namespace ctc {

class Plan {
public:
  Plan();
  ~Plan();
  Plan(const Plan &other);
  Plan(Plan &&other);
  Plan &operator=(const Plan &other);
  Plan &operator=(Plan &&other);
  friend bool operator<(const Plan &a, const Plan &b);
  friend bool operator==(const Plan &a, const Plan &b);
  friend std::ostream &operator<<(std::ostream &o, const Plan &p);

  // Internal implementation
  class Impl;
  Impl &getImpl() const { return *impl; }
  Plan(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl;
};

bool operator<(const Plan &a, const Plan &b);
bool operator==(const Plan &a, const Plan &b);
bool operator!=(const Plan &a, const Plan &b);

} // namespace ctc
} // namespace popnn
