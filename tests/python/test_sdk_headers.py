"""tests/cpp/sdk_headers.cpp, built against the prefix as an SDK-era program: the
standard headers the SDK's headers bring in, addCodelets(std::string), and the stream
operators of the gcl, popops and popnn enums, against values worked out by hand."""
import pytest

from cpp_build import check_syntax, run_labelled_program

CODELET = """#include <poplar/Vertex.hpp>
class Doubler : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<float>> x;
  bool compute() { for (auto &v : x) v *= 2; return true; }
};
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    work = tmp_path_factory.mktemp("sdk_headers")
    (work / "codelets.cpp").write_text(CODELET)
    return run_labelled_program(work, "sdk_headers", str(work / "codelets.cpp"))[0]


def test_standard_headers_come_with_the_sdk_headers(out):
    # sum 1..5, 3 is in the set, 4*4, 2*2*2, min-max, twice 21
    assert out["std"] == "15 1 16 8 1-5 42"


def test_enums_print_and_read_their_names(out):
    assert out["names"] == ("SQUARE_ADD ORTHOGONAL CommGroup(CONSECUTIVE, size 2, stride 1) LOG_ADD ADD "
                            "hard sigmoid, softmax (scaled, stable)")
    assert out["read"] == "MEAN, softmax (stable), popnn::NonLinearity<popnn::NonLinearityType::GELU>"
    assert out["bad operator"] == "Unrecognised gcl::CollectiveOperator 'SUM'"


def test_add_codelets_takes_a_std_string(out):
    assert out["codelets"] == "1"


def test_add_codelets_overloads_are_unambiguous(tmp_path):
    check_syntax(tmp_path, """#include <poplar/Graph.hpp>
void f(poplar::Graph &g, const std::string &s, const char *p, std::vector<std::string> files) {
  g.addCodelets(s);
  g.addCodelets(p);
  g.addCodelets("codelets.cpp");
  g.addCodelets(s, poplar::CodeletFileType::CppSource, "-O3");
  g.addCodelets({"a.cpp", "b.cpp"});
  g.addCodelets(files, "-O2");
  g.addCodelets(poplar::StringRef(s));
}
""", std="c++11")
