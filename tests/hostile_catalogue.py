"""A hostile catalogue: misuse and attack cases, each run in a fresh interpreter, with how each
ended: an error (its last line, to judge whether it names the problem), a normal end (its
output, to judge whether it should have refused), a signal or a hang. Not a test: a reader
judges each line (docs/developing.rst). Run from a checkout with popdsl built in place:

    PYTHONPATH=. python tests/hostile_catalogue.py [case ...]
"""
import os
import subprocess
import sys
import tempfile

PRELUDE = """\
import contextlib, os, threading
import numpy as np
import popdsl as pd
from popdsl import poplar, program
"""
GRAPH = "dev = pd.ipu_model(tiles=4)\ng = pd.Graph(dev)\n"


def vertex_source(field: str, body: str) -> str:
    """A codelet of one vertex V with `field` and `body` as its compute()."""
    return ("'#include <poplar/Vertex.hpp>\\nclass V : public poplar::Vertex { public: " + field +
            "; bool compute() { " + body + " return true; } };'")


def run_vertex(field: str, body: str, connect: str, checked: str) -> str:
    return (GRAPH + f"g.top.addCodelets({vertex_source(field, body)})\n{connect}\n"
            "cs = g.top.addComputeSet('c')\nv = g.top.addVertex(cs, 'V', {'a': x.raw})\n"
            "g.top.setTileMapping(v, 0)\n"
            f"e = poplar.Engine(g.top, program.Execute(cs), {{'emulator.checkVertexAccess': '{checked}'}})\n"
            "e.load(dev)\ne.run(0)\n")


CASES = {
    "replicas 0": GRAPH + "pd.Graph(dev, replicas=0)",
    "negative dimension": GRAPH + "g.variable(pd.float32, (-1,))",
    "dimension 2**40": GRAPH + "g.variable(pd.float32, (2**40, 2**40))",
    "matmul shapes": GRAPH + "a = g.variable(pd.float32, (2, 3))\nb = g.variable(pd.float32, (4, 5))\n"
                             "with pd.Sequence('m'):\n    a @ b",
    "feed of strings": GRAPH + "i = g.host_to_device(pd.float32, (2,), name='i')\n"
                               "with pd.Sequence('m') as m:\n    i.read()\n"
                               "with pd.Session(g, m, device=dev) as s:\n    s.run(feeds={i: np.array(['a', 'b'])})",
    "feed of the wrong shape": GRAPH + "i = g.host_to_device(pd.float32, (2,), name='i')\n"
                                       "with pd.Sequence('m') as m:\n    i.read()\n"
                                       "with pd.Session(g, m, device=dev) as s:\n"
                                       "    s.run(feeds={i: np.zeros((3, 4), np.float32)})",
    "load random bytes": "open('r.popdsl', 'wb').write(os.urandom(4096))\npd.Session.load('r.popdsl')",
    "load a directory": "pd.Session.load('.')",
    "load a FIFO": "os.mkfifo('f.popdsl')\npd.Session.load('f.popdsl')",
    "load half a file": GRAPH + "x = g.variable(pd.float32, (4,), init=np.ones(4))\n"
                                "with pd.Sequence('m') as m:\n    x += 1.0\n"
                                "with pd.Session(g, m, device=dev) as s:\n    s.save('t.popdsl')\n"
                                "b = open('t.popdsl', 'rb').read()\nopen('h.popdsl', 'wb').write(b[:len(b) // 2])\n"
                                "pd.Session.load('h.popdsl')",
    "Repeat(-1)": GRAPH + "with pd.Sequence('m'):\n    with pd.Repeat(-1):\n        pass",
    "Repeat(2**40)": GRAPH + "with pd.Sequence('m'):\n    with pd.Repeat(2**40):\n        pass",
    "raw Repeat(2**62)": "program.Repeat(2**62, program.Sequence())",
    "raw broadcast(2**62)": GRAPH + "g.variable(pd.float32, (4,)).raw.broadcast(2**62, 0)",
    "slice step 2**63": GRAPH + "print(g.variable(pd.float32, (4,))[::2**63].shape)",
    "init of the wrong size": GRAPH + "g.variable(pd.float32, (4,), init=np.ones(5))",
    "read after the session": GRAPH + "x = g.variable(pd.float32, (4,))\nwith pd.Sequence('m') as m:\n    x += 1.0\n"
                                      "s = pd.Session(g, m, device=dev)\nwith s:\n    s.run()\nprint(s.read(x))",
    "float index": GRAPH + "x = g.variable(pd.float32, (4,))\ni = g.variable(pd.float32, (1,))\n"
                           "with pd.Sequence('m'):\n    x.at[i].get()",
    "codelet syntax error": GRAPH + "g.top.addCodelets('class V : public poplar::Vertex { bool compute() { return true } };')",
    "vertex: unknown field": GRAPH + f"g.top.addCodelets({vertex_source('poplar::Input<float> a', '')})\n"
                                     "x = g.variable(pd.float32, (1,))\ncs = g.top.addComputeSet('c')\n"
                                     "g.top.addVertex(cs, 'V', {'b': x.raw})",
    "vertex: wrong dtype": run_vertex("poplar::Input<float> a", "", "x = g.variable(pd.int32, (1,))", "false"),
    "vertex: out of bounds, checked": run_vertex("poplar::Output<poplar::Vector<float>> a", "a[7] = 1;",
                                                 "x = g.variable(pd.float32, (4,))", "true"),
    "vertex: 400 MB past its field": run_vertex("poplar::Output<poplar::Vector<float>> a",
                                                "for (int i = 0; i < 100000000; ++i) a[i] = 1;",
                                                "x = g.variable(pd.float32, (4,))", "false"),
    "ipu_model(tiles=0)": "pd.ipu_model(tiles=0)",
    "ipu_model(tiles=2**40)": "pd.ipu_model(tiles=2**40)",
    "tile beyond the target": GRAPH + "x = g.variable(pd.float32, (4,), mapping=None)\ng.top.setTileMapping(x.raw, 99)",
    "readTensor: small buffer": GRAPH + "x = g.variable(pd.float32, (8,))\ng.top.createHostRead('x', x.raw)\n"
                                        "e = poplar.Engine(g.top, program.Sequence())\ne.load(dev)\n"
                                        "e.readTensor('x', np.empty(3, np.float32))",
    "writeTensor: strided array": GRAPH + "x = g.variable(pd.float32, (4,))\ng.top.createHostWrite('x', x.raw)\n"
                                          "e = poplar.Engine(g.top, program.Sequence())\ne.load(dev)\n"
                                          "e.writeTensor('x', np.ones(8, np.float32)[::2])",
    "grad of a vector": GRAPH + "x = g.variable(pd.float32, (4,))\nwith pd.Sequence('m'):\n    pd.grad(x * 2.0, [x])",
    "grad by a constant": GRAPH + "x = g.constant(np.ones(4, np.float32))\n"
                                  "with pd.Sequence('m'):\n    print(pd.grad((x * 2.0).sum(), [x]))",
    "3000 nested Ifs": GRAPH + "x = g.variable(pd.float32, (1,))\nc = g.variable(pd.bool_, (1,))\n"
                               "with pd.Sequence('m') as m:\n    with contextlib.ExitStack() as stack:\n"
                               "        for _ in range(3000):\n            stack.enter_context(pd.If(c))\n"
                               "        x += 1.0\nwith pd.Session(g, m, device=dev) as s:\n    s.run()",
    "100000 nested Sequences, 1 MiB stack":
        "threading.stack_size(1 << 20)\nout = []\n"
        "def build():\n    try:\n        p = program.Sequence()\n"
        "        for _ in range(100000):\n            p = program.Sequence([p])\n"
        "        model = poplar.IPUModel('ipu2'); model.tilesPerIPU = 4; d = model.createDevice()\n"
        "        e = poplar.Engine(poplar.Graph(d.getTarget()), p); e.load(d); e.run(0); out.append('ran')\n"
        "    except Exception as error:\n        out.append(repr(error)[:200])\n"
        "t = threading.Thread(target=build); t.start(); t.join(); print(out)",
    "labels outside the classes": GRAPH + "logits = g.variable(pd.float32, (2, 3), init=np.zeros((2, 3)))\n"
                                          "labels = g.variable(pd.int32, (2,), init=np.array([5, -1]))\n"
                                          "o = g.device_to_host(pd.float32, (1,), name='o')\n"
                                          "with pd.Sequence('m') as m:\n"
                                          "    o.write(pd.nn.cross_entropy(logits, labels).reshape((1,)))\n"
                                          "with pd.Session(g, m, device=dev) as s:\n    print(s.run()[o])",
    "concat of nothing": "pd.concat([])",
    "four graphs on four threads": "out = []\n"
                                   "def train(k):\n    d = pd.ipu_model(tiles=4); gg = pd.Graph(d)\n"
                                   "    x = gg.variable(pd.float32, (4,), init=np.full(4, k))\n"
                                   "    with pd.Sequence('m') as m:\n        x += 1.0\n"
                                   "    with pd.Session(gg, m, device=d) as s:\n"
                                   "        s.run(); out.append(float(s.read(x)[0]) - k)\n"
                                   "ts = [threading.Thread(target=train, args=(k,)) for k in range(4)]\n"
                                   "[t.start() for t in ts]; [t.join() for t in ts]; print(out)",
    "programs that are not Sequences": GRAPH + "pd.Session(g, {'a': 3}, device=dev)",
    "bad engine option value": GRAPH + "with pd.Sequence('m') as m:\n    pass\n"
                                       "pd.Session(g, m, device=dev, options={'debug.instrument': 5})",
    "POPDSL_NUM_THREADS=-3": "os.environ['POPDSL_NUM_THREADS'] = '-3'\n" + GRAPH +
                             "with pd.Sequence('m') as m:\n    pass\nwith pd.Session(g, m, device=dev) as s:\n    s.run()",
    "bool(tensor)": GRAPH + "bool(g.variable(pd.float32, (4,)))",
    "integer floor division": GRAPH + "x = g.variable(pd.int32, (2,))\nx // x",
}


def run(body: str, directory: str) -> tuple:
    """(how it ended, the last line it printed)."""
    try:
        done = subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True,
                              timeout=120, cwd=directory)
    except subprocess.TimeoutExpired:
        return "HANG", ""
    lines = (done.stdout + done.stderr).strip().splitlines()
    if done.returncode < 0:
        return f"SIGNAL {-done.returncode}", lines[-1] if lines else "(nothing printed)"
    return ("error" if done.returncode else "ended"), lines[-1] if lines else ""


def main(names) -> None:
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; the cases are {list(CASES)}")
    for name in names or CASES:
        with tempfile.TemporaryDirectory() as directory:
            ending, last = run(CASES[name], directory)
        print(f"{name:38s} {ending:9s} {last[:240]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
