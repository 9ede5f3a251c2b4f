#include "runtime/tensor_io.h"

#include <cstring>
#include <fstream>

#include "format/pte_file.h"

namespace wick {

Result<std::vector<int64_t>> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  if (text.empty()) return shape;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12)
      return Status(ErrorCode::kInvalidArgument, "bad shape '" + text + "': expected d0,d1,... of non-negative ints");
    shape.push_back(std::stoll(part));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return shape;
}

Result<Value> read_raw_tensor(const std::string& path, ScalarType dtype, const std::vector<int64_t>& shape) {
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file_bytes(path));
  // The data comes from the file: a shape that needs more than it holds is an error before
  // anything is allocated for it.
  auto need = checked_nbytes(dtype, shape);
  if (!need || *need != bytes.size())
    return Status(ErrorCode::kInvalidArgument, path + ": holds " + std::to_string(bytes.size()) + " bytes, but " +
                                                   dtype_name(dtype) + shape_to_string(shape) + " needs " +
                                                   (need ? std::to_string(*need) : std::string("over 2^64")));
  auto t_or = Tensor::allocate(dtype, shape);
  if (!t_or.ok()) return t_or.status().with_context(path);
  Tensor t = std::move(t_or).value();
  if (!bytes.empty()) std::memcpy(t.data, bytes.data(), bytes.size());
  return Value::make_tensor(std::move(t));
}

namespace {
std::optional<ScalarType> npy_dtype(const std::string& descr) {
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '=')) return std::nullopt;
  std::string code = descr.substr(1);
  if (code == "f4") return ScalarType::kFloat;
  if (code == "f8") return ScalarType::kDouble;
  if (code == "f2") return ScalarType::kHalf;
  if (code == "i8") return ScalarType::kLong;
  if (code == "i4") return ScalarType::kInt;
  if (code == "i2") return ScalarType::kShort;
  if (code == "i1") return ScalarType::kChar;
  if (code == "u1") return ScalarType::kByte;
  if (code == "b1") return ScalarType::kBool;
  return std::nullopt;
}

// Value of `key` in the header dict, e.g. "'descr': '<f4'" -> "'<f4'".
std::string dict_field(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) return "";
  char open = header[start];
  size_t end = open == '(' ? header.find(')', start) : open == '\'' ? header.find('\'', start + 1)
                                                                   : header.find_first_of(",}", start) - 1;
  if (end == std::string::npos) return "";
  return header.substr(start, end - start + 1);
}
}  // namespace

Result<Value> read_npy(const std::string& path) {
  WICK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file_bytes(path));
  auto bad = [&](const std::string& what) { return Status(ErrorCode::kInvalidArgument, path + ": " + what); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return bad("not a .npy file");
  size_t header_len, header_start;
  if (bytes[6] == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) return bad("truncated .npy header");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  }
  if (header_start + header_len > bytes.size()) return bad("truncated .npy header");
  std::string header(bytes.begin() + header_start, bytes.begin() + header_start + header_len);
  std::string descr = dict_field(header, "descr");
  if (descr.size() < 2) return bad("no 'descr' in the header");
  auto dtype = npy_dtype(descr.substr(1, descr.size() - 2));
  if (!dtype) return bad("unsupported dtype " + descr + " (little-endian f2/f4/f8/i1/i2/i4/i8/u1/b1 only)");
  if (dict_field(header, "fortran_order").rfind("True", 0) == 0) return bad("Fortran-order arrays are not supported");
  std::string shape_text = dict_field(header, "shape");
  if (shape_text.size() < 2) return bad("no 'shape' in the header");
  std::string inner;
  for (char c : shape_text.substr(1, shape_text.size() - 2))
    if (c != ' ') inner += c;
  if (!inner.empty() && inner.back() == ',') inner.pop_back();
  auto shape = parse_shape(inner);
  if (!shape.ok()) return bad(shape.status().message());
  size_t data_start = header_start + header_len;
  auto need = checked_nbytes(*dtype, *shape);
  if (!need || *need != bytes.size() - data_start)
    return bad("data holds " + std::to_string(bytes.size() - data_start) + " bytes, shape " +
               shape_to_string(*shape) + " needs " + (need ? std::to_string(*need) : std::string("over 2^64")));
  auto t_or = Tensor::allocate(*dtype, *shape);
  if (!t_or.ok()) return bad(t_or.status().message());
  Tensor t = std::move(t_or).value();
  if (t.nbytes()) std::memcpy(t.data, bytes.data() + data_start, t.nbytes());
  return Value::make_tensor(std::move(t));
}

Result<Value> read_input_spec(const std::string& spec) {
  size_t c2 = spec.rfind(':');
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : spec.rfind(':', c2 - 1);
  if (c1 == std::string::npos) {
    if (spec.size() > 4 && spec.substr(spec.size() - 4) == ".npy") return read_npy(spec);
    return Status(ErrorCode::kInvalidArgument,
                  "input '" + spec + "': expected FILE:dtype:d0,d1,... or a .npy file");
  }
  std::string path = spec.substr(0, c1);
  std::string dtype_text = spec.substr(c1 + 1, c2 - c1 - 1);
  auto dtype = parse_dtype(dtype_text);
  if (!dtype) return Status(ErrorCode::kInvalidArgument, "input '" + spec + "': unknown dtype '" + dtype_text + "'");
  auto shape = parse_shape(spec.substr(c2 + 1));
  if (!shape.ok()) return shape.status().with_context("input '" + spec + "'");
  return read_raw_tensor(path, *dtype, *shape);
}

Status write_npy(const std::string& path, const Tensor& tensor) {
  std::string code;
  switch (tensor.dtype) {  // the inverse of npy_dtype()
    case ScalarType::kFloat: code = "<f4"; break;
    case ScalarType::kDouble: code = "<f8"; break;
    case ScalarType::kHalf: code = "<f2"; break;
    case ScalarType::kLong: code = "<i8"; break;
    case ScalarType::kInt: code = "<i4"; break;
    case ScalarType::kShort: code = "<i2"; break;
    case ScalarType::kChar: code = "|i1"; break;
    case ScalarType::kByte: code = "|u1"; break;
    case ScalarType::kBool: code = "|b1"; break;
    default:
      return Status(ErrorCode::kNotSupported, path + ": NumPy has no dtype for " + std::string(dtype_name(tensor.dtype)));
  }
  std::string shape;
  for (int64_t d : tensor.sizes) shape += std::to_string(d) + ", ";
  if (tensor.sizes.size() > 1) shape.resize(shape.size() - 2);  // (3,) keeps its comma, (2, 3) loses the last
  std::string header = "{'descr': '" + code + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Format 1.0: magic, version, u16 header length; the data starts 64-byte aligned.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string prefix = "\x93NUMPY\x01";
  prefix += '\0';
  prefix += static_cast<char>(header.size() & 0xFF);
  prefix += static_cast<char>(header.size() >> 8);
  std::ofstream out(path, std::ios::binary);
  if (!out) return Status(ErrorCode::kInvalidArgument, path + ": cannot open for writing");
  out << prefix << header;
  if (tensor.nbytes() > 0) out.write(static_cast<const char*>(tensor.data), static_cast<std::streamsize>(tensor.nbytes()));
  if (!out) return Status(ErrorCode::kInvalidArgument, path + ": write failed");
  return {};
}

Status write_raw_tensor(const std::string& path, const Tensor& tensor) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return Status(ErrorCode::kInvalidArgument, path + ": cannot open for writing");
  if (tensor.nbytes() > 0) out.write(static_cast<const char*>(tensor.data), static_cast<std::streamsize>(tensor.nbytes()));
  if (!out) return Status(ErrorCode::kInvalidArgument, path + ": write failed");
  return {};
}

}  // namespace wick
