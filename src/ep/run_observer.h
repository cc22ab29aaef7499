// ep/run_observer.h: an optional EP capability: hearing when a session run starts and ends.
//
// Layer: nxrt_ep (internal). ORT plugin EPs implement it to forward OrtEp::OnRunStart/OnRunEnd
// and to serialise runs when the plugin cannot take concurrent ones. The session calls
// OnRunStart on every EP that has the extension, in priority order, before a run's first kernel,
// and OnRunEnd on each EP whose OnRunStart succeeded, in reverse order, after the run (also when
// it failed), on the same thread.
#pragma once

#include <string_view>

#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::ep {

class RunObserver : public EpExtension {
 public:
  static constexpr std::string_view kExtensionName = "nxrt.run_observer";
  // Errors: any; the run fails with it (OnRunEnd is not called for this EP then).
  virtual Status OnRunStart() = 0;
  // Errors: any; a successful run then fails with it.
  virtual Status OnRunEnd() = 0;
};

}  // namespace nxrt::ep
