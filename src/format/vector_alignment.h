// Element alignment of flatbuffer vectors, which the verifier leaves unchecked.
//
// Flatbuffers' verifier (2.0, Debian 12) checks that a vector's length field is 4-byte
// aligned, not that its elements are aligned for their type. ExecuTorch's program
// serializer aligns a [long], [ulong] or [double] vector's elements to 8 (every fixture
// does), but a corrupt or hostile offset can leave them at 4 mod 8, and Vector<T>::Get
// reads them through a T*: a misaligned load, undefined behaviour (UBSan stops there). The
// .pte reader checks each such vector once, after verification, and rejects the file.
// (Real VK00 blobs of ExecuTorch's Vulkan delegate do hold [long] vectors at 4 mod 8, so
// their reader, vkgraph/vk_plan.cpp, copies the elements out bytewise instead.)
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>

namespace wick {

template <class T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

}  // namespace wick
