// Types of Wick's JavaScript API (package/index.mjs and the bundle's src/wasm/api.js).

export interface ScalarTypeMember { readonly name: string; readonly value: number; }
export interface ScalarTypes {
  readonly Byte: ScalarTypeMember; readonly Char: ScalarTypeMember; readonly Short: ScalarTypeMember;
  readonly Int: ScalarTypeMember; readonly Long: ScalarTypeMember; readonly Half: ScalarTypeMember;
  readonly Float: ScalarTypeMember; readonly Double: ScalarTypeMember; readonly Bool: ScalarTypeMember;
  /** Members by number, as embind enums have (not enumerable). */
  readonly values: {readonly [value: number]: ScalarTypeMember};
}
export interface TagMember { readonly name: string; readonly value: number; }
export interface Tags {
  readonly None: TagMember; readonly Tensor: TagMember; readonly String: TagMember;
  readonly Double: TagMember; readonly Int: TagMember; readonly Bool: TagMember;
  readonly ListBool: TagMember; readonly ListDouble: TagMember; readonly ListInt: TagMember;
  readonly ListTensor: TagMember; readonly ListScalar: TagMember; readonly ListOptionalTensor: TagMember;
  /** Members by number, as embind enums have (not enumerable). */
  readonly values: {readonly [value: number]: TagMember};
}
/** A dtype: a ScalarType member, its number, or a name ('Float', 'float32', ...). */
export type DType = ScalarTypeMember | number | string;

export type TensorData =
  Float32Array | Float64Array | Int32Array | Int16Array | Int8Array | Uint8Array | Uint16Array | BigInt64Array;

export interface Tensor {
  /** The elements, in JavaScript memory: they stay valid after later calls. For Half,
   *  a Float32Array of the values (a copy); rawData holds the stored bits. */
  readonly data: TensorData;
  /** The stored elements; for Half, the IEEE half bits as a Uint16Array. */
  readonly rawData: TensorData;
  /** The order of the dimensions in memory, outermost first ([0, 2, 3, 1]: channels-last). */
  readonly dimOrder: number[];
  /** Strides in elements, from the sizes and the dim order. */
  readonly strides: number[];
  readonly shape: number[];
  /** ExecuTorch's name for shape. */
  readonly sizes: number[];
  readonly dtype: ScalarTypeMember;
  readonly scalarType: ScalarTypeMember;
  readonly numel: number;
  readonly nbytes: number;
  /** Drops the data now (optional: the garbage collector frees it too). */
  delete(): void;
  isDeleted(): boolean;
}

export interface TensorStatic {
  /** Not constructible; declared so that `value instanceof et.Tensor` narrows a Value. */
  new (internal: never): Tensor;
  readonly prototype: Tensor;
  /**
   * data holds at least numel elements in the memory order that dimOrder (or strides)
   * give; contiguous when both are empty. The dtype comes from a typed array when not
   * given (a Uint16Array needs one: 'float16' takes it as half bits). Numbers given for
   * Half are rounded to the nearest half. An input in another dim order than the
   * program's is rearranged when it is passed to forward/execute.
   */
  fromArray(sizes: number[], data: ArrayLike<number | bigint | boolean> | TensorData, dtype?: DType,
            dimOrder?: number[], strides?: number[]): Tensor;
  fromIter(sizes: number[], data: Iterable<number | bigint | boolean>, dtype?: DType,
           dimOrder?: number[], strides?: number[]): Tensor;
  zeros(sizes: number[], dtype?: DType): Tensor;
  ones(sizes: number[], dtype?: DType): Tensor;
  full(sizes: number[], value: number | bigint | boolean, dtype?: DType): Tensor;
}

export interface TensorInfo {
  sizes: number[];
  dimOrder: number[];
  scalarType: ScalarTypeMember | undefined;
  dtype: string;
  isMemoryPlanned: boolean;
  dynamic: boolean;
  nbytes: number;
  name: string;
}

export interface MethodMeta {
  name: string;
  inputTags: TagMember[];
  inputTensorMeta: (TensorInfo | undefined)[];
  outputTags: TagMember[];
  outputTensorMeta: (TensorInfo | undefined)[];
  attributeTensorMeta: TensorInfo[];
  memoryPlannedBufferSizes: bigint[];
  /** Delegate backend ids, e.g. "VulkanBackend". */
  backends: string[];
  /** CPU operators, e.g. "aten::add.out". */
  operators: string[];
  numInstructions: number;
  /** Wick: whether the method waits on the GPU (it has WebGPU delegates). When false,
   *  loadMethod/forward/execute run synchronously while the runtime is idle. */
  runsOnGpu: boolean;
}

/** A method input or output: tensors, and None/Int/Double/Bool scalars. */
export type Value = Tensor | null | bigint | number | boolean;

/** The outputs of a synchronous run (a method with no GPU work, runtime idle): an Array,
 *  as ExecuTorch's CPU build returns, that is also a thenable, so `await` works alike. */
export interface SyncOutputs extends Array<Value> {
  then<A = Value[], B = never>(ok?: ((v: Value[]) => A | PromiseLike<A>) | null,
                               fail?: ((e: any) => B | PromiseLike<B>) | null): Promise<A | B>;
  catch<B = never>(fail?: ((e: any) => B | PromiseLike<B>) | null): Promise<Value[] | B>;
  finally(fn?: (() => void) | null): Promise<Value[]>;
}
/** forward/execute: a Promise of the outputs (WebGPU methods, or the runtime busy with an
 *  earlier call; reading [0] off it throws an Error with code 'AsyncResult' that says to
 *  await it), or SyncOutputs. `await` gives Value[] either way. */
export type Outputs = Promise<Value[]> | SyncOutputs;

/** Errors of the API: code is ExecuTorch's Error name ('InvalidProgram', 'InvalidArgument',
 *  'NotFound', 'NotSupported', 'OperatorMissing', 'InvalidState', ...) or Wick's own
 *  ('DeviceLost', 'AsyncResult'); errorCode its number in ExecuTorch (0x23, ...) where it
 *  has one. */
export interface WickError extends Error {
  code: string;
  errorCode?: number;
}

export interface Module {
  /** The program is parsed at its first use (as in ExecuTorch): a bad file throws here,
   *  in getMethodMeta, loadMethod, forward or execute, every time. */
  getMethods(): string[];
  readonly methodNames: string[];
  getMethodMeta(name: string): MethodMeta;
  /** Resolves the kernels and builds the delegates (compiling their shaders). A bad
   *  program or an unknown method throws at once; a method with no GPU work loads at once. */
  loadMethod(name: string): Promise<void>;
  /** Runs a method (loading it first if needed). Calls that wait on the GPU run one at a
   *  time, in call order; none needs the one before it awaited. */
  execute(name: string, inputs: Value[] | Value): Outputs;
  forward(inputs: Value[] | Value): Outputs;
  /** Not supported: throws an Error with code 'NotSupported' (Wick records no ETDump). */
  etdump(): never;
  delete(): void;
  isDeleted(): boolean;
}

export interface ModuleStatic {
  /** Keeps a copy of a program: a path in et.FS, or its bytes. Lazy, as ExecuTorch's:
   *  the program is read and verified at its first use, where a bad file throws.
   *  name: what errors call it (default: the path, or '<bytes: N B>'). */
  load(data: string | Uint8Array | ArrayBuffer, name?: string | {name: string}): Module;
}

export interface WebGpuInfo {
  adapter: {vendor: string; architecture: string; device: string; description: string;
            backend: string; adapterType: string; summary: string;
            subgroupMinSize: number; subgroupMaxSize: number};
  features: string[];
  limits: Record<string, number>;
}

export interface ExecuTorch {
  Module: ModuleStatic;
  Tensor: TensorStatic;
  ScalarType: ScalarTypes;
  Tag: Tags;
  /** ExecuTorch's Error numbers by name (errorCode of a WickError). */
  ErrorCode: Readonly<Record<string, number>>;
  /** Opens the WebGPU device the "VulkanBackend" delegates run on. Optional: the first
   *  method that needs it opens it (in Node with npm 'webgpu', when no gpu is given). */
  initWebGPU(options?: {gpu?: unknown}): Promise<WebGpuInfo>;
  /** The device's description once initWebGPU has resolved, else null. */
  readonly webgpu: WebGpuInfo | null;
  /** Who runs "VulkanBackend" delegates once chosen, else null. */
  readonly delegateBackend: 'webgpu' | 'cpu' | null;
  /** Emscripten's in-memory file system. */
  FS: any;
}

export interface CreateOptions {
  /** A GPU object to use instead of navigator.gpu. In Node, by default create([]) of
   *  npm 'webgpu' when it is installed; null: none. */
  gpu?: unknown;
  /** Who runs "VulkanBackend" delegates, chosen at the first method that has them:
   *  'webgpu' (default), 'cpu' (the CPU executor of VK00 graphs: such methods then run
   *  synchronously) or 'auto' (WebGPU when an adapter opens, else the CPU). */
  backend?: 'webgpu' | 'cpu' | 'auto';
  /** Hex sha256 the .wasm must have. */
  wasmSha256?: string;
  /** Progress of the .wasm download. */
  onProgress?: (p: {url: string; loaded: number; total: number}) => void;
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string) => string;
  [emscriptenOption: string]: unknown;
}

export function createExecuTorch(options?: CreateOptions): Promise<ExecuTorch>;
export default createExecuTorch;

export interface FetchOptions {
  /** Hex sha256 the bytes must have; a mismatch rejects and caches nothing. */
  sha256?: string;
  onProgress?: (p: {url: string; loaded: number; total: number}) => void;
  /** Cache API cache name ('wick' by default), or false for none. */
  cache?: string | false;
  fetch?: typeof fetch;
}
export function fetchVerified(url: string | URL, options?: FetchOptions): Promise<Uint8Array>;
