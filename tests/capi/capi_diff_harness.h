/* tests/capi/capi_diff_harness.h: the harness of the differential C API suite
 * (capi_diff_test.c): one case runs against ONNX Runtime 1.30's library and against nxrt's, each
 * in a child process of its own, and writes a transcript of what it observed (status codes,
 * values, metadata); the two transcripts must be equal line for line. ORT is the oracle.
 *
 * Plain C (C11). A case is a function `void case_x(Ctx* c)` that calls the C API through c->api
 * and records observations with rec(), rec_status() and the dump_* helpers. Checks that only
 * make sense for nxrt (its messages name the argument) go through nxrt_check(), which counts
 * failures apart from the transcript.
 */
#ifndef NXRT_TESTS_CAPI_CAPI_DIFF_HARNESS_H_
#define NXRT_TESTS_CAPI_CAPI_DIFF_HARNESS_H_

#include <stddef.h>
#include <stdint.h>

#include <onnxruntime_c_api.h>

typedef struct Ctx {
  const OrtApi* api;
  const OrtApiBase* base;
  const char* models;     /* folder of make_capi_models.py's models */
  const char* plugin;     /* the example plugin EP library */
  const char* work_dir;   /* a scratch folder (profiles) */
  int is_nxrt;            /* 1 while running against nxrt's library */
  OrtAllocator* allocator;
  int fd;                 /* where the running case writes its transcript, line by line */
  char last_message[1024];  /* message of the last non-ok status */
  int nxrt_failures;        /* nxrt_check()s that failed */
} Ctx;

/* Appends one line (printf format) to the transcript. */
void rec(Ctx* c, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records "<what>: <ORT error code name>", keeps the message, releases the status. Returns 1
 * when the status is ok (NULL). */
int rec_status(Ctx* c, const char* what, OrtStatus* status);
/* Fails the case for nxrt only (not in the transcript) unless `condition` holds. */
void nxrt_check(Ctx* c, int condition, const char* what);
/* nxrt_check that the last status message contains `needle`. */
void nxrt_check_message(Ctx* c, const char* needle);

/* The path of model `name` in c->models (a static buffer per call site's slot 0..3). */
const char* model_path(Ctx* c, const char* name, int slot);

/* "ORT_INVALID_ARGUMENT", ... */
const char* code_name(OrtErrorCode code);
/* "float", "int64", ... for element types 0..25. */
const char* element_name(ONNXTensorElementDataType type);
/* Bytes per element, 0 for string, undefined and the packed 2- and 4-bit types. */
size_t element_size(ONNXTensorElementDataType type);

/* Records a value: its ONNX type, and for tensors the element type, dims and contents (numbers
 * printed exactly, strings quoted), for sequences and maps every element. */
void dump_value(Ctx* c, const char* label, const OrtValue* value);
/* Records a type info: ONNX type, element type, dims and symbolic dims, contained types. */
void dump_type_info(Ctx* c, const char* label, const OrtTypeInfo* info);

/* A new tensor value made with the default allocator, filled from `data` (`bytes` long; strings
 * are given as an array of C strings). NULL (recorded) on failure. */
OrtValue* make_tensor(Ctx* c, ONNXTensorElementDataType type, const int64_t* shape, size_t rank,
                      const void* data, size_t bytes);
/* A session of model `name` with `options` (NULL: fresh defaults). NULL (recorded) on
 * failure. */
OrtSession* open_session(Ctx* c, OrtEnv* env, const char* name, OrtSessionOptions* options);
/* Runs `session` and records the status and each output. */
void run_and_dump(Ctx* c, OrtSession* session, const OrtRunOptions* run_options,
                  const char* const* input_names, const OrtValue* const* inputs, size_t n_inputs,
                  const char* const* output_names, size_t n_outputs);

typedef struct Case {
  const char* name;
  void (*fn)(Ctx* c);
} Case;

/* Runs every case against both libraries; prints one line per case and the differences. Returns
 * the process exit code (0 when every transcript matches and every nxrt check passed). */
int run_cases(const Case* cases, size_t n_cases, int argc, char** argv);

#endif /* NXRT_TESTS_CAPI_CAPI_DIFF_HARNESS_H_ */
