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
   * Half are rounded to the nearest half. A tensor in another dim order than
   * contiguous is rearranged into contiguous order when it is passed to forward/execute
   * (what the runtime reads, whatever dim order the program declares).
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
  /** How the CPU kernels run: the bundle ('single': wick.js; 'threads': wick-threads.js,
   *  Wasm threads, CPU only), the threads in use (the caller's included), why that bundle
   *  was chosen, and how many pieces of kernel work the pool's workers ran so far. */
  readonly threading: {variant: 'single' | 'threads'; threads: number; reason: string; workerChunks: number};
  /** Emscripten's in-memory file system. */
  FS: any;
  /** LLM generation (see the LLM section below). */
  LLM: LLMStatic;
  Tokenizer: TokenizerStatic;
}

export interface CreateOptions {
  /** A GPU object to use instead of navigator.gpu. In Node, by default
   *  create(['enable-dawn-features=vulkan_enable_f16_on_nvidia']) of npm 'webgpu' when it
   *  is installed (the toggle offers shader-f16 on NVIDIA's Vulkan driver); null: none. */
  gpu?: unknown;
  /** Wick extension, off by default (not in ExecuTorch's API): the WebGPU delegate stores
   *  the weights of linear layers as f16 (half their memory; `wick run --f16`). Where the
   *  adapter has 'shader-f16' (et.webgpu.features) those linears also compute in f16,
   *  summed in f32 across K tiles; elsewhere in f32. Outputs move by about 1e-4 to 1e-3
   *  relative. Read when WebGPU starts (initWebGPU, or the first WebGPU method). */
  f16Weights?: boolean;
  /** Who runs "VulkanBackend" delegates, chosen at the first method that has them:
   *  'auto' (default: WebGPU when an adapter opens, else the CPU), 'webgpu' (fails
   *  without an adapter) or 'cpu' (the CPU executor of VK00 graphs: such methods then run
   *  synchronously; also once 'auto' has picked the CPU). */
  backend?: 'webgpu' | 'cpu' | 'auto';
  /** CPU threads: 1 loads the single-threaded wick.js; by default the cores (at most 8),
   *  through wick-threads.js (Wasm threads, the CPU only), where the delegates run on the
   *  CPU (backend 'cpu', or 'auto' without a WebGPU adapter) and Wasm threads exist (a
   *  cross-origin-isolated page, Node), unless wasmSha256 pins wick.wasm; elsewhere 1. */
  threads?: number;
  /** Hex sha256 the .wasm must have (wick-threads.wasm when the threaded bundle is used). */
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

// ----- LLM generation (src/wasm/llm.js) -----

/** tokenizer.json / tokenizer_config.json: a URL, a path (Node; a folder means its
 *  tokenizer.json), the JSON text itself, a parsed object, bytes or a Blob. */
export type JsonSource = string | URL | object | Uint8Array | ArrayBuffer | Blob;
/** A .pte: a URL, a path (Node), bytes or a Blob. */
export type BytesSource = string | URL | Uint8Array | ArrayBuffer | Blob;

export interface ChatMessage { role: string; content: string; }

export interface StreamDecoder {
  /** The complete UTF-8 text this id finishes (maybe ''). */
  push(id: number): string;
  /** What is left (an incomplete tail becomes U+FFFD). */
  flush(): string;
  delete(): void;
}

export interface Tokenizer {
  readonly vocabSize: number;
  readonly eosIds: number[];
  readonly bosId: number | undefined;
  readonly hasChatTemplate: boolean;
  /** As Hugging Face's encode; addSpecialTokens (default true) adds e.g. Llama 3's BOS. */
  encode(text: string, options?: {addSpecialTokens?: boolean}): number[];
  decode(ids: ArrayLike<number>, options?: {skipSpecialTokens?: boolean}): string;
  /** The config's chat_template rendered as transformers renders it. */
  applyChatTemplate(messages: ChatMessage[], options?: {addGenerationPrompt?: boolean; enableThinking?: boolean}): string;
  streamDecoder(options?: {skipSpecialTokens?: boolean}): StreamDecoder;
  tokenToId(token: string): number | undefined;
  delete(): void;
  isDeleted(): boolean;
}

export interface TokenizerStatic {
  load(tokenizer: JsonSource, tokenizerConfig?: JsonSource): Promise<Tokenizer>;
  fromJSON(tokenizerJson: string, tokenizerConfigJson?: string): Tokenizer;
}

export interface LLMLoadOptions {
  tokenizer?: JsonSource;
  tokenizerConfig?: JsonSource;
  /** KV cache length; needed when the program has no get_max_context_len/get_max_seq_len. */
  maxContextLen?: number;
  /** Tokens per prefill call (0: as many as the program takes). */
  prefillChunk?: number;
  method?: string;
  /** Replace the program's (or the tokenizer's) EOS ids. */
  eosIds?: number[];
  name?: string;
}

export interface GenerateOptions {
  /** Default: until EOS or the context is full (-1). */
  maxNewTokens?: number;
  /** Argmax (the default when no sampling option is given). */
  greedy?: boolean;
  /** 0 is greedy; topK/topP/minP/seed without it mean temperature 1. */
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  repetitionPenalty?: number;
  seed?: number | bigint;
  ignoreEos?: boolean;
  /** Aborting stops before the next token; the generation ends with stopReason 'cancelled'. */
  signal?: AbortSignal;
  /** Qwen3's enable_thinking (default true). */
  enableThinking?: boolean;
  /** A system message put first (a string prompt then becomes a chat). */
  system?: string;
  /** A string prompt as one user message of the chat template. */
  chat?: boolean;
  /** For a string prompt: default true at the start of a conversation. */
  addSpecialTokens?: boolean;
}

export interface GenerationPiece {
  /** Complete UTF-8 text ('' for an EOS). */
  text: string;
  /** The ids that made it. */
  tokens: number[];
}

export interface GenerationStats {
  stopReason: 'eos' | 'max_new_tokens' | 'context_full' | 'cancelled';
  stopMessage: string;
  /** Tokens prefilled by this turn (the previous turn's last token included). */
  promptTokens: number;
  generatedTokens: number;
  /** Tokens in the KV cache afterwards. */
  position: number;
  timeToFirstTokenMs: number;
  prefillMs: number;
  decodeMs: number;
  prefillTokensPerS: number;
  decodeTokensPerS: number;
}

export interface Generation extends AsyncIterableIterator<GenerationPiece> {
  /** Every generated id so far (an EOS that stopped it included). */
  readonly tokens: number[];
  readonly text: string;
  /** Set once the generation is over. */
  readonly stats: GenerationStats | null;
  /** Runs to the end. */
  result(): Promise<{text: string; tokens: number[]; stats: GenerationStats}>;
  /** Stops before the next token. */
  cancel(): Promise<void>;
}

export interface LLMInfo {
  maxContextLen: number;
  maxSeqLen: number;
  prefillChunk: number;
  useKvCache: boolean;
  dynamicShape: boolean;
  eosIds: number[];
  bosId: number | null;
  vocabSize: number | null;
  /** Tokens of the conversation in the KV cache. */
  position: number;
  remainingContext: number;
  name: string;
}

export interface LLM {
  readonly tokenizer: Tokenizer | null;
  readonly info: LLMInfo;
  /** prompt: raw text, the whole chat as messages, or token ids. */
  generate(prompt: string | ChatMessage[] | ArrayLike<number>, options?: GenerateOptions): Generation;
  /** A new conversation. */
  reset(): void;
  delete(): void;
  isDeleted(): boolean;
}

export interface LLMStatic {
  load(pte: BytesSource, options?: LLMLoadOptions): Promise<LLM>;
}
