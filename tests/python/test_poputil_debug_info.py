"""poputil/DebugInfo.hpp, exercised by tests/cpp/poputil_debug_info.cpp built against the
SDK-shaped prefix: the debug information it streams is checked against what its calls
record, worked out by hand."""
import json
import subprocess
from pathlib import Path

from cpp_build import build_program, compiler

PROGRAM = Path(__file__).resolve().parent.parent / "cpp" / "poputil_debug_info.cpp"


def test_poplibs_op_debug_info_records_arguments_outputs_and_profile_values(tmp_path):
    compiler()
    exe = build_program(tmp_path, PROGRAM.read_text(), std="c++14", strict=True)
    subprocess.run([str(exe), str(tmp_path / "debug.json")], check=True, timeout=120)
    records = {r["path"]: r for r in json.loads((tmp_path / "debug.json").read_text())["contexts"]}
    half_2x3 = {"shape": [2, 3], "type": "half"}

    # DI_ARGS names each argument as written; api defaults to the calling function's name.
    call = records["caller"]
    assert (call["layer"], call["api"]) == ("poplibs", "copied")
    assert call["args"] == {"in": half_2x3, "scale": 0.5, "count": 3, "inPlace": True,
                            "dims": {"0": 1, "1": 0}, "options": {"k": "v"}}
    assert call["outputs"] == {"output": half_2x3}

    # No arguments: no "args"; several outputs by name.
    pair = records["pair"]
    assert (pair["api"], "args" in pair) == ("pairApi", False)
    assert pair["outputs"] == {"first": half_2x3, "second": {"shape": [6], "type": "half"}}

    direct = records["direct"]
    assert (direct["layer"], direct["api"]) == ("poplibs", "myapi")
    # Pointers as their targets or "<nullptr>", vectors of bool by index; a second add of a
    # name leaves the first.
    assert direct["values"] == {"none": "<nullptr>", "pointer": -2, "big": 2 ** 40,
                                "bits": {"0": True, "1": False}, "type": "unsigned int",
                                "computeSet": 0}
    assert direct["copies"] == {"tensors": {"src": half_2x3, "dst": half_2x3},
                                "fromStream": {"stream": "feed", "dst": half_2x3},
                                "toStream": {"src": {"shape": [6], "type": "half"}, "stream": "drain"}}
    # A single profile value by name; the second add of the name is ignored.
    assert direct["scale"] == 0.25
