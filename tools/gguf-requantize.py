"""Re-quantises a GGUF model's weight tensors to another ggml type, for measuring llama.cpp's WebAssembly
speed on the same model in two quantisations (`npm run bench -- answer --generator <file.gguf>` on each).

Not part of the app or of CI: run it by hand, outside the repository's files, with PyPI's `gguf` package
(llama.cpp's own Python reader and writer) and numpy:

    python3 -m venv /tmp/gguf-venv && /tmp/gguf-venv/bin/pip install gguf==0.19.0 numpy
    /tmp/gguf-venv/bin/python tools/gguf-requantize.py <in.gguf> <out.gguf> Q8_0

Every tensor of a type it can read (F32 norms stay F32; 1-D tensors are never quantised) is dequantised
with `gguf.quants.dequantize` and quantised again with `gguf.quants.quantize`; the metadata is copied as
it is, with `general.file_type` set to the new type's. The weights lose nothing going up (Q4_1 to Q8_0 or
F16 holds every Q4_1 value to within Q8_0's rounding), so the two files answer alike and differ in speed.
"""
import sys

import gguf
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants

FILE_TYPES = {"Q8_0": gguf.LlamaFileType.MOSTLY_Q8_0, "F16": gguf.LlamaFileType.MOSTLY_F16, "Q4_0": gguf.LlamaFileType.MOSTLY_Q4_0}


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[3] not in FILE_TYPES:
        sys.exit(f"usage: {sys.argv[0]} <in.gguf> <out.gguf> {'|'.join(FILE_TYPES)}")
    source, target, name = sys.argv[1], sys.argv[2], sys.argv[3]
    qtype = T[name]
    reader = gguf.GGUFReader(source)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(target, arch=arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        value = field.contents()
        if field.name == gguf.Keys.General.FILE_TYPE:
            value = int(FILE_TYPES[name])
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    for tensor in reader.tensors:
        shape = [int(n) for n in reversed(tensor.shape)]  # numpy order: slowest dimension first
        if len(shape) == 1:
            data, kind = np.array(tensor.data), tensor.tensor_type
        else:
            floats = quants.dequantize(tensor.data, tensor.tensor_type).reshape(shape).astype(np.float32)
            data, kind = (floats.astype(np.float16), T.F16) if qtype == T.F16 else (quants.quantize(floats, qtype), qtype)
        writer.add_tensor(tensor.name, data, raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"{target}: {len(reader.tensors)} tensors as {name}")


if __name__ == "__main__":
    main()
