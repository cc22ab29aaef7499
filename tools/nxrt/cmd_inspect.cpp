// tools/nxrt/cmd_inspect.cpp: `nxrt inspect MODEL [--json]`.
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "nxrt/model_summary.h"
#include "summary_format.h"

namespace nxrt::cli {

void AddInspectCommand(CLI::App& app, int& exit_code) {
  struct Options {
    std::string model;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Print a model's versions, inputs/outputs, op histogram and initializers");
  cmd->add_option("MODEL", opts->model, "Path of the .onnx file")->required();
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  cmd->callback([opts, &exit_code] {
    Result<ModelSummary> summary = SummarizeModel(opts->model);
    if (!summary.ok()) {
      std::cerr << "nxrt inspect: " << summary.status().message() << "\n";
      exit_code = 1;
      return;
    }
    if (opts->json) {
      std::cout << SummaryToJson(*summary, opts->model).dump(2) << "\n";
    } else {
      std::cout << FormatSummary(*summary, opts->model);
    }
  });
}

}  // namespace nxrt::cli
