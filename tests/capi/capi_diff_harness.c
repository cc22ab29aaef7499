/* tests/capi/capi_diff_harness.c: see capi_diff_harness.h. */
#define _GNU_SOURCE
#include "capi_diff_harness.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void rec(Ctx* c, const char* fmt, ...) {
  char line[4096];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  if (n < 0) return;
  if ((size_t)n >= sizeof line - 1) n = sizeof line - 2;
  line[n++] = '\n';
  /* Written at once, so that a crash keeps everything recorded before it. */
  if (write(c->fd, line, (size_t)n) != n) _exit(3);
}

static const char* const kCodeNames[] = {
    "ORT_OK",           "ORT_FAIL",         "ORT_INVALID_ARGUMENT",  "ORT_NO_SUCHFILE",
    "ORT_NO_MODEL",     "ORT_ENGINE_ERROR", "ORT_RUNTIME_EXCEPTION", "ORT_INVALID_PROTOBUF",
    "ORT_MODEL_LOADED", "ORT_NOT_IMPLEMENTED", "ORT_INVALID_GRAPH",  "ORT_EP_FAIL",
    "ORT_MODEL_LOAD_CANCELED", "ORT_MODEL_REQUIRES_COMPILATION", "ORT_NOT_FOUND",
    "ORT_DEVICE_RESET"};

const char* code_name(OrtErrorCode code) {
  if ((size_t)code < sizeof kCodeNames / sizeof kCodeNames[0]) return kCodeNames[code];
  return "ORT_UNKNOWN_CODE";
}

int rec_status(Ctx* c, const char* what, OrtStatus* status) {
  if (status == NULL) {
    rec(c, "%s: ORT_OK", what);
    return 1;
  }
  OrtErrorCode code = c->api->GetErrorCode(status);
  snprintf(c->last_message, sizeof c->last_message, "%s", c->api->GetErrorMessage(status));
  c->api->ReleaseStatus(status);
  rec(c, "%s: %s", what, code_name(code));
  if (getenv("NXRT_CAPI_VERBOSE") != NULL) {
    fprintf(stderr, "  [%s] %s: %s\n", c->is_nxrt ? "nxrt" : "ort", what, c->last_message);
  }
  return 0;
}

void nxrt_check(Ctx* c, int condition, const char* what) {
  if (!c->is_nxrt || condition) return;
  ++c->nxrt_failures;
  fprintf(stderr, "  nxrt check failed: %s (last message: %s)\n", what, c->last_message);
}

void nxrt_check_message(Ctx* c, const char* needle) {
  char what[256];
  snprintf(what, sizeof what, "the message names '%s'", needle);
  nxrt_check(c, strstr(c->last_message, needle) != NULL, what);
}

const char* model_path(Ctx* c, const char* name, int slot) {
  static char paths[4][4096];
  snprintf(paths[slot & 3], sizeof paths[0], "%s/%s", c->models, name);
  return paths[slot & 3];
}

static const char* const kElementNames[] = {
    "undefined", "float",  "uint8",  "int8",   "uint16",     "int16",       "int32",
    "int64",     "string", "bool",   "float16", "double",    "uint32",      "uint64",
    "complex64", "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
    "float8e5m2fnuz", "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2"};

/* By number, as ONNX's TensorProto numbers them (24 FLOAT8E8M0, 25 UINT2, 26 INT2) and as ORT
 * 1.30's library treats them; its API 29 header lists the last three in another order. */
const char* element_name(ONNXTensorElementDataType type) {
  if ((size_t)type < sizeof kElementNames / sizeof kElementNames[0]) return kElementNames[type];
  return "unknown";
}

size_t element_size(ONNXTensorElementDataType type) {
  static const size_t sizes[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8,
                                 8, 16, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1};
  if ((size_t)type < sizeof sizes / sizeof sizes[0]) return sizes[type];
  return 0;
}

static const char* const kOnnxTypeNames[] = {"unknown", "tensor", "sequence", "map",
                                             "opaque", "sparse_tensor", "optional"};
static const char* onnx_type_name(ONNXType type) {
  if ((size_t)type < sizeof kOnnxTypeNames / sizeof kOnnxTypeNames[0]) return kOnnxTypeNames[type];
  return "invalid";
}

/* One element of a numeric tensor as exact text. */
static void format_element(ONNXTensorElementDataType type, const void* p, char* out, size_t n) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: snprintf(out, n, "%.9g", *(const float*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: snprintf(out, n, "%.17g", *(const double*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: snprintf(out, n, "%d", *(const int8_t*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: snprintf(out, n, "%u", *(const uint8_t*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: snprintf(out, n, "%d", *(const int16_t*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      snprintf(out, n, "0x%04x", *(const uint16_t*)p);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: snprintf(out, n, "%d", *(const int32_t*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: snprintf(out, n, "%u", *(const uint32_t*)p); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      snprintf(out, n, "%lld", (long long)*(const int64_t*)p);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      snprintf(out, n, "%llu", (unsigned long long)*(const uint64_t*)p);
      break;
    default: {
      const size_t size = element_size(type);
      size_t k = 0;
      for (size_t i = 0; i < size && k + 3 < n; ++i) k += (size_t)snprintf(out + k, n - k, "%02x", ((const uint8_t*)p)[i]);
      break;
    }
  }
}

static void dump_tensor(Ctx* c, const char* label, const OrtValue* value) {
  const OrtApi* api = c->api;
  OrtTensorTypeAndShapeInfo* info = NULL;
  if (!rec_status(c, "GetTensorTypeAndShape", api->GetTensorTypeAndShape(value, &info))) return;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0, count = 0;
  int64_t dims[16] = {0};
  rec_status(c, "GetTensorElementType", api->GetTensorElementType(info, &type));
  rec_status(c, "GetDimensionsCount", api->GetDimensionsCount(info, &rank));
  if (rank > 16) rank = 16;
  rec_status(c, "GetDimensions", api->GetDimensions(info, dims, rank));
  rec_status(c, "GetTensorShapeElementCount", api->GetTensorShapeElementCount(info, &count));
  api->ReleaseTensorTypeAndShapeInfo(info);
  char text[8192];
  size_t k = (size_t)snprintf(text, sizeof text, "%s: tensor(%s)[", label, element_name(type));
  for (size_t d = 0; d < rank; ++d) {
    k += (size_t)snprintf(text + k, sizeof text - k, d ? ",%lld" : "%lld", (long long)dims[d]);
  }
  k += (size_t)snprintf(text + k, sizeof text - k, "] =");
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    for (size_t i = 0; i < count && k + 64 < sizeof text; ++i) {
      size_t length = 0;
      if (!rec_status(c, "GetStringTensorElementLength",
                      api->GetStringTensorElementLength(value, i, &length))) {
        break;
      }
      char* s = calloc(length + 1, 1);
      rec_status(c, "GetStringTensorElement", api->GetStringTensorElement(value, length, i, s));
      k += (size_t)snprintf(text + k, sizeof text - k, " \"%.40s\"", s);
      free(s);
    }
  } else if (element_size(type) != 0) {
    const void* data = NULL;
    if (rec_status(c, "GetTensorData", api->GetTensorMutableData((OrtValue*)value, (void**)&data))) {
      for (size_t i = 0; i < count && i < 64 && k + 64 < sizeof text; ++i) {
        char element[64];
        format_element(type, (const char*)data + i * element_size(type), element, sizeof element);
        k += (size_t)snprintf(text + k, sizeof text - k, " %s", element);
      }
    }
  }
  rec(c, "%s", text);
}

void dump_value(Ctx* c, const char* label, const OrtValue* value) {
  const OrtApi* api = c->api;
  if (value == NULL) {
    rec(c, "%s: null", label);
    return;
  }
  ONNXType type = ONNX_TYPE_UNKNOWN;
  int has_value = -1, is_tensor = -1;
  rec_status(c, "GetValueType", api->GetValueType(value, &type));
  rec_status(c, "HasValue", api->HasValue(value, &has_value));
  rec_status(c, "IsTensor", api->IsTensor(value, &is_tensor));
  rec(c, "%s: type %s, has_value %d, is_tensor %d", label, onnx_type_name(type), has_value,
      is_tensor);
  if (type == ONNX_TYPE_SEQUENCE || type == ONNX_TYPE_MAP) {
    OrtTypeInfo* info = NULL;
    if (rec_status(c, "GetTypeInfo", api->GetTypeInfo(value, &info)) && info != NULL) {
      char sub[256];
      snprintf(sub, sizeof sub, "%s.type", label);
      dump_type_info(c, sub, info);
      api->ReleaseTypeInfo(info);
    }
  }
  if (type == ONNX_TYPE_TENSOR && has_value == 1) {
    dump_tensor(c, label, value);
  } else if (type == ONNX_TYPE_SEQUENCE || type == ONNX_TYPE_MAP) {
    size_t count = 0;
    if (!rec_status(c, "GetValueCount", api->GetValueCount(value, &count))) return;
    rec(c, "%s: %zu elements", label, count);
    for (size_t i = 0; i < count; ++i) {
      OrtValue* element = NULL;
      if (!rec_status(c, "GetValue", api->GetValue(value, (int)i, c->allocator, &element))) break;
      char sub[256];
      snprintf(sub, sizeof sub, "%s[%zu]", label, i);
      dump_value(c, sub, element);
      api->ReleaseValue(element);
    }
  }
}

static void dump_tensor_info(Ctx* c, const char* label, const OrtTensorTypeAndShapeInfo* info) {
  const OrtApi* api = c->api;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0;
  int64_t dims[16] = {0};
  const char* names[16] = {0};
  rec_status(c, "GetTensorElementType", api->GetTensorElementType(info, &type));
  rec_status(c, "GetDimensionsCount", api->GetDimensionsCount(info, &rank));
  if (rank > 16) rank = 16;
  rec_status(c, "GetDimensions", api->GetDimensions(info, dims, rank));
  rec_status(c, "GetSymbolicDimensions", api->GetSymbolicDimensions(info, names, rank));
  char text[1024];
  size_t k = (size_t)snprintf(text, sizeof text, "%s: tensor(%s) rank %zu [", label,
                              element_name(type), rank);
  for (size_t d = 0; d < rank; ++d) {
    k += (size_t)snprintf(text + k, sizeof text - k, "%s%lld'%s'", d ? "," : "",
                          (long long)dims[d], names[d] ? names[d] : "(null)");
  }
  snprintf(text + k, sizeof text - k, "]");
  rec(c, "%s", text);
}

void dump_type_info(Ctx* c, const char* label, const OrtTypeInfo* info) {
  const OrtApi* api = c->api;
  ONNXType type = ONNX_TYPE_UNKNOWN;
  if (!rec_status(c, "GetOnnxTypeFromTypeInfo", api->GetOnnxTypeFromTypeInfo(info, &type))) return;
  const char* denotation = NULL;
  size_t denotation_len = 0;
  rec_status(c, "GetDenotationFromTypeInfo",
             api->GetDenotationFromTypeInfo(info, &denotation, &denotation_len));
  rec(c, "%s: %s, denotation '%.*s'", label, onnx_type_name(type), (int)denotation_len,
      denotation ? denotation : "");
  if (type == ONNX_TYPE_TENSOR) {
    const OrtTensorTypeAndShapeInfo* tensor = NULL;
    rec_status(c, "CastTypeInfoToTensorInfo", api->CastTypeInfoToTensorInfo(info, &tensor));
    if (tensor != NULL) dump_tensor_info(c, label, tensor);
  } else if (type == ONNX_TYPE_SEQUENCE) {
    const OrtSequenceTypeInfo* seq = NULL;
    OrtTypeInfo* element = NULL;
    rec_status(c, "CastTypeInfoToSequenceTypeInfo", api->CastTypeInfoToSequenceTypeInfo(info, &seq));
    if (seq != NULL && rec_status(c, "GetSequenceElementType", api->GetSequenceElementType(seq, &element))) {
      char sub[256];
      snprintf(sub, sizeof sub, "%s.element", label);
      dump_type_info(c, sub, element);
      api->ReleaseTypeInfo(element);
    }
  } else if (type == ONNX_TYPE_OPTIONAL) {
    const OrtOptionalTypeInfo* optional = NULL;
    OrtTypeInfo* contained = NULL;
    rec_status(c, "CastTypeInfoToOptionalTypeInfo", api->CastTypeInfoToOptionalTypeInfo(info, &optional));
    if (optional != NULL &&
        rec_status(c, "GetOptionalContainedTypeInfo", api->GetOptionalContainedTypeInfo(optional, &contained))) {
      char sub[256];
      snprintf(sub, sizeof sub, "%s.contained", label);
      dump_type_info(c, sub, contained);
      api->ReleaseTypeInfo(contained);
    }
  } else if (type == ONNX_TYPE_MAP) {
    const OrtMapTypeInfo* map = NULL;
    ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    OrtTypeInfo* value = NULL;
    rec_status(c, "CastTypeInfoToMapTypeInfo", api->CastTypeInfoToMapTypeInfo(info, &map));
    if (map != NULL) {
      rec_status(c, "GetMapKeyType", api->GetMapKeyType(map, &key));
      rec(c, "%s.key: %s", label, element_name(key));
      if (rec_status(c, "GetMapValueType", api->GetMapValueType(map, &value))) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s.value", label);
        dump_type_info(c, sub, value);
        api->ReleaseTypeInfo(value);
      }
    }
  }
}

OrtValue* make_tensor(Ctx* c, ONNXTensorElementDataType type, const int64_t* shape, size_t rank,
                      const void* data, size_t bytes) {
  const OrtApi* api = c->api;
  OrtValue* value = NULL;
  if (!rec_status(c, "CreateTensorAsOrtValue",
                  api->CreateTensorAsOrtValue(c->allocator, shape, rank, type, &value))) {
    return NULL;
  }
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    size_t count = 1;
    for (size_t d = 0; d < rank; ++d) count *= (size_t)shape[d];
    if (count != 0) {
      rec_status(c, "FillStringTensor",
                 api->FillStringTensor(value, (const char* const*)data, count));
    }
  } else if (bytes != 0) {
    void* out = NULL;
    rec_status(c, "GetTensorMutableData", api->GetTensorMutableData(value, &out));
    if (out != NULL) memcpy(out, data, bytes);
  }
  return value;
}

OrtSession* open_session(Ctx* c, OrtEnv* env, const char* name, OrtSessionOptions* options) {
  const OrtApi* api = c->api;
  OrtSessionOptions* own = NULL;
  if (options == NULL) {
    rec_status(c, "CreateSessionOptions", api->CreateSessionOptions(&own));
    rec_status(c, "SetIntraOpNumThreads", api->SetIntraOpNumThreads(own, 1));
    options = own;
  }
  OrtSession* session = NULL;
  char what[256];
  snprintf(what, sizeof what, "CreateSession(%s)", name);
  rec_status(c, what, api->CreateSession(env, model_path(c, name, 0), options, &session));
  if (own != NULL) api->ReleaseSessionOptions(own);
  return session;
}

void run_and_dump(Ctx* c, OrtSession* session, const OrtRunOptions* run_options,
                  const char* const* input_names, const OrtValue* const* inputs, size_t n_inputs,
                  const char* const* output_names, size_t n_outputs) {
  OrtValue* outputs[16] = {0};
  if (n_outputs > 16) n_outputs = 16;
  if (!rec_status(c, "Run", c->api->Run(session, run_options, input_names, inputs, n_inputs,
                                        output_names, n_outputs, outputs))) {
    return;
  }
  for (size_t i = 0; i < n_outputs; ++i) {
    dump_value(c, output_names[i], outputs[i]);
    c->api->ReleaseValue(outputs[i]);
  }
}

/* ---- running the cases ---- */

typedef struct Library {
  const char* label;
  const char* path;
  const OrtApiBase* base;
} Library;

static int load_library(Library* lib) {
  void* handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "capi_diff_test: cannot load %s: %s\n", lib->path, dlerror());
    return 0;
  }
  const OrtApiBase* (*get)(void) = (const OrtApiBase* (*)(void))dlsym(handle, "OrtGetApiBase");
  if (get == NULL) {
    fprintf(stderr, "capi_diff_test: %s exports no OrtGetApiBase\n", lib->path);
    return 0;
  }
  lib->base = get();
  return 1;
}

/* Runs `fn` against `lib` in a child process; returns its transcript (malloc'ed) and adds the
 * child's nxrt check failures to *failures. A child that crashes gives a transcript ending in
 * "<crashed: signal N>". */
static char* run_in_child(const Case* test, const Library* lib, int is_nxrt, const char* models,
                          const char* plugin, const char* work_dir, int* failures) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) return strdup("<pipe failed>\n");
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fd[0]);
    Ctx c;
    memset(&c, 0, sizeof c);
    c.base = lib->base;
    c.api = lib->base->GetApi(ORT_API_VERSION);
    c.models = models;
    c.plugin = plugin;
    c.work_dir = work_dir;
    c.is_nxrt = is_nxrt;
    c.fd = pipe_fd[1];
    OrtStatus* status = c.api->GetAllocatorWithDefaultOptions(&c.allocator);
    if (status != NULL) _exit(4);
    test->fn(&c);
    char tail[64];
    int n = snprintf(tail, sizeof tail, "#nxrt_failures %d\n", c.nxrt_failures);
    if (write(pipe_fd[1], tail, (size_t)n) < 0) _exit(3);
    close(pipe_fd[1]);
    _exit(0);
  }
  close(pipe_fd[1]);
  size_t len = 0, cap = 4096;
  char* out = malloc(cap);
  for (;;) {
    if (len + 4096 > cap) out = realloc(out, cap *= 2);
    ssize_t got = read(pipe_fd[0], out + len, cap - len - 1);
    if (got <= 0) break;
    len += (size_t)got;
  }
  close(pipe_fd[0]);
  out[len] = '\0';
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  char* marker = strstr(out, "#nxrt_failures ");
  if (marker != NULL) {
    *failures += atoi(marker + strlen("#nxrt_failures "));
    *marker = '\0';
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    char tail[64];
    snprintf(tail, sizeof tail, "<crashed: %s %d>\n", WIFSIGNALED(wstatus) ? "signal" : "exit",
             WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
    out = realloc(out, strlen(out) + strlen(tail) + 1);
    strcat(out, tail);
    ++*failures;
  }
  return out;
}

/* Prints the first differing lines of two transcripts; returns 1 when they are equal. */
static int compare(const char* name, const char* ort, const char* nxrt) {
  if (strcmp(ort, nxrt) == 0) return 1;
  const char* a = ort;
  const char* b = nxrt;
  int line = 1, shown = 0;
  while (*a || *b) {
    const char* ea = strchr(a, '\n');
    const char* eb = strchr(b, '\n');
    size_t la = ea ? (size_t)(ea - a) : strlen(a);
    size_t lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || strncmp(a, b, la) != 0) {
      printf("  %s line %d\n    ort:  %.*s\n    nxrt: %.*s\n", name, line, (int)la, a, (int)lb, b);
      if (++shown == 5) break;
    }
    a = ea ? ea + 1 : a + la;
    b = eb ? eb + 1 : b + lb;
    ++line;
  }
  return 0;
}

int run_cases(const Case* cases, size_t n_cases, int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s ORT_LIBRARY NXRT_LIBRARY MODELS_DIR PLUGIN_LIBRARY WORK_DIR "
                    "[CASE...]\n", argv[0]);
    return 2;
  }
  Library ort = {"ort", argv[1], NULL};
  Library nxrt = {"nxrt", argv[2], NULL};
  if (!load_library(&ort) || !load_library(&nxrt)) return 2;
  int passed = 0, failed = 0, nxrt_failures = 0;
  for (size_t i = 0; i < n_cases; ++i) {
    int selected = argc == 6;
    for (int a = 6; a < argc; ++a) selected |= strcmp(argv[a], cases[i].name) == 0;
    if (!selected) continue;
    int ignored = 0, case_failures = 0;
    char* ort_log = run_in_child(&cases[i], &ort, 0, argv[3], argv[4], argv[5], &ignored);
    char* nxrt_log = run_in_child(&cases[i], &nxrt, 1, argv[3], argv[4], argv[5], &case_failures);
    const int same = compare(cases[i].name, ort_log, nxrt_log);
    const int ok = same && case_failures == 0;
    printf("%s %s (%zu transcript bytes)\n", ok ? "PASS" : "FAIL", cases[i].name, strlen(ort_log));
    if (getenv("NXRT_CAPI_TRANSCRIPT") != NULL) printf("%s", ort_log);
    passed += ok;
    failed += !ok;
    nxrt_failures += case_failures;
    free(ort_log);
    free(nxrt_log);
  }
  printf("%d cases agree with ONNX Runtime, %d differ; %d nxrt-only checks failed\n", passed,
         failed, nxrt_failures);
  return failed == 0 ? 0 : 1;
}
