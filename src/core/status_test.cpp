// core/status_test.cpp: unit tests of Status, Result and the error macros (nxrt/status.h).
#include "nxrt/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace nxrt {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "ok");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, ErrorKeepsCodeAndMessage) {
  Status s(StatusCode::kInvalidModel, "node 'a' has no inputs");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  EXPECT_EQ(s.message(), "node 'a' has no inputs");
  EXPECT_EQ(s.ToString(), "invalid model: node 'a' has no inputs");
}

TEST(StatusTest, ErrorWithOkCodeStaysAnError) {
  Status s(StatusCode::kOk, "oops");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("oops"), std::string::npos);
}

TEST(StatusTest, CodeNamesAreDistinctAndLowerCase) {
  EXPECT_EQ(StatusCodeName(StatusCode::kOk), "ok");
  EXPECT_EQ(StatusCodeName(StatusCode::kInvalidArgument), "invalid argument");
  EXPECT_EQ(StatusCodeName(StatusCode::kInvalidModel), "invalid model");
  EXPECT_EQ(StatusCodeName(StatusCode::kNotFound), "not found");
  EXPECT_EQ(StatusCodeName(StatusCode::kNotImplemented), "not implemented");
  EXPECT_EQ(StatusCodeName(StatusCode::kUnsupported), "unsupported");
  EXPECT_EQ(StatusCodeName(StatusCode::kIoError), "i/o error");
  EXPECT_EQ(StatusCodeName(StatusCode::kFailedPrecondition), "failed precondition");
  EXPECT_EQ(StatusCodeName(StatusCode::kRuntimeError), "runtime error");
  EXPECT_EQ(StatusCodeName(StatusCode::kOutOfMemory), "out of memory");
  EXPECT_EQ(StatusCodeName(StatusCode::kInternal), "internal error");
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(99)), "unknown status code");
}

TEST(StatusTest, WithContextPrefixesOutermostFirst) {
  Status inner(StatusCode::kIoError, "cannot open 'w.bin'");
  Status outer = inner.WithContext("initializer 'w'").WithContext("model 'm.onnx'");
  EXPECT_EQ(outer.code(), StatusCode::kIoError);
  EXPECT_EQ(outer.message(), "model 'm.onnx': initializer 'w': cannot open 'w.bin'");
  // The original is unchanged: statuses are values.
  EXPECT_EQ(inner.message(), "cannot open 'w.bin'");
  EXPECT_TRUE(Status::Ok().WithContext("anything").ok());
  // A context the message already starts with is not repeated; a different one still is.
  Status named(StatusCode::kInvalidModel, "node 'c' (Conv, opset 17): bad group");
  EXPECT_EQ(named.WithContext("node 'c' (Conv, opset 17)").message(),
            "node 'c' (Conv, opset 17): bad group");
  EXPECT_EQ(named.WithContext("node 'c'").message(),
            "node 'c': node 'c' (Conv, opset 17): bad group");
}

TEST(StatusTest, CopiesKeepCodeAndMessage) {
  Status a(StatusCode::kNotFound, "x");
  Status b = a;
  EXPECT_EQ(b.code(), StatusCode::kNotFound);
  EXPECT_EQ(b.message(), "x");
}

TEST(StatusTest, MakeStatusConcatenatesPieces) {
  Status s =
      MakeStatus(StatusCode::kInvalidArgument, "input ", 1, " has rank ", 3, ", expected ", 4.5);
  EXPECT_EQ(s.message(), "input 1 has rank 3, expected 4.5");
}

Result<int> Half(int v) {
  if (v % 2 != 0) return MakeStatus(StatusCode::kInvalidArgument, v, " is odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  NXRT_ASSIGN_OR_RETURN(int h, Half(v));
  NXRT_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int v) {
  NXRT_RETURN_IF_ERROR(Half(v));
  return Status::Ok();
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> good = Half(8);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 4);
  EXPECT_TRUE(good.status().ok());

  Result<int> bad = Half(7);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "7 is odd");
}

TEST(ResultTest, MacrosPropagateTheFirstError) {
  EXPECT_EQ(*Quarter(12), 3);
  Result<int> r = Quarter(6);  // 6 -> 3, and 3 is odd
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
  EXPECT_TRUE(CheckEven(2).ok());
  EXPECT_EQ(CheckEven(5).message(), "5 is odd");
}

TEST(ResultTest, MovesOutMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(42);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 42);
}

}  // namespace
}  // namespace nxrt
