"""Converts a llama-architecture GGUF chat model (SmolLM2-135M-Instruct's Q4_1 file from `npm run models:real`)
into a transformers.js model folder, so the ONNX engine can be measured on the same weights as the GGUF engine
(`npm run bench -- engines --gguf <file.gguf> --onnx <folder>`).

Not part of the app or of CI: run it by hand, with a virtual environment outside the repository (about 7 GB,
most of it the CUDA libraries PyPI's Linux torch wheel depends on; no CPU-only torch is on PyPI):

    python3 -m venv ~/.cache/docqa-convert/venv
    ~/.cache/docqa-convert/venv/bin/pip install torch==2.9.1 transformers==4.57.6 accelerate==1.11.0 \\
        optimum==2.1.0 optimum-onnx==0.1.0 onnxruntime==1.23.2 onnx==1.19.1 gguf==0.19.0
    ~/.cache/docqa-convert/venv/bin/python tools/gguf-to-onnx.py \\
        ~/.cache/docqa-models/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf \\
        ~/.cache/docqa-models/smollm2-135m-instruct-onnx

About two minutes on two cores. What it does:

1. transformers reads the GGUF (with the `gguf` package): every tensor dequantised to float32, llama.cpp's
   row permutation of the q/k projections undone, the config taken from the header.
2. The tokenizer is rebuilt as the model's own (GPT-2 byte-level BPE with single digits split off, which is
   llama.cpp's `smollm` pre-tokenizer; no BOS added: the GGUF says `add_bos_token` false). transformers'
   GGUF reader would make a Llama tokenizer that prepends BOS and names `<|im_start|>` as EOS.
   tokenizer_config.json carries the GGUF's chat template.
3. optimum exports `text-generation-with-past` (inputs `input_ids`, `attention_mask`, `position_ids`,
   `past_key_values.N.key/value`; outputs `logits`, `present.N.key/value`: what transformers.js loads)
   to `onnx/model.onnx` (fp32).
4. `onnx/model_quantized.onnx` (q8): ONNX Runtime's dynamic quantisation as transformers.js's own script and
   optimum do it: int8 weights, per-tensor (per-channel off), MatMul and Gather.
   `onnx/model_q4.onnx` (q4): ONNX Runtime's MatMulNBits quantiser, 4-bit, blocks of 32, asymmetric (a
   scale and a zero point per block: GGUF Q4_1's layout); MatMul only, so the token embedding stays
   float32 for the Gather (as in transformers.js's q4 exports), while the tied output projection is 4-bit.
   Before quantising, the output projection (tied to the embedding: a Transpose of it in the export) is
   stored as its own transposed weights, so both quantisers reach it (fp32 grows by its 113 MB).

Prints the SHA-256 and size of every file written.
"""
import hashlib
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


def log(message: str, started: float) -> None:
    print(f"[{time.time() - started:6.1f} s] {message}", flush=True)


def read_chat_template(gguf_path: Path) -> str:
    import gguf

    reader = gguf.GGUFReader(str(gguf_path))
    field = reader.fields.get("tokenizer.chat_template")
    if field is None:
        sys.exit(f"{gguf_path}: no tokenizer.chat_template: a base model, which the app cannot use as an answer model")
    return field.contents()


def write_tokenizer(gguf_path: Path, out: Path) -> None:
    """tokenizer.json and tokenizer_config.json as SmolLM2's own: byte-level BPE, digits split, no BOS."""
    from tokenizers import pre_tokenizers, processors, decoders
    from transformers import AutoTokenizer

    converted = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    backend = converted.backend_tokenizer
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)]
    )
    backend.post_processor = processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True)
    backend.decoder = decoders.ByteLevel(add_prefix_space=True, trim_offsets=True, use_regex=True)
    backend.save(str(out / "tokenizer.json"))
    vocab = backend.get_vocab()
    for token in ("<|endoftext|>", "<|im_start|>", "<|im_end|>"):
        if token not in vocab:
            sys.exit(f"{gguf_path}: its vocabulary has no {token}: this tool handles SmolLM2-style ChatML models only")
    config = {
        "tokenizer_class": "GPT2Tokenizer",
        "add_bos_token": False,
        "add_prefix_space": False,
        "bos_token": "<|im_start|>",
        "eos_token": "<|im_end|>",
        "pad_token": "<|im_end|>",
        "unk_token": "<|endoftext|>",
        "clean_up_tokenization_spaces": False,
        "model_max_length": 8192,
        "chat_template": read_chat_template(gguf_path),
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")


def export_onnx(hf_dir: Path, out: Path, started: float) -> None:
    from optimum.exporters.onnx import main_export

    exported = hf_dir.parent / "onnx-export"
    main_export(model_name_or_path=str(hf_dir), output=str(exported), task="text-generation-with-past", device="cpu", do_validation=True)
    onnx_files = sorted(p.name for p in exported.iterdir() if p.suffix == ".onnx" or p.name.endswith(".onnx_data"))
    if onnx_files != ["model.onnx"]:
        sys.exit(f"optimum wrote {onnx_files}, not one model.onnx: this tool expects a single-file export")
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    shutil.move(str(exported / "model.onnx"), str(out / "onnx" / "model.onnx"))
    for name in ("config.json", "generation_config.json"):
        shutil.copy(exported / name, out / name)
    log("exported onnx/model.onnx", started)


def fold_constant_transposes(out: Path) -> None:
    """Stores each transposed weight as its own initializer (the tied output projection: `Transpose` of the
    token embedding). Left as it is, neither quantiser touches that MatMul (its weight is not an
    initializer), and in q8 ONNX Runtime would dequantise and transpose the 28M-weight embedding on every
    forward pass (it does not fold DequantizeLinear)."""
    import onnx
    from onnx import numpy_helper

    path = out / "onnx" / "model.onnx"
    model = onnx.load(str(path))
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    for node in [n for n in graph.node if n.op_type == "Transpose" and n.input[0] in initializers]:
        perm = next((list(a.ints) for a in node.attribute if a.name == "perm"), None)
        weights = numpy_helper.to_array(initializers[node.input[0]])
        graph.initializer.append(numpy_helper.from_array(weights.transpose(perm).copy(), node.output[0]))
        graph.node.remove(node)
    onnx.save_model(model, str(path))


def quantize_q8(out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(out / "onnx" / "model.onnx"),
        str(out / "onnx" / "model_quantized.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=False,
        reduce_range=False,
        op_types_to_quantize=["MatMul", "Gather"],
        extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True},
    )


def quantize_q4(out: Path) -> None:
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    model = onnx.load(str(out / "onnx" / "model.onnx"))
    config = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=False, accuracy_level=None, op_types_to_quantize=("MatMul",))
    quantizer = MatMulNBitsQuantizer(model, block_size=32, is_symmetric=False, algo_config=config)
    quantizer.process()
    onnx.save_model(quantizer.model.model, str(out / "onnx" / "model_q4.onnx"))


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} <model.gguf> <output folder>")
    started = time.time()
    gguf_path, out = Path(sys.argv[1]).expanduser().resolve(), Path(sys.argv[2]).expanduser().resolve()
    if (out / "onnx").exists():
        sys.exit(f"{out}/onnx exists: remove the folder first")
    import torch
    from transformers import AutoModelForCausalLM

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gguf-to-onnx-") as work:
        hf_dir = Path(work) / "hf"
        hf_dir.mkdir()
        model = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name, dtype=torch.float32)
        model.generation_config.eos_token_id = 2
        model.save_pretrained(str(hf_dir))
        write_tokenizer(gguf_path, hf_dir)
        log("read the GGUF into a transformers folder", started)
        export_onnx(hf_dir, out, started)
        for name in TOKENIZER_FILES:
            shutil.copy(hf_dir / name, out / name)
    fold_constant_transposes(out)
    log("folded constant transposes (the tied output projection gets its own weights)", started)
    quantize_q8(out)
    log("wrote onnx/model_quantized.onnx (q8)", started)
    quantize_q4(out)
    log("wrote onnx/model_q4.onnx (q4)", started)
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        print(f"{sha256(path)}  {path.stat().st_size:>11,}  {path.relative_to(out)}")


if __name__ == "__main__":
    main()
