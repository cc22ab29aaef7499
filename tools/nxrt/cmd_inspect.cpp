// tools/nxrt/cmd_inspect.cpp: `nxrt inspect MODEL [--json]`: versions, inputs/outputs, op
// histogram, initializers and subgraphs, read without making a session.
#include <iostream>
#include <memory>
#include <string>

#include "exit_codes.h"
#include "nxrt/model_summary.h"
#include "summary_format.h"
#include "verb.h"

namespace nxrt::cli {

void AddInspectCommand(CLI::App& app, int& exit_code) {
  struct Options {
    std::string model;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Print a model's versions, inputs/outputs, op histogram and initializers");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_flag("--json", o->json, "Print one JSON object instead of text");
  cmd->callback([o, &exit_code] {
    Result<ModelSummary> summary = SummarizeModel(o->model);
    if (!summary.ok()) {
      exit_code = Fail("inspect", summary.status());
      return;
    }
    if (o->json) {
      std::cout << SummaryToJson(*summary, o->model).dump(2) << "\n";
    } else {
      std::cout << FormatSummary(*summary, o->model);
    }
  });
}

}  // namespace nxrt::cli
