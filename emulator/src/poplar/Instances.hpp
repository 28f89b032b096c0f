#pragma once
// An engine that runs a slice of its graph's replicas (one instance of a multi-instance
// run, as poprun starts them): which slice its options choose, and the exchange of one
// collective's data between the instances (over InstanceExchange, the one seam).
#include <poplar/OptionFlags.hpp>

#include <string>
#include <vector>

#include "EngineState.hpp"

namespace poplar::detail {

// The slice that the options' target.firstRuntimeReplica / numberRuntimeReplica choose of
// `total` replicas (all of them when neither is set), with this thread's exchange when it
// is a slice. Throws poplar_error for a slice past the replicas, or one run without
// target.syncReplicasIndependently=true (instances synchronise only at collectives).
ReplicaSlice replicaSlice(const OptionFlags &options, unsigned total);

// Sends what this instance reached (`step`: every instance must name the same) and its
// replicas' `payloads` (one per replica of the slice) to every instance; returns every
// replica's payload by global index. When the instances reached different steps, throws
// poplar_error on every instance, naming what each one reached.
std::vector<std::string> exchangeStep(const ReplicaSlice &slice, const std::string &step,
                                      const std::vector<std::string> &payloads);

} // namespace poplar::detail
