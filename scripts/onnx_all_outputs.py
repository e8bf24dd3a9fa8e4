"""Every node output of an ONNX graph made a graph output (types and shapes from onnx's shape
inference), for comparing two execution providers node by node (bench/webgpuPrefill.main.ts
`nodes`, docs/vlm.md "WebGPU"). Run by hand, not in CI:

    python3 scripts/onnx_all_outputs.py decoder_model_merged.onnx /tmp/decoder_all.onnx
"""
import sys

import onnx
from onnx import shape_inference


def main(src: str, dst: str) -> None:
    model = shape_inference.infer_shapes(onnx.load(src))
    known = {o.name for o in model.graph.output}
    infos = {v.name: v for v in model.graph.value_info}
    added = 0
    for node in model.graph.node:
        if node.op_type == "Constant":
            continue
        for name in node.output:
            if name and name not in known and name in infos:
                model.graph.output.append(infos[name])
                known.add(name)
                added += 1
    if added == 0:
        raise SystemExit(f"{src}: no node output could be added (shape inference gave no types)")
    onnx.save(model, dst)
    print(f"{added} node outputs added: {dst}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: onnx_all_outputs.py IN.onnx OUT.onnx")
    main(sys.argv[1], sys.argv[2])
