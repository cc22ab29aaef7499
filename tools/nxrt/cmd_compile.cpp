// tools/nxrt/cmd_compile.cpp: `nxrt compile MODEL --ep plugin:PATH -o OUT.onnx [--embed-mode 0|1]`:
// the model with each fused group a plugin EP compiled replaced by the com.microsoft EPContext
// node the plugin returned (nxrt::CompileModel, nxrt/compile.h; ONNX Runtime's compile API).
// --embed-mode 1 asks the plugins to put their context inside the nodes, 0 into files beside
// OUT. The graph optimisation level defaults to 0, as ORT's compile API (ORT_DISABLE_ALL).
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "nxrt/compile.h"
#include "session_flags.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

struct CompileFlags {
  std::string model;
  std::string output;
  int embed_mode = 0;
  SessionFlags flags;
};

int Compile(const CompileFlags& c) {
  const SessionFlags& f = c.flags;
  NoteIgnoredFlags(f);
  Result<SessionOptions> options = MakeSessionOptions(f);
  if (!options.ok()) return Fail("compile", options.status());
  CompileOptions compile;
  compile.output_path = c.output;
  compile.embed_context = c.embed_mode == 1;
  Result<CompileResult> compiled = CompileModel(c.model, *options, compile);
  if (!compiled.ok()) return Fail("compile", compiled.status());
  const ExitCode fallback = ReportFallback(f, compiled->warnings);
  if (compiled->ep_context_nodes == 0) {
    std::cerr << "nxrt compile: warning: no plugin EP compiled any node; " << compiled->output_path
              << " is the model unchanged (check `nxrt claims` with the same --ep)\n";
  }
  if (f.json) {
    nlohmann::ordered_json j;
    j["model"] = c.model;
    j["output"] = compiled->output_path;
    j["embed_mode"] = c.embed_mode;
    j["ep_context_nodes"] = compiled->ep_context_nodes;
    j["compatibility_info"] = nlohmann::ordered_json::object();
    for (const auto& [ep, info] : compiled->compatibility_info) j["compatibility_info"][ep] = info;
    std::cout << j.dump(2) << "\n";
    return fallback;
  }
  std::cout << "compiled " << c.model << ": " << compiled->ep_context_nodes
            << " EPContext node(s), embed mode " << c.embed_mode << "\n";
  for (const auto& [ep, info] : compiled->compatibility_info) {
    std::cout << "  ep_compatibility_info." << ep << " = " << info << "\n";
  }
  std::cout << "wrote " << compiled->output_path << "\n";
  return fallback;
}

}  // namespace

void AddCompileCommand(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<CompileFlags>();
  c->flags.opt_level = 0;
  CLI::App* cmd = app.add_subcommand(
      "compile", "Write the model with each fused group a plugin EP compiled as its EPContext node");
  cmd->add_option("MODEL", c->model, "Path of the .onnx file")->required();
  cmd->add_option("-o,--output", c->output,
                  "Path of the EPContext model to write (default: MODEL's folder, "
                  "<stem>_ctx.onnx)");
  cmd->add_option("--embed-mode", c->embed_mode,
                  "1: the plugins put their compiled context inside the EPContext nodes; 0: in "
                  "files beside the output")
      ->check(CLI::IsMember({0, 1}))
      ->capture_default_str();
  AddSessionFlags(*cmd, c->flags, "compile", kSessionGroup,
                  {{"--threads", "compile runs nothing"}});
  cmd->add_flag("--json", c->flags.json,
                "Print one JSON object (output, EPContext nodes, compatibility info) instead of "
                "text");
  cmd->callback([c, &exit_code] { exit_code = Compile(*c); });
}

}  // namespace nxrt::cli
