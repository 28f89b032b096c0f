"""Graph's queries of element order and memory (getSortedContiguousRegions, the simplifying
rearrangement, findUnbroadcastTensor), its dumps and tensor serialization, getTopLevelGraph
and the floating-point settings of CSRFunctions.hpp. Expected values are written out by
hand from where each element lives (a view's element i is element order[i] of its variable)."""
import subprocess

import numpy as np
import pytest

from cpp_build import build_program
from popdsl import poplar, program


def iv(begin, end):
    return poplar.Interval(begin, end)


def as_pairs(groups):
    return [[(i.begin(), i.end()) for i in group] for group in groups]


def test_get_top_level_graph_is_the_graph_itself(graph):
    x = graph.addVariable(poplar.FLOAT, [2], "x")
    top = graph.getTopLevelGraph()
    top.setTileMapping(x, 3)
    assert graph.getTileMapping(x) == [[], [], [], [iv(0, 2)]]


def test_linear_mapping_method_spreads_a_variable_over_the_tiles_in_whole_vectors(graph):
    # 8 floats on 4 tiles: 2 each, one 64-bit vector.
    x = graph.addVariable(poplar.FLOAT, [8], poplar.VariableMappingMethod.LINEAR, "x")
    assert graph.getTileMapping(x) == [[iv(0, 2)], [iv(2, 4)], [iv(4, 6)], [iv(6, 8)]]
    y = graph.addVariable(poplar.FLOAT, [8], poplar.VariableMappingMethod.NONE, "y")
    assert graph.getTileMapping(y, False) == [[], [], [], []]


def test_get_tile_mapping_accepts_allow_external(graph):
    x = graph.addVariable(poplar.FLOAT, [4], "x")
    graph.setTileMapping(x.slice(0, 2), 1)
    assert graph.getTileMapping(x, False, True) == [[], [iv(0, 2)], [], []]
    with pytest.raises(poplar.invalid_tile_mapping, match="not completely mapped"):
        graph.getTileMapping(x, True, True)


def test_sorted_contiguous_regions_follow_memory_order(graph):
    x = graph.addVariable(poplar.FLOAT, [6], "x")
    y = graph.addVariable(poplar.FLOAT, [2], "y")
    # t = [x5 x4 y0 y1 x0 x1]: x's elements come first in memory, then y's.
    t = poplar.concat([x.slice(5, 6), x.slice(4, 5), y, x.slice(0, 2)])
    regions, aliases = graph.getSortedContiguousRegions(t, [iv(0, 6)])
    assert as_pairs(regions) == [[(4, 6)], [(1, 2), (0, 1)], [(2, 4)]]
    assert aliases == []
    regions, _ = graph.getSortedContiguousRegions(t, [iv(1, 3)])
    assert as_pairs(regions) == [[(1, 2)], [(2, 3)]]


def test_sorted_contiguous_regions_can_leave_out_aliased_elements(graph):
    x = graph.addVariable(poplar.INT, [3], "x")
    t = poplar.concat([x, x.slice(1, 3)])  # positions 3, 4 alias x1, x2
    regions, aliases = graph.getSortedContiguousRegions(t, [iv(0, 5)], True)
    assert as_pairs(regions) == [[(0, 3)]] and aliases == [3, 4]
    regions, aliases = graph.getSortedContiguousRegions(t, [iv(0, 5)])
    assert as_pairs(regions) == [[(0, 2)], [(3, 4), (2, 3)], [(4, 5)]] and aliases == []
    with pytest.raises(poplar.poplar_error, match="region 4..9 is outside tensor"):
        graph.getSortedContiguousRegions(t, [iv(4, 9)])


def test_simplifying_rearranger_orders_elements_as_memory_and_undoes_it(graph, device):
    x = graph.addVariable(poplar.INT, [2, 3], "x")
    graph.setTileMapping(x, 0)
    t = x.transpose()  # elements x0 x3 x1 x4 x2 x5
    rearranger = graph.getSimplifyingRearranger(t)
    assert rearranger.valid() and not poplar.TensorRearranger().valid()
    simple = rearranger.rearrange(t)
    back = rearranger.undoRearrangement(simple)
    assert simple.shape() == [6] and back.shape() == [6]
    assert [(i.begin(), i.end()) for i in rearranger.rearrange([iv(0, 2)])] == [(0, 1), (3, 4)]
    assert [(i.begin(), i.end()) for i in rearranger.undoRearrangement([iv(0, 3)])] == [(0, 1), (2, 3), (4, 5)]
    with pytest.raises(poplar.poplar_error, match="not valid"):
        poplar.TensorRearranger().rearrange(t)
    with pytest.raises(poplar.poplar_error, match="has 2 elements but the rearrangement is of 6"):
        rearranger.rearrange(x[0].slice(0, 2))
    # Read through the views on the device: simple is x in memory order, back is t again.
    graph.setInitialValue(x, np.arange(6, dtype=np.int32).reshape(2, 3))
    graph.createHostRead("simple", simple)
    graph.createHostRead("back", back)
    engine = poplar.Engine(graph, program.Sequence())
    engine.load(device)
    engine.run(0)
    for handle, expected in (("simple", [0, 1, 2, 3, 4, 5]), ("back", [0, 3, 1, 4, 2, 5])):
        out = np.zeros(6, np.int32)
        engine.readTensor(handle, out)
        assert out.tolist() == expected


def test_reorder_to_simplify_reorders_the_others_the_same_way(graph):
    x = graph.addVariable(poplar.INT, [4], "x")
    y = graph.addVariable(poplar.INT, [4], "y")
    t = poplar.concat([x.slice(2, 4), x.slice(0, 2)])
    simple, (partner,) = graph.reorderToSimplify(t, [y])
    regions, _ = graph.getSortedContiguousRegions(simple, [iv(0, 4)])
    assert as_pairs(regions) == [[(0, 4)]]  # one contiguous region, in order
    partner_regions, _ = graph.getSortedContiguousRegions(partner, [iv(0, 4)])
    assert as_pairs(partner_regions) == [[(2, 4), (0, 2)]]  # y moved as t's elements moved
    with pytest.raises(poplar.poplar_error, match="has 3 elements but the tensor reordered has 4"):
        graph.reorderToSimplify(t, [y.slice(0, 3)])


def test_find_unbroadcast_tensor_reduces_broadcast_dimensions(graph):
    x = graph.addVariable(poplar.FLOAT, [3], "x")
    wide = x.reshape([1, 3]).broadcast(4, 0)  # [4, 3], every row the same elements
    assert graph.findUnbroadcastTensor(wide).shape() == [1, 3]
    tall = x.reshape([3, 1]).broadcast(2, 1)  # [3, 2], every column the same
    assert graph.findUnbroadcastTensor(tall).shape() == [3, 1]
    assert graph.findUnbroadcastTensor(x).shape() == [3]
    assert graph.findUnbroadcastTensor(wide) == x.reshape([1, 3])


def test_output_compute_graph_lists_variables_compute_sets_and_programs(graph):
    x = graph.addVariable(poplar.FLOAT, [2, 3], "x")
    graph.setTileMapping(x, 2)
    c = graph.addConstant(poplar.INT, [1], 5, "five")
    graph.setTileMapping(c, 0)
    graph.addComputeSet("empty")
    dump = graph.outputComputeGraph([program.WriteUndef(x, "forget")])
    assert dump == (
        "graph: 2 variables, 1 compute sets, 1 programs\n"
        "variable 0 'x' float[2,3] tiles 2\n"
        "constant 1 'five' int[1] tiles 0\n"
        "compute set 0 'empty': 0 vertices\n"
        "program 0:\n"
        "WriteUndef 'forget' 'x' [2,3] float\n"
    )


@pytest.mark.parametrize("fmt", [poplar.SerializationFormat.JSON, poplar.SerializationFormat.Binary])
def test_serialized_tensors_come_back_as_new_variables_with_type_shape_and_mapping(graph, fmt):
    a = graph.addVariable(poplar.HALF, [2, 2], "a\"quoted")
    graph.setTileMapping(a[0], 1)
    graph.setTileMapping(a[1], 3)
    b = graph.addVariable(poplar.INT, [], "b")
    data = graph.serializeTensors([a, b], fmt)
    if fmt == poplar.SerializationFormat.JSON:
        assert data.startswith(b'{"tensors":[{"name":"a\\"quoted","type":"half","shape":[2,2]')
    a2, b2 = graph.deserializeTensors(data, fmt)
    assert (a2.shape(), a2.elementType(), b2.shape(), b2.elementType()) == ([2, 2], poplar.HALF, [], poplar.INT)
    assert graph.getTileMapping(a2) == [[], [iv(0, 2)], [], [iv(2, 4)]]
    assert graph.getTileMapping(b2, False) == [[], [], [], []]
    assert graph.getTileMapping(a) == [[], [iv(0, 2)], [], [iv(2, 4)]]


def test_serialized_json_names_keep_every_character(graph):
    name = 'tab\there "q" back\\slash\nline \x01 café 😀'
    a = graph.addVariable(poplar.FLOAT, [2], name)
    graph.setTileMapping(a, 0)
    data = graph.serializeTensors([a], poplar.SerializationFormat.JSON)
    assert b'"name":"tab\\there \\"q\\" back\\\\slash\\nline \\u0001 caf\xc3\xa9 \xf0\x9f\x98\x80"' in data
    fresh = poplar.Graph(graph.getTarget())
    (a2,) = fresh.deserializeTensors(data, poplar.SerializationFormat.JSON)
    assert a2.getVarStr() == f"'{name}' [2] float"
    # Escapes another writer may use: \uXXXX for any character, surrogate pairs, \/.
    (b,) = fresh.deserializeTensors(b'{"tensors":[{"name":"caf\\u00e9\\ud83d\\ude00\\/\\r","type":"int",'
                                    b'"shape":[],"mapping":[]}]}', poplar.SerializationFormat.JSON)
    assert b.getVarStr() == "'café😀/\r' [] int"


def test_deserializing_corrupt_data_raises_parse_error(graph):
    with pytest.raises(poplar.parse_error, match="invalid JSON at character 13: expected"):
        graph.deserializeTensors(b'{"tensors":[{', poplar.SerializationFormat.JSON)
    with pytest.raises(poplar.parse_error, match="does not start as"):
        graph.deserializeTensors(b"junk", poplar.SerializationFormat.Binary)
    with pytest.raises(poplar.parse_error, match="a number too large for a size"):
        graph.deserializeTensors(b'{"tensors":[{"name":"n","type":"int","shape":[99999999999999999999],"mapping":[]}]}',
                                 poplar.SerializationFormat.JSON)
    with pytest.raises(poplar.parse_error, match="not hexadecimal"):
        graph.deserializeTensors(b'{"tensors":[{"name":"\\uzzzz"', poplar.SerializationFormat.JSON)
    with pytest.raises(poplar.parse_error, match="ends early"):
        graph.deserializeTensors(b"POPDSLT1\x01", poplar.SerializationFormat.Binary)
    with pytest.raises(poplar.parse_error, match="mapped to tile 9 but the target has 4 tiles"):
        graph.deserializeTensors(b'{"tensors":[{"name":"m","type":"int","shape":[2],'
                                 b'"mapping":[{"tile":9,"intervals":[[0,2]]}]}]}', poplar.SerializationFormat.JSON)
    with pytest.raises(poplar.parse_error, match="unknown element type 'quad'"):
        graph.deserializeTensors(b'{"tensors":[{"name":"q","type":"quad","shape":[],"mapping":[]}]}',
                                 poplar.SerializationFormat.JSON)


def test_floating_point_settings_are_accepted_and_programs_run_as_before(graph, device):
    x = graph.addVariable(poplar.INT, [1], "x")
    graph.setTileMapping(x, 0)
    graph.setInitialValue(x, 7)
    graph.createHostRead("x", x)
    seq = program.Sequence()
    behaviour = poplar.FloatingPointBehaviour(True, False, True, False, True)
    assert (behaviour.inv, behaviour.div0, behaviour.oflo, behaviour.esr, behaviour.nanoo) == (
        True, False, True, False, True)
    poplar.setFloatingPointBehaviour(graph, seq, behaviour)
    bits = graph.addVariable(poplar.UNSIGNED_INT, [1], "bits")
    poplar.setFloatingPointBehaviour(graph, seq, bits)
    poplar.setStochasticRounding(graph, seq, True)
    assert seq.isEmpty()
    with pytest.raises(poplar.poplar_error, match="one UNSIGNED_INT element"):
        poplar.setFloatingPointBehaviour(graph, seq, x)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    engine.run(0)
    out = np.zeros(1, np.int32)
    engine.readTensor("x", out)
    assert out.tolist() == [7]


# The members only C++ can call: host data through a void pointer and TypeTraits, the
# bool * form of getTileMapping, VariableRef, the layout names and the stream dumps.
CPP_ONLY = r"""
#include <poplar/CSRFunctions.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplar/TypeTraits.hpp>
#include <poplar/VariableRef.hpp>
#include <poplar/VectorLayout.hpp>
#include <poplar/exceptions.hpp>
#include <cstdint>
#include <iostream>
#include <sstream>
using namespace poplar;

int main() {
  IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());

  const std::int16_t shorts[3] = {-2, 5, 9};
  Tensor fromShorts = graph.addConstant(FLOAT, {3}, shorts, TypeTraits::make<std::int16_t>(), false, "shorts");
  const double one = 2.5;
  Tensor broadcast = graph.addConstant(FLOAT, {2, 2}, &one, TypeTraits::make<double>(), true, "broadcast");
  graph.setTileMapping(fromShorts, 0);
  graph.setTileMapping(broadcast, 1);
  std::cout << TypeTraits::isSimpleType<int>() << TypeTraits::isSimpleType<float *>()
            << TypeTraits::requiresMetadata<float>() << TypeTraits::make<unsigned char>().isSimpleType()
            << TypeTraits::make<std::int16_t>().size << TypeTraits::make<std::int16_t>().isSigned << "\n";
  TypeTraits odd;
  odd.size = 3;
  odd.isIntegral = true;
  try {
    graph.addConstant(INT, {1}, shorts, odd, true);
  } catch (const type_error &e) {
    std::cout << e.what() << "\n";
  }

  Tensor x = graph.addVariable(INT, {4}, "x");
  graph.setTileMapping(x.slice(0, 2), 2);
  bool complete = true;
  const auto mapping = graph.getTileMapping(x, &complete, false);
  std::cout << complete << " " << mapping[2].size() << " " << mapping[2][0].end() << "\n";
  std::cout << (&graph.getTopLevelGraph() == &graph) << "\n";

  const VariableRef lone(7);
  std::cout << lone.id << " " << (lone.hash() == VariableRef(7).hash()) << " "
            << (x.getVarRegions()[0].var.hash() == x.getVarRegions()[0].var.hash()) << "\n";
  try {
    graph.getVariable(lone);
  } catch (const poplar_error &e) {
    std::cout << e.what() << "\n";
  }
  const VariableInterval region(x.getVarRegions()[0].var, Interval(1, 3));
  std::cout << graph.getVariable(region.var).numElements() << " " << graph.isConstant(region.var) << "\n";

  std::cout << layout::to_string(layout::Vector::ScaledPtr64) << " " << layout::to_string(layout::VectorList::DeltaNElements)
            << "\n";

  program::Sequence seq;
  setFloatingPointBehaviour(graph, seq, FloatingPointBehaviour(true, true, false, false, true));
  setStochasticRounding(graph, seq, false);
  const program::Program copy = seq;
  std::cout << (copy == seq) << seq.isEmpty() << "\n";
  std::ostringstream dump;
  program::dumpProgram(graph, program::Loop(program::Block(program::Sync(SyncType::INTERNAL), "blk"), "loop"), dump);
  std::cout << dump.str();
  std::ostringstream all;
  graph.outputComputeGraph(all);
  std::cout << all.str();

  std::stringstream stream;
  graph.serializeTensors(stream, {x}, SerializationFormat::Binary);
  const std::vector<Tensor> back = graph.deserializeTensors(stream, SerializationFormat::Binary);
  std::cout << back.size() << " " << back[0].shapeToString() << " " << graph.getTileMapping(back[0], false)[2][0].end()
            << "\n";

  Tensor seen = graph.addVariable(FLOAT, {7}, "seen");
  graph.setTileMapping(seen, 3);
  graph.createHostRead("seen", seen);
  Engine engine(graph, program::Copy(concat(fromShorts, broadcast.flatten()), seen));
  engine.load(device);
  engine.run(0);
  std::vector<float> values(7);
  engine.readTensor("seen", values.data(), values.data() + values.size());
  for (float v : values) std::cout << v << " ";
  std::cout << "\n";

  const program::Sequence listed{seq, copy};
  const program::Sequence fromVector(std::vector<program::Program>{seq}, "v");
  const program::Execute flagged(graph.addComputeSet("flagged"), x, "exec");
  std::cout << listed.isEmpty() << fromVector.isEmpty() << flagged.isEmpty() << "\n";

  const Graph onDevice(device, replication_factor(1));
  std::cout << onDevice.getReplicationFactor() << " " << onDevice.getTarget().getNumTiles() << "\n";
  const std::uint16_t halves[2] = {0x3c00, 0xc000}; // 1.0 and -2.0
  Tensor h = graph.addConstantHalf(HALF, {2}, halves, "halves");
  Tensor h1 = graph.addConstantHalf(HALF, {3}, std::uint16_t(0x3800), "half"); // 0.5
  Tensor hv = graph.addVariable(HALF, {2}, "hv");
  graph.setInitialValueHalf(hv, ArrayRef<std::uint16_t>(halves, 2));
  graph.setInitialValueHalf(hv, std::uint16_t(0x4000)); // 2.0, replacing them
  graph.setTileMapping(hv, 1);
  std::cout << h.numElements() << h1.numElements() << graph.isConstant(h1.getVarRegions()[0].var)
            << graph.getVariableTileMapping(hv)[1].size() << "\n";
  const Graph::ConnectionDesc single("in", x), many("ins", std::vector<Tensor>{x, x});
  std::cout << single.field << " " << single.isList << " " << many.field << " " << many.tensors.size() << many.isList << "\n";
}
"""


def test_cpp_only_graph_members(tmp_path):
    out = subprocess.run([build_program(tmp_path, CPP_ONLY, std="c++11")], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines() == [
        "100121",
        "Graph::addConstant: the host type (3 bytes, integer) is not a type the graph can take values of",
        "0 1 2",
        "1",
        "7 1 1",
        "Graph::getVariable: the variable does not belong to this graph",
        "4 0",
        "ScaledPtr64 DeltaNElements",
        "11",
        "Loop 'loop'",
        "  Sequence 'blk'",
        "    Sync",
        "graph: 3 variables, 0 compute sets, 0 programs",
        "constant 0 'shorts' float[3] tiles 0",
        "constant 1 'broadcast' float[2,2] tiles 1",
        "variable 2 'x' int[4] tiles 2",
        "1 [4] 2",
        "-2 5 9 2.5 2.5 2.5 2.5 ",
        "110",
        "1 4",
        "2311",
        "in 0 ins 21",
    ]


@pytest.mark.parametrize("file_type", [poplar.CodeletFileType.PreprocessedAsmSource, poplar.CodeletFileType.AsmSource,
                                       poplar.CodeletFileType.IrSource, poplar.CodeletFileType.Object])
def test_codelet_file_types_the_host_compiler_cannot_take_are_refused(graph, tmp_path, file_type):
    path = tmp_path / "codelets.gp"
    path.write_bytes(b"\x7fELF")
    with pytest.raises(poplar.graph_program_compilation_error, match="cannot load IPU (assembly or IR|code)"):
        graph.addCodelets(str(path), file_type)
    with pytest.raises(poplar.graph_program_compilation_error, match="an ELF object, as the Poplar SDK's popc"):
        graph.addCodelets(str(path), poplar.CodeletFileType.Auto)  # .gp: an object, here an IPU ELF


def test_c_codelets_go_to_the_host_compiler(graph, tmp_path):
    path = tmp_path / "broken.c"
    path.write_text("int broken( {\n")
    with pytest.raises(poplar.graph_program_compilation_error, match="broken"):
        graph.addCodelets(str(path), poplar.CodeletFileType.CSource)


LAYOUT_NAMES = r"""
#include <poplar/VectorLayout.hpp>
#include <iostream>
using namespace poplar::layout;

int main() {
  for (Vector v : {Vector::NotAVector, Vector::Span, Vector::ShortSpan, Vector::OnePtr, Vector::ScaledPtr32,
                   Vector::ScaledPtr64, Vector::ScaledPtr128})
    std::cout << to_string(v) << " ";
  std::cout << "\n";
  for (VectorList v : {VectorList::NotAVector, VectorList::OnePtr, VectorList::ScaledPtr32, VectorList::ScaledPtr64,
                       VectorList::ScaledPtr128, VectorList::DeltaN, VectorList::DeltaNElements})
    std::cout << to_string(v) << " ";
  std::cout << "\n";
}
"""


def test_vector_layout_names(tmp_path):
    out = subprocess.run([build_program(tmp_path, LAYOUT_NAMES, std="c++11")], capture_output=True, text=True,
                         check=True).stdout
    assert out == ("NotAVector Span ShortSpan OnePtr ScaledPtr32 ScaledPtr64 ScaledPtr128 \n"
                   "NotAVector OnePtr ScaledPtr32 ScaledPtr64 ScaledPtr128 DeltaN DeltaNElements \n")
