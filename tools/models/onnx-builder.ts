/**
 * A small ONNX graph builder over `onnx-proto`'s generated protobuf classes: named tensors in,
 * serialized `ModelProto` bytes out. Only what the tiny test models need: float32 and int64
 * initializers stored as little-endian `raw_data`, nodes with int, ints and float attributes, and
 * graph inputs and outputs with symbolic dimensions. Encoding is deterministic: the same calls in the
 * same order give the same bytes.
 */
// onnx-proto is CommonJS (`module.exports = $root`): Node's ESM loader gives it as the default export only.
import onnxProto from 'onnx-proto';
import type { onnx as proto } from 'onnx-proto';

const { onnx } = onnxProto;
const { DataType } = onnx.TensorProto;

/** Element types the builder writes. */
export type ElementType = 'float32' | 'int64';

/** A dimension: a fixed size or a symbolic name such as `batch_size`. */
export type Dim = number | string;

/** Node attribute values: integers, integer lists or floats (`{ float: x }`, since `1` is ambiguous). */
export type AttributeValue = number | number[] | { float: number };

const ONNX_TYPE: Record<ElementType, number> = { float32: DataType.FLOAT, int64: DataType.INT64 };

/** Options for {@link GraphBuilder.toBytes}. */
export interface ModelOptions {
  /** Default-domain opset version; default 17 (LayerNormalization needs 17 or later). */
  opset?: number;
  /** ONNX IR version; default 8 (the lowest that opset 17 allows). */
  irVersion?: number;
  /** Recorded as `producer_name`; default `docqa`. */
  producer?: string;
}

/** Builds one ONNX graph. Tensor names are the caller's; each node's name is its first output's. */
export class GraphBuilder {
  private readonly nodes: proto.INodeProto[] = [];
  private readonly initializers: proto.ITensorProto[] = [];
  private readonly inputs: proto.IValueInfoProto[] = [];
  private readonly outputs: proto.IValueInfoProto[] = [];
  private readonly names = new Set<string>();

  constructor(private readonly name: string) {}

  /** Declares a graph input. */
  input(name: string, type: ElementType, dims: Dim[]): string {
    this.claim(name);
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Declares an existing tensor as a graph output. */
  output(name: string, type: ElementType, dims: Dim[]): void {
    if (!this.names.has(name)) throw new Error(`GraphBuilder: output ${name} is not a tensor of graph ${this.name}`);
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** Adds a float32 initializer (weights or a constant). `dims` [] is a scalar. */
  floats(name: string, dims: number[], values: Float32Array | number[]): string {
    checkSize(name, dims, values.length);
    const bytes = new Uint8Array(values.length * 4);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i] ?? 0, true);
    return this.initializer(name, 'float32', dims, bytes);
  }

  /** Adds an int64 initializer (shapes, axes, indices). `dims` [] is a scalar. */
  int64s(name: string, dims: number[], values: number[]): string {
    checkSize(name, dims, values.length);
    const bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < values.length; i++) view.setBigInt64(i * 8, BigInt(values[i] ?? 0), true);
    return this.initializer(name, 'int64', dims, bytes);
  }

  /** Adds a node with one output named `output`, and returns that name. */
  node(opType: string, inputs: string[], output: string, attributes: Record<string, AttributeValue> = {}): string {
    for (const input of inputs) {
      if (!this.names.has(input)) throw new Error(`GraphBuilder: ${opType} ${output} reads ${input}, which is not defined yet`);
    }
    this.claim(output);
    this.nodes.push({
      name: output,
      opType,
      input: inputs,
      output: [output],
      attribute: Object.entries(attributes).map(([key, value]) => attribute(key, value)),
    });
    return output;
  }

  /** Serializes the graph as an ONNX model. */
  toBytes(options: ModelOptions = {}): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: options.irVersion ?? 8,
      producerName: options.producer ?? 'docqa',
      opsetImport: [{ domain: '', version: options.opset ?? 17 }],
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }

  private initializer(name: string, type: ElementType, dims: number[], rawData: Uint8Array): string {
    this.claim(name);
    this.initializers.push({ name, dims, dataType: ONNX_TYPE[type], rawData });
    return name;
  }

  private claim(name: string): void {
    if (this.names.has(name)) throw new Error(`GraphBuilder: tensor ${name} is defined twice in graph ${this.name}`);
    this.names.add(name);
  }
}

function checkSize(name: string, dims: number[], length: number): void {
  const size = dims.reduce((a, b) => a * b, 1);
  if (size !== length) throw new Error(`GraphBuilder: ${name} has shape [${dims.join(', ')}] but ${length} values`);
}

function valueInfo(name: string, type: ElementType, dims: Dim[]): proto.IValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType: ONNX_TYPE[type], shape: { dim } } } };
}

function attribute(name: string, value: AttributeValue): proto.IAttributeProto {
  const { AttributeType } = onnx.AttributeProto;
  if (Array.isArray(value)) return { name, type: AttributeType.INTS, ints: value };
  if (typeof value === 'number') return { name, type: AttributeType.INT, i: value };
  return { name, type: AttributeType.FLOAT, f: value.float };
}
