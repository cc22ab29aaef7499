// tools/nxrt/session_flags.cpp: see session_flags.h.
#include "session_flags.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>

namespace nxrt::cli {
namespace {

// `text` split at each `separator` outside double quotes; quotes are kept (Unquote removes
// them). Errors: an unbalanced quote.
Result<std::vector<std::string>> SplitOutsideQuotes(const std::string& text, char separator,
                                                    std::string_view flag) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '\\' && i + 1 < text.size()) {
      parts.back() += c;
      parts.back() += text[++i];
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (c == separator && !quoted) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  if (quoted) {
    return MakeStatus(StatusCode::kInvalidArgument, flag, " '", text,
                      "' has an unclosed '\"'; close the quoted part");
  }
  return parts;
}

// The position of the first `c` outside double quotes, or npos.
size_t FindOutsideQuotes(const std::string& text, char c) {
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (quoted && text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] == '"') quoted = !quoted;
    if (text[i] == c && !quoted) return i;
  }
  return std::string::npos;
}

// `text` without its double quotes; inside them, "\x" is x.
std::string Unquote(const std::string& text) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (quoted && text[i] == '\\' && i + 1 < text.size()) {
      out += text[++i];
    } else if (text[i] == '"') {
      quoted = !quoted;
    } else {
      out += text[i];
    }
  }
  return out;
}

// "key=value;key=value" into `config`.
Status ParseOptions(const std::string& text, const std::string& options, EpConfig& config) {
  NXRT_ASSIGN_OR_RETURN(std::vector<std::string> items, SplitOutsideQuotes(options, ';', "--ep"));
  for (const std::string& item : items) {
    if (item.empty()) continue;
    const size_t eq = FindOutsideQuotes(item, '=');
    if (eq == std::string::npos || eq == 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text, "': option '", item,
                        "' is not of the form key=value");
    }
    config.Set(Unquote(item.substr(0, eq)), Unquote(item.substr(eq + 1)));
  }
  return Status::Ok();
}

Result<EpSpec> ParseOne(const std::string& text) {
  EpSpec spec;
  // A plugin's path may hold ':' (its registration name follows one): only ';' ends the type.
  const size_t end = FindOutsideQuotes(text, text.starts_with("plugin:") ? ';' : ':');
  spec.type = Unquote(text.substr(0, end));
  if (spec.type == "plugin:") {
    return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text,
                      "' names no library; use plugin:/path/lib.so[:registration_name]");
  }
  if (spec.type.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text,
                      "' names no EP; use TYPE or TYPE:key=value;key=value, e.g. cpu, or "
                      "plugin:/path/lib.so");
  }
  if (end != std::string::npos) {
    NXRT_RETURN_IF_ERROR(ParseOptions(text, text.substr(end + 1), spec.config));
  }
  return spec;
}

// Applies one --ep-option "[EP:]KEY=VALUE" to `specs`.
Status ApplyEpOption(const std::string& text, std::vector<EpSpec>& specs) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "--ep-option '", text,
                      "' is not of the form [EP:]KEY=VALUE, e.g. --ep-option claim_ops=Add,Mul");
  }
  const std::string left = text.substr(0, eq);
  const size_t colon = left.rfind(':');
  const std::string selector = colon == std::string::npos ? "" : left.substr(0, colon);
  const std::string key = left.substr(colon == std::string::npos ? 0 : colon + 1);
  if (key.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "--ep-option '", text, "' names no key");
  }
  EpSpec* target = nullptr;
  if (selector.empty()) {
    target = &specs.front();
  } else if (selector.find_first_not_of("0123456789") == std::string::npos) {
    const size_t position = std::stoul(selector);
    if (position >= 1 && position <= specs.size()) target = &specs[position - 1];
  } else {
    for (EpSpec& spec : specs) {
      if (spec.type == selector) target = &spec;
    }
  }
  if (target == nullptr) {
    std::string listed;
    for (size_t i = 0; i < specs.size(); ++i) {
      listed += (i ? ", " : "") + std::to_string(i + 1) + " = " + specs[i].type;
    }
    return MakeStatus(StatusCode::kInvalidArgument, "--ep-option '", text, "': '", selector,
                      "' names no EP of the list (", listed, "); use a position or a type");
  }
  target->config.Set(key, text.substr(eq + 1));
  return Status::Ok();
}

}  // namespace

Result<std::vector<EpSpec>> ParseEpFlags(const std::vector<std::string>& eps,
                                         const std::vector<std::string>& ep_options) {
  std::vector<EpSpec> specs;
  for (const std::string& value : eps) {
    NXRT_ASSIGN_OR_RETURN(std::vector<std::string> items, SplitOutsideQuotes(value, ',', "--ep"));
    for (const std::string& item : items) {
      if (item.empty()) {
        return MakeStatus(StatusCode::kInvalidArgument, "--ep '", value,
                          "' has an empty entry; separate EPs with single commas");
      }
      NXRT_ASSIGN_OR_RETURN(EpSpec spec, ParseOne(item));
      specs.push_back(std::move(spec));
    }
  }
  if (specs.empty() && !ep_options.empty()) specs.push_back(EpSpec{"cpu", {}, {}, nullptr});
  for (const std::string& option : ep_options) NXRT_RETURN_IF_ERROR(ApplyEpOption(option, specs));
  return specs;
}

CLI::Validator NonNegative() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double number = 0;
        if (!CLI::detail::lexical_cast(value, number)) {
          return "'" + value + "' is not a number; use 0 or more";
        }
        if (number < 0) return "'" + value + "' is negative; use 0 or more";
        return {};
      },
      "NONNEGATIVE");
}

void AddSessionFlags(CLI::App& cmd, SessionFlags& flags, std::string verb, unsigned groups,
                     std::map<std::string, std::string> ignored) {
  flags.verb = std::move(verb);
  flags.command = &cmd;
  flags.ignored = std::move(ignored);
  auto help = [&](const std::string& name, std::string text) {
    auto it = flags.ignored.find(name);
    if (it != flags.ignored.end()) text += " (no effect on " + flags.verb + ": " + it->second + ")";
    return text;
  };
  if (groups & kSessionGroup) {
    const std::string group = "EPs and session (shared by run, bench, claims, test-onnx)";
    cmd.add_option("--ep", flags.eps,
                   help("--ep", "Execution providers in priority order, comma-separated: cpu, "
                                "plugin:/path/lib.so[:registration_name][;key=value...]; double "
                                "quotes keep commas in a value (default cpu)"))
        ->group(group);
    cmd.add_option("--ep-option", flags.ep_options,
                   help("--ep-option", "[EP:]KEY=VALUE: an option of the first EP, or of the EP "
                                       "at that position or of that type; VALUE taken as is, "
                                       "commas included (repeatable)"))
        ->group(group);
    cmd.add_flag("--no-fallback", flags.no_fallback,
                 help("--no-fallback", "Fail instead of letting the CPU EP run nodes the listed "
                                       "EPs do not take, or nodes of an EP that fails"))
        ->group(group);
    cmd.add_flag("--allow-fallback-warnings", flags.allow_fallback_warnings,
                 help("--allow-fallback-warnings",
                      "Exit 0 when a listed EP was dropped and the CPU EP ran its nodes "
                      "(otherwise exit 3)"))
        ->group(group);
    cmd.add_option("--opt-level", flags.opt_level,
                   help("--opt-level", "Graph optimisation: 0 none, 1 basic (standard ONNX "
                                       "rewrites), 2 extended (also nxrt's fused operators; CPU "
                                       "EP only)"))
        ->check(CLI::Validator(
            [](std::string& value) -> std::string {
              if (value == "0" || value == "1" || value == "2") return {};
              return "'" + value + "' is not an optimisation level; use 0 (none), 1 (basic) or "
                     "2 (extended)";
            },
            "0|1|2"))
        ->capture_default_str()
        ->group(group);
    cmd.add_option("--disable-pass", flags.disabled_passes,
                   help("--disable-pass", "Optimizer pass not to run, e.g. conv_bn_folding "
                                          "(repeatable, comma-separated)"))
        ->delimiter(',')
        ->group(group);
    cmd.add_option("--threads", flags.threads,
                   help("--threads", "Intra-op threads per session (0 = one per core)"))
        ->check(NonNegative())
        ->capture_default_str()
        ->group(group);
    cmd.add_option("--time-limit-ms", flags.time_limit_ms,
                   help("--time-limit-ms", "Wall-clock limit of each run in ms (0 = none); a "
                                           "run past it stops with 'deadline exceeded'"))
        ->check(NonNegative())
        ->capture_default_str()
        ->group(group);
    cmd.add_option("--loop-trip-limit", flags.loop_trip_limit,
                   help("--loop-trip-limit", "Iterations one Loop node may run in a run (0 = "
                                             "no limit); past it the run stops with 'deadline "
                                             "exceeded'"))
        ->check(NonNegative())
        ->capture_default_str()
        ->group(group);
    cmd.add_option("--memory-limit-mb", flags.memory_limit_mb,
                   help("--memory-limit-mb", "MiB of tensors one run may hold at once (0 = no "
                                             "limit); past it the run stops with 'out of "
                                             "memory' naming the node"))
        ->check(NonNegative())
        ->capture_default_str()
        ->group(group);
  }
  if (groups & kInputGroup) {
    const std::string group = "Inputs (shared by run, bench, claims, test-onnx)";
    const size_t first = cmd.get_options().size();
    AddInputFlags(cmd, flags.inputs);
    for (size_t i = first; i < cmd.get_options().size(); ++i) {
      CLI::Option* option = cmd.get_options()[i];
      option->group(group);
      option->description(help(option->get_name(), option->get_description()));
    }
  }
  if (groups & kOutputGroup) {
    const std::string group = "Output (shared by run, bench, claims, test-onnx)";
    cmd.add_flag("--json", flags.json, help("--json", "Print one JSON object instead of text"))
        ->group(group);
    cmd.add_flag("--stats", flags.stats,
                 help("--stats", "Print time by op type and per step, slowest first, with "
                                 "percentages; bodies of If/Loop/Scan broken down"))
        ->group(group);
    cmd.add_option("--profile", flags.profile,
                   help("--profile", "FILE: write a Chrome trace (Perfetto, chrome://tracing): a "
                                     "span per run and per step with shapes"))
        ->group(group);
  }
}

void NoteIgnoredFlags(const SessionFlags& flags) {
  for (const auto& [name, why] : flags.ignored) {
    if (flags.command != nullptr && flags.command->count(name) > 0) {
      std::cerr << "nxrt " << flags.verb << ": note: " << name << " has no effect here: " << why
                << "\n";
    }
  }
}

Result<SessionOptions> MakeSessionOptions(const SessionFlags& flags) {
  SessionOptions options;
  NXRT_ASSIGN_OR_RETURN(options.providers, ParseEpFlags(flags.eps, flags.ep_options));
  options.allow_fallback = !flags.no_fallback;
  options.intra_op_threads = flags.threads;
  options.run_time_limit_ms = flags.time_limit_ms;
  options.loop_trip_limit = flags.loop_trip_limit;
  constexpr int64_t kMiB = int64_t{1} << 20;
  if (flags.memory_limit_mb > std::numeric_limits<int64_t>::max() / kMiB) {
    return MakeStatus(StatusCode::kInvalidArgument, "--memory-limit-mb ", flags.memory_limit_mb,
                      " is too large: at most ", std::numeric_limits<int64_t>::max() / kMiB,
                      " MiB; use 0 for no limit");
  }
  options.run_memory_limit_bytes = flags.memory_limit_mb * kMiB;
  options.optimization_level = flags.opt_level;
  options.disabled_optimizers = flags.disabled_passes;
  options.enable_profiling = !flags.profile.empty();
  return options;
}

Status WriteProfile(const SessionFlags& flags, Session& session) {
  if (flags.profile.empty()) return Status::Ok();
  NXRT_ASSIGN_OR_RETURN(std::string trace, session.EndProfiling());
  std::ofstream file(flags.profile);
  file << trace;
  file.close();
  if (!file) {
    return MakeStatus(StatusCode::kIoError, "could not write the profile to '", flags.profile,
                      "'; check that its folder exists and is writable");
  }
  return Status::Ok();
}

ExitCode ReportFallback(const SessionFlags& flags, const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::cerr << "nxrt " << flags.verb << ": warning: " << warning << "\n";
  }
  if (warnings.empty()) return kExitOk;
  if (flags.allow_fallback_warnings) return kExitOk;
  std::cerr << "nxrt " << flags.verb << ": an EP that was asked for was dropped (exit "
            << kExitFallback << "); pass --allow-fallback-warnings to accept the fallback, or "
            << "--no-fallback to make it an error\n";
  return kExitFallback;
}

void ReportPluginClaims(const SessionFlags& flags, const PlacementReport& report) {
  if (flags.no_fallback || report.graphs.empty()) return;
  constexpr std::string_view kCpu = "cpu";
  constexpr std::string_view kProposeFailed = "failed to propose claims: ";
  int64_t offered = 0;  // nodes an EP may claim, over every graph
  std::map<std::string, int64_t> claimed;
  std::map<std::string, std::string> failed;  // EP → its first GetCapability failure
  for (const GraphPlacement& graph : report.graphs) {
    offered += graph.node_count - static_cast<int64_t>(graph.runtime_nodes.size());
    for (const PlacementClaim& claim : graph.claims) {
      claimed[claim.ep] += static_cast<int64_t>(claim.nodes.size());
    }
    for (const RejectedClaim& rejected : graph.rejected_claims) {
      if (rejected.reason.starts_with(kProposeFailed) && !failed.contains(rejected.ep)) {
        failed[rejected.ep] = rejected.reason.substr(kProposeFailed.size());
      }
    }
  }
  const std::string prefix = "nxrt " + flags.verb + ": note: ep '";
  auto dropped = [&](const std::string& ep) {  // said already, as a warning
    return std::any_of(report.warnings.begin(), report.warnings.end(), [&](const std::string& w) {
      return w.find("ep '" + ep + "'") != std::string::npos;
    });
  };
  for (const std::string& ep : report.graphs.front().eps) {
    if (ep == kCpu || dropped(ep)) continue;
    const int64_t k = claimed[ep];
    const int64_t cpu = claimed[std::string(kCpu)];
    if (auto it = failed.find(ep); it != failed.end()) {
      std::cerr << prefix << ep << "' claimed " << k << " of the model's " << offered
                << " nodes: its GetCapability failed (" << it->second << "); " << cpu
                << " run on the CPU EP\n";
    } else if (k == 0) {
      std::cerr << prefix << ep << "' claimed none of the model's " << offered << " nodes; "
                << cpu << " run on the CPU EP (`nxrt claims` shows each node's reason)\n";
    } else if (k < offered) {
      std::cerr << prefix << ep << "' claimed " << k << " of the model's " << offered
                << " nodes; " << cpu << " run on the CPU EP (`nxrt claims` shows each node's "
                << "reason)\n";
    }
  }
}

}  // namespace nxrt::cli
