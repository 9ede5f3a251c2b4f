// The C API behind the JavaScript API (definitions and contracts in c_api.cpp; the LLM
// part, c_api_llm.cpp, has its own). Declared here so that c_api.cpp is checked against
// what its native callers (fuzz/c_api_fuzzer.cpp) see.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
const char* wick_last_error();
int wick_init_webgpu(int f16_weights);
int wick_vulkan_target();
int wick_use_backend(int preference, int f16_weights);
int wick_cpu_threads(int n);
double wick_cpu_worker_chunks();
const char* wick_device_json();
int wick_set_memory_limits(double max_planned_bytes, double max_io_bytes);
int wick_program_load(const uint8_t* bytes, size_t size, const char* name);
void wick_program_free(int handle);
const char* wick_program_method_names(int handle);
const char* wick_method_meta(int handle, const char* method);
int wick_method_load(int program_handle, const char* name);
void wick_method_free(int handle);
// Keeps a view of `data` (not a copy) for the next wick_method_execute, which reads it in
// place or copies it in: the caller keeps the bytes unchanged until that execute returns.
int wick_method_set_tensor(int handle, int index, int dtype, const int32_t* sizes, int rank, const void* data,
                           size_t nbytes);
int wick_method_set_scalar(int handle, int index, int kind, double value, uint32_t lo, int32_t hi);
int wick_method_execute(int handle);
const char* wick_method_output(int handle, int index);
const void* wick_method_output_data(int handle, int index);
}
