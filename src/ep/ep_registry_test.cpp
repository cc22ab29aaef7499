// ep/ep_registry_test.cpp: names, priority order, initialization and shutdown of the EP list.
#include "ep/ep_registry.h"

#include <gtest/gtest.h>

namespace nxrt::ep {
namespace {

// Records Initialize/Shutdown calls into a shared log; fails Initialize when asked to.
class LoggingEp : public ExecutionProvider {
 public:
  LoggingEp(std::string name, std::vector<std::string>* log, bool fail = false)
      : ExecutionProvider(std::move(name), Device{}), log_(log), fail_(fail) {}
  Status Initialize(const EpConfig& config) override {
    log_->push_back("init " + type_name() + " " + config.ToString());
    if (fail_) return Status(StatusCode::kUnsupported, "device 3 is absent");
    return Status::Ok();
  }
  void Shutdown() override { log_->push_back("shutdown " + type_name()); }
  KernelMatch Supports(const NodeInfo&) const override { return KernelMatch::Supported(); }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kNotImplemented, "no kernels");
  }

 private:
  std::vector<std::string>* log_;
  bool fail_;
};

TEST(EpRegistryTest, KeepsPriorityOrderAndUniqueNames) {
  std::vector<std::string> log;
  EpRegistry registry;
  auto cpu = std::make_shared<LoggingEp>("cpu", &log);
  ASSERT_TRUE(registry.Add(std::make_shared<LoggingEp>("gpu", &log), {{"device_id", "1"}}).ok());
  ASSERT_TRUE(registry.Add(cpu).ok());
  Status dup = registry.Add(std::make_shared<LoggingEp>("cpu", &log));
  EXPECT_EQ(dup.message(),
            "an ep named 'cpu' is already registered; give this one another name, e.g. 'cpu_2'");
  ASSERT_TRUE(registry.Add(std::make_shared<LoggingEp>("cpu", &log), {}, "cpu_numa1").ok());
  ASSERT_EQ(registry.size(), 3u);
  EXPECT_EQ(registry.entries()[0].name, "gpu");
  EXPECT_EQ(registry.entries()[1].name, "cpu");
  EXPECT_EQ(registry.entries()[2].name, "cpu_numa1");
  EXPECT_EQ(registry.Find("cpu")->provider.get(), cpu.get());
  EXPECT_EQ(registry.Find("npu"), nullptr);
}

TEST(EpRegistryTest, RejectsBadNamesAndNullProviders) {
  std::vector<std::string> log;
  EpRegistry registry;
  EXPECT_EQ(registry.Add(nullptr, {}, "x").message(),
            "cannot register a null execution provider as 'x'");
  EXPECT_EQ(registry.Add(std::make_shared<LoggingEp>("cpu", &log), {}, "my cpu").message(),
            "ep name 'my cpu' contains whitespace, ',' or '='; use letters, digits, '_', '-', "
            "'.' or ':'");
  EXPECT_EQ(registry.Add(std::make_shared<LoggingEp>("", &log)).message(),
            "an execution provider needs a name; its type name is empty");
  EXPECT_EQ(registry.size(), 0u);
}

TEST(EpRegistryTest, InitializesInOrderAndShutsDownInReverse) {
  std::vector<std::string> log;
  {
    EpRegistry registry;
    ASSERT_TRUE(registry.Add(std::make_shared<LoggingEp>("gpu", &log), {{"device_id", "1"}}).ok());
    ASSERT_TRUE(registry.Add(std::make_shared<LoggingEp>("cpu", &log)).ok());
    ASSERT_TRUE(registry.InitializeAll().ok());
    EXPECT_TRUE(registry.initialized());
    EXPECT_EQ(registry.Add(std::make_shared<LoggingEp>("npu", &log)).message(),
              "cannot add ep 'npu' after the registry was initialized");
  }
  EXPECT_EQ(log, (std::vector<std::string>{"init gpu device_id=1", "init cpu ", "shutdown cpu",
                                           "shutdown gpu"}));
}

TEST(EpRegistryTest, AFailedInitializeShutsDownTheOthersAndNamesTheEp) {
  std::vector<std::string> log;
  EpRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_shared<LoggingEp>("cpu", &log)).ok());
  ASSERT_TRUE(registry.Add(std::make_shared<LoggingEp>("gpu", &log, true), {}, "gpu3").ok());
  Status s = registry.InitializeAll();
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(), "ep 'gpu3': device 3 is absent");
  EXPECT_FALSE(registry.initialized());
  EXPECT_EQ(log, (std::vector<std::string>{"init cpu ", "init gpu ", "shutdown cpu"}));
}

TEST(EpRegistryTest, TheDefaultInitializeRejectsOptions) {
  class Plain : public ExecutionProvider {
   public:
    Plain() : ExecutionProvider("plain", Device{}) {}
    KernelMatch Supports(const NodeInfo&) const override { return KernelMatch::Supported(); }
    Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
      return node.Error(StatusCode::kNotImplemented, "no kernels");
    }
  };
  EpRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_shared<Plain>(), {{"threads", "2"}}).ok());
  EXPECT_EQ(registry.InitializeAll().message(),
            "ep 'plain': unknown option 'threads' (known: none)");
}

}  // namespace
}  // namespace nxrt::ep
