"""A one-program harness for the raw-binding tests: numpy in, one run, numpy out."""
import numpy as np

from popdsl import poplar, poputil, program


class Runner:
    """A 4-tile IPU model, a graph and one Sequence `prog` to build into."""

    def __init__(self):
        model = poplar.IPUModel("ipu2")
        model.tilesPerIPU = 4
        self.device = model.createDevice()
        self.graph = poplar.Graph(self.device.getTarget())
        self.prog = program.Sequence()

    def tensor(self, values, ptype, name="in"):
        """A linearly mapped variable of type `ptype` initialised from `values`."""
        t = self.graph.addVariable(ptype, list(np.shape(values)), name)
        poputil.mapTensorLinearly(self.graph, t, 1, 1)
        self.graph.setInitialValue(t, np.asarray(values, ptype.numpy_dtype))
        return t

    def run(self, *tensors, options=None):
        """Runs `prog` once (with engine `options`) and returns the final values of `tensors`
        as numpy arrays."""
        self._read_back(tensors)
        return self._values(poplar.Engine(self.graph, self.prog, options or {}), tensors)

    def run_compiled_and_reloaded(self, *tensors):
        """Runs `prog` from its compiled executable and from that executable serialized
        and read back; returns both lists of values (they should be equal)."""
        self._read_back(tensors)
        executable = poplar.compileGraph(self.graph, [self.prog])
        reloaded = poplar.Executable.deserialize(executable.serialize())
        return [self._values(poplar.Engine(e), tensors) for e in (executable, reloaded)]

    def _read_back(self, tensors):
        for i, t in enumerate(tensors):
            self.graph.createHostRead(f"out{i}", t)

    def _values(self, engine, tensors):
        engine.load(self.device)
        engine.run(0)
        outs = []
        for i, t in enumerate(tensors):
            out = np.zeros(t.shape(), t.elementType().numpy_dtype)
            engine.readTensor(f"out{i}", out)
            outs.append(out)
        return outs
