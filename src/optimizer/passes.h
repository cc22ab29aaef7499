// optimizer/passes.h: constructors of the graph passes, one per file in optimizer/passes/.
//
// Layer: nxrt_optimizer, internal. optimizer.cpp lists them in run order; tests build a single
// pass to check a graph before and after it.
#pragma once

#include <memory>

#include "optimizer/optimizer.h"

namespace nxrt::opt {

std::unique_ptr<GraphPass> MakeGradientExpansionPass();
std::unique_ptr<GraphPass> MakeConstantFoldingPass();
std::unique_ptr<GraphPass> MakeShapeFoldingPass();
std::unique_ptr<GraphPass> MakeDimFoldingPass();
std::unique_ptr<GraphPass> MakeIdentityEliminationPass();
std::unique_ptr<GraphPass> MakeConstantSharingPass();
std::unique_ptr<GraphPass> MakeCommonSubexpressionEliminationPass();
std::unique_ptr<GraphPass> MakeDeadNodeEliminationPass();
std::unique_ptr<GraphPass> MakeInsertCastPass();
std::unique_ptr<GraphPass> MakeConvBnFoldingPass();
std::unique_ptr<GraphPass> MakeMatMulAddToGemmPass();
std::unique_ptr<GraphPass> MakeReshapeFusionPass();
std::unique_ptr<GraphPass> MakeTransposeOptimizerPass();
std::unique_ptr<GraphPass> MakeQdqFusionPass();
std::unique_ptr<GraphPass> MakeMatMulIntegerToFloatFusionPass();
std::unique_ptr<GraphPass> MakeLayerNormFusionPass();
std::unique_ptr<GraphPass> MakeGeluFusionPass();
std::unique_ptr<GraphPass> MakeMatMulActivationFusionPass();
std::unique_ptr<GraphPass> MakeConvActivationFusionPass();
std::unique_ptr<GraphPass> MakeNhwcLayoutPass();
std::unique_ptr<GraphPass> MakeQuickGeluFusionPass();

}  // namespace nxrt::opt
