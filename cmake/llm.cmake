# The LLM layer (src/llm): tokenizer, chat templates, sampler, generation runner.
# Sits above wick_runtime (it loads programs; the entry points register the kernels). The
# Unicode tables it needs (general categories, NFC) are generated at build time from
# Debian's unicode-data package; nothing generated is checked in.
set(WICK_UNICODE_DATA_DIR /usr/share/unicode CACHE PATH "Directory holding UnicodeData.txt")
set(WICK_UNICODE_TABLES ${WICK_GEN_DIR}/unicode_tables.inc)
add_custom_command(
  OUTPUT ${WICK_UNICODE_TABLES}
  COMMAND ${CMAKE_COMMAND} -DUNICODE_DIR=${WICK_UNICODE_DATA_DIR} -DOUT=${WICK_UNICODE_TABLES}
          -P ${CMAKE_SOURCE_DIR}/src/llm/unicode_tables.cmake
  DEPENDS ${CMAKE_SOURCE_DIR}/src/llm/unicode_tables.cmake
          ${WICK_UNICODE_DATA_DIR}/UnicodeData.txt ${WICK_UNICODE_DATA_DIR}/CompositionExclusions.txt
  COMMENT "Unicode tables from ${WICK_UNICODE_DATA_DIR}")
add_custom_target(wick_unicode_tables DEPENDS ${WICK_UNICODE_TABLES})

set(WICK_LLM_SOURCES
  # tokenizer (helper "tokenizer")
  ${CMAKE_SOURCE_DIR}/src/llm/unicode.cpp
  ${CMAKE_SOURCE_DIR}/src/llm/tokenizer.cpp
  ${CMAKE_SOURCE_DIR}/src/llm/tokenizer_pretokenize.cpp
  ${CMAKE_SOURCE_DIR}/src/llm/chat_template.cpp
  # sampler and generation runner (helper "runner")
  ${CMAKE_SOURCE_DIR}/src/llm/sampler.cpp
  ${CMAKE_SOURCE_DIR}/src/llm/llm_metadata.cpp
  ${CMAKE_SOURCE_DIR}/src/llm/runner.cpp
)
add_library(wick_llm STATIC ${WICK_LLM_SOURCES})
add_dependencies(wick_llm wick_unicode_tables)
target_include_directories(wick_llm PRIVATE ${WICK_GEN_DIR})
target_link_libraries(wick_llm PUBLIC wick_runtime)
wick_precompile_headers(wick_llm)
