// tools/nxrt/session_flags.h: the one flag set `run`, `bench`, `claims` and `test-onnx` share,
// with the same names, meanings and defaults (docs/cli.md), and what turns them into
// SessionOptions, inputs and exit codes.
//
//   EPs and session   --ep, --ep-option, --no-fallback, --allow-fallback-warnings, --opt-level,
//                     --disable-pass, --threads, --time-limit-ms, --loop-trip-limit,
//                     --memory-limit-mb (run limits)
//   inputs            --seed, --dim, --shape, --range, --value, --input (nxrt/input_generator.h)
//   output            --json, --stats, --profile
//
// A verb registers the groups it uses (AddSessionFlags); a flag a verb accepts but has no use
// for says so in that verb's help and, when given, in a note on stderr. Verbs added later add
// their flags here, once.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "exit_codes.h"
#include "nxrt/input_generator.h"
#include "nxrt/placement.h"
#include "nxrt/session.h"

namespace nxrt::cli {

struct SessionFlags {
  std::vector<std::string> eps;          // --ep
  std::vector<std::string> ep_options;   // --ep-option
  bool no_fallback = false;              // --no-fallback
  bool allow_fallback_warnings = false;  // --allow-fallback-warnings
  int opt_level = 2;                     // --opt-level
  std::vector<std::string> disabled_passes;  // --disable-pass
  int threads = 0;                       // --threads
  int64_t time_limit_ms = 0;             // --time-limit-ms
  int64_t loop_trip_limit = 0;           // --loop-trip-limit
  int64_t memory_limit_mb = 0;           // --memory-limit-mb
  InputFlags inputs;                     // --seed --dim --shape --range --value --input
  bool json = false;                     // --json
  bool stats = false;                    // --stats
  std::string profile;                   // --profile

  // Set by AddSessionFlags: the verb, its command and the flags it ignores (flag → why).
  std::string verb;
  const CLI::App* command = nullptr;
  std::map<std::string, std::string> ignored;
};

// Groups of flags a verb registers.
enum FlagGroup : unsigned {
  kSessionGroup = 1,  // --ep --ep-option --no-fallback --allow-fallback-warnings --opt-level
                      // --disable-pass --threads --time-limit-ms --loop-trip-limit
                      // --memory-limit-mb
  kInputGroup = 2,    // --seed --dim --shape --range --value --input
  kOutputGroup = 4,   // --json --stats --profile
  kAllGroups = 7,
};

// Registers the groups of `groups` on `cmd` for `verb`. `ignored`: flags the verb accepts but has
// no use for, with the reason ("claims runs nothing"); their help says so.
void AddSessionFlags(CLI::App& cmd, SessionFlags& flags, std::string verb,
                     unsigned groups = kAllGroups, std::map<std::string, std::string> ignored = {});

// Prints "nxrt <verb>: note: --seed has no effect here: <why>" for each ignored flag given.
void NoteIgnoredFlags(const SessionFlags& flags);

// The session options the flags ask for. Errors (kInvalidArgument) come from ParseEpFlags.
Result<SessionOptions> MakeSessionOptions(const SessionFlags& flags);

// Parses --ep values (each a comma-separated list of EPs in priority order) and --ep-option
// values into EPs. An EP is "TYPE" or "TYPE:key=value;key=value" (e.g. "cpu"), or
// "plugin:/path/lib.so[:registration_name][;key=value...]" for an ORT plugin-EP library, whose
// options reach the plugin as session config entries "ep.<ep_name, lower-cased>.<key>". Double
// quotes keep ',' ';' '=' and ':' inside them as text ("claim_ops=\"Add,Mul\"", a backslash
// escapes '"' and '\' there) and are removed. --ep-option "[EP:]KEY=VALUE" sets one option with
// VALUE taken verbatim (commas and all) on the EP its selector names: its 1-based position in the
// list, or its type as written in --ep ("cpu", "plugin:/path/lib.so"); without a selector, the
// first EP.
// Errors (kInvalidArgument) quote the text and say the expected form.
Result<std::vector<EpSpec>> ParseEpFlags(const std::vector<std::string>& eps,
                                         const std::vector<std::string>& ep_options = {});

// With --profile, writes the session's trace (Session::EndProfiling) to its file. Errors:
// kIoError naming the file.
Status WriteProfile(const SessionFlags& flags, Session& session);

// Prints each of `warnings` (EPs dropped) as "nxrt <verb>: warning: ..." and returns
// kExitFallback when there are any and --allow-fallback-warnings was not given, else kExitOk.
ExitCode ReportFallback(const SessionFlags& flags, const std::vector<std::string>& warnings);

// With the CPU EP fallback on, says once per plugin EP of `report` (every EP but the CPU EP) that
// leaves nodes to other EPs, on stderr: "nxrt <verb>: note: ep 'X' ..." when its GetCapability
// failed, when it claimed none of the model's nodes, or when it claimed only some (K of N, over
// every graph, without the nodes the runtime runs itself such as an If no EP claimed). An EP a
// warning of the report names (dropped) is left to ReportFallback. The exit code does not
// change: running such nodes on the CPU EP is what the fallback is for.
void ReportPluginClaims(const SessionFlags& flags, const PlacementReport& report);

// Accepts a number >= 0; otherwise the message names the value and the fix ("'-1' is negative;
// use 0 or more"), where CLI::NonNegativeNumber prints the range up to DBL_MAX.
CLI::Validator NonNegative();

}  // namespace nxrt::cli
