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

    def run(self, *tensors):
        """Runs `prog` once and returns the final values of `tensors` as numpy arrays."""
        for i, t in enumerate(tensors):
            self.graph.createHostRead(f"out{i}", t)
        engine = poplar.Engine(self.graph, self.prog)
        engine.load(self.device)
        engine.run(0)
        outs = []
        for i, t in enumerate(tensors):
            out = np.zeros(t.shape(), t.elementType().numpy_dtype)
            engine.readTensor(f"out{i}", out)
            outs.append(out)
        return outs
